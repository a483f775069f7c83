"""What a page shows of a game: totals, round rows, the standing, who deals next.

Built from a game's rows in a fixed number of queries (whatever the number of rounds), with every
rule left to scoring.rules: this module only arranges the engine's answers for the templates.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from scoring import rules
from scoring.board import chart, kept, statistics
from scoring.models import Changes, Game, GameEvent, Player


class StoredHand(NamedTuple):
    """One player's hand in one round, as stored: the cards (or the typed value), whether the
    player had opened, and the points the rules gave."""

    cards: tuple[str, ...]
    value: int | None
    opened: bool
    points: int


@dataclass(slots=True)
class StoredRound:
    """One round as stored, its hands by seat (None for a seat without a stored hand). Made
    by Scoreboard._round and read only after that."""

    number: int
    winner: int | None
    hand_rummy: bool
    # A hand for each seat that played the round; None for a player not playing it.
    hands: list[StoredHand | None]
    # The round's identity as a phone's Undo of a save names it (Game._round_as_seen).
    pk: int = 0
    revision: int = 1
    # The seat that dealt it (None: a round saved before dealers were kept).
    dealer: int | None = None
    # "hand_rummy", "blocked" or "normal" (rules.RoundEntry.kind), worked out once.
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        self.kind = rules.RoundEntry(hands=(), winner=self.winner, hand_rummy=self.hand_rummy).kind

    @property
    def points(self) -> list[int | None]:
        return [hand.points if hand else None for hand in self.hands]

    def entry(self) -> rules.RoundEntry:
        """The round as the players entered it (Round.entry, from the stored rows)."""
        hands = tuple(
            rules.Hand(opened=hand.opened, value=hand.value, cards=hand.cards) if hand else None
            for hand in self.hands
        )
        return rules.RoundEntry(hands, self.winner, self.hand_rummy)

    def winners(self, house_rules: rules.Rules) -> list[int]:
        """Who scored 0 by going out, or with the lowest hand of a blocked round (the rules
        decide, from the hands' values)."""
        if self.winner is not None:
            return [self.winner]
        return self.entry().winners(house_rules)


@dataclass(slots=True)
class HandRow:
    """One player's part of one round, as the round table shows it (`played` false: a
    player who was not playing it, whose cell is empty)."""

    player: Player
    hand: StoredHand | None
    points: int
    total: int
    went_out: bool  # the player went out (a blocked round has nobody who did)
    lowest: bool = False  # held the lowest hand of a blocked round, and so scored 0
    # How a never-opened loser's points came about (None for everyone else).
    explained: rules.NotOpenedSum | None = None

    @property
    def played(self) -> bool:
        return self.hand is not None

    @property
    def cards(self) -> tuple[str, ...]:
        return self.hand.cards if self.hand else ()

    @property
    def value(self) -> int | None:
        return self.hand.value if self.hand else None

    @property
    def opened(self) -> bool:
        return self.hand.opened if self.hand else True


@dataclass(slots=True)
class RoundRow:
    round: StoredRound
    hands: list[HandRow]
    tie_break: bool
    dealer: Player | None

    @property
    def number(self) -> int:
        return self.round.number

    @property
    def kind(self) -> str:
        return self.round.kind

    @property
    def played(self) -> list[HandRow]:
        """The hands of the players who played the round, in seat order."""
        return [cell for cell in self.hands if cell.played]

    @property
    def key(self) -> str:
        """A digest of all the round table shows of the round: its number, kind, tie-break and
        dealer, and each hand's points, running total, cards and notes. game.html keeps the
        row's HTML under it, with the language and the link it is drawn for: after a save
        only the new row is drawn, and a row that shows anything else has another key."""
        content = (
            self.round.number,
            self.kind,
            self.tie_break,
            self.dealer.name if self.dealer else None,
            [
                (
                    hand.played,
                    hand.points,
                    hand.total,
                    hand.went_out,
                    hand.lowest,
                    hand.cards,
                    hand.value,
                    hand.opened,
                    hand.explained,
                )
                for hand in self.hands
            ],
        )
        return hashlib.blake2b(repr(content).encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class PlayerRow:
    """A player's line on the scoreboard."""

    player: Player
    total: int
    target: int
    leader: bool
    deals_next: bool
    # Won the game; leads it (the lowest total of a game still played).
    champion: bool = False
    leads: bool = False
    # The last round a player who left played, and the first a joiner played.
    left_after: int | None = None
    joined_at: int | None = None

    @property
    def to_go(self) -> int:
        return max(self.target - self.total, 0)

    @property
    def percent(self) -> int:
        """How far along the way to the target, for the bar (0-100)."""
        return min(100, round(100 * self.total / self.target))


class Scoreboard:
    """A game read for display: `players`, `rounds`, `standing`, `next_dealer`. Every round
    and hand comes in one query, as plain values, whatever the page shows of them (the totals,
    the tie-breaks, the chart and the statistics need them all). That query runs only once
    something needs the rounds (`stored`): a save's or a preview's form needs only the
    players. A page shows what the rows say, however they were changed: what is kept between
    requests is kept under a digest of the rows (rounds_key; kept.boards, the HTML of the
    round table)."""

    # The rounds the game page shows before "Show all": the latest, newest first.
    SHOWN_ROUNDS = 8

    def __init__(self, game: Game, players: list[Player], latest: GameEvent | None = None) -> None:
        self.game = game
        self.seated = players
        self.target = game.target
        if latest is not None:
            self.latest_change = latest

    @classmethod
    def for_game(cls, game: Game) -> Scoreboard:
        """The game's board as the database holds it now."""
        return cls(game, list(game.seated_players))

    @classmethod
    def for_changes(cls, game: Game, changes: Changes) -> Scoreboard:
        """The board of a live update of the rounds alone, its banners from `changes.latest`."""
        return cls(game, list(game.seated_players), latest=changes.latest)

    @cached_property
    def stored(self) -> list[tuple]:
        """The rounds and their hands as stored: every part of the board comes from these rows."""
        return self.game.stored_rounds()

    @cached_property
    def _by_round(self) -> list[list[tuple]]:
        """The stored rows, a list a round, in order."""
        rounds: list[list[tuple]] = []
        last = None
        for row in self.stored:
            if row[0] != last:
                last = row[0]
                rounds.append([])
            rounds[-1].append(row)
        return rounds

    @cached_property
    def _seats(self) -> dict[int, int]:
        return {player.pk: player.seat for player in self.seated}

    def _round(self, index: int) -> StoredRound:
        """The round at `index` (in order) with its hands by seat: a light value made from
        its stored rows when a part of the page needs it (the rows shown, the statistics),
        not for every round of a long game."""
        made = self.__dict__.setdefault("_rounds_made", {})
        if index not in made:
            rows = self._by_round[index]
            pk, number, winner, hand_rummy, revision = rows[0][:5]
            hands: list[StoredHand | None] = [None] * len(self.seated)
            for *_round, player_id, cards, value, opened, points, _dealer in rows:
                if player_id is not None:
                    hand = StoredHand(tuple(cards.split()), value, bool(opened), points)
                    hands[self._seats[player_id]] = hand
            dealer = rows[0][10]
            made[index] = StoredRound(number, winner, bool(hand_rummy), hands, pk, revision, dealer)
        return made[index]

    @cached_property
    def points(self) -> tuple[tuple[int | None, ...], ...]:
        """Each round's points, by seat (None for a player not playing it), straight from
        the stored rows; kept by the board's digest (kept.boards), with `standings`."""
        return self._worked_out[0]

    @cached_property
    def _worked_out(self) -> tuple[tuple, tuple]:
        """`points` and `standings`, worked out once for a digest of the rows (rounds_key)."""

        def work_out() -> tuple[tuple, tuple]:
            points = []
            for rows in self._by_round:
                by_seat: list[int | None] = [None] * len(self.seated)
                for row in rows:
                    if row[5] is not None:
                        by_seat[self._seats[row[5]]] = row[9]
                points.append(tuple(by_seat))
            standings = rules.standings(
                points, len(self.seated), self.target, start=self.starts, restarts=self.restarts
            )
            return tuple(points), tuple(standings)

        return kept.boards.get(self.rounds_key, work_out)

    @cached_property
    def starts(self) -> list[int]:
        """What each player started with: 0, or a joiner's total on joining (docs/rules.md,
        "Joining")."""
        return [player.start for player in self.seated]

    @cached_property
    def playing(self) -> list[int]:
        """The seats of the players still playing (not those who left)."""
        return [player.seat for player in self.seated if not player.left]

    @cached_property
    def standings(self) -> tuple[rules.Standing, ...]:
        """The standing after each round (read), among those who played it."""
        return self._worked_out[1]

    @cached_property
    def restarts(self) -> dict[int, dict[int, int]]:
        """The totals those who came back count on from (rules.standings), by round."""
        restarts: dict[int, dict[int, int]] = {}
        for index, player in enumerate(self.seated):
            for back in player.returns or []:
                restarts.setdefault(back["from"], {})[index] = back["start"]
        return restarts

    @cached_property
    def standing(self) -> rules.Standing:
        """The game's standing now: its totals, among the players still playing."""
        totals = rules.totals_now(self.standings, self.starts, self.restarts)
        return rules.standing(totals, self.target, self.playing or None)

    @property
    def totals(self) -> tuple[int, ...]:
        return self.standing.totals

    @property
    def round_count(self) -> int:
        return len(self._by_round)

    @property
    def next_round_number(self) -> int:
        return self.round_count + 1

    @cached_property
    def _next_deal(self):
        last = self._round(self.round_count - 1).dealer if self.round_count else None
        return self.game.playing_deal(self.game.next_deal(last, self.round_count))

    @property
    def next_dealer(self) -> Player:
        return self.seated[self._next_deal.dealer]

    @cached_property
    def deal_order(self) -> tuple[int, ...]:
        """The seats playing, in the order the deal goes from the next round on (a change of
        seats makes it other than the seat order): the order of the board's rows."""
        return self._next_deal.order

    @property
    def winner(self) -> Player | None:
        winner = self.standing.winner
        return self.seated[winner] if winner is not None else None

    @property
    def tied_leaders(self) -> list[Player]:
        return [self.seated[index] for index in self.standing.leaders]

    @cached_property
    def _played_span(self) -> dict[int, tuple[int, int]]:
        """Each seat's first and last round played (seats with none left out)."""
        span: dict[int, tuple[int, int]] = {}
        for number, points in enumerate(self.points, 1):
            for seat, point in enumerate(points):
                if point is not None:
                    span[seat] = (span.get(seat, (number, number))[0], number)
        return span

    def _player_row(self, seat: int, player: Player) -> PlayerRow:
        leaders = set(self.standing.leaders) if self._by_round else set()
        finished = self.standing.finished
        first, last = self._played_span.get(seat, (None, None))
        return PlayerRow(
            player=player,
            total=self.totals[seat],
            target=self.target,
            leader=seat in leaders,
            deals_next=seat == self._next_deal.dealer and not finished,
            champion=seat == self.standing.winner,
            leads=seat in leaders and not finished,
            left_after=last if player.left else None,
            joined_at=first if player.joined else None,
        )

    @cached_property
    def players(self) -> list[PlayerRow]:
        """The players still playing, in seat order (the template puts them in the deal's)."""
        return [self._player_row(seat, self.seated[seat]) for seat in self.playing]

    @cached_property
    def left_players(self) -> list[PlayerRow]:
        """The players who left, shown apart with their total."""
        return [self._player_row(player.seat, player) for player in self.seated if player.left]

    @cached_property
    def rows_by_seat(self) -> dict[int, PlayerRow]:
        """Every player's row by seat, those who left included (the round form's rows)."""
        return {row.player.seat: row for row in (*self.players, *self.left_players)}

    @cached_property
    def tie_breaks(self) -> list[bool]:
        """Whether each round (read) was a tie-break round: one that follows a shared lowest
        total at the target."""
        start = rules.standing(self.starts, self.target)
        before = [start, *self.standings]
        return [standing.tie_break for standing in before[: len(self.standings)]]

    def _row(self, index: int) -> RoundRow:
        """The round at `index` (of those read) with its hands by seat and the running
        totals."""
        round_ = self._round(index)
        totals = self.standings[index].totals
        # A blocked round has nobody who went out: its lowest hands score 0 all the same.
        lowest = set(round_.winners(self.game.rules)) if round_.winner is None else set()
        return RoundRow(
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
            tie_break=self.tie_breaks[index],
            dealer=self.seated[round_.dealer] if round_.dealer is not None else None,
        )

    @cached_property
    def rounds(self) -> list[RoundRow]:
        """The rounds in order, each with its hands by seat and the running totals."""
        return [self._row(index) for index in range(len(self._by_round))]

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
        """The rounds the page shows, newest first: the latest SHOWN_ROUNDS, or all. Only
        those are made into rows."""
        if all_rounds or "rounds" in self.__dict__:
            rows = self.rounds if all_rounds else self.rounds[-self.SHOWN_ROUNDS :]
            return rows[::-1]
        count = len(self._by_round)
        oldest = max(count - self.SHOWN_ROUNDS, 0)
        return [self._row(index) for index in range(count - 1, oldest - 1, -1)]

    @property
    def folded_count(self) -> int:
        """How many older rounds the page folds away until "Show all"."""
        return max(self.round_count - self.SHOWN_ROUNDS, 0)

    @cached_property
    def rounds_key(self) -> str:
        """A digest of all that the chart, the round table and the statistics are drawn from:
        the players (id, seat, name, what they start from), the target, and every round and
        hand as stored. Running totals, tie-breaks and statistics follow from those, and the
        digest is cheaper to work out than the rows themselves. game.html keeps their HTML
        under it, kept.boards the points and standings. A row changed in any way (a form, a
        queryset .update(), a migration, a restore) gives a new key and is drawn anew: what is
        kept by its content cannot go stale. The content is pickled, a sixth of the cost of its
        repr for a long game: equal bytes are equal content, and content that comes out in
        other bytes (pickle writes an object met twice as a reference) is only drawn again."""
        content = (
            [
                (player.pk, player.seat, player.name, player.start, player.left, player.returns)
                for player in self.seated
            ],
            self.target,
            self.stored,
        )
        return hashlib.blake2b(pickle.dumps(content, protocol=5), digest_size=16).hexdigest()

    @cached_property
    def played_rounds(self) -> list[statistics.PlayedRound]:
        """The rounds as plain values, for the statistics: straight from the stored rows, as
        `points` is, without making each round (_round) whose cards they do not need."""
        played = []
        for rows, points in zip(self._by_round, self.points, strict=True):
            opened = [True] * len(self.seated)  # a seat without a hand did not play it
            for row in rows:
                if row[5] is not None:
                    opened[self._seats[row[5]]] = bool(row[8])
            winner, hand_rummy = rows[0][2:4]
            played.append(
                statistics.PlayedRound(
                    winner=winner,
                    hand_rummy=bool(hand_rummy),
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
        rounds = self.round_count
        spans = [
            (
                self._played_span[seat][0] - 1 if player.joined else 0,
                self._played_span[seat][1] if player.left else rounds,
            )
            if seat in self._played_span
            else (rounds, rounds)
            for seat, player in enumerate(self.seated)
        ]
        return chart.score_chart(
            [player.name for player in self.seated],
            [list(standing.totals) for standing in self.standings],
            self.target,
            {
                rows[0][1]
                for rows, tie_break in zip(self._by_round, self.tie_breaks, strict=True)
                if tie_break
            },
            spans=spans,
            starts=self.starts,
        )

    @cached_property
    def latest_change(self) -> GameEvent | None:
        """The latest change to the rounds, unless the board was made with it (for_changes)."""
        return self.game.latest_round_change()

    def deletion_shown(self, phone: str) -> Deletion | None:
        """The latest change to the rounds, when it deleted one. Every phone is told; the
        phone that deleted it (`phone`) is offered its Undo, which nothing can depend
        on yet (a later change to the rounds would be the latest; a rename does not
        count)."""
        event = self.latest_change
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
            hand = entry.hands[seat] if seat < len(entry.hands) else None
            if hand is None or not cell.played:  # a player in one of the two only
                continue
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
