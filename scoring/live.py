"""Live updates pushed: poke, then pull.

A page that follows a game (or a table) keeps one server-sent events stream open at
/live/<key>. An event carries only a version: the game's, or for a table the newest of the
table's and its games' (`versions`). The page then asks for what it lacks with the request it
sends without a stream (the game's poll, views._poll; the table's page itself), so what a
watching phone shows is still what a fresh load of its link shows. The stream says nothing of
the game but that number, and only to a page that was handed its key.

- `key_for(kind, token)`: the key a page is handed, "g" or "t" and the watch-only token, signed
  (django.core.signing): checked by the stream with no query. By the token, not the row's id:
  a game restored from a backup is a new row with the same tokens, and the pages left open on
  it follow it again. While a game or table is not there, its streams say so ("gone").
- One `Reader` per worker process: a thread that, while any stream is open, reads the versions
  of every watched game and table every READ_EVERY seconds, in one query whatever the number of
  streams (`versions`), and wakes the streams whose version moved. It compares versions read
  from the database, passes no messages: nothing is lost between two reads, and it works the
  same on SQLite, on PostgreSQL and across several servers on one database. On PostgreSQL it
  also listens on CHANNEL, where a trigger tells of every version that moved at its commit
  (scoring/migrations/0011_live_notify.py), and reads at once instead of at its next tick:
  only sooner, never more correct. Idle (no stream) for IDLE_AFTER seconds, it stops and
  closes its connection; the next stream starts it again.
- Each stream (`Stream`): the current version at once (the page polls when it is newer than
  the `v` it was opened with, or the Last-Event-ID of a reconnecting EventSource; the first
  event also tells the page that its stream works), then one event for each move, a heartbeat
  comment every HEARTBEAT seconds, a `retry:` between 2 and 6 s drawn per stream (a restart
  does not bring every phone back in the same second), and an end after about LIFETIME
  seconds (the browser reconnects with its Last-Event-ID). A reader that stops (`stop`) ends
  them all.
- Two ways to serve it, one stream: `asgi_stream` in front of Django's ASGI handler
  (rami_site/asgi.py: no thread, no database connection per stream; what granian serves), and
  the view `stream` for a WSGI server (runserver, the test suite's live server), which holds a
  thread per stream and is not for production.
- The pull that follows an event: the phones of a table are woken together and ask for the
  same answer; `shared_answers` (SharedAnswers) keeps the answers drawn lately, so that the
  first phone's is drawn and the others' looked up (views._poll).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import parse_qs

from django.core import signing
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from scoring.web.http import whole_number

logger = logging.getLogger(__name__)

SALT = "rami.live"
READ_EVERY = 0.1  # seconds between two reads of the versions
CHANNEL = "rami_live"  # PostgreSQL's notices of a version that moved
IDLE_AFTER = 5.0  # seconds without a stream before the reader stops
HEARTBEAT = 15.0  # seconds between two comments on a quiet stream
LIFETIME = 600.0  # seconds a stream stays open (a little less or more: LIFETIME_SPREAD)
LIFETIME_SPREAD = 30.0
RETRY_MS = (2000, 6000)  # the reconnection delay a stream asks of its browser
PREFIX = "/live/"
HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    # nginx and its kind pass each event on at once instead of buffering them.
    "X-Accel-Buffering": "no",
}
# What a key watches: a game ("g") or a table ("t") by its watch-only token, which a game
# restored from a backup keeps (a new row, a new id); or, on a page drawn before the keys named
# a token (one release), by its id.
_WATCHED = re.compile(r"[gt](?:[1-9][0-9]{0,18}|[A-Za-z0-9_-]{22,64})")
_BY_ID = re.compile(r"[1-9][0-9]{0,18}")
# The version the reader knows of a game or table that is not there (deleted, or not yet back
# from a backup): its streams say so once ("gone"), and tell its version when it is back.
GONE = 0


def key_for(kind: str, token: str) -> str:
    """The key of the stream of a game (`kind` "g") or a table ("t") that its pages are handed,
    by its watch-only token (`token`)."""
    return signing.Signer(salt=SALT).sign(f"{kind}{token}")


def watched_by(key: str) -> str | None:
    """What a stream's key watches ("g<token>", "t<token>"; "g12" on an older page), or None
    for a key we did not hand out."""
    try:
        value = signing.Signer(salt=SALT).unsign(key)
    except signing.BadSignature:
        return None
    return value if _WATCHED.fullmatch(value) else None


def versions(watched: Iterable[str]) -> dict[str, int]:
    """The current version of each watched game ("g<token>": its version) and table
    ("t<token>": the newest of the table's own and its games': a save, a new or finished game
    at the table moves it), in one query. A game or table that is not there is left out."""
    from scoring.models import Game, Table

    by_id: dict[str, list] = {"g": [], "t": []}
    by_token: dict[str, list] = {"g": [], "t": []}
    for key in watched:
        kind, what = key[0], key[1:]
        if _BY_ID.fullmatch(what):
            by_id[kind].append(int(what))
        else:
            by_token[kind].append(what)
    quote = connection.ops.quote_name
    game, table = quote(Game._meta.db_table), quote(Table._meta.db_table)
    # Our own table and column names only; the values are parameters.
    parts = [
        (f"SELECT 'g', view_token, version FROM {game} WHERE view_token {{}}", by_token["g"]),  # noqa: S608
        (f"SELECT 't', view_token, version FROM {table} WHERE view_token {{}}", by_token["t"]),  # noqa: S608
        (
            f"SELECT 't', {table}.view_token, {game}.version FROM {game}"  # noqa: S608
            f" JOIN {table} ON {game}.table_id = {table}.id WHERE {table}.view_token {{}}",
            by_token["t"],
        ),
        (f"SELECT 'g', id, version FROM {game} WHERE id {{}}", by_id["g"]),  # noqa: S608
        (f"SELECT 't', id, version FROM {table} WHERE id {{}}", by_id["t"]),  # noqa: S608
        (f"SELECT 't', table_id, version FROM {game} WHERE table_id {{}}", by_id["t"]),  # noqa: S608
    ]
    selects, params = [], []
    for select, values in parts:
        if values:
            among, param = _among(values)
            selects.append(select.format(among))
            params.append(param)
    if not selects:
        return {}
    found: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects), params)
        for kind, what, version in cursor.fetchall():
            key = f"{kind}{what}"
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
    version moves (`wake`, called on the reader's thread)."""

    def __init__(
        self,
        read: Callable[[Iterable[str]], dict[str, int]] = versions,
        every: float = READ_EVERY,
        idle_after: float = IDLE_AFTER,
    ) -> None:
        self.read = read
        self.every = every
        self.idle_after = idle_after
        self.known: dict[str, int] = {}
        self._wakes: dict[str, set[Callable[[], None]]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._listening: object = None  # the connection that LISTENs on CHANNEL
        self._unheard = False  # listening failed once (said once in the log)

    def watch(self, watched: str, wake: Callable[[], None]) -> None:
        """Call `wake` after each read that finds `watched`'s version new (its first read too)."""
        with self._lock:
            self._wakes.setdefault(watched, set()).add(wake)
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="rami-live", daemon=True)
                self._thread.start()

    def unwatch(self, watched: str, wake: Callable[[], None]) -> None:
        with self._lock:
            wakes = self._wakes.get(watched, set())
            wakes.discard(wake)
            if not wakes:
                self._wakes.pop(watched, None)
                self.known.pop(watched, None)

    def read_once(self) -> None:
        """One read of every watched version; wakes the streams of those that moved."""
        with self._lock:
            watched = list(self._wakes)
        if not watched:
            return
        found = self.read(watched)
        woken: list[Callable[[], None]] = []
        with self._lock:
            for key in watched:
                version = found.get(key, GONE)
                if version == self.known.get(key) or key not in self._wakes:
                    continue
                self.known[key] = version
                woken.extend(self._wakes[key])
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
        for wake in woken:
            wake()
        deadline = time.monotonic() + timeout
        thread = self._thread
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
                    if not self._wakes:
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


