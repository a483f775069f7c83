"""What a page shows of a game: totals, round rows, the standing, who deals next.

Built from a game's rows in a fixed number of queries (whatever the number of rounds), with every
rule left to scoring.rules: this module only arranges the engine's answers for the templates.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

from . import chart, rules, statistics
from .models import Game, GameEvent, Hand, Player, Round

# The boards read lately in this process, by (edit token, version); the oldest go first.
BOARDS_KEPT = 64
_BOARDS: OrderedDict[tuple[str, int | None], Scoreboard] = OrderedDict()
_BOARDS_LOCK = threading.Lock()


@dataclass(frozen=True)
class HandRow:
    """One player's part of one round, as the round table shows it."""

    player: Player
    hand: Hand | None
    points: int
    total: int
    went_out: bool

    @property
    def cards(self) -> list[str]:
        return self.hand.card_list if self.hand else []

    @property
    def value(self) -> int | None:
        return self.hand.value if self.hand else None

    @property
    def opened(self) -> bool:
        return self.hand.opened if self.hand else True


@dataclass(frozen=True)
class RoundRow:
    round: Round
    hands: list[HandRow]
    tie_break: bool
    dealer: Player

    @property
    def number(self) -> int:
        return self.round.number

    @property
    def kind(self) -> str:
        if self.round.hand_rummy:
            return "hand_rummy"
        return "blocked" if self.round.blocked else "normal"

    @property
    def cache_key(self) -> str:
        """Everything the row shows: the round as saved (its hands change only with
        updated_at), its place, and what earlier rounds give it (running totals, tie-break)."""
        totals = "-".join(str(cell.total) for cell in self.hands)
        stamp = self.round.updated_at.timestamp()
        return f"{self.round.pk}.{self.number}.{stamp}.{int(self.tie_break)}.{totals}"


@dataclass(frozen=True)
class PlayerRow:
    """A player's line on the scoreboard."""

    player: Player
    total: int
    target: int
    leader: bool
    deals_next: bool

    @property
    def to_go(self) -> int:
        return max(self.target - self.total, 0)

    @property
    def percent(self) -> int:
        """How far along the way to the target, for the bar (0-100)."""
        return min(100, round(100 * self.total / self.target))


