"""A table's changes at the same moment from many phones: members added and renamed, new games
with new members, renames across the table's games while rounds are saved, and a game and its
rematch kept together. A clash is refused with a reason (a RulesError, shown as a form error or
409), never an IntegrityError (500) or a deadlock (503), and the table keeps its rules: unique
names, at most 30 members.

Each thread is one request: its own database connection, its own copy of the table or game, all
released together by a barrier. The races show on PostgreSQL (`make test-postgres`, row locks);
on SQLite (IMMEDIATE transactions) every change waits for the whole database anyway.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client

from scoring import rules
from scoring.files import exchange
from scoring.models import MAX_MEMBERS, Game, Member, NewMember, Table, rename_players
from scoring.rules import Hand, RoundEntry, RulesError
from tests.conftest import finished_game
from tests.links import url

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 60  # seconds for the threads to start and finish


def at_once(actions: list[Callable[[], object]]) -> list[object]:
    """Run each action in its own thread, released together; what each returned or raised
    (an exception is returned, so that a test can say which refusals it expects)."""
    barrier = threading.Barrier(len(actions))
    results: list[object] = [None] * len(actions)

    def run(index: int, action: Callable[[], object]) -> None:
        # A refusal is an answer like any other: the barrier is not broken for it (a thread
        # still leaving the barrier would then raise BrokenBarrierError instead of acting).
        # A thread that never comes lets the others go after TIMEOUT.
        try:
            barrier.wait(timeout=TIMEOUT)
            results[index] = action()
        except BaseException as error:  # handed to the test
            results[index] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(index, action)) for index, action in enumerate(actions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * TIMEOUT)
    assert not any(thread.is_alive() for thread in threads)
    return results


def refusals(results: list[object]) -> Counter:
    """The codes of the RulesErrors among `results`; any other exception fails the test."""
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, RulesError):
            raise result
    return Counter(result.code for result in results if isinstance(result, RulesError))


def fresh(table: Table) -> Table:
    """The table as a new request reads it."""
    return Table.objects.get(pk=table.pk)


def test_six_phones_adding_the_same_member_at_once_add_one(friday_table_of_four):
    for name in ("Eva", "Filip", "Greta", "Hana", "Ivan"):
        added = at_once([lambda name=name: fresh(friday_table_of_four).add_member(name)] * 6)
        assert refusals(added) == Counter()
        assert len({member.pk for member in added}) == 1
    assert [member.name for member in friday_table_of_four.members.all()] == [
        "Ana",
        "Boris",
        "Cyril",
        "Dana",
        "Eva",
        "Filip",
        "Greta",
        "Hana",
        "Ivan",
    ]


def test_members_renamed_to_one_name_at_once_are_told_it_is_taken(friday_table_of_four):
    members = list(friday_table_of_four.members.all())
    for name in ("Eva", "Filip", "Greta", "Hana", "Ivan"):
        renamed = at_once(
            [
                lambda m=member, n=name: friday_table_of_four.rename_member(m, n)
                for member in members
            ]
        )
        # One takes it; each other is refused: the name is taken when its turn comes.
        assert refusals(renamed) == Counter({"name_taken": 3})
        names = [member.name for member in friday_table_of_four.members.all()]
        assert names.count(name) == 1
        assert len(set(names)) == 4


def test_members_taking_each_others_names_at_once_are_told_the_name_is_taken(friday_table_of_four):
    ana, boris = Member.objects.get(name="Ana"), Member.objects.get(name="Boris")
    renamed = at_once(
        [
            lambda: friday_table_of_four.rename_member(ana, "Boris"),
            lambda: friday_table_of_four.rename_member(boris, "Ana"),
        ]
    )
    # Each is refused: the other still has the name when its turn comes.
    assert refusals(renamed) == Counter({"name_taken": 2})
    assert [member.name for member in friday_table_of_four.members.all()] == [
        "Ana",
        "Boris",
        "Cyril",
        "Dana",
    ]


def test_six_new_members_at_once_at_29_members_make_30_and_the_table_still_imports():
    table = Table.start("Club", [f"Member {number}" for number in range(1, 30)])
    first = table.members.first()
    started = at_once(
        [
            lambda number=number: fresh(table).new_game([first, NewMember(f"New {number}")])
            for number in range(6)
        ]
    )
    assert refusals(started) == Counter({"member_count": 5})
    assert table.members.count() == MAX_MEMBERS
    assert table.games.count() == 1
    # Its own export reads back as a table of 30.
    again = exchange.import_table(exchange.export_table(table))
    assert again.members.count() == MAX_MEMBERS


def test_six_play_forms_with_a_new_member_at_29_members_are_refused_as_a_form_error():
    table = Table.start("Club", [f"Member {number}" for number in range(1, 30)])
    first = table.members.first()
    path = url("table", table.edit_token)

    def play(number: int) -> Callable[[], object]:
        data = {
            "action": "play",
            "play-members": [str(first.pk)],
            "play-guest_0": f"New {number}",
            "play-join_0": "on",
        }
        return lambda: Client().post(path, data)

    responses = at_once([play(number) for number in range(6)])
    refusals(responses)
    assert sorted(response.status_code for response in responses) == [200] * 5 + [303]
    for response in responses:
        if response.status_code == 200:
            assert "A table has 1 to 30 members, not 31." in response.content.decode()
    assert table.members.count() == MAX_MEMBERS


def won_by(seat: int, value: int) -> RoundEntry:
    return RoundEntry(
        hands=tuple(Hand() if other == seat else Hand(value=value) for other in range(4)),
        winner=seat,
    )


def test_renames_on_two_games_of_a_table_while_rounds_are_saved_never_deadlock(
    friday_table_of_four,
):
    everyone = list(friday_table_of_four.members.all())
    first = friday_table_of_four.new_game(everyone)
    second = friday_table_of_four.new_game(everyone)
    renames = 5
    rounds = 8

    def rename(game: Game, seat: int, name: str) -> Callable[[], None]:
        # On one game's players' page, the member renamed in every game of the table.
        def run() -> None:
            for number in range(renames):
                rename_players(Game.with_players(pk=game.pk), {seat: f"{name} {number}"})

        return run

    def save(game: Game, seat: int) -> Callable[[], None]:
        def run() -> None:
            for value in range(1, rounds + 1):
                Game.with_players(pk=game.pk).record_round(won_by(seat, value))

        return run

    # The second game's page renames Ana, the first game's Boris: each rename locks its own
    # game first, then the other's.
    results = at_once(
        [
            rename(second, 0, "Ana"),
            rename(first, 1, "Boris"),
            save(first, 2),
            save(second, 3),
        ]
    )
    assert refusals(results) == Counter()
    assert [member.name for member in friday_table_of_four.members.all()] == [
        "Ana 4",
        "Boris 4",
        "Cyril",
        "Dana",
    ]
    for game in (first, second):
        game = Game.with_players(pk=game.pk)
        assert game.names == ["Ana 4", "Boris 4", "Cyril", "Dana"]
        assert game.rounds.count() == rounds


def test_two_phones_keeping_a_game_and_its_rematch_at_once_make_one_table():
    for _ in range(4):
        game = finished_game(house_rules=rules.Rules(ace=1))
        rematch = game.rematch()
        before = Table.objects.count()
        kept = at_once(
            [
                lambda pk=game.pk: Table.keep_together(Game.with_players(pk=pk)),
                lambda pk=rematch.pk: Table.keep_together(Game.with_players(pk=pk)),
            ]
        )
        assert refusals(kept) == Counter()
        # The second phone joins the first phone's table.
        assert Table.objects.count() == before + 1
        assert kept[0] == kept[1]
        assert set(kept[0].games.values_list("pk", flat=True)) == {game.pk, rematch.pk}
        assert [member.name for member in kept[0].members.all()] == ["Ana", "Boris"]
