"""The pages' cost in-process, against /healthz, and their budgets: `make bench-pages`.

Each request goes through Django's test client (the whole middleware stack, the settings of
`make run` but DEBUG's), on a throwaway SQLite database in a temporary folder: no server, no
network, so what is measured is Django, the queries and the templates. Each request is timed
many times in turn with /healthz; the figure is the median of its times over /healthz's median
(a ratio, so that a busy machine moves both alike). The queries of each request are counted
once.

    python -m bench.in_process              # the table below
    python -m bench.in_process --profile game   # where the game page's time goes (cProfile)
    python -m bench.in_process --no-cache       # every fragment drawn afresh (a DummyCache)

The game is bench/seed.py's kind: 6 players, 60 rounds of small hands; the table has 200
finished games of 3 players (one round each: a hand rummy), its members seated by name.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from pathlib import Path

FOLDER = Path(tempfile.mkdtemp(prefix="rami-in-process-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{FOLDER / 'db.sqlite3'}"
os.environ.setdefault("DJANGO_DEBUG", "true")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    override_settings,
)

from scripts.long_games import six_player_document, table_document  # noqa: E402

BUDGETS = {"game page": 15.0, "changed poll": 8.0}


def six_player_game(rounds: int):
    from scoring.files.exchange import import_game

    return import_game(six_player_document(rounds))


def table_of(games: int):
    """The benchmark's table of `games` games (bench/seed.py's)."""
    from scoring.files.exchange import import_table

    return import_table(table_document(games))


def requests() -> dict[str, dict]:
    game = six_player_game(60)
    table = table_of(200)
    version = game.version
    before = six_player_game(59)
    # The changed poll: a phone that saw round 59 asks after round 60 was saved.
    from scoring.models import Game

    seen = Game.objects.get(pk=before.pk).version
    saved = {"action": "save", "winner": "0", **{f"value_{seat}": "2" for seat in range(1, 6)}}
    assert Client().post(f"/g/{before.edit_token}/save/", saved).status_code in (200, 302, 303)
    htmx = {"HX-Request": "true"}
    poll = f"/g/{before.edit_token}/poll"
    return {
        "/healthz": {"path": "/healthz"},
        "game page": {"path": f"/g/{game.edit_token}/"},
        "watch-only page": {"path": f"/v/{game.view_token}/"},
        "unchanged poll": {
            "path": f"/g/{game.edit_token}/poll",
            "data": {"v": version, "shown": "playing"},
            "headers": htmx,
        },
        # The first phone of the table to ask draws the answer ("changed poll"); the others
        # that ask the same get it as drawn ("shared changed poll": answers.SharedAnswers).
        "changed poll": {
            "path": poll,
            "data": {"v": seen, "shown": "playing"},
            "headers": htmx,
            "fresh": True,
        },
        "shared changed poll": {
            "path": poll,
            "data": {"v": seen, "shown": "playing"},
            "headers": htmx,
        },
        "table page": {"path": f"/t/{table.edit_token}/"},
    }


def timed(client: Client, request: dict) -> float:
    if request.get("fresh"):
        from scoring.live.answers import shared_answers

        shared_answers.clear()
    start = time.perf_counter()
    response = client.get(request["path"], request.get("data"), headers=request.get("headers"))
    elapsed = time.perf_counter() - start
    assert response.status_code in (200, 204), (request["path"], response.status_code)
    return elapsed


def measure(rounds: int) -> list[tuple[str, float, float, int]]:
    client = Client()
    shown = requests()
    times: dict[str, list[float]] = {name: [] for name in shown}
    for request in shown.values():  # warm-up: templates compiled, caches filled
        timed(client, request)
    for _ in range(rounds):
        for name, request in shown.items():
            times[name].append(timed(client, request))
    floor = statistics.median(times["/healthz"])
    rows = []
    for name, request in shown.items():
        with CaptureQueriesContext(connection) as queries:
            timed(client, request)
        median = statistics.median(times[name])
        rows.append((name, median * 1000, median / floor, len(queries)))
    return rows


def profile(name: str) -> None:
    client = Client()
    request = {key.split()[0]: value for key, value in requests().items()}[name]
    timed(client, request)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        timed(client, request)
    profiler.disable()
    pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(45)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="times each request is timed")
    parser.add_argument("--profile", choices=["game", "changed", "table", "watch-only"])
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="draw the game page's cached fragments afresh each time, as after every save",
    )
    args = parser.parse_args()
    # Pages as a server in production draws them: DEBUG off (templates without their debug
    # record, queries unlogged), and not setup_test_environment(), which instruments every
    # template's render so that the test client copies the whole context at each include.
    # The test client's host is allowed.
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    if args.no_cache:
        dummy = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
        override_settings(CACHES={**settings.CACHES, "default": dummy}).enable()
    call_command("migrate", verbosity=0)
    if args.profile:
        profile(args.profile)
        return
    rows = measure(args.rounds)
    print("| request | median ms | × /healthz | queries | budget |")
    print("|---|---:|---:|---:|---|")
    for name, ms, ratio, queries in rows:
        budget = BUDGETS.get(name)
        met = "" if budget is None else f"≤ {budget:g}× {'met' if ratio <= budget else 'MISSED'}"
        print(f"| {name} | {ms:.2f} | {ratio:.1f} | {queries} | {met} |")


if __name__ == "__main__":
    try:
        main()
    finally:
        import shutil

        shutil.rmtree(FOLDER, ignore_errors=True)
