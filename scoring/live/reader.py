"""The reader: one thread a worker process that reads the versions of the games and tables its
streams watch, in one query, and wakes the streams whose version moved: most reads only what
moved, a full read every second (docs/architecture.md, "Live updates")."""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Collection, Iterable

from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)

READ_EVERY = 0.1  # seconds between two reads of the versions
# Seconds between two full reads of every watched version; the reads between them read only
# what moved (versions' `since`). Only a full read finds what moved down or went: a game or
# table deleted, a version set below what it was (a restore, an update by hand), a commit that
# came later than SLACK after its version was taken. Those are rare, and are told within a
# second, as soon as a page without a stream trusts the reader (FRESH_FOR); meanwhile the reads
# cost a tenth of reading everything every READ_EVERY.
FULL_EVERY = 1.0
# How far below the clock at the previous read's start a read of what moved starts, in ms: a
# change takes its version (the clock, clock_version) before it commits, and other servers'
# clocks may be a little behind this one's. A move beyond it waits for the full read.
SLACK = 5_000
CHANNEL = "rami_live"  # PostgreSQL's notices of a version that moved
IDLE_AFTER = 5.0  # seconds without a stream before the reader stops
# Seconds a checked game or table is still read after its last check (Reader.follow): a page
# without a stream checks every 2 s.
FOLLOW_FOR = 10.0
# What the reader knows is taken as the version for this long after its read (a read is due
# every READ_EVERY; on PostgreSQL sooner, on a notice): longer, and it is behind.
FRESH_FOR = 1.0
# A watched game or table named by its id, on a page drawn before keys named a token.
_BY_ID = re.compile(r"[1-9][0-9]{0,18}")
# The version the reader knows of a game or table that is not there (deleted, or not yet back
# from a backup): its streams say so once ("gone"), and tell its version when it is back. Below
# every version a row can have: a table that has had no change yet is at version 0.
GONE = -1


def versions(
    watched: Iterable[str], since: int | None = None, among: Collection[str] = ()
) -> dict[str, int]:
    """The current version of each watched game ("g<token>": its version) and table
    ("t<token>": the newest of the table's own and its games': a save, a new or finished game
    at the table moves it), in one query. A game or table that is not there is left out.

    With `since`, the same query also reads every game and table whose version is at `since`
    or above (an index's range, whatever is watched), and tells those of them that are in
    `among`: what moved since a read that started at `since` (Reader.read_once). For a table
    in `among` that is the newest of its rows at `since` or above, and that is its version:
    every row at `since` or above is read, so their newest is the table's newest whenever the
    table's newest is at `since` or above, and a table with no such row is left out."""
    from scoring.models import Game, Table

    by_id: dict[str, list] = {"g": [], "t": []}
    by_token: dict[str, list] = {"g": [], "t": []}
    wanted = set(watched)
    for key in wanted:
        kind, what = key[0], key[1:]
        if _BY_ID.fullmatch(what):
            by_id[kind].append(int(what))
        else:
            by_token[kind].append(what)
    quote = connection.ops.quote_name
    game, table = quote(Game._meta.db_table), quote(Table._meta.db_table)
    # Each row: its kind, then its token and its id, either of which may be NULL; a row names
    # only the keys it was read for (a token's row no id), so that a watched key's version is
    # read from all of its rows, never from a few. The NULLs typed: PostgreSQL takes an untyped
    # one for text, and refuses to unite it with an id. Our own table and column names only;
    # the values are parameters.
    no_token, no_id = "CAST(NULL AS TEXT)", "CAST(NULL AS BIGINT)"
    parts = [
        (
            f"SELECT 'g', view_token, {no_id}, version FROM {game} WHERE view_token {{}}",  # noqa: S608
            by_token["g"],
        ),
        (
            f"SELECT 't', view_token, {no_id}, version FROM {table} WHERE view_token {{}}",  # noqa: S608
            by_token["t"],
        ),
        (
            f"SELECT 't', {table}.view_token, {no_id}, {game}.version FROM {game}"  # noqa: S608
            f" JOIN {table} ON {game}.table_id = {table}.id WHERE {table}.view_token {{}}",
            by_token["t"],
        ),
        (f"SELECT 'g', {no_token}, id, version FROM {game} WHERE id {{}}", by_id["g"]),  # noqa: S608
        (f"SELECT 't', {no_token}, id, version FROM {table} WHERE id {{}}", by_id["t"]),  # noqa: S608
        (f"SELECT 't', {no_token}, table_id, version FROM {game} WHERE table_id {{}}", by_id["t"]),  # noqa: S608
    ]
    selects, params = [], []
    for select, values in parts:
        if values:
            condition, param = _among(values)
            selects.append(select.format(condition))
            params.append(param)
    if since is not None:
        # What moved: each row by its token and by its id, for either key a page may watch.
        selects += [
            f"SELECT 'g', view_token, id, version FROM {game} WHERE version >= %s",  # noqa: S608
            f"SELECT 't', view_token, id, version FROM {table} WHERE version >= %s",  # noqa: S608
            f"SELECT 't', {table}.view_token, {table}.id, {game}.version FROM {game}"  # noqa: S608
            f" JOIN {table} ON {game}.table_id = {table}.id WHERE {game}.version >= %s",
        ]
        params += [since] * 3
    if not selects:
        return {}
    found: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects), params)
        for kind, token, id_, version in cursor.fetchall():
            if token is not None and ((key := kind + token) in wanted or key in among):
                found[key] = max(version, found.get(key, version))
            if id_ is not None and ((key := f"{kind}{id_}") in wanted or key in among):
                found[key] = max(version, found.get(key, version))
    return found


