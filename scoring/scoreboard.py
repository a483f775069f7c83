"""What a page shows of a game: totals, round rows, the standing, who deals next.

Built from a game's rows in a fixed number of queries (whatever the number of rounds), with every
rule left to scoring.rules: this module only arranges the engine's answers for the templates.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

from . import chart, rules, statistics
from .models import Game, GameEvent, Hand, Player, Round


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

    @classmethod
    def for_game(cls, game: Game) -> Scoreboard:
        """The game's board as the database holds it now: one query for the players, and two
        more (the rounds, their hands) once something needs the rounds (the form of a save or
        a preview needs only the players). Nothing is kept between requests: a page shows
        what the rows say, however they were changed."""
        return cls(game, list(game.seated_players))

    @property
    def rounds_in_order(self) -> list[Round]:
        """The rounds with their hands (two queries the first time), in order. Each hand's
        player is one of `seated`, not read again with every hand."""
        if self._rounds is None:
            rounds = Round.objects.filter(game=self.game).order_by("number")
            self._rounds = list(rounds.prefetch_related("hands"))
            by_id = {player.pk: player for player in self.seated}
            for round_ in self._rounds:
                for hand in round_.hands.all():
                    hand.player = by_id[hand.player_id]
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
    def rounds_key(self) -> str:
        """A digest of all that the chart, the round table and the statistics are drawn from:
        the names, the target, and every round and hand as stored (running totals, tie-breaks
        and statistics follow from those), cheaper to work out than the rows themselves.
        game.html keeps their HTML under it, so a row changed in any way (a form, a queryset
        .update(), a migration, a restore) gives a new key and is drawn anew: what is kept by
        its content cannot go stale."""
        content = (
            [player.name for player in self.seated],
            self.target,
            [
                (
                    round_.number,
                    round_.winner_seat,
                    round_.hand_rummy,
                    sorted(
                        (hand.player.seat, hand.cards, hand.value, hand.opened, hand.points)
                        for hand in round_.hands.all()
                    ),
                )
                for round_ in self.rounds_in_order
            ],
        )
        return hashlib.blake2b(repr(content).encode(), digest_size=16).hexdigest()

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
