import asyncio
import copy
import http.client
import json
import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from django.utils import translation
from whitenoise.middleware import WhiteNoiseMiddleware

from scoring.files import exchange
from scoring.files.exchange import import_game
from scoring.live import reader as reading
from scoring.models import Game, Member, Table
from scoring.rules import Hand, RoundEntry, Rules
from tests.pages import Element, read

GAMES = Path(__file__).parent / "games"


_static_files_of: dict[tuple, dict] = {}
_scan_static_files = WhiteNoiseMiddleware.update_files_dictionary


def _static_files_once(self, root, prefix):
    """WhiteNoise reads the static files (about 370, the admin's among them) into answers ready
    to send each time its middleware is made, and Django's test client makes the middleware anew
    for every client: 40-60 ms each, a quarter of the quick loop's time. A test process reads
    them once for each set of the settings the middleware reads (every WHITENOISE_ one, the
    static files' and DEBUG); the answers are read-only once made, and the files do not change
    during a run (make runs collectstatic first)."""
    key = (
        root,
        prefix,
        *(
            (name, repr(getattr(django_settings, name)))
            for name in sorted(dir(django_settings))
            if name.startswith(("WHITENOISE_", "STATIC"))
            or name in {"STORAGES", "DEBUG", "FORCE_SCRIPT_NAME"}
        ),
    )
    files = _static_files_of.get(key)
    if files is None:
        before, self.files = self.files, {}
        _scan_static_files(self, root, prefix)
        files = _static_files_of[key] = self.files
        self.files = before
    self.files.update(files)


WhiteNoiseMiddleware.update_files_dictionary = _static_files_once


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """A test database of this run's own, and of each pytest-xdist worker's, so that two runs
    in one checkout never share one. The servers that tests start find it as they do any:
    connection.settings_dict["NAME"] once it is made (tests/test_two_servers.py).

    SQLite: a file, not memory (threads in a test, tests/test_concurrency.py, must share the
    database, and each thread has its own connection), in a temporary folder removed at the
    end. PostgreSQL: test_<name>, with pytest-django's _gw0 suffix of the worker and then the
    process id, so that two runs against one cluster do not drop each other's database."""
    database = django_settings.DATABASES["default"]
    test = database.setdefault("TEST", {})
    if database["ENGINE"] == "django.db.backends.sqlite3":
        folder = tempfile.mkdtemp(prefix="rami-test-db-")
        test["NAME"] = os.path.join(folder, "test-db.sqlite3")
        yield
        shutil.rmtree(folder, ignore_errors=True)
    else:
        test["NAME"] = f"{test.get('NAME') or 'test_' + database['NAME']}_{os.getpid()}"
        yield


