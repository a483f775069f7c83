"""The pages' cost in-process, against /healthz, and their budgets: `make bench-pages`.

Django's test client on a throwaway SQLite database (no server, no network: Django, the queries
and the templates), each request timed in turn with /healthz, its figure the ratio of the two
medians, so that a busy machine moves both alike; "version check, ASGI" goes to
rami_site/asgi.py's application on an event loop instead. The game: 6 players, 60 rounds
(bench/seed.py's kind); the table: 200 finished games of 3.

    python -m bench.in_process [--profile game] [--no-cache]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import os
import pstats
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FOLDER = Path(tempfile.mkdtemp(prefix="rami-in-process-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{FOLDER / 'db.sqlite3'}"
os.environ.setdefault("DJANGO_DEBUG", "true")
# Every request as a phone's, by the site's name: a request with no Host from 127.0.0.1 is a
# check made on the server's machine (scoring.web.clients.is_local_check), which /healthz
# answers before the rest of the middleware, and no phone's request is that.
SITE = "testserver"

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

BUDGETS = {
    "game page": 9.0,
    "watch-only page": 7.0,
    "game page just after a save": 30.0,
    "changed poll": 8.0,
}


def six_player_game(rounds: int):
    from scoring.files.exchange import import_game

    return import_game(six_player_document(rounds))


def table_of(games: int):
    """The benchmark's table of `games` games (bench/seed.py's)."""
    from scoring.files.exchange import import_table

    return import_table(table_document(games))


def requests() -> dict[str, dict]:
    from scoring.live.stream import key_for

    game = six_player_game(60)
    saving = six_player_game(60)
    table = table_of(200)
    version = game.version
    before = six_player_game(59)
    # The changed poll: a phone that saw round 59 asks after round 60 was saved.
    from scoring.models import Game

    seen = Game.objects.get(pk=before.pk).version
    saved = {"action": "save", "winner": "0", **{f"value_{seat}": "2" for seat in range(1, 6)}}
    answer = Client(HTTP_HOST=SITE).post(f"/g/{before.edit_token}/save/", saved)
    assert answer.status_code in (200, 302, 303)
    htmx = {"HX-Request": "true"}
    poll = f"/g/{before.edit_token}/poll"
    return {
        "/healthz": {"path": "/healthz"},
        "game page": {"path": f"/g/{game.edit_token}/"},
        "watch-only page": {"path": f"/v/{game.view_token}/"},
        # The first load of the page after another phone saved a round (not timed): what was
        # kept of the rounds before it is all that is kept (game.html's caches).
        "game page just after a save": {"path": f"/g/{saving.edit_token}/", "saving": saving},
        "unchanged poll": {
            "path": f"/g/{game.edit_token}/poll",
            "data": {"v": version, "shown": "playing"},
            "headers": htmx,
        },
        # What a page without a stream asks first, as granian hands it to rami_site/asgi.py
        # (scoring/live/check.py): its version checked, answered by the live reader.
        "version check, ASGI": {
            "path": f"/live/{key_for('g', game.view_token)}/version",
            "query": f"v={version}",
            "asgi": True,
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
        # The three other phones of a table, woken together by their streams, ask at once
        # (three threads, as a worker's); the time until all three have their answer.
        "changed poll, 3 phones at once": {
            "path": poll,
            "data": {"v": seen, "shown": "playing"},
            "headers": htmx,
            "fresh": True,
            "at_once": 3,
        },
        "table page": {"path": f"/t/{table.edit_token}/"},
    }


def asked_of_asgi(request: dict) -> int:
    """One GET to rami_site/asgi.py's application, as granian makes it; its status."""
    from rami_site import asgi

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": request["path"],
        "root_path": "",
        "query_string": request["query"].encode(),
        "headers": [(b"host", b"localhost"), (b"hx-request", b"true")],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }
    _loop().run_until_complete(asgi.application(scope, receive, send))
    return sent[0]["status"]


_event_loop = None


def _loop():
    global _event_loop
    if _event_loop is None:
        import asyncio

        _event_loop = asyncio.new_event_loop()
    return _event_loop