class Stream:
    """What one stream sends: its opening, then one line per wake-up or heartbeat; the same
    for the ASGI route and the WSGI view."""

    def __init__(self, watched: str, seen: int, reader: Reader) -> None:
        self.watched = watched
        self.seen = seen
        self.reader = reader
        self.told = False
        self.gone = False
        spread = random.uniform(-LIFETIME_SPREAD, LIFETIME_SPREAD)  # noqa: S311
        self.ends_at = time.monotonic() + LIFETIME + spread

    def opening(self) -> bytes:
        # Spread the phones' reconnections after a restart over a few seconds.
        return f"retry: {random.randint(*RETRY_MS)}\n\n".encode()  # noqa: S311

    def news(self) -> bytes:
        """The event of a version newer than the page's, or nothing; the first version the
        stream knows is sent whatever it is, so that the page knows its stream works (a proxy
        may pass the headers of a stream and hold back what follows). A game or table that is
        not there (deleted, or not yet back from a backup) is told once ("gone"); when it is
        back, its version."""
        version = self.reader.known.get(self.watched)
        if version is None:
            return b""
        if version == GONE:
            if self.gone:
                return b""
            self.gone = True
            return b"event: gone\ndata: gone\n\n"
        if version <= self.seen and self.told and not self.gone:
            return b""
        self.seen = max(version, self.seen)
        self.told, self.gone = True, False
        return f"id: {version}\nevent: version\ndata: {version}\n\n".encode()

    def left(self) -> float:
        """Seconds until the stream ends: none once the reader stops."""
        return 0.0 if self.reader.stopping else self.ends_at - time.monotonic()


