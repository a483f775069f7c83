"""The live reader's read: a full read of every watched version against a read of what moved
(scoring/live/reader.py), on a throwaway SQLite database, in-process.

2,000 games: 1,600 on their own and 400 at 100 tables (4 each); 2,000 keys watched, the 1,600
games and the 100 tables by token, and 300 of the tables' games. Every version is set a minute
back, then `--moved` games (a round saved each in the last seconds, as at a busy evening) to
the clock: what a read of what moved finds. The two readers' read_once() timed in turn, so that
a busy machine slows both alike; the figure is the ratio of the two medians.

    python -m bench.reader [--reads 50] [--moved 0 50]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

FOLDER = Path(tempfile.mkdtemp(prefix="rami-reader-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{FOLDER / 'db.sqlite3'}"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from scoring.live import reader as reading  # noqa: E402
from scoring.models import Game, Table  # noqa: E402
from scoring.models.game import clock_version  # noqa: E402

NAMES = ["Ana", "Boris", "Cyril", "Dana"]


def seeded() -> tuple[list[Game], list[str]]:
    """The games, and the keys watched."""
    games = [Game.start(NAMES) for _ in range(1_600)]
    keys = [f"g{game.view_token}" for game in games]
    for number in range(100):
        table = Table.start(f"Table {number}", NAMES)
        at_table = [table.new_game(NAMES) for _ in range(4)]
        games += at_table
        keys.append(f"t{table.view_token}")
        keys += [f"g{game.view_token}" for game in at_table[:3]]
    minute_ago = clock_version() - 60_000
    Game.objects.update(version=minute_ago)
    Table.objects.update(version=minute_ago)
    return games, keys


def watching(keys: list[str], full_every: float) -> reading.Reader:
    reader = reading.Reader(full_every=full_every)
    reader._start = lambda: None  # read here, on this thread
    for key in keys:
        reader.watch(key, lambda: None)
    reader.read_once()  # the first read: a full one, every key known
    return reader


def timed(reader: reading.Reader) -> float:
    started = time.perf_counter()
    reader.read_once()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--moved", type=int, nargs="+", default=[0, 50])
    arguments = parser.parse_args()
    # The queries not logged, as in production: a logged read formats its 2,000 tokens again.
    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    games, keys = seeded()
    full, moved_only = watching(keys, full_every=0.0), watching(keys, full_every=math.inf)
    first_full = moved_only.full_at
    print(f"{len(games)} games, {len(keys)} keys watched; load: {os.getloadavg()}")
    for moved in arguments.moved:
        Game.objects.filter(pk__in=[game.pk for game in games[:moved]]).update(
            version=clock_version()
        )
        with CaptureQueriesContext(connection) as queries:
            moved_only.read_once()
        assert len(queries) == 1 and "version >=" in queries[0]["sql"]
        times: dict[str, list[float]] = {"full": [], "moved": []}
        for _ in range(arguments.reads):
            times["full"].append(timed(full))
            times["moved"].append(timed(moved_only))
        assert moved_only.full_at == first_full  # no full read since its first
        medians = {kind: statistics.median(each) * 1000 for kind, each in times.items()}
        print(
            f"{moved} games moved in the last seconds: full read {medians['full']:.2f} ms,"
            f" read of what moved {medians['moved']:.2f} ms,"
            f" ratio {medians['full'] / medians['moved']:.1f}×"
        )
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