# The tests whose outcome may differ between SQLite and PostgreSQL, marked `database`: CI runs
# the whole suite on SQLite (`make test`) and these again on PostgreSQL (`make test-postgres`,
# -m database). Where the app takes a path of its own on PostgreSQL (connection.vendor), the
# database decides (locks, isolation, constraints, column types, DDL), or a test counts queries.
# The rest reaches the database through the same ORM statements and asserts what the app
# computes from them in Python: the rules, the pages, the forms, the languages, the browser, the
# server's processes. A whole module by its name, one test by module::name.
# tests/test_database_selection.py checks that every name here exists and that every test
# asking for the vendor or counting queries is here.
BY_DATABASE = {
    # Row locks (select_for_update) on PostgreSQL, one writer at a time (IMMEDIATE) on SQLite.
    "test_concurrency": "rounds saved at once from threads",
    "test_concurrency_live": "rounds saved at once through the live server",
    "test_table_concurrency": "a table's changes at once from threads",
    "test_table_concurrency_live": "a table's changes at once through the live server",
    "test_table_members::test_six_phones_retiring_at_once_from_one_page_retire_one_each_time": (
        "six retirements at once"
    ),
    "test_no_round_lost": "races, and names PostgreSQL and Python compare",
    # models.snapshot: REPEATABLE READ on PostgreSQL, a deferred read in WAL on SQLite; the
    # live reader's versions (= ANY(array) against json_each) and PostgreSQL's LISTEN/NOTIFY.
    "test_poll_snapshot": "a live update read in one snapshot",
    "test_live": "the reader's query, and its notices on PostgreSQL",
    "test_live_reader_delta": "the reader's reads of what moved, beside its full reads",
    "test_live_convergence": "two workers' readers",
    "test_live_servers": "a save on one server heard by the other's stream",
    # Several processes on one database: connections, and a transaction cut by a kill.
    "test_two_servers": "two servers, one database",
    "test_worker_kill": "a worker killed in the middle of its transactions",
    "test_asgi": "each thread's own connection",
    "test_serve_connections": "1,200 phones, connections bounded by the threads",
    # Migrations: transactional DDL and its locks on PostgreSQL, table rebuilds on SQLite.
    "test_migrations": "the data migrations",
    "test_upgrade": "migrations while the previous release serves",
    "test_health": "the migrations missing, said by /healthz",
    "test_views::test_healthz_answers_ok_after_checking_the_database": "/healthz's one query",
    # Backup and restore: COPY on PostgreSQL, pg_dump against SQLite's copy, batches of
    # transactions (let_others_write pauses on SQLite only).
    "test_backup": "backup and restore",
    "test_backup_tables": "backup and restore of tables, in counted queries",
    "test_backup_recipe": "pg_dump or SQLite's copy, and the restore drill",
    "test_restore_batches": "restore in batches, in counted queries",
    "test_import_batches": "imports in short transactions",
    "test_delete_on_request": "deletions kept through a restore",
    # Column types and constraints PostgreSQL enforces and SQLite does not: lengths (varchar),
    # integer widths, NUL in text, jsonb, timestamptz, unique keys.
    "test_hostile_files": "numbers and dates bounded before their columns",
    "test_odd_numbers": "numbers past any column",
    # Any text and number a form or a file sends, where it may reach a column or a lookup
    # (the stale pages' races are one thread's sequences, the same on both).
    "test_fuzz::test_start_answers_any_form_and_starts_a_game_only_when_it_says_so": "",
    "test_fuzz::test_save_answers_any_form_and_stores_only_a_round_it_accepts": "",
    "test_fuzz::test_delete_deletes_only_the_round_it_names_as_it_is": "",
    "test_fuzz::test_restore_with_a_bad_event_is_refused_and_changes_nothing": "",
    "test_fuzz::test_the_round_page_answers_any_form_and_changes_only_what_it_accepts": "",
    "test_fuzz::test_the_importer_refuses_a_bad_document_in_one_line_and_creates_nothing": "",
    "test_fuzz::test_import_game_refuses_a_bad_file_with_one_line_and_creates_nothing": "",
    "test_fuzz::test_a_name_over_30_characters_is_refused": "",
    "test_fuzz::test_more_than_108_cards_in_one_hand_are_refused_with_a_clear_error": "",
    "test_fuzz::test_an_imported_hand_of_more_than_108_cards_is_refused": "",
    "test_exchange": "imports of every field",
    "test_table_exchange": "table imports of every field",
    "test_names": "unique name keys",
    "test_models": "constraints, JSON stored and read by key, the totals' one query",
    "test_table_period": "timestamps compared at a period's bounds",
    # Query counts: a query more (or a batch split) would show on one database only.
    "test_performance": "every page's queries",
    "test_tables::test_a_table_is_read_in_the_same_few_queries_for_3_games_and_for_200": "",
    "test_table_views::test_the_table_page_makes_the_same_queries_for_3_games_and_for_200": "",
    "test_table_views::test_the_page_of_a_table_of_200_games_takes_5_queries_and_shows_"
    "every_number": "",
    "test_statistics::test_statistics_of_the_every_kind_game": "",
    "test_statistics::test_wins_per_name_counts_finished_games_ignoring_case": "",
    "test_chart::test_the_scoreboard_draws_a_games_chart_without_more_queries": "",
    "test_recent::test_the_start_page_lists_recent_games_in_a_fixed_number_of_queries": "",
    "test_views_poll::test_an_unchanged_game_costs_one_query_and_no_rendering": "",
    "test_views_poll::test_the_phones_of_a_table_asking_the_same_get_one_answer_drawn_once": "",
}


def by_database(item) -> bool:
    """Whether `item` is one of BY_DATABASE's tests."""
    module = item.module.__name__.removeprefix("tests.")
    return module in BY_DATABASE or f"{module}::{item.originalname}" in BY_DATABASE


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """BY_DATABASE's tests marked `database`, before -m selects by marks."""
    for item in items:
        if isinstance(item, pytest.Function) and by_database(item):
            item.add_marker(pytest.mark.database)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item):
    """The live updates' streams of a test's pages (served by the live server's threads) end
    with the test, and the reader closes its connection, before the test's database goes."""
    reading.reader.stop()


def run_async(coroutine, timeout: float = 30):
    """asyncio.run(coroutine) in a thread of its own: the browser tests leave an event loop
    running in the test thread, where asyncio.run is refused."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result(timeout=timeout)


def game_document(name: str) -> dict:
    return json.loads((GAMES / f"{name}.json").read_text())


@pytest.fixture
def every_kind_game(db) -> Game:
    """A finished 4-player game: a normal round, a hand rummy, a round that leads to a
    tie-break, and a blocked tie-break round that Ana wins."""
    return import_game(game_document("every_kind"))


def thursday() -> dict:
    """rami-table/1's worked example (docs/formats.md): three finished games of Ana, Boris,
    Cyril and Dana."""
    return json.loads((GAMES / "thursday_cards.json").read_text())


@pytest.fixture
def thursday_table(db) -> Table:
    return exchange.import_table(thursday())


def big_table(games: int) -> Table:
    """A table of `games` games: the worked example's three again and again, every fifth game
    with a guest in Boris's seat and every seventh left unfinished."""
    document = thursday()
    examples = document["games"]
    document["games"] = []
    for number in range(games):
        game = copy.deepcopy(examples[number % 3])
        game.pop("started")
        if number % 5 == 0 and "Boris" in game["players"]:
            game = json.loads(json.dumps(game).replace('"Boris"', '"Eva"'))
        if number % 7 == 0:
            game["rounds"] = game["rounds"][:-1]
        document["games"].append(game)
    return exchange.import_table(document)


