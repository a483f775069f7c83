"""Rounds saved at the same moment over real HTTP: none is lost, none is doubled.

tests/test_concurrency.py calls Game.record_round from threads; here the same happens through
the whole stack: 20 phones each load the game page (CSRF cookie and token), then all post their
round form at once to pytest-django's live server, each request in its own server thread with
its own database connection. Run on SQLite (a file, IMMEDIATE transactions) and on PostgreSQL
(`make test-postgres`).
"""

from __future__ import annotations

import threading
from collections import Counter
from urllib.parse import urlsplit

import pytest

from scoring import rules
from scoring.models import Game, GameEvent, Hand
from scoring.rules import RoundEntry
from tests.conftest import Phone, delete_post, edit_post, round_post, totals
from tests.links import url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PHONES = 20
TIMEOUT = 60  # seconds for the threads to start and finish


def phones(live_server, count: int) -> list[Phone]:
    address = urlsplit(live_server.url)
    return [Phone(address.hostname, address.port) for _ in range(count)]


def all_at_once(posts: list[tuple[Phone, str, dict]]) -> list[int]:
    """Send every (phone, path, data) POST from its own thread, released together; the
    status of each, in order."""
    barrier = threading.Barrier(len(posts))
    statuses: list[int | None] = [None] * len(posts)
    errors: list[BaseException] = []

    def send(index: int, phone: Phone, path: str, data: dict) -> None:
        try:
            barrier.wait(timeout=TIMEOUT)
            statuses[index] = phone.post(path, data).status
        except BaseException as error:  # handed to the test below
            errors.append(error)
            barrier.abort()

    threads = [
        threading.Thread(target=send, args=(index, *post)) for index, post in enumerate(posts)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * TIMEOUT)
    assert not any(thread.is_alive() for thread in threads)
    if errors:
        raise errors[0]
    return statuses


# The games are conftest's four_players: the target (300) is beyond what the rounds below
# add up to (210 at most).


def test_twenty_rounds_posted_at_once_are_each_kept_once(live_server, four_players):
    path = url("game", four_players.edit_token)
    table = phones(live_server, PHONES)
    for phone in table:
        phone.open(path)
    # Each phone's round is told apart by Boris's hand (2..21) and by its key. No `for_round`:
    # every phone typed its round while the page said "Round 1".
    posts = [
        (phone, path, round_post(0, {1: index + 2, 2: 2, 3: 3}, key=f"phone-{index}"))
        for index, phone in enumerate(table)
    ]
    statuses = all_at_once(posts)

    assert statuses == [303] * PHONES
    rounds = four_players.rounds.order_by("number")
    assert [round_.number for round_ in rounds] == list(range(1, PHONES + 1))
    boris = Hand.objects.filter(round__game=four_players, player__seat=1)
    assert Counter(boris.values_list("value", flat=True)) == Counter(range(2, PHONES + 2))
    keys = four_players.events.filter(kind=GameEvent.Kind.ADDED).values_list("key", flat=True)
    assert Counter(keys) == Counter(f"phone-{index}" for index in range(PHONES))

    # What every phone sees next: the totals are the sums of the rounds.
    stored = [
        sum(
            Hand.objects.filter(round__game=four_players, player__seat=seat).values_list(
                "points", flat=True
            )
        )
        for seat in range(4)
    ]
    assert stored == [0, sum(range(2, PHONES + 2)), 2 * PHONES, 3 * PHONES]
    assert totals(table[0].open(path)) == stored
    assert four_players.events.filter(kind="added").count() == PHONES


def test_one_form_posted_five_times_at_once_records_one_round(live_server, four_players):
    path = url("game", four_players.edit_token)
    table = phones(live_server, 5)
    for phone in table:
        phone.open(path)
    data = round_post(0, {1: 7, 2: 9, 3: 3}, key="one-tap")
    statuses = all_at_once([(phone, path, data) for phone in table])

    # Every copy is answered as saved (the round it recorded), and only one is recorded.
    assert statuses == [303] * 5
    assert four_players.rounds.count() == 1
    assert four_players.events.count() == 1
    assert totals(table[0].open(path)) == [0, 7, 9, 3]


def played(game: Game, rounds: int) -> Game:
    """`game` with `rounds` rounds, told apart by Boris's hand (2, 3, ...)."""
    for boris in range(2, rounds + 2):
        game.record_round(
            RoundEntry(
                hands=(
                    rules.Hand(),
                    rules.Hand(value=boris),
                    rules.Hand(value=2),
                    rules.Hand(value=3),
                ),
                winner=0,
            )
        )
    return game


def test_a_delete_tapped_twice_at_once_deletes_one_round(live_server, four_players):
    played(four_players, 5)
    path = url("game", four_players.edit_token)
    table = phones(live_server, 2)
    for phone in table:
        phone.open(path)
    statuses = all_at_once([(phone, path, delete_post(four_players, 2)) for phone in table])
    assert sorted(statuses) == [303, 409]
    boris = [r.hands.get(player__seat=1).value for r in four_players.rounds.order_by("number")]
    assert boris == [2, 4, 5, 6]


def test_twenty_phones_deleting_the_last_round_at_once_delete_it_once(live_server, four_players):
    played(four_players, 3)
    path = url("game", four_players.edit_token)
    table = phones(live_server, PHONES)
    for phone in table:
        phone.open(path)
    statuses = all_at_once([(phone, path, delete_post(four_players, 3)) for phone in table])
    # One deletes it; every other phone is told it is gone already (never a 500).
    assert Counter(statuses) == Counter({303: 1, 409: PHONES - 1})
    assert four_players.rounds.count() == 2
    assert four_players.events.filter(kind="deleted").count() == 1


def test_an_edit_and_a_delete_of_one_round_at_once_never_fail(live_server):
    # Five games, in each one phone edits round 2 while another deletes it.
    games = [played(Game.start(["Ana", "Boris", "Cyril", "Dana"]), 3) for _ in range(5)]
    table = phones(live_server, 2 * len(games))
    posts = []
    for index, game in enumerate(games):
        path = url("game", game.edit_token)
        table[2 * index].open(f"{path}rounds/2/")
        table[2 * index + 1].open(f"{path}rounds/2/")
        posts.append(
            (table[2 * index], f"{path}rounds/2/", edit_post(game, 2, 0, {1: 99, 2: 2, 3: 3}))
        )
        posts.append((table[2 * index + 1], path, delete_post(game, 2)))
    statuses = all_at_once(posts)
    # Either may come first; the other is refused with the reason (gone, or changed since).
    for index, game in enumerate(games):
        edited, deleted = statuses[2 * index : 2 * index + 2]
        assert sorted([edited, deleted]) == [303, 409]
        boris = [r.hands.get(player__seat=1).value for r in game.rounds.order_by("number")]
        assert boris == ([2, 4] if deleted == 303 else [2, 99, 4])
