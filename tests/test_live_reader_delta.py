"""The live reader's reads of what moved (scoring/live/reader.py, `versions(since=...)`) beside
its full reads: the same streams woken and the same versions known as a reader that reads
everything every time, a read between full reads that names no watched key, and a save on a
server whose clock is behind told at once."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from scoring.live import reader as reading
from scoring.models import Game, Table
from scoring.models import game as game_module
from tests.test_live import read_until_full, saved_round


class Streams:
    """The streams of one reader: every key watched by one stream, each wake counted."""

    def __init__(self, reader: reading.Reader) -> None:
        self.reader = reader
        self.woken: Counter[str] = Counter()
        reader._start = lambda: None  # read by the test

    def watch(self, key: str) -> None:
        self.reader.watch(key, lambda: self.woken.update([key]))


def test_reads_of_what_moved_wake_the_streams_a_full_read_every_time_would(db, client):
    """The same changes read by two readers: one reads what moved between its full reads,
    the other everything every time. After each change both have woken the same streams as
    often and know the same versions, the first at once for what moved up, and by its next full
    read for what went or moved down (a game deleted, a version set lower by hand)."""
    ana, boris, cyril = (Game.start(["Ana", "Boris", "Cyril"]) for _ in range(3))
    table = Table.start("Tuesdays", ["Dana", "Eva", "Filip"])
    at_table = table.new_game(["Dana", "Eva", "Filip"])
    followed = Game.start(["Gita", "Hana"])
    boris_id = boris.pk  # None once deleted
    fast = Streams(reading.Reader(full_every=0.5))
    slow = Streams(reading.Reader(full_every=0.0))
    deltas = []
    read = fast.reader.read

    def counted(*args, **kwargs):
        deltas.append("since" in kwargs)
        return read(*args, **kwargs)

    fast.reader.read = counted

    def both(change, *, until_full: bool = False) -> None:
        change()
        slow.reader.read_once()
        if until_full:
            read_until_full(fast.reader)
        else:
            fast.reader.read_once()
        assert fast.woken == slow.woken
        assert fast.reader.known == slow.reader.known

    def watch(*keys: str) -> None:
        for key in keys:
            fast.watch(key)
            slow.watch(key)

    both(
        lambda: watch(
            f"g{ana.view_token}",
            f"g{boris.view_token}",
            f"g{at_table.view_token}",
            f"t{table.view_token}",
            f"g{ana.pk}",  # a page drawn before keys named a token
            f"t{table.pk}",
        )
    )
    both(lambda: saved_round(client, ana))
    both(lambda: saved_round(client, at_table))
    both(lambda: table.add_member("Ivo"))
    # Newly watched and followed: read whole in the read of what moved (one not there).
    both(lambda: watch(f"g{cyril.view_token}", f"g{boris_id}", "g" + "x" * 32))
    both(lambda: [each.reader.follow(f"g{followed.view_token}") for each in (fast, slow)])
    both(lambda: saved_round(client, cyril))
    # What only a full read finds.
    both(boris.delete, until_full=True)
    both(
        lambda: Game.objects.filter(pk=ana.pk).update(version=F("version") - 1_000_000),
        until_full=True,
    )
    both(lambda: saved_round(client, at_table))
    both(
        lambda: Game.objects.filter(pk=at_table.pk).update(version=F("version") - 1_000_000),
        until_full=True,
    )
    both(lambda: table.delete_game(at_table), until_full=True)
    both(lambda: saved_round(client, ana))
    assert fast.woken[f"g{boris.view_token}"] == 2  # its version, then gone
    assert fast.reader.known[f"g{boris_id}"] == reading.GONE
    assert fast.woken[f"t{table.pk}"] == fast.woken[f"t{table.view_token}"] >= 5
    assert deltas.count(True) >= 5  # most of the fast reader's reads were of what moved


def test_a_read_between_full_reads_names_no_watched_key(db, client):
    games = [Game.start(["Ana", "Boris"]) for _ in range(5)]
    streams = Streams(reading.Reader(full_every=60.0))
    for game in games:
        streams.watch(f"g{game.view_token}")
    streams.reader.read_once()  # the first read: a full one
    saved_round(client, games[0])
    with CaptureQueriesContext(connection) as queries:
        streams.reader.read_once()
    assert len(queries) == 1
    sql = queries[0]["sql"]
    assert "version >=" in sql
    assert not any(game.view_token in sql for game in games)
    assert streams.woken == Counter(
        {f"g{games[0].view_token}": 2, **{f"g{game.view_token}": 1 for game in games[1:]}}
    )
    # A key watched since the previous read: its own token only, in the same query.
    later = Game.start(["Cyril", "Dana"])
    streams.watch(f"g{later.view_token}")
    with CaptureQueriesContext(connection) as queries:
        streams.reader.read_once()
    assert len(queries) == 1
    sql = queries[0]["sql"]
    assert later.view_token in sql
    assert not any(game.view_token in sql for game in games)
    assert streams.reader.known[f"g{later.view_token}"] == later.version


def test_a_save_on_a_server_whose_clock_is_two_seconds_behind_wakes_its_stream(
    db, client, monkeypatch
):
    """Its version is below the clock at this reader's previous read, but within SLACK: the
    next read of what moved finds it, with no full read. The other server's clock stands 2 s
    behind this reader's at its read, however long the save takes on a busy machine."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    Game.objects.filter(pk=game.pk).update(version=game.version - 60_000)  # saved a minute ago
    streams = Streams(reading.Reader(full_every=60.0))
    streams.watch(f"g{game.view_token}")
    streams.reader.read_once()
    full_at = streams.reader.full_at
    read_at_clock = streams.reader._since + reading.SLACK
    with monkeypatch.context() as behind:
        behind.setattr(game_module, "clock_version", lambda: read_at_clock - 2_000)
        saved_round(client, game)
    game.refresh_from_db()
    assert game.version == read_at_clock - 2_000
    streams.reader.read_once()
    assert streams.reader.full_at == full_at  # no full read
    assert streams.reader.known[f"g{game.view_token}"] == game.version
    assert streams.woken[f"g{game.view_token}"] == 2


@pytest.mark.parametrize("since_offset", [0, 10_000])
def test_versions_since_tells_a_table_the_newest_of_its_moved_rows(db, client, since_offset):
    """A table's key in `among`: the newest of the table's own version and its games' at
    `since` or above, which is its version whenever that is at `since` or above; left out
    when nothing of it moved."""
    table = Table.start("Tuesdays", ["Dana", "Eva", "Filip"])
    game = table.new_game(["Dana", "Eva", "Filip"])
    saved_round(client, game)
    key, by_id = f"t{table.view_token}", f"t{table.pk}"
    since = reading.versions([key])[key] - since_offset
    moved = reading.versions([], since=since, among={key, by_id, "g" + "x" * 32})
    assert moved == {key: reading.versions([key])[key], by_id: reading.versions([by_id])[by_id]}
    time.sleep(0.002)
    assert reading.versions([], since=game_module.clock_version() + 1, among={key}) == {}
