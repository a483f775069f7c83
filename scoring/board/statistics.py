"""Numbers about the players of a game, and wins across this browser's recent games.

`player_statistics()` works on plain values (`PlayedRound`), so that it is testable without the
database; `Scoreboard.played_rounds` makes them from the rounds a page has already read.
Templates: scoring/game.html (its partial `statistics`) and scoring/_wins_per_name.html.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring.models import Game, Player, Status


@dataclass(frozen=True)
class PlayedRound:
    """One round as it was scored: who went out (None for a blocked round) and whether it was
    a hand rummy. Per seat, the points scored (None for a player not playing it)
    and whether the player had opened."""

    winner: int | None
    hand_rummy: bool
    points: tuple[int | None, ...]
    opened: tuple[bool, ...]

    @property
    def blocked(self) -> bool:
        return self.winner is None

    def played_by(self, seat: int) -> bool:
        return self.points[seat] is not None

    def won_by(self, seat: int) -> bool:
        """Went out, or held a blocked round's lowest hand (shared: each of them)."""
        return seat == self.winner or self.lowest_hand(seat)

    def lowest_hand(self, seat: int) -> bool:
        """Held a blocked round's lowest hand: the engine scores exactly those 0 there (a loser
        who never opened scores at least 25)."""
        return self.blocked and self.points[seat] == 0

    def never_opened_penalty(self, seat: int) -> bool:
        """Caught with cards in hand before a first meld. A hand rummy's opponents have not
        opened either, but pay the hand rummy instead; a round's winner pays nothing."""
        return not self.hand_rummy and not self.opened[seat] and not self.won_by(seat)


@dataclass(frozen=True)
class PlayerStatistics:
    name: str
    rounds_won: int  # went out, or held the lowest hand of a blocked round
    hand_rummies: int
    never_opened: int
    average_points: float
    best_points: int | None
    best_rounds: tuple[int, ...]
    worst_points: int | None
    worst_rounds: tuple[int, ...]
    longest_run: int


def player_statistics(
    names: Sequence[str], rounds: Sequence[PlayedRound]
) -> list[PlayerStatistics]:
    """Each player's numbers, in seat order, over the rounds they played. Round numbers are
    1-based; `longest_run` is the longest run of rounds in a row scored with 0 points."""
    statistics = []
    for seat, name in enumerate(names):
        played = [
            (number, round_) for number, round_ in enumerate(rounds, 1) if round_.played_by(seat)
        ]
        points = [round_.points[seat] for _number, round_ in played]
        numbers = [number for number, _round in played]
        rounds_played = [round_ for _number, round_ in played]
        best = min(points, default=None)
        worst = max(points, default=None)
        run = longest = 0
        for point in points:
            run = run + 1 if point == 0 else 0
            longest = max(longest, run)
        statistics.append(
            PlayerStatistics(
                name=name,
                rounds_won=sum(round_.won_by(seat) for round_ in rounds_played),
                hand_rummies=sum(
                    round_.hand_rummy and round_.winner == seat for round_ in rounds_played
                ),
                never_opened=sum(round_.never_opened_penalty(seat) for round_ in rounds_played),
                average_points=round(sum(points) / len(points), 1) if points else 0.0,
                best_points=best,
                best_rounds=_numbers_where(numbers, points, best),
                worst_points=worst,
                worst_rounds=_numbers_where(numbers, points, worst),
                longest_run=longest,
            )
        )
    return statistics


def _numbers_where(
    numbers: Sequence[int], points: Sequence[int], value: int | None
) -> tuple[int, ...]:
    return tuple(number for number, point in zip(numbers, points, strict=True) if point == value)


@dataclass(frozen=True)
class NameWins:
    name: str
    wins: int
    games: int


def wins_per_name(games: Iterable[Game]) -> list[NameWins]:
    """Across these games (say, this browser's recent ones), each player name's wins and
    finished games played, most wins first. Only finished games count. Names are compared
    ignoring case; each shows as spelled in the most recent game. One query.
    """
    finished = [game for game in games if game.status == Status.FINISHED]
    players = (
        Player.objects.filter(game__in=finished)
        .order_by("game__created_at", "game__pk", "seat")
        .values_list("name", "seat", "game__winner_seat")
    )
    spelling: dict[str, str] = {}
    wins: dict[str, int] = {}
    played: dict[str, int] = {}
    for name, seat, winner_seat in players:
        key = name.casefold()
        # Oldest first, so that the last spelling written is the most recent one.
        spelling[key] = name
        wins[key] = wins.get(key, 0) + (seat == winner_seat)
        played[key] = played.get(key, 0) + 1
    table = [NameWins(spelling[key], wins[key], played[key]) for key in spelling]
    return sorted(table, key=lambda row: (-row.wins, row.name.casefold()))