def seen_version(last_event_id: str | None, v: str | None) -> int:
    """The version the page has: what the stream last sent it, or what it was drawn with."""
    for text in (last_event_id, v):
        if (version := whole_number(text)) is not None:
            return version
    return 0


async def asgi_stream(scope: dict, receive: Callable, send: Callable) -> None:
    """The stream as an ASGI application (rami_site/asgi.py): no thread and no database
    connection of its own; woken by the reader's thread through the event loop."""
    watched = watched_by(scope["path"][len(PREFIX) :])
    if scope["method"] != "GET" or watched is None:
        status, body = (405, b"GET only") if watched else (404, b"not found")
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"text/plain")],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return
    headers = dict(scope.get("headers", []))
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    last = headers.get(b"last-event-id", b"").decode("latin-1")
    stream = Stream(watched, seen_version(last, (query.get("v") or [""])[0]), reader)
    loop = asyncio.get_running_loop()
    moved = asyncio.Event()

    def wake() -> None:
        loop.call_soon_threadsafe(moved.set)

    async def until_gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    gone = asyncio.ensure_future(until_gone())
    stream.reader.watch(watched, wake)
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()],
            }
        )
        await send(
            {
                "type": "http.response.body",
                "body": stream.opening() + stream.news(),
                "more_body": True,
            }
        )
        while stream.left() > 0 and not gone.done():
            waiting = asyncio.ensure_future(moved.wait())
            await asyncio.wait(
                {waiting, gone},
                timeout=min(HEARTBEAT, stream.left()),
                return_when=asyncio.FIRST_COMPLETED,
            )
            waiting.cancel()
            if gone.done():
                break
            moved.clear()
            await send(
                {
                    "type": "http.response.body",
                    "body": stream.news() or b": \n\n",
                    "more_body": True,
                }
            )
        if not gone.done():
            await send({"type": "http.response.body", "body": b""})
    except OSError:
        pass  # the phone went away while a line was on its way
    finally:
        stream.reader.unwatch(watched, wake)
        gone.cancel()


def stream(request: HttpRequest, key: str) -> HttpResponse:
    """The same stream as a Django view, for a WSGI server (runserver, the tests' live server):
    a thread for each open stream. Under granian, rami_site/asgi.py answers /live/ before Django."""
    watched = watched_by(key)
    if watched is None:
        return HttpResponse("not found", status=404, content_type="text/plain")
    last = request.headers.get("Last-Event-ID")
    live = Stream(watched, seen_version(last, request.GET.get("v")), reader)
    moved = threading.Event()

    def lines() -> Iterator[bytes]:
        live.reader.watch(watched, moved.set)
        try:
            yield live.opening() + live.news()
            while live.left() > 0:
                moved.wait(min(HEARTBEAT, live.left()))
                moved.clear()
                yield live.news() or b": \n\n"
        finally:
            live.reader.unwatch(watched, moved.set)

    response = StreamingHttpResponse(lines())
    for name, value in HEADERS.items():
        response[name] = value
    return response


class SharedAnswers:
    """The #changes answers (views._poll) drawn lately in this process, each kept under all that
    it is drawn from (views._asked): the game's version that it shows and the one the phone
    had, the link, the language and what the phone said of itself (typing, a round back in its
    form), each as the poll reads it. The phones of a table all ask after a save, from the
    same version: the first answer is drawn, the next ones are a lookup. The latest are kept,
    at most `size` of them and `max_bytes` in all (an answer is some 10 KB; the bound holds
    whatever a page is sent), the oldest going first. The #changes part holds nothing of the
    phone that asks (no form, no csrf_token: an answer that does is not kept), and an answer
    whose latest change is a deletion is not kept, since only the phone that deleted the round
    is offered its Undo. Kept by the version as the live update itself is: a change that did
    not move the game's version would reach no phone anyway."""

    def __init__(self, size: int = 2_000, max_bytes: int = 16 * 1024 * 1024) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._answers: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, asked: tuple) -> bytes | None:
        with self._lock:
            answer = self._answers.get(asked)
            if answer is not None:
                self._answers.move_to_end(asked)
            return answer

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self.bytes = 0

    def keep(self, asked: tuple, response: HttpResponse) -> None:
        content = response.content
        if response.status_code != 200 or b"csrfmiddlewaretoken" in content:
            return
        if len(content) > self.max_bytes:
            return
        with self._lock:
            old = self._answers.pop(asked, None)
            self.bytes += len(content) - (len(old) if old is not None else 0)
            self._answers[asked] = content
            while len(self._answers) > self.size or self.bytes > self.max_bytes:
                _asked, gone = self._answers.popitem(last=False)
                self.bytes -= len(gone)


shared_answers = SharedAnswers()