@pytest.fixture
def four_players(db) -> Game:
    return Game.start(["Ana", "Boris", "Cyril", "Dana"])


@pytest.fixture
def three_players(db) -> Game:
    return Game.start(["Ana", "Boris", "Cyril"])


def finished_game(names=("Ana", "Boris"), house_rules: Rules | None = None) -> Game:
    """A game over after its first round: the first player's hand rummy, the others never
    opened."""
    game = Game.start(list(names), house_rules=house_rules)
    hands = tuple(Hand(opened=seat == 0) for seat in range(len(names)))
    game.record_round(RoundEntry(hands=hands, winner=0, hand_rummy=True))
    assert game.status == "finished"
    return game


@pytest.fixture
def friday_table(db) -> Table:
    """A table of three members and no game yet."""
    return Table.start("Friday", ["Ana", "Boris", "Cyril"])


@pytest.fixture
def friday_table_of_four(db) -> Table:
    return Table.start("Friday", ["Ana", "Boris", "Cyril", "Dana"])


def members_of(table: Table) -> dict[str, Member]:
    return {member.name: member for member in table.members.all()}


def round_post(winner, hands=None, **extra) -> dict:
    """The POST data of the round form: `hands` maps seats to "cards", a number or
    (cards-or-number, "not opened")."""
    data = {"action": "save", "winner": str(winner)}
    for seat, hand in (hands or {}).items():
        not_opened = isinstance(hand, tuple)
        if not_opened:
            hand = hand[0]
        if isinstance(hand, int):
            data[f"value_{seat}"] = str(hand)
        else:
            data[f"cards_{seat}"] = hand
        if not_opened:
            data[f"not_opened_{seat}"] = "on"
    data.update(extra)
    return data


@dataclass
class Phone:
    """One browser talking to a real server (tests/test_concurrency_live.py,
    tests/test_two_servers.py): the CSRF cookie a page set and the token its form carries."""

    host: str
    port: int
    cookie: str = ""
    token: str = ""

    def request(self, method: str, path: str, body: str = "") -> http.client.HTTPResponse:
        # A save may wait its turn behind many others: a generous, bounded timeout.
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {"Cookie": f"csrftoken={self.cookie}"} if self.cookie else {}
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body.encode(), headers=headers)
        response = connection.getresponse()
        response.text = response.read().decode()
        connection.close()
        return response

    def open(self, path: str) -> str:
        """GET a page as a browser does, keeping its CSRF cookie and form token."""
        response = self.request("GET", path)
        assert response.status == 200
        cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie") or "")
        if cookie:
            self.cookie = cookie.group(1)
        # The first form's token: every form of the page carries one.
        self.token = read(response).select("input[name=csrfmiddlewaretoken]")[0].get("value")
        return response.text

    def post(self, path: str, data: dict) -> http.client.HTTPResponse:
        return self.request("POST", path, urlencode({**data, "csrfmiddlewaretoken": self.token}))


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """A request made through the test client leaves its language active in the thread (the
    LocaleMiddleware activates it): the next test starts in English, whatever this one did."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_limit_on_new_games(settings, request):
    """The suite starts games by the hundred (the fuzz test alone, 250 in a minute): the
    per-client limit on new games is lifted, except in tests/test_limits.py, which tests it."""
    if request.module.__name__ != "tests.test_limits":
        settings.RAMI_NEW_GAMES_PER_MINUTE = 10**9


def as_seen(game: Game, number: int) -> dict:
    """What a phone's form says of round `number` as it shows it now: its id and revision
    (the round page's form and its delete button carry them)."""
    round_ = game.rounds.get(number=number)
    return {"round": str(round_.pk), "number": str(number), "revision": str(round_.revision)}


def delete_post(game: Game, number: int) -> dict:
    """The POST data of the delete button on round `number`'s page."""
    return {"action": "delete", **as_seen(game, number)}


def edit_post(game: Game, number: int, winner, hands=None, **extra) -> dict:
    """The POST data of round `number`'s edit form (round_post, with the round's identity)."""
    seen = as_seen(game, number)
    return round_post(winner, hands, round=seen["round"], revision=seen["revision"], **extra)


def totals(answer) -> list[int]:
    """Each player's total as the game page (or its fragment) shows it, in seat order."""
    return [int(total) for total in read(answer).texts(".sum")]


def round_rows(answer) -> list[str]:
    """The round table's rows a game page (or a live update) shows, whole: their text, links
    and classes, to compare with another page's."""
    return [row.markup for row in read(answer).select("tr[id^=round-]")]


def history_change(answer, heading: str) -> Element:
    """The change of a game's history page under this heading ("Round 2 edited")."""
    (change,) = (
        change for change in read(answer).select("li.change") if change.one("h2").text == heading
    )
    return change
