"""What a page shows of a game: totals, round rows, the standing, who deals next.

Built from a game's rows in a fixed number of queries (whatever the number of rounds), with every
rule left to scoring.rules: this module only arranges the engine's answers for the templates.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

from django.db.models import Sum

from . import chart, rules, statistics
from .models import Game, GameEvent, Hand, Player, Round


@dataclass(frozen=True)
class StoredHand:
    """One player's hand in one round, as stored: the cards (or the typed value), whether the
    player had opened, and the points the rules gave."""

    cards: tuple[str, ...]
    value: int | None
    opened: bool
    points: int


@dataclass(frozen=True)
class StoredRound:
    """One round as stored, its hands by seat (None for a seat without a stored hand)."""

    number: int
    winner: int | None
    hand_rummy: bool
    hands: tuple[StoredHand | None, ...]
    # The round's identity as a phone's Undo of a save names it (Game._round_as_seen).
    pk: int = 0
    revision: int = 1

    @property
    def points(self) -> list[int]:
        return [hand.points if hand else 0 for hand in self.hands]

    def winners(self, house_rules: rules.Rules) -> list[int]:
        """Who scored 0 by going out, or with the lowest hand of a blocked round (the rules
        decide, from the hands' values)."""
        if self.winner is not None:
            return [self.winner]
        hands = [
            rules.Hand(opened=hand.opened, value=hand.value, cards=hand.cards)
            if hand
            else rules.Hand()
            for hand in self.hands
        ]
        return rules.round_winners(hands, None, house_rules)

    @property
    def kind(self) -> str:
        return rules.RoundEntry(hands=(), winner=self.winner, hand_rummy=self.hand_rummy).kind


@dataclass(frozen=True)
class HandRow:
    """One player's part of one round, as the round table shows it."""

    player: Player
    hand: StoredHand | None
    points: int
    total: int
    went_out: bool  # the player went out (a blocked round has nobody who did)
    lowest: bool = False  # held the lowest hand of a blocked round, and so scored 0
    # How a never-opened loser's points came about (None for everyone else).
    explained: rules.NotOpenedSum | None = None

    @property
    def cards(self) -> tuple[str, ...]:
        return self.hand.cards if self.hand else ()

    @property
    def value(self) -> int | None:
        return self.hand.value if self.hand else None

    @property
    def opened(self) -> bool:
        return self.hand.opened if self.hand else True


@dataclass(frozen=True)
class RoundRow:
    round: StoredRound
    hands: list[HandRow]
    tie_break: bool
    dealer: Player

    @property
    def number(self) -> int:
        return self.round.number

    @property
    def kind(self) -> str:
        return self.round.kind


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
    """A game read for display: `players`, `rounds`, `standing`, `next_dealer`.

    `first`: the first round read. A board from a later round (from_round) reads the totals in
    one aggregate query and only the rounds from there on: enough for the totals, the banners,
    the round entry and those rows (a live update of what changed), not for the chart or the
    statistics."""

    # The rounds the game page shows before "Show all": the latest, newest first.
    SHOWN_ROUNDS = 8

    def __init__(self, game: Game, players: list[Player], first: int = 1) -> None:
        self.game = game
        self.seated = players
        self.target = game.target
        self.first = first

    @classmethod
    def for_game(cls, game: Game) -> Scoreboard:
        """The game's board as the database holds it now: the players the game was read with,
        and two queries (the rounds, their hands) once something needs the rounds (the form of
        a save or a preview needs only the players). Nothing is kept between requests: a page
        shows what the rows say, however they were changed."""
        return cls(game, list(game.seated_players))

    @classmethod
    def from_round(cls, game: Game, first: int) -> Scoreboard:
        """The game's board read from round `first` on (see the class)."""
        return cls(game, list(game.seated_players), first=first)

    @cached_property
    def rounds_in_order(self) -> list[StoredRound]:
        """The rounds (from `first` on) with their hands, in order: read as plain values (two
        queries), not as model objects, which cost ten times as much for a long game."""
        seats = {player.pk: player.seat for player in self.seated}
        hands: dict[int, list[StoredHand | None]] = {}
        stored = Hand.objects.filter(round__game=self.game, round__number__gte=self.first)
        for round_id, player_id, cards, value, opened, points in stored.values_list(
            "round_id", "player_id", "cards", "value", "opened", "points"
        ):
            by_seat = hands.setdefault(round_id, [None] * len(self.seated))
            by_seat[seats[player_id]] = StoredHand(tuple(cards.split()), value, opened, points)
        rounds = Round.objects.filter(game=self.game, number__gte=self.first).order_by("number")
        return [
            StoredRound(
                number=number,
                winner=winner,
                hand_rummy=hand_rummy,
                hands=tuple(hands.get(pk, [None] * len(self.seated))),
                pk=pk,
                revision=revision,
            )
            for pk, number, winner, hand_rummy, revision in rounds.values_list(
                "pk", "number", "winner_seat", "hand_rummy", "revision"
            )
        ]

    @cached_property
    def points(self) -> list[list[int]]:
        """Each round's points, by seat."""
        return [round_.points for round_ in self.rounds_in_order]

    @cached_property
    def totals_before(self) -> list[int]:
        """Each player's total before round `first`: nothing for a whole board; else the
        totals (one aggregate query) less the rounds read."""
        if self.first == 1:
            return [0] * len(self.seated)
        seats = {player.pk: player.seat for player in self.seated}
        totals = [0] * len(self.seated)
        summed = Hand.objects.filter(round__game=self.game).values("player_id")
        for player_id, total in summed.annotate(total=Sum("points")).values_list(
            "player_id", "total"
        ):
            totals[seats[player_id]] = total
        for points in self.points:
            totals = [total - point for total, point in zip(totals, points, strict=True)]
        return totals

    @cached_property
    def standings(self) -> list[rules.Standing]:
        """The standing after each round (read)."""
        return rules.standings(self.points, len(self.seated), self.target, self.totals_before)

    @cached_property
    def standing(self) -> rules.Standing:
        if self.standings:
            return self.standings[-1]
        return rules.standing(self.totals_before, self.target)

    @property
    def totals(self) -> tuple[int, ...]:
        return self.standing.totals

    @property
    def round_count(self) -> int:
        return self.first - 1 + len(self.rounds_in_order)

    @property
    def next_round_number(self) -> int:
        return self.round_count + 1

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
        players = len(self.seated)
        house = self.game.rules
        # The standing before each round: a tie-break round follows a shared lowest total.
        before = [rules.standing(self.totals_before, self.target), *self.standings]
        for index, round_ in enumerate(self.rounds_in_order):
            totals = self.standings[index].totals
            # A blocked round has nobody who went out: its lowest hands score 0 all the same.
            lowest = set(round_.winners(house)) if round_.winner is None else set()
            rows.append(
                RoundRow(
                    round=round_,
                    hands=[
                        HandRow(
                            player=player,
                            hand=round_.hands[seat],
                            points=round_.hands[seat].points if round_.hands[seat] else 0,
                            total=totals[seat],
                            went_out=seat == round_.winner,
                            lowest=seat in lowest,
                            explained=self._not_opened_sum(round_, seat, lowest),
                        )
                        for seat, player in enumerate(self.seated)
                    ],
                    tie_break=before[index].tie_break,
                    dealer=self.seated[self.game.dealer_for(round_.number, players)],
                )
            )
        return rows

    def _not_opened_sum(
        self, round_: StoredRound, seat: int, lowest: set[int]
    ) -> rules.NotOpenedSum | None:
        """How the points of a never-opened loser came about, for the round table."""
        hand = round_.hands[seat]
        if hand is None or hand.opened or round_.hand_rummy or not hand.points:
            return None
        if seat == round_.winner or seat in lowest:
            return None
        house = self.game.rules
        worth = hand.value if hand.value is not None else rules.hand_value(hand.cards, house)
        return house.not_opened_sum(worth, self.target)

    def rounds_shown(self, all_rounds: bool = False) -> list[RoundRow]:
        """The rounds the page shows, newest first: the latest SHOWN_ROUNDS, or all."""
        rows = self.rounds if all_rounds else self.rounds[-self.SHOWN_ROUNDS :]
        return rows[::-1]

    @property
    def folded_count(self) -> int:
        """How many older rounds the page folds away until "Show all"."""
        return max(self.round_count - self.SHOWN_ROUNDS, 0)

    @cached_property
    def rounds_key(self) -> str:
        """A digest of all that the chart, the round table and the statistics are drawn from:
        the names, the target, and every round and hand as stored (running totals, tie-breaks
        and statistics follow from those), cheaper to work out than the rows themselves.
        game.html keeps their HTML under it, so a row changed in any way (a form, a queryset
        .update(), a migration, a restore) gives a new key and is drawn anew: what is kept by
        its content cannot go stale."""
        content = ([player.name for player in self.seated], self.target, self.rounds_in_order)
        return hashlib.blake2b(repr(content).encode(), digest_size=16).hexdigest()

    @cached_property
    def played_rounds(self) -> list[statistics.PlayedRound]:
        """The rounds as plain values, for the statistics."""
        played = []
        for round_, points in zip(self.rounds_in_order, self.points, strict=True):
            opened = [hand.opened if hand else True for hand in round_.hands]
            played.append(
                statistics.PlayedRound(
                    winner=round_.winner,
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

    def deletion_shown(self, phone: str) -> Deletion | None:
        """The latest change to the rounds, when it deleted one: every phone is told, and
        the phone that deleted it (`phone`) is offered its Undo, which nothing can depend
        on yet (a later change to the rounds would be the latest; a rename does not
        count). One query."""
        event = self.game.events.filter(kind__in=GameEvent.ROUND_CHANGES).first()
        if event is None or event.kind != GameEvent.Kind.DELETED:
            return None
        return Deletion(event, mine=bool(phone) and event.phone == phone)

    def differences(self, saved: RoundRow, entry: rules.RoundEntry) -> list[Difference]:
        """The players whose part of `entry` (a round typed on a phone) differs from the
        round `saved` on another phone first, each with the two versions."""
        house = self.game.rules
        points = entry.points(self.target, house)
        lowest = set(entry.winners(house)) if entry.blocked else set()
        found = []
        for seat, cell in enumerate(saved.hands):
            hand = entry.hands[seat]
            mine = HandVersion(
                points[seat],
                hand.cards,
                hand.value,
                hand.opened,
                seat == entry.winner,
                seat in lowest,
            )
            theirs = HandVersion(
                cell.points, cell.cards, cell.value, cell.opened, cell.went_out, cell.lowest
            )
            if mine != theirs:
                found.append(Difference(cell.player, theirs, mine))
        return found


@dataclass(frozen=True)
class Deletion:
    """A deleted round as the banners tell of it; `mine`: deleted on this phone, which is
    offered its Undo."""

    event: GameEvent
    mine: bool


@dataclass(frozen=True)
class HandVersion:
    """One player's part of one version of a round, as a conflict shows it."""

    points: int
    cards: tuple[str, ...]
    value: int | None
    opened: bool
    went_out: bool
    lowest: bool


@dataclass(frozen=True)
class Difference:
    """A player whose hand differs between the round saved first and the one typed here."""

    player: Player
    saved: HandVersion
    mine: HandVersion

    @property
    def versions(self) -> tuple[HandVersion, HandVersion]:
        """The saved one, then the one typed here: the columns of the conflict's table."""
        return self.saved, self.mine
