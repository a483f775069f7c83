"""Rounds saved at the same moment from many phones: none is lost, none is doubled.

Each thread is one request: its own database connection, its own copy of the game, all of
them let go at once by a barrier. Run on SQLite (a file database, IMMEDIATE transactions) and
on PostgreSQL (`make test-postgres`, row locks).
"""

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection
from django.db.models import Sum

from scoring.models import Game, GameEvent, Hand
from scoring.rules import Hand as RulesHand
from scoring.rules import RoundEntry

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 20


def won_by_ana(boris: int, cyril: int, dana: int = 3) -> RoundEntry:
    hands = (RulesHand(), RulesHand(value=boris), RulesHand(value=cyril), RulesHand(value=dana))
    return RoundEntry(hands=hands, winner=0)


def at_once(count: int, game: Game, action: Callable[[Game, int], object]) -> list[object]:
    """Run `action(game, i)` in `count` threads released together; each thread loads the game
    itself and closes its connection at the end. Returns each thread's result, or raises the
    first error a thread met."""
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            own = Game.objects.get(pk=game.pk)
            barrier.wait(timeout=30)
            results[i] = action(own, i)
        except BaseException as error:  # handed to the test below
            errors.append(error)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    if errors:
        raise errors[0]
    return results


# The games are conftest's four_players: the target (300) is beyond what the rounds below
# add up to (210 at most).


def test_rounds_saved_at_once_are_all_kept_once(four_players):
    version = four_players.version
    # Every thread's round is told apart by Boris's hand: 2..21.
    rounds = at_once(THREADS, four_players, lambda own, i: own.record_round(won_by_ana(i + 2, 2)))

    four_players.refresh_from_db()
    numbers = sorted(four_players.rounds.values_list("number", flat=True))
    assert numbers == list(range(1, THREADS + 1))
    assert sorted(round_.number for round_ in rounds) == numbers
    boris_hands = Hand.objects.filter(round__game=four_players, player__seat=1)
    assert Counter(boris_hands.values_list("value", flat=True)) == Counter(range(2, THREADS + 2))

    stored = [
        Hand.objects.filter(round__game=four_players, player__seat=seat).aggregate(
            sum=Sum("points")
        )["sum"]
        for seat in range(4)
    ]
    assert (
        four_players.totals() == stored == [0, sum(range(2, THREADS + 2)), 2 * THREADS, 3 * THREADS]
    )
    assert four_players.version > version
    assert four_players.events.filter(kind=GameEvent.Kind.ADDED).count() == THREADS
    assert four_players.status == "playing"


def test_the_same_form_sent_five_times_at_once_records_one_round(four_players):
    rounds = at_once(
        5, four_players, lambda own, i: own.record_round(won_by_ana(7, 9), key="tap-42")
    )

    assert four_players.rounds.count() == 1
    assert {round_.pk for round_ in rounds} == {four_players.rounds.get().pk}
    assert four_players.totals() == [0, 7, 9, 3]
    assert four_players.events.count() == 1
    # A resend changes nothing, not even the version.
    four_players.refresh_from_db()
    version = four_players.version
    four_players.record_round(won_by_ana(7, 9), key="tap-42")
    four_players.refresh_from_db()
    assert four_players.version == version
