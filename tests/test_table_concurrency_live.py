"""A table's changes at the same moment from many phones, over real HTTP.

tests/test_table_concurrency.py calls scoring.board.standings from threads; here each phone is a
real client of pytest-django's live server (127.0.0.1), each request in its own server thread with
its own database connection, as the attack on the running server did it: six phones adding one
member, six "play" forms each with a new member at 29 members, "keep together" tapped on a
game and on its rematch at once, and for a few seconds renames on the players' pages of a
table's two games while rounds are saved on them. No answer is a 500 (a unique constraint) or a
503 (a deadlock, rami_site/middleware.py), and the table keeps its rules.

The races show on PostgreSQL (`make test-postgres`); on SQLite every change waits for the whole
database. Each test prints its answers by status (`pytest -s`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from scoring.files import exchange
from scoring.models import MAX_MEMBERS, Game, Member, Player, Table
from tests.conftest import round_post
from tests.links import url
from tests.test_concurrency_live import all_at_once, phones
from tests.test_table_concurrency import finished_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PHONES = 6
KEEP_TRIES = 8
# Renames and saves run for this long, each phone at most MAX_POSTS posts.
BUSY_SECONDS = 12
MAX_POSTS = 150


def report(case: str, statuses: Counter, **figures) -> None:
    """What the lead quotes: the answers by status and what the table holds after."""
    shown = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
    extra = "".join(f"; {name}: {value}" for name, value in figures.items())
    print(f"\n[{case}] answers {{{shown}}}{extra}")


def test_six_phones_adding_the_same_member_at_once_add_it_once(live_server, friday_table_of_four):
    path = url("table", friday_table_of_four.edit_token)
    table_phones = phones(live_server, PHONES)
    answers: Counter = Counter()
    for name in ("Eva", "Filip", "Greta"):
        for phone in table_phones:
            phone.open(path)
        answers.update(
            all_at_once(
                [
                    (phone, path, {"action": "add_member", "add-name": name})
                    for phone in table_phones
                ]
            )
        )
    names = list(friday_table_of_four.members.values_list("name", flat=True))
    report("add one member x6", answers, members=names)

    assert all(status < 500 for status in answers)
    assert sorted(names) == ["Ana", "Boris", "Cyril", "Dana", "Eva", "Filip", "Greta"]


def test_six_play_forms_with_a_new_member_at_29_members_make_30(live_server):
    table = Table.start("Club", [f"Member {number}" for number in range(1, 30)])
    first = table.members.first()
    path = url("table", table.edit_token)
    table_phones = phones(live_server, PHONES)
    for phone in table_phones:
        phone.open(path)
    posts = [
        (
            phone,
            path,
            {
                "action": "play",
                "play-members": str(first.pk),
                "play-guest_0": f"New {number}",
                "play-join_0": "on",
            },
        )
        for number, phone in enumerate(table_phones)
    ]
    answers = Counter(all_at_once(posts))
    members = table.members.count()
    # Its own export reads back (as a second table): a table of more than 30 would not.
    try:
        again = exchange.import_table(exchange.export_table(table))
    except exchange.ExchangeError as error:
        imported = f"refused ({error})"
    else:
        imported = f"{again.members.count()} members"
    report("play with a new member x6 at 29", answers, members=members, export_imports=imported)

    assert all(status < 500 for status in answers)
    assert members == MAX_MEMBERS
    assert imported == f"{MAX_MEMBERS} members"


def test_keep_together_tapped_on_a_game_and_its_rematch_at_once_makes_one_table(live_server):
    answers: Counter = Counter()
    tables_made: Counter = Counter()
    apart = 0
    for _ in range(KEEP_TRIES):
        game = finished_game()
        rematch = game.rematch()
        on_game, on_rematch = phones(live_server, 2)
        # The finished game's page offers the form; the rematch's own keep page shows it too.
        on_game.open(url("game", game.edit_token))
        on_rematch.open(url("keep_together", rematch.edit_token))
        before = Table.objects.count()
        answers.update(
            all_at_once(
                [
                    (on_game, url("keep_together", game.edit_token), {"name": ""}),
                    (on_rematch, url("keep_together", rematch.edit_token), {"name": ""}),
                ]
            )
        )
        tables_made[Table.objects.count() - before] += 1
        kept = Game.objects.filter(pk__in=[game.pk, rematch.pk])
        apart += len(set(kept.values_list("table", flat=True))) != 1
    report("keep together x2", answers, tables_made_per_try=dict(tables_made), apart=apart)

    assert all(status < 500 for status in answers)
    assert tables_made == Counter({1: KEEP_TRIES})
    assert apart == 0


def test_renames_on_a_tables_games_while_rounds_are_saved_never_fail(
    live_server, friday_table_of_four
):
    everyone = list(friday_table_of_four.members.all())
    games = [friday_table_of_four.new_game(everyone), friday_table_of_four.new_game(everyone)]
    deadline = time.monotonic() + BUSY_SECONDS
    statuses: dict[str, Counter] = {"rename": Counter(), "save": Counter()}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def count(kind: str, status: int) -> None:
        with lock:
            statuses[kind][status] += 1

    def rename(game: Game, seat: int, name: str) -> None:
        # The players' page of one game renames the member in every game of the table; the
        # second game's page renames Ana, the first game's Boris (as the attack did).
        phone = phones(live_server, 1)[0]
        path = url("players", game.edit_token)
        phone.open(path)
        shown = everyone[seat].name
        for number in range(MAX_POSTS):
            if time.monotonic() > deadline:
                return
            typed = f"{name} {number}"
            status = phone.post(path, {f"name_{seat}": typed, f"seen_{seat}": shown}).status
            count("rename", status)
            if status == 303:
                shown = typed

    def save(game: Game, first_winner: int) -> None:
        phone = phones(live_server, 1)[0]
        path = url("game", game.edit_token)
        phone.open(path)
        next_round = 1
        for number in range(MAX_POSTS):
            if time.monotonic() > deadline:
                return
            # The winner goes round the table and the others hold a 2 (the cheapest card): at
            # MAX_POSTS rounds a player has at most 225 points, short of the target of 300.
            winner = (first_winner + number) % 4
            hands = {seat: 2 for seat in range(4) if seat != winner}
            data = round_post(winner, hands, for_round=str(next_round), key=f"{path}{number}")
            status = phone.post(path, data).status
            count("save", status)
            if status == 303:
                next_round += 1

    def run(work, *args) -> None:
        try:
            work(*args)
        except BaseException as error:  # handed to the test below
            errors.append(error)

    workers = [
        threading.Thread(target=run, args=(rename, games[1], 0, "Ana")),
        threading.Thread(target=run, args=(rename, games[0], 1, "Boris")),
        threading.Thread(target=run, args=(save, games[0], 2)),
        threading.Thread(target=run, args=(save, games[1], 3)),
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=BUSY_SECONDS + 120)
    assert not any(worker.is_alive() for worker in workers)
    if errors:
        raise errors[0]

    # Every member's players carry the member's name, in both games.
    apart = [
        (member.name, player.name)
        for member in Member.objects.filter(table=friday_table_of_four)
        for player in Player.objects.filter(member=member)
        if player.name != member.name
    ]
    rounds = [game.rounds.count() for game in games]
    report("renames", statuses["rename"])
    report("saves", statuses["save"], rounds=rounds, names_apart=apart)

    for kind in ("rename", "save"):
        assert not any(status >= 500 for status in statuses[kind]), kind
    assert set(statuses["save"]) <= {303, 409}
    assert sum(rounds) == statuses["save"][303]
    assert apart == []