class Scoreboard:
    """A game read for display: `players`, `rounds`, `standing`, `next_dealer`."""

    def __init__(
        self, game: Game, players: list[Player], rounds: list[Round] | None = None
    ) -> None:
        self.game = game
        self.seated = players
        self._rounds = rounds
        self.target = rules.target_for(len(players))
        # The game's version these rows are from (None when not read from the database).
        self.version: int | None = None

    @classmethod
    def for_game(cls, game: Game) -> Scoreboard:
        """The game's board as the database holds it now: one query for the game's version,
        one for the players when this process has not read that version yet, and two more
        (the rounds, their hands) once something needs the rounds (the form of a save or a
        preview needs only the players). Every change bumps the version, so a board read once
        serves every later request for the same version (polls after a save, page loads,
        previews) with its rows, totals, chart and statistics already worked out."""
        version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first()
        key = (game.edit_token, version)
        with _BOARDS_LOCK:
            board = _BOARDS.get(key)
            if board is not None:
                _BOARDS.move_to_end(key)
        if board is not None:
            # A copy that keeps what was worked out, with this request's game (for the undo
            # banner and the deal, which read the game itself).
            board = copy.copy(board)
            board.game = game
            return board
        board = cls(game, list(game.players.order_by("seat")))
        board.version = version
        board._keep()
        return board

    def _keep(self) -> None:
        """Keep this board for later requests for its version, in place of any other."""
        if self.version is None:
            return
        with _BOARDS_LOCK:
            _BOARDS[(self.game.edit_token, self.version)] = self
            while len(_BOARDS) > BOARDS_KEPT:
                _BOARDS.popitem(last=False)

    @property
    def rounds_in_order(self) -> list[Round]:
        """The rounds with their hands (two queries the first time), in order."""
        if self._rounds is None:
            self._rounds = list(Round.objects.filter(game=self.game).with_hands())
            self._keep()  # what is worked out from them is kept with them
        return self._rounds

    @cached_property
    def points(self) -> list[list[int]]:
        """Each round's points, by seat."""
        return [round_.points_by_seat(len(self.seated)) for round_ in self.rounds_in_order]

    @cached_property
    def standings(self) -> list[rules.Standing]:
        """The standing after each round."""
        return rules.standings(self.points, len(self.seated), self.target)

    @cached_property
    def standing(self) -> rules.Standing:
        if self.standings:
            return self.standings[-1]
        return rules.standing([0] * len(self.seated), self.target)

    @property
    def totals(self) -> tuple[int, ...]:
        return self.standing.totals

    @property
    def next_round_number(self) -> int:
        return len(self.rounds_in_order) + 1

    @property
    def next_dealer(self) -> Player:
        return self.seated[self.game.dealer_for(self.next_round_number, len(self.seated))]

    @property
    def winner(self) -> Player | None:
        winner = self.standing.winner
        return self.seated[winner] if winner is not None else None

    @property
    def tied_leaders(self) -> list[Player]:
        return [self.seated[index] for index in self.standing.leaders]

    @cached_property
    def players(self) -> list[PlayerRow]:
        leaders = set(self.standing.leaders) if self.rounds_in_order else set()
        next_dealer = self.next_dealer
        return [
            PlayerRow(
                player=player,
                total=self.totals[seat],
                target=self.target,
                leader=seat in leaders,
                deals_next=player == next_dealer and not self.standing.finished,
            )
            for seat, player in enumerate(self.seated)
        ]

    @cached_property
    def rounds(self) -> list[RoundRow]:
        """The rounds in order, each with its hands by seat and the running totals."""
        rows = []
        totals = [0] * len(self.seated)
        players = len(self.seated)
        for index, round_ in enumerate(self.rounds_in_order):
            by_seat = {hand.player.seat: hand for hand in round_.hands.all()}
            points = self.points[index]
            totals = [total + point for total, point in zip(totals, points, strict=True)]
            winners = set(rules.round_winners(round_.entry(players).hands, round_.winner_seat))
            rows.append(
                RoundRow(
                    round=round_,
                    hands=[
                        HandRow(
                            player=player,
                            hand=by_seat.get(seat),
                            points=points[seat],
                            total=totals[seat],
                            went_out=seat in winners,
                        )
                        for seat, player in enumerate(self.seated)
                    ],
                    tie_break=index > 0 and self.standings[index - 1].tie_break,
                    dealer=self.seated[self.game.dealer_for(round_.number, players)],
                )
            )
        return rows

    @cached_property
    def played_rounds(self) -> list[statistics.PlayedRound]:
        """The rounds as plain values, for the statistics."""
        played = []
        for round_, points in zip(self.rounds_in_order, self.points, strict=True):
            opened = [True] * len(self.seated)
            for hand in round_.hands.all():
                opened[hand.player.seat] = hand.opened
            played.append(
                statistics.PlayedRound(
                    winner=round_.winner_seat,
                    hand_rummy=round_.hand_rummy,
                    points=tuple(points),
                    opened=tuple(opened),
                )
            )
        return played

    @cached_property
    def statistics(self) -> list[statistics.PlayerStatistics]:
        return statistics.player_statistics(
            [player.name for player in self.seated], self.played_rounds
        )

    @cached_property
    def chart(self) -> chart.Chart:
        """The running totals drawn as lines (scoring/_chart.svg.html)."""
        return chart.score_chart(
            [player.name for player in self.seated],
            [list(standing.totals) for standing in self.standings],
            self.target,
            {row.number for row in self.rounds if row.tie_break},
        )

    def last_deletion(self) -> GameEvent | None:
        """The latest change, when it deleted a round that can still be brought back."""
        event = self.game.events.first()
        if event and event.kind == GameEvent.Kind.DELETED and not event.restored:
            return event
        return None
