"""The deal never moves when an earlier round is deleted or restored: random evenings of six
seats (rounds saved, players leaving, joining and coming back, the seats changed, rounds
deleted and their deletions undone), each checked after every deletion and every Undo of one.

Each round keeps who dealt it; the next round goes to the next player playing after the last
round's dealer, or to the dealer a change of seats chose for it while no round has been played
under that change. A deletion renumbered the rounds after it but not the changes of seats: after
round 8 of 9 was deleted, a change made before round 9 looked unplayed again, and its dealer
(who had dealt round 9) was named for the next round too."""

from __future__ import annotations

import random

import pytest

from scoring.models import Game, GameEvent
from scoring.rules import Hand, RoundEntry

pytestmark = pytest.mark.django_db

EVENINGS = 40
STEPS = 30
PHONE = "the table's phone"
NAMES = ["Ana", "Boris", "Cyril", "Dana", "Eva", "Filip", "Gita", "Hugo"]


def fresh(game: Game) -> Game:
    return Game.with_players(pk=game.pk)


def next_dealer(game: Game) -> int:
    return fresh(game).seating_now().dealer


def save_round(game: Game, rng: random.Random) -> None:
    playing = [player.seat for player in game.playing]
    winner = rng.choice(playing)
    hands = tuple(
        None if seat not in playing else Hand() if seat == winner else Hand(value=rng.randint(0, 9))
        for seat in range(len(game.seated_players))
    )
    game.record_round(RoundEntry(hands=hands, winner=winner), phone=PHONE)


def step(game: Game, rng: random.Random, checks: list[str]) -> None:
    """One thing the table does, chosen at random among those the game allows now."""
    game = fresh(game)
    playing = [player.seat for player in game.playing]
    rounds = game.rounds.count()
    left = [player for player in game.seated_players if player.left]
    moves = ["round"] * 4
    if rounds and len(playing) > 2:
        moves.append("leave")
    if len(playing) < 6 and len(game.seated_players) < len(NAMES):
        moves.append("join")
    if left and len(playing) < 6:
        moves.append("come back")
    if len(playing) > 2:
        moves.append("seats")
    if rounds >= 2:
        moves += ["delete"] * 2
    move = rng.choice(moves)
    if move == "round":
        save_round(game, rng)
    elif move == "leave":
        played = [seat for seat in playing if game.rounds.filter(hands__player__seat=seat).exists()]
        if played and len(playing) > 2:
            game.leave(rng.choice(played), phone=PHONE)
    elif move == "join":
        taken = {player.name for player in game.seated_players}
        name = next(name for name in NAMES if name not in taken)
        game.join(name, after=rng.choice(playing), phone=PHONE)
    elif move == "come back":
        come_back(game, rng.choice(left))
    elif move == "seats":
        order = list(playing)
        rng.shuffle(order)
        game.change_seating(rng.choice(order), order, phone=PHONE)
    else:
        delete_and_undo(game, rng, checks)


def come_back(game: Game, player) -> None:
    """A player who left plays again, where the game knows how (docs/rules.md, "Coming back")."""
    back = getattr(game, "come_back", None)
    if back is not None:
        back(player.seat, phone=PHONE)


def delete_and_undo(game: Game, rng: random.Random, checks: list[str]) -> None:
    """Delete a round that is not the last: the next dealer stays. Now and then undo the
    deletion: the next dealer stays again."""
    last = game.rounds.order_by("-number").first().number
    number = rng.randint(1, last - 1)
    before = next_dealer(game)
    round_ = game.rounds.get(number=number)
    deletion = game.delete_round(round_, phone=PHONE)
    after = next_dealer(game)
    if after != before:
        checks.append(f"deleting round {number} of {last}: seat {before} dealt next, then {after}")
    if rng.random() < 0.5:
        fresh(game).undo(GameEvent.objects.get(pk=deletion.pk), PHONE)
        again = next_dealer(game)
        if again != before:
            checks.append(f"undoing the deletion of round {number}: seat {before}, then {again}")


@pytest.mark.parametrize("evening", range(EVENINGS))
def test_deleting_or_restoring_an_earlier_round_never_moves_the_deal(evening):
    rng = random.Random(evening)
    game = Game.start(NAMES[:4], first_dealer=rng.randrange(4))
    for _ in range(3):
        save_round(fresh(game), rng)
    checks: list[str] = []
    for _ in range(STEPS):
        step(game, rng, checks)
        if fresh(game).status == "finished":
            break
    assert checks == []