def timed(client: Client, request: dict) -> float:
    if request.get("asgi"):
        start = time.perf_counter()
        status = asked_of_asgi(request)
        elapsed = time.perf_counter() - start
        assert status == 204, (request["path"], status)
        return elapsed
    if request.get("fresh"):
        from scoring.live.answers import shared_answers

        shared_answers.clear()
    if request.get("at_once"):
        return timed_at_once(request)
    request = saved_first(request)
    start = time.perf_counter()
    response = client.get(request["path"], request.get("data"), headers=request.get("headers"))
    elapsed = time.perf_counter() - start
    assert response.status_code in (200, 204), (request["path"], response.status_code)
    return elapsed


_saves = itertools.count()


def saved_on_another_phone(game) -> None:
    """A round saved in `game` from another phone, each time with other hands."""
    number = next(_saves)
    saved = {"action": "save", "winner": str(number % 6)}
    for seat in range(6):
        if seat != number % 6:
            saved[f"value_{seat}"] = str(2 + (number + seat) % 9)
    answer = Client(HTTP_HOST=SITE).post(f"/g/{game.edit_token}/save/", saved)
    assert answer.status_code in (200, 302, 303), answer.status_code


def saved_first(request: dict) -> dict:
    """`request`, after the save it asks to come after (`saving`: a game), as one to time."""
    if request.get("saving"):
        saved_on_another_phone(request["saving"])
        return {**request, "saving": None}
    return request


_phones: ThreadPoolExecutor | None = None
# Each thread's client, made once: a client loads the middleware, and WhiteNoise then reads
# the static files' folder (with DEBUG off), which no request of a server does.
_clients = threading.local()


def timed_at_once(request: dict) -> float:
    """The same request sent by `at_once` threads at the same moment, each with a client of
    its own: the time until the last answer."""
    global _phones
    if _phones is None:
        _phones = ThreadPoolExecutor(request["at_once"])

    def asked() -> int:
        if not hasattr(_clients, "client"):
            _clients.client = Client(HTTP_HOST=SITE)
        answer = _clients.client.get(request["path"], request["data"], headers=request["headers"])
        return answer.status_code

    start = time.perf_counter()
    statuses = list(_phones.map(lambda _phone: asked(), range(request["at_once"])))
    elapsed = time.perf_counter() - start
    assert set(statuses) <= {200, 204}, (request["path"], statuses)
    return elapsed


def measure(rounds: int) -> list[tuple[str, float, float, int | None]]:
    client = Client(HTTP_HOST=SITE)
    shown = requests()
    times: dict[str, list[float]] = {name: [] for name in shown}
    for request in shown.values():  # warm-up: templates compiled, caches filled
        if request.get("asgi"):
            asked_of_asgi(request)  # the first check: the reader takes the game up
        else:
            timed(client, request)
    time.sleep(0.5)  # the live reader has read the checked game's version
    for _ in range(rounds):
        for name, request in shown.items():
            times[name].append(timed(client, request))
    floor = statistics.median(times["/healthz"])
    rows = []
    for name, request in shown.items():
        request = saved_first(request)  # the save's own queries not counted
        with CaptureQueriesContext(connection) as queries:
            timed(client, request)
        median = statistics.median(times[name])
        # Another thread's queries are not captured: none said for the phones at once.
        count = None if request.get("at_once") else len(queries)
        rows.append((name, median * 1000, median / floor, count))
    return rows


PROFILED = {
    "game": "game page",
    "watch-only": "watch-only page",
    "saved": "game page just after a save",
    "changed": "changed poll",
    "table": "table page",
}


def profile(name: str) -> None:
    client = Client(HTTP_HOST=SITE)
    request = requests()[PROFILED[name]]
    timed(client, request)
    profiler = cProfile.Profile()
    for _ in range(20):
        saved = saved_first(request)  # the save itself not profiled
        profiler.enable()
        timed(client, saved)
        profiler.disable()
    pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(45)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="times each request is timed")
    parser.add_argument("--profile", choices=list(PROFILED))
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
        queries = "-" if queries is None else queries
        print(f"| {name} | {ms:.2f} | {ratio:.1f} | {queries} | {met} |")


if __name__ == "__main__":
    try:
        main()
    finally:
        import shutil

        shutil.rmtree(FOLDER, ignore_errors=True)
