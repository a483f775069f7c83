"""Where a game stands: its totals against the target, who is out, who won (standing); and over an
evening with players who leave, join and come back, which rounds each one plays (Span).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from scoring.rules.refusals import Code, RulesError


@dataclass(frozen=True)
class Standing:
    """Where a game stands after its rounds so far.

    `finished`: a total reached the target and one player has the lowest total, `winner`.
    `tie_break`: a total reached the target but two or more share the lowest: one more round.
    `leaders`: the players with the lowest total (everyone before the first round).
    """

    totals: tuple[int, ...]
    target: int
    finished: bool
    winner: int | None
    tie_break: bool
    leaders: tuple[int, ...] = field(default=())

    @property
    def status(self) -> str:
        if self.finished:
            return "finished"
        return "tie_break" if self.tie_break else "playing"


def standing(totals: Sequence[int], target: int, playing: Iterable[int] | None = None) -> Standing:
    """The standing of a game from each player's total: over as soon as a total reaches the
    target, won by the lowest total, with tie-break rounds while the lowest is shared.
    `playing` (indices; None: everyone) are the players still playing: one who left can
    no longer win, and neither ends the game nor shares a tie."""
    totals = tuple(totals)
    counted = range(len(totals)) if playing is None else sorted(set(playing))
    if not totals or not counted:
        raise RulesError(Code.PLAYER_COUNT, count=len(counted))
    lowest = min(totals[index] for index in counted)
    leaders = tuple(index for index in counted if totals[index] == lowest)
    reached = max(totals[index] for index in counted) >= target
    finished = reached and len(leaders) == 1
    return Standing(
        totals=totals,
        target=target,
        finished=finished,
        winner=leaders[0] if finished else None,
        tie_break=reached and len(leaders) > 1,
        leaders=leaders,
    )


def standings(
    round_points: Iterable[Sequence[int | None]],
    players: int,
    target: int,
    start: Sequence[int] | None = None,
    restarts: Mapping[int, Mapping[int, int]] | None = None,
) -> list[Standing]:
    """The standing after each round in turn, from the points of each round (None for a
    player not playing it), counted on from the totals `start` (nothing yet when None). A
    player who came back counts on from the total they came back with: `restarts`
    (round number -> {player: total before it}, as `restarts_of` gives it). After each round,
    those who played it are the ones playing."""
    totals = list(start) if start is not None else [0] * players
    after = []
    for number, points in enumerate(round_points, 1):
        for index, total in (restarts or {}).get(number, {}).items():
            totals[index] = total
        totals = [total + (point or 0) for total, point in zip(totals, points, strict=True)]
        playing = [index for index, point in enumerate(points) if point is not None]
        after.append(standing(totals, target, playing or None))
    return after


@dataclass(frozen=True)
class Span:
    """The rounds a player plays: from round `joins` on, to round `leaves` (None: to
    the end of the game). A player who joins late starts with `start` points."""

    joins: int = 1
    leaves: int | None = None
    # None: 0 for a player of the first round, the highest total then for one who joins.
    start: int | None = None
    # One who left and came back: each later stay, its first round, its start and its last.
    back: tuple[Span, ...] = ()

    @property
    def stays(self) -> tuple[Span, ...]:
        """Each stretch of rounds the player plays, the first one first."""
        return (replace(self, back=()), *self.back)

    def plays(self, number: int) -> bool:
        return any(
            stay.joins <= number and (stay.leaves is None or number <= stay.leaves)
            for stay in self.stays
        )


def playing_in(number: int, spans: Sequence[Span]) -> list[int]:
    """The players (indices of `spans`) who play round `number`."""
    return [index for index, span in enumerate(spans) if span.plays(number)]


def totals_now(
    after: Sequence[Standing],
    start: Sequence[int],
    restarts: Mapping[int, Mapping[int, int]] | None = None,
) -> list[int]:
    """The totals now, from `standings`' standings `after` each round: after the last round,
    those who came back since then counting from the total they came back with."""
    totals = list(after[-1].totals if after else start)
    for index, total in (restarts or {}).get(len(after) + 1, {}).items():
        totals[index] = total
    return totals


def restarts_of(spans: Sequence[Span]) -> dict[int, dict[int, int]]:
    """The totals those who came back count on from (standings' `restarts`): by the round
    they came back before, each one's total then."""
    restarts: dict[int, dict[int, int]] = {}
    for index, span in enumerate(spans):
        for stay in span.back:
            restarts.setdefault(stay.joins, {})[index] = stay.start or 0
    return restarts