def _among(values: list) -> tuple[str, object]:
    """The condition "is one of `values`" and its one parameter, however many values: an
    array on PostgreSQL, a JSON array on SQLite (no limit on a statement's variables)."""
    if connection.vendor == "postgresql":
        return "= ANY(%s)", values
    return "IN (SELECT value FROM json_each(%s))", json.dumps(values)


def table_version(table) -> int:
    """The version a table's page is drawn at: the newest of the table's and its games'."""
    key = f"t{table.view_token}"
    return versions([key]).get(key, table.version)


class Reader:
    """The versions of what this process's streams watch, read from the database in one
    query every `every` seconds while any stream is open, and the streams woken when their
    version moves (`wake`, called on the reader's thread). The games and tables checked lately
    (`follow`) are read with them, so that a page without a stream is answered from what the
    reader knows, as a stream is (scoring/live/check.py); `fresh` says whether it knows it now.

    Every `full_every` seconds a read is of every version; between them, of what moved since
    the previous read and of the keys not read yet, so that a read costs what moved, not what is
    watched. A `read` of a test's own, `read(watched)` only, reads everything every time."""

    def __init__(
        self,
        read: Callable[..., dict[str, int]] = versions,
        every: float = READ_EVERY,
        idle_after: float = IDLE_AFTER,
        full_every: float | None = None,
    ) -> None:
        self.read = read
        self.every = every
        self.idle_after = idle_after
        if full_every is None:
            full_every = FULL_EVERY if read is versions else 0.0
        self.full_every = full_every
        self.known: dict[str, int] = {}
        self.read_at = -math.inf  # when the last read of the versions ended (time.monotonic)
        self.full_at = -math.inf  # when the last full read started (time.monotonic)
        self._since = 0  # where a read of what moved starts: the previous read's clock - SLACK
        self._wakes: dict[str, set[Callable[[], None]]] = {}
        self._followed: dict[str, float] = {}  # a polled game's key: read until then
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._listening: object = None  # the connection that LISTENs on CHANNEL
        self._unheard = False  # listening failed once (said once in the log)

    def watch(self, watched: str, wake: Callable[[], None]) -> None:
        """Call `wake` after each read that finds `watched`'s version new (its first read too)."""
        with self._lock:
            self._wakes.setdefault(watched, set()).add(wake)
            self._start()

    def unwatch(self, watched: str, wake: Callable[[], None]) -> None:
        with self._lock:
            wakes = self._wakes.get(watched, set())
            wakes.discard(wake)
            if not wakes:
                self._wakes.pop(watched, None)
                if watched not in self._followed:
                    self.known.pop(watched, None)

    def open_streams(self) -> int:
        """How many streams of this process are open (/metrics)."""
        with self._lock:
            return sum(len(wakes) for wakes in self._wakes.values())

    def follow(self, polled: str) -> None:
        """Read `polled`'s version (what a stream's key watches: "g<token>", "t<token>") with
        the others for FOLLOW_FOR seconds from now: a page without a stream checks it."""
        with self._lock:
            self._followed[polled] = time.monotonic() + FOLLOW_FOR
            self._start()

    def fresh(self, key: str) -> int | None:
        """The version of `key` as the reader read it within the last FRESH_FOR seconds (a
        read is due every `every`), or None: not read, not there, or the reader behind (the
        database away, the reader stopping)."""
        version = self.known.get(key)
        if version is None or version == GONE or self._stop.is_set():
            return None
        return version if time.monotonic() - self.read_at < FRESH_FOR else None

    def _start(self) -> None:
        """The reader's thread, started if it is not running (called under the lock)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="rami-live", daemon=True)
            self._thread.start()

    def read_once(self) -> None:
        """One read of the versions: of every watched and followed one when a full read is due
        (`full_every`), else of those that moved and those not read yet. Wakes the streams of
        those that moved."""
        from scoring.models.game import clock_version

        now = time.monotonic()
        with self._lock:
            for key, until in list(self._followed.items()):
                if until < now:
                    del self._followed[key]
                    if key not in self._wakes:
                        self.known.pop(key, None)
            watched = self._wakes.keys() | self._followed.keys()
            new = watched - self.known.keys()  # watched or followed since the previous read
        if not watched:
            return
        full = now - self.full_at >= self.full_every
        clock = clock_version()  # before the query: what commits during it is read next time
        if full:
            found = self.read(watched)
            told = watched
        else:
            # A key not read yet is read whole, by the IN-list; the others only if they moved.
            found = self.read(new, since=self._since, among=watched)
            told = new | (found.keys() & watched)
        woken: list[Callable[[], None]] = []
        with self._lock:
            for key in told:
                version = found.get(key, GONE)
                if version == self.known.get(key):
                    continue
                if key in self._wakes:
                    woken.extend(self._wakes[key])
                elif key not in self._followed:
                    continue
                self.known[key] = version
            self.read_at = time.monotonic()
            self._since = clock - SLACK
            if full:
                self.full_at = now
        for wake in woken:
            wake()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def stop(self, timeout: float = 5.0) -> None:
        """End every stream and stop the thread (a worker's shutdown; the end of a test): the
        streams are woken and end, the thread closes its connection. Waits at most `timeout`
        seconds for both. The next stream starts the reader again."""
        self._stop.set()
        with self._lock:
            woken = [wake for wakes in self._wakes.values() for wake in wakes]
            # Under the lock: _start names a thread and starts it under it, so the thread
            # read here has started (a request's follow() may be starting it right now).
            thread = self._thread
        for wake in woken:
            wake()
        deadline = time.monotonic() + timeout
        if thread is not None:
            thread.join(timeout=timeout)
        while self._wakes and time.monotonic() < deadline:
            time.sleep(0.01)

    def _run(self) -> None:
        idle_since: float | None = None
        failing = False
        try:
            while not self._stop.is_set():
                started = time.monotonic()
                with self._lock:
                    if not self._wakes and not self._followed:
                        idle_since = idle_since or started
                        if started - idle_since >= self.idle_after:
                            self._thread = None
                            return
                    else:
                        idle_since = None
                try:
                    self.read_once()
                    failing = False
                except DatabaseError as error:
                    # The database away: the streams stay open and learn of the moves once it
                    # is back (the versions are read again, not remembered).
                    if not failing:
                        logger.warning("Live updates: the versions cannot be read: %s", error)
                    failing = True
                    connection.close()
                    self._stop.wait(1.0)
                self._wait(self.every - (time.monotonic() - started))
        finally:
            connection.close()

    def _wait(self, seconds: float) -> None:
        """Until the next read: `seconds`, or on PostgreSQL until a notice that a version moved
        comes first. A notice only wakes the reader: what the streams are told is what it then
        reads."""
        if seconds <= 0 or self._stop.is_set():
            return
        if self.read is versions and connection.vendor == "postgresql":
            try:
                raw = connection.connection
                if raw is not None and self._listening is not raw:
                    with connection.cursor() as cursor:
                        cursor.execute(f"LISTEN {CHANNEL}")
                    self._listening = raw
                if raw is not None:
                    # One notice is enough to read (those that came with it are read too); in
                    # short waits, so that `stop` is obeyed at once.
                    until = time.monotonic() + seconds
                    while not self._stop.is_set() and (left := until - time.monotonic()) > 0:
                        for _notice in raw.notifies(timeout=min(left, 0.25), stop_after=1):
                            return
                    return
            except Exception as error:  # whatever it is, the tick below reads all the same
                if not self._unheard:
                    logger.warning("Live updates: no notices from PostgreSQL: %s", error)
                self._unheard = True
                self._listening = None
        self._stop.wait(seconds)


reader = Reader()
