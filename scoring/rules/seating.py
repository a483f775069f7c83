"""Seats and deals: who deals next, who may join or leave a game under way and with what total, and
a seating that names each player once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring.rules.refusals import Code, RulesError
from scoring.rules.rulebook import MAX_PLAYERS, MIN_PLAYERS


def next_dealer(order: Sequence[int], last: int | None, playing: Iterable[int]) -> int:
    """Who deals next: the next player of the deal's `order` (seats, every one once)
    after `last` (the last round's dealer; None: before the first round, the order's first)
    who is `playing`; a player who left is passed over."""
    playing = set(playing)
    start = 0 if last is None else order.index(last) + 1
    turn = [order[(start + step) % len(order)] for step in range(len(order))]
    return next((seat for seat in turn if seat in playing), turn[0])


def start_total(playing_totals: Iterable[int]) -> int:
    """A joiner starts on the highest total of those playing: none gains by coming late."""
    return max(playing_totals, default=0)


# The most a player who joins may start with, as the table types it: the largest target.
MAX_START_TOTAL = 10_000


def check_start_total(total: object) -> int:
    """A starting total as the table types it for a player who joins: 0 to MAX_START_TOTAL;
    else RulesError "start_total"."""
    if type(total) is not int or not 0 <= total <= MAX_START_TOTAL:
        raise RulesError(Code.START_TOTAL, value=total, limit=MAX_START_TOTAL)
    return total


# The most players one game seats over an evening, those who left included: a game file
# lists every one of them.
MAX_SEATS = 2 * MAX_PLAYERS


def check_join(playing: int, seated: int = 0) -> None:
    """A player may join while fewer than MAX_PLAYERS play, and while the game has
    seated fewer than MAX_SEATS players in all."""
    if playing >= MAX_PLAYERS:
        raise RulesError(Code.JOIN_FULL, limit=MAX_PLAYERS)
    if seated >= MAX_SEATS:
        raise RulesError(Code.SEATS_FULL, limit=MAX_SEATS)


def check_leave(playing: int, player: int | None = None) -> None:
    """A player may leave while at least MIN_PLAYERS others keep playing."""
    if playing - 1 < MIN_PLAYERS:
        raise RulesError(Code.LEAVE_LAST, player, limit=MIN_PLAYERS)


def check_seating(dealer: object, order: Sequence[object], players: int | Sequence[int]) -> None:
    """Who deals next and the seating order the deal then goes round (seats, 0-based), for a
    game of `players` players (a count, or the seats of those playing): each player in the
    order once, the dealer one of them. Else RulesError. "seating_twice" names the player
    chosen a second time (with the `missing` seat, and the `position` of that second choice
    in the order), "seating_missing" a player left out. "seating_order" is anything else (a
    seat that is no player's), "seating_dealer" a dealer who is not playing."""
    seats = range(players) if isinstance(players, int) else list(players)
    if not all(type(seat) is int and seat in seats for seat in order):
        raise RulesError(Code.SEATING_ORDER)
    for position, seat in enumerate(order):
        if seat in order[:position]:
            missing = next((other for other in seats if other not in order), None)
            if missing is None:
                raise RulesError(Code.SEATING_ORDER)
            raise RulesError(Code.SEATING_TWICE, seat, missing=missing, position=position)
    if len(order) != len(seats):
        raise RulesError(Code.SEATING_MISSING, next(other for other in seats if other not in order))
    if type(dealer) is not int or dealer not in seats:
        raise RulesError(Code.SEATING_DEALER)
