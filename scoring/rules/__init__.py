"""The rules of Rami scoring, in plain Python (no Django).

This module is the single place where a rule is written down, and everything else calls it.
It holds the value of a card left in a hand, the points of a round (winner, never opened, hand
rummy, blocked round, deck check), the target for a number of players and a game's standing.

Every function that scores takes the rules it scores by as `rules=`, by default SEEDS (the
players' documents' rules), so that `card_points("JK") == 20` as published. The app itself
always passes a game's own rules (tests/test_rules_interface.py scans for a call that does not).

Card codes: a rank (A, 2-10, J, Q, K) followed by a suit (S, H, D, C), or "JK" for a joker.
Codes are case-insensitive; a rank alone is a card whose suit was not given. The suit symbols
♠ ♥ ♦ ♣ are accepted for S H D C.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import ClassVar

import icu

JOKER = "JK"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

MIN_PLAYERS, MAX_PLAYERS = 2, 6
# Not rules of the game but of the app, so that every game fits in a file that imports again:
# no real table plays that long, and a name longer than this breaks a phone's scoreboard.
MAX_ROUNDS = 500
MAX_NAME_LENGTH = 30

# The deck: two 52-card packs and four jokers.
COPIES_PER_CARD = 2
COPIES_PER_RANK = COPIES_PER_CARD * len(SUITS)
JOKERS_IN_DECK = 4
DECK_SIZE = COPIES_PER_CARD * len(RANKS) * len(SUITS) + JOKERS_IN_DECK

_SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}


class Code(StrEnum):
    """Every refusal's code. What it means to a person is written once, in
    scoring/rules/errors.py (tests/test_errors.py: each has its words, and nothing is raised
    with another). The class raised says what the phone can do about it; a code is listed
    under the class it is raised with most. A limit of the web has codes of its own
    (scoring.web.limits)."""

    # What was typed or sent is wrong: RulesError itself.
    BAD_RULE = "bad_rule"
    BAD_RULE_FLAG = "bad_rule_flag"
    BAD_TARGET = "bad_target"
    CARDS_AND_VALUE = "cards_and_value"
    FIRST_DEALER_UNKNOWN = "first_dealer_unknown"
    FIRST_DEALER_UNNAMED = "first_dealer_unnamed"
    HAND_RUMMY_BLOCKED = "hand_rummy_blocked"
    HAND_RUMMY_OPENED = "hand_rummy_opened"
    MEMBER_COUNT = "member_count"
    MEMBER_DUPLICATE = "member_duplicate"
    MEMBER_LAST = "member_last"
    MEMBER_LOOKALIKE = "member_lookalike"
    MEMBER_PLAYED = "member_played"
    MISSING_BLOCKED_HAND = "missing_blocked_hand"
    MISSING_HAND = "missing_hand"
    NAME_DUPLICATE = "name_duplicate"
    NAME_EMPTY = "name_empty"
    NAME_INVISIBLE = "name_invisible"
    NAME_LOOKALIKE = "name_lookalike"
    NAME_MARKS = "name_marks"
    NAME_TAKEN = "name_taken"
    NAME_TOO_LONG = "name_too_long"
    NEGATIVE_VALUE = "negative_value"
    NO_JOKERS = "no_jokers"
    NOT_A_NUMBER = "not_a_number"
    NOT_PLAYING = "not_playing"
    PLAYER_COUNT = "player_count"
    SEATING_DEALER = "seating_dealer"
    SEATING_MISSING = "seating_missing"
    SEATING_ORDER = "seating_order"
    SEATING_TWICE = "seating_twice"
    SEATS_FULL = "seats_full"
    START_TOTAL = "start_total"
    TOO_MANY_CARDS = "too_many_cards"
    TOO_MANY_COPIES = "too_many_copies"
    UNKNOWN_CARD = "unknown_card"
    VALUE_TOO_LARGE = "value_too_large"
    VALUE_TOO_SMALL = "value_too_small"
    WINNER_HAS_CARDS = "winner_has_cards"
    WINNER_OUT_OF_RANGE = "winner_out_of_range"
    # The change does not fit the game or the table as it is now: Conflict.
    ALREADY_RESTORED = "already_restored"
    ALREADY_SAVED = "already_saved"
    GAME_AT_ANOTHER_TABLE = "game_at_another_table"
    GAME_FINISHED = "game_finished"
    GAME_NOT_FINISHED = "game_not_finished"
    JOIN_FULL = "join_full"
    LEAVE_LAST = "leave_last"
    LEAVE_UNPLAYED = "leave_unplayed"
    LEFT_ALREADY = "left_already"
    PLAYING_ALREADY = "playing_already"
    NAME_CHANGED = "name_changed"
    PLAYERS_CHANGED = "players_changed"
    PLAYER_OVERTAKEN = "player_overtaken"
    ROUND_CHANGED = "round_changed"
    ROUND_GONE = "round_gone"
    ROUND_MOVED = "round_moved"
    ROUND_TAKEN = "round_taken"
    SEATING_CHANGED = "seating_changed"
    TABLE_CHANGED = "table_changed"
    TOO_MANY_ROUNDS = "too_many_rounds"
    UNDO_CHANGED = "undo_changed"
    UNDO_DONE = "undo_done"
    UNDO_NOT_YOURS = "undo_not_yours"
    UNDO_OVERTAKEN = "undo_overtaken"
    # The change waits for the player's yes: ConfirmFirst.
    RESTORE_AS_EXTRA = "restore_as_extra"


class RulesError(ValueError):
    """A round, a hand or a name that the rules refuse: what was typed or sent is wrong.

    `code` (a Code) names the kind of mistake; `player` is the index of the player concerned
    (or None); `details` holds the rest (`card`, `value`, `count`, `limit`, ...). What a person
    reads is written once, in scoring/rules/errors.py: `rules_error_message` in the page's
    language, `english` for the command line and the importer. `str()` gives the code and the
    details.

    The other kinds of refusal are RulesErrors too, so that one `except RulesError` shows any
    refusal: Conflict and ConfirmFirst (below), and the web's limit (scoring.web.limits.TooMany).
    What each is in HTTP is said in one place, scoring/web/http.py (REFUSAL_STATUS).
    """

    # The codes this kind is raised with; a kind defined outside the rules brings its own.
    codes: ClassVar[type[StrEnum]] = Code

    def __init__(self, code: str, player: int | None = None, **details: object) -> None:
        self.code = self.codes(code)
        self.player = player
        self.details = details
        super().__init__(self.code)

    def __str__(self) -> str:
        details = ", ".join(f"{name}={value!r}" for name, value in self.details.items())
        return f"{self.code} ({details})" if details else str(self.code)

    def for_player(self, player: int) -> RulesError:
        """The same error, naming the player concerned."""
        return type(self)(self.code, player, **self.details)

    def under(self, rules: Rules) -> RulesError:
        """The same error, said under a game's `rules`. A hand value above any deck is refused
        as the Hand is made, before the game's rules are known (LARGEST_HAND_VALUE); the
        player is told what their game's deck is worth, as for any value above it."""
        if self.code != Code.VALUE_TOO_LARGE:
            return self
        return type(self)(self.code, self.player, **{**self.details, "limit": rules.max_hand_value})


class Conflict(RulesError):
    """The change does not fit the game or the table as it is now. Mostly the page is older
    than another phone's change: that round saved, changed or deleted there, the game
    finished, the players renamed or seated, the table changed. Or the change is another
    phone's to make (an Undo), the game has its 500 rounds, or it is at another table.
    Nothing is changed; the page is shown as it is now, with the reason."""


class ConfirmFirst(RulesError):
    """The change waits for the player's yes (a round deleted long ago comes back as an extra
    round, after the others): nothing is changed until the page asks and they confirm."""


def parse_card(code: str) -> str:
    """The canonical code of a card ("10h" -> "10H", "jk" -> "JK", "A♥" -> "AH")."""
    text = str(code).strip().upper()
    if text == JOKER:
        return JOKER
    if text and text[-1] in _SYMBOL_SUITS:
        text = text[:-1] + _SYMBOL_SUITS[text[-1]]
    if text in RANKS:
        return text
    rank, suit = text[:-1], text[-1:]
    if rank in RANKS and suit in SUITS:
        return text
    raise RulesError(Code.UNKNOWN_CARD, card=str(code).strip())


def card_rank(card: str) -> str:
    """The rank of a canonical card code ("JK" for a joker)."""
    if card == JOKER or card in RANKS:
        return card
    return card[:-1]


def card_suit(card: str) -> str | None:
    """The suit of a canonical card code, or None for a joker or a card of unknown suit."""
    if card == JOKER or card in RANKS:
        return None
    return card[-1]


@dataclass(frozen=True)
class Rules:
    """The values a game plays by (docs/formats.md, house rules): what a card left in hand
    costs, what a player who never opened pays, what a hand rummy scores, the target and the
    jokers in the deck. The defaults are the players' documents' (the seeds: SEEDS below;
    docs/at-the-table.md, counting points), which every game plays by unless it sets its own;
    each value is checked on creation (RulesError "bad_rule")."""

    joker: int = 20
    ace: int = 11
    face: int = 10
    not_opened_penalty: int = 25
    # The most a loser who never opened scores (None: no cap) ...
    not_opened_cap: int | None = 100
    # ... and never more than half the target (rounded down).
    not_opened_cap_half_target: bool = True
    # What each opponent of a hand rummy scores, or "double": twice their hand value.
    hand_rummy: int | str = 200
    # A fixed target, or None: target_per_opponent for each opponent.
    target: int | None = None
    target_per_opponent: int = 100
    jokers_in_deck: int = JOKERS_IN_DECK

    # Each number's range; None allowed where the rules object allows null (docs/formats.md).
    RANGES: ClassVar[dict[str, tuple[int, int]]] = {
        "joker": (0, 100),
        "ace": (1, 25),
        "face": (1, 25),
        "not_opened_penalty": (0, 200),
        "not_opened_cap": (1, 1000),
        "hand_rummy": (1, 1000),
        "target": (50, 10000),
        "target_per_opponent": (25, 1000),
        "jokers_in_deck": (0, 8),
    }
    MAY_BE_NONE: ClassVar[set[str]] = {"not_opened_cap", "target"}
    DOUBLE: ClassVar[str] = "double"

    def __post_init__(self) -> None:
        for name, (low, high) in self.RANGES.items():
            value = getattr(self, name)
            if value is None and name in self.MAY_BE_NONE:
                continue
            if name == "hand_rummy" and value == self.DOUBLE:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise RulesError(Code.BAD_RULE, rule=name, value=value, low=low, high=high)
        if not isinstance(self.not_opened_cap_half_target, bool):
            raise RulesError(
                Code.BAD_RULE_FLAG,
                rule="not_opened_cap_half_target",
                value=self.not_opened_cap_half_target,
            )

    def card_points(self, card: str) -> int:
        rank = card_rank(parse_card(card))
        if rank == JOKER:
            return self.joker
        if rank == "A":
            return self.ace
        if rank in ("J", "Q", "K"):
            return self.face
        return int(rank)

    @property
    def cheapest_card(self) -> int:
        """The least a card left in hand can cost: a loser's hand is worth at least this."""
        values = [2, self.ace, self.face] + ([self.joker] if self.jokers_in_deck else [])
        return min(values)

    @property
    def max_hand_value(self) -> int:
        """What the whole deck is worth: no hand can be worth more."""
        ranks = self.ace + 3 * self.face + sum(range(2, 11))
        return self.jokers_in_deck * self.joker + COPIES_PER_RANK * ranks

    def target_for(self, players: int) -> int:
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(Code.PLAYER_COUNT, count=players)
        if self.target is not None:
            return self.target
        return self.target_per_opponent * (players - 1)

    def not_opened_points(self, worth: int, target: int) -> int:
        """What a loser who never opened scores for a hand worth `worth`."""
        return self.not_opened_sum(worth, target).points

    def not_opened_sum(self, worth: int, target: int) -> NotOpenedSum:
        """How a never-opened loser's points come about: the hand, the penalty, and the cap
        that held them down, if any (the form shows it: "81 + 25 → 100, the cap")."""
        points, capped_by = worth + self.not_opened_penalty, None
        if self.not_opened_cap is not None and self.not_opened_cap < points:
            points, capped_by = self.not_opened_cap, "cap"
        if self.not_opened_cap_half_target and target // 2 < points:
            points, capped_by = target // 2, "half_target"
        return NotOpenedSum(worth, self.not_opened_penalty, points, capped_by)

    def document(self) -> dict:
        """Every value by its key, as rami-game/1 writes the rules object (docs/formats.md)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    def changes(self) -> dict:
        """The values that differ from the seeds', by key: what a game stores."""
        return {
            name: value for name, value in self.document().items() if value != getattr(SEEDS, name)
        }


@dataclass(frozen=True)
class NotOpenedSum:
    """A never-opened loser's points: `worth` + `penalty`, held down to `points` by the
    `capped_by` rule ("cap" or "half_target"), or None when the sum stands."""

    worth: int
    penalty: int
    points: int
    capped_by: str | None


# The rules of the players' documents: what a game plays by unless it sets its own.
SEEDS = Rules()


def card_points(code: str, rules: Rules = SEEDS) -> int:
    """What a card costs when it is left in a hand at the end of a round."""
    return rules.card_points(code)


def hand_value(cards: Iterable[str], rules: Rules = SEEDS) -> int:
    """The sum of the cards left in a hand."""
    return sum(rules.card_points(card) for card in cards)


MAX_HAND_VALUE = SEEDS.max_hand_value
# The most a hand can be worth under any rules a game may set (a typed value above it is
# refused at once; the game's own rules then refuse more than their deck is worth).
LARGEST_HAND_VALUE = 8 * 100 + COPIES_PER_RANK * (25 + 3 * 25 + sum(range(2, 11)))


def target_for(players: int, rules: Rules = SEEDS) -> int:
    """The target of a game: 100 points per opponent (or what the rules set)."""
    return rules.target_for(players)


@dataclass(frozen=True)
class Hand:
    """The cards a player holds at the end of a round, or their value typed as a number.

    `opened` is False for a player who has not yet made a first meld this round.
    `Hand()` is an empty hand: the winner's, or a hand rummy opponent's when cards are not needed.
    """

    cards: tuple[str, ...] = ()
    value: int | None = None
    opened: bool = True

    def __post_init__(self) -> None:
        if len(self.cards) > DECK_SIZE:
            raise RulesError(Code.TOO_MANY_CARDS, count=len(self.cards), limit=DECK_SIZE)
        cards = tuple(parse_card(card) for card in self.cards)
        object.__setattr__(self, "cards", cards)
        if self.value is not None:
            if cards:
                raise RulesError(Code.CARDS_AND_VALUE)
            if isinstance(self.value, bool) or not isinstance(self.value, int):
                raise RulesError(Code.NOT_A_NUMBER, value=self.value)
            if self.value < 0:
                raise RulesError(Code.NEGATIVE_VALUE, value=self.value)
            if self.value > LARGEST_HAND_VALUE:
                raise RulesError(Code.VALUE_TOO_LARGE, value=self.value, limit=LARGEST_HAND_VALUE)

    @property
    def given(self) -> bool:
        """Whether the cards or the value were given at all."""
        return bool(self.cards) or self.value is not None

    def worth(self, rules: Rules = SEEDS) -> int:
        """The hand value under `rules`: the typed value, or the sum of the cards."""
        return self.value if self.value is not None else hand_value(self.cards, rules)


def _deck_limits(card: str, jokers: int) -> list[tuple[str, int]]:
    """What a card counts against, and how many of that the deck holds: a joker against the
    jokers; any other card against its rank, and a card with a suit against itself too."""
    rank = card_rank(card)
    if rank == JOKER:
        return [(JOKER, jokers)]
    if card_suit(card) is None:
        return [(rank, COPIES_PER_RANK)]
    return [(card, COPIES_PER_CARD), (rank, COPIES_PER_RANK)]


@dataclass(frozen=True)
class Excess:
    """Copies of a card that one hand holds past what the deck has (deck_excess). `card` is
    what they count against: a card with its suit, a rank, or the joker. `copies` is how many
    of this hand's are too many, `count` how many the whole round holds, `limit` how many the
    deck has."""

    card: str
    copies: int
    count: int
    limit: int


def deck_excess(hands: Sequence[Hand | None], rules: Rules = SEEDS) -> list[tuple[Excess, ...]]:
    """For each hand, in seat order, the copies it holds that the deck no longer has (an empty
    tuple for a hand within the deck). The cards are dealt out of the deck seat by seat, the
    copies the deck still holds going to the earlier seats. So A♥ A♥ for one player and A♥
    for a later one make the later one's A♥ the card too many. A copy too many is not
    dealt, so that one card is one excess: a third A♥ is too many of the ace of hearts, not
    of the aces as well. A None hand (already refused) is left out."""
    dealt: Counter[str] = Counter()
    in_round: Counter[str] = Counter()
    per_hand: list[dict[str, int]] = []
    limits: dict[str, int] = {}
    for hand in hands:
        over: dict[str, int] = {}
        for card in hand.cards if hand is not None else ():
            counts = _deck_limits(card, rules.jokers_in_deck)
            limits.update(counts)
            in_round.update(counted for counted, _limit in counts)
            short = next((counted for counted, limit in counts if dealt[counted] >= limit), None)
            if short is None:
                dealt.update(counted for counted, _limit in counts)
            else:
                over[short] = over.get(short, 0) + 1
        per_hand.append(over)
    return [
        tuple(Excess(card, copies, in_round[card], limits[card]) for card, copies in over.items())
        for over in per_hand
    ]


def deck_errors(hands: Sequence[Hand | None], rules: Rules = SEEDS) -> list[RulesError]:
    """The deck check's errors, in seat order: one for each card a hand holds too many of
    (deck_excess), naming that hand ("too_many_copies"; "no_jokers" for a joker in a game
    whose deck has none). The round form shows them all at once, each next to its player;
    check_deck refuses the round on the first."""
    errors = []
    for index, excess in enumerate(deck_excess(hands, rules)):
        for too_many in excess:
            details = {"card": too_many.card, "count": too_many.count, "limit": too_many.limit}
            if too_many.card == JOKER and too_many.limit == 0:
                errors.append(RulesError(Code.NO_JOKERS, index, **details))
            else:
                errors.append(RulesError(Code.TOO_MANY_COPIES, index, **details))
    return errors


def check_deck(hands: Sequence[Hand], rules: Rules = SEEDS) -> None:
    """Refuse a round whose hands hold more copies of a card than the deck has."""
    errors = deck_errors(hands, rules)
    if errors:
        raise errors[0]


def round_winners(hands: Sequence[Hand], winner: int | None, rules: Rules = SEEDS) -> list[int]:
    """The players who score 0: the one who went out, or in a blocked round (winner None)
    every player sharing the lowest hand value."""
    if winner is not None:
        return [winner]
    worth = [hand.worth(rules) for hand in hands]
    lowest = min(worth)
    return [index for index, value in enumerate(worth) if value == lowest]


def hand_errors(
    hands: Sequence[Hand | None], winner: int | None, hand_rummy: bool, rules: Rules = SEEDS
) -> list[RulesError]:
    """The first error of each player's own hand in a round, in seat order. That is a hand missing,
    or a value that no cards make: more than the deck is worth, or less than the cheapest card (a
    player who did not go out holds at least one card). The round form shows them all at once;
    score_round refuses the round on the first. The cheapest card is asked of what is typed at the
    table only: score_round scores such a value, so that a game file or a backup written before this
    check still imports. A None hand (already refused) is left out."""
    doubled = hand_rummy and rules.hand_rummy == Rules.DOUBLE
    errors = []
    for index, hand in enumerate(hands):
        if hand is None or index == winner:
            continue
        if hand.value is not None and hand.value < rules.cheapest_card:
            limit = rules.cheapest_card
            errors.append(RulesError(Code.VALUE_TOO_SMALL, index, value=hand.value, limit=limit))
        elif not hand.given and (not hand_rummy or doubled):
            code = Code.MISSING_HAND if winner is not None else Code.MISSING_BLOCKED_HAND
            errors.append(RulesError(code, index))
        elif hand.value is not None and hand.value > rules.max_hand_value:
            limit = rules.max_hand_value
            errors.append(RulesError(Code.VALUE_TOO_LARGE, index, value=hand.value, limit=limit))
    return errors


def score_round(
    hands: Sequence[Hand],
    winner: int | None,
    target: int,
    hand_rummy: bool = False,
    *,
    rules: Rules = SEEDS,
) -> list[int]:
    """The points each player scores in a round, in the order of `hands`, under `rules`.

    `winner` is the index of the player who went out, or None for a blocked round (the draw
    pile ran out). `hand_rummy` marks a winner who opened and went out in one turn while no
    opponent had opened: every opponent then scores 200 whatever is in the hand (or what the
    rules say: a fixed score, or twice the hand's value).
    """
    hands = list(hands)
    if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
        raise RulesError(Code.PLAYER_COUNT, count=len(hands))
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise RulesError(Code.BAD_TARGET, target=target)
    if winner is not None and (
        isinstance(winner, bool) or not isinstance(winner, int) or not 0 <= winner < len(hands)
    ):
        raise RulesError(Code.WINNER_OUT_OF_RANGE, count=len(hands))

    if winner is None:
        if hand_rummy:
            raise RulesError(Code.HAND_RUMMY_BLOCKED)
    elif hands[winner].cards or hands[winner].value:
        raise RulesError(Code.WINNER_HAS_CARDS, winner)

    doubled = hand_rummy and rules.hand_rummy == Rules.DOUBLE
    if hand_rummy:
        for index, hand in enumerate(hands):
            if index != winner and hand.opened:
                raise RulesError(Code.HAND_RUMMY_OPENED, index)
    if not hand_rummy or doubled:
        for index, hand in enumerate(hands):
            if index != winner and not hand.given:
                code = Code.MISSING_HAND if winner is not None else Code.MISSING_BLOCKED_HAND
                raise RulesError(code, index)
    for index, hand in enumerate(hands):
        if index != winner and hand.value is not None and hand.value > rules.max_hand_value:
            raise RulesError(
                Code.VALUE_TOO_LARGE, index, value=hand.value, limit=rules.max_hand_value
            )
    check_deck(hands, rules)

    if hand_rummy:
        return [
            0 if index == winner else 2 * hand.worth(rules) if doubled else rules.hand_rummy
            for index, hand in enumerate(hands)
        ]
    winners = round_winners(hands, winner, rules)
    points = []
    for index, hand in enumerate(hands):
        if index in winners:
            points.append(0)
        elif not hand.opened:
            points.append(rules.not_opened_points(hand.worth(rules), target))
        else:
            points.append(hand.worth(rules))
    return points


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
    `playing` (indices; None: everyone) are the players still playing (1.5): one who left can
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
    player who came back (1.5) counts on from the total they came back with: `restarts`
    (round number -> {player: total before it}, as `restarts_of` gives it). After each round,
    those who played it are the ones playing (1.5)."""
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
    """The rounds a player plays (1.5): from round `joins` on, to round `leaves` (None: to
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


def next_dealer(order: Sequence[int], last: int | None, playing: Iterable[int]) -> int:
    """Who deals next (1.5): the next player of the deal's `order` (seats, every one once)
    after `last` (the last round's dealer; None: before the first round, the order's first)
    who is `playing`; a player who left is passed over."""
    playing = set(playing)
    start = 0 if last is None else order.index(last) + 1
    turn = [order[(start + step) % len(order)] for step in range(len(order))]
    return next((seat for seat in turn if seat in playing), turn[0])


def start_total(playing_totals: Iterable[int]) -> int:
    """A joiner starts on the highest total of those playing (1.5): none gains by coming late."""
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
    """A player may join while fewer than MAX_PLAYERS play (1.5), and while the game has
    seated fewer than MAX_SEATS players in all."""
    if playing >= MAX_PLAYERS:
        raise RulesError(Code.JOIN_FULL, limit=MAX_PLAYERS)
    if seated >= MAX_SEATS:
        raise RulesError(Code.SEATS_FULL, limit=MAX_SEATS)


def check_leave(playing: int, player: int | None = None) -> None:
    """A player may leave while at least MIN_PLAYERS others keep playing (1.5)."""
    if playing - 1 < MIN_PLAYERS:
        raise RulesError(Code.LEAVE_LAST, player, limit=MIN_PLAYERS)


@dataclass(frozen=True)
class RoundEntry:
    """One round as the players entered it: a hand per seat (None for a player not playing
    it, 1.5), who went out (a seat; None for a blocked round) and whether it was a hand
    rummy. The one value of a round that the form, the importer, the models and the history
    share. It is scored by `points`, over the players who played it only: "every opponent" of a
    hand rummy and the lowest hand of a blocked round are theirs."""

    hands: tuple[Hand | None, ...]
    winner: int | None
    hand_rummy: bool = False

    @property
    def blocked(self) -> bool:
        return self.winner is None

    @property
    def kind(self) -> str:
        """ "hand_rummy", "blocked" or "normal", as the round table and the history tag it."""
        if self.hand_rummy:
            return "hand_rummy"
        return "blocked" if self.blocked else "normal"

    @property
    def playing(self) -> tuple[int, ...]:
        """The seats of the players who played the round."""
        return tuple(seat for seat, hand in enumerate(self.hands) if hand is not None)

    def _played(self) -> tuple[list[Hand], int | None]:
        """The hands of the players who played, and the winner's place among them."""
        seats = self.playing
        if self.winner is not None and self.winner not in seats:
            raise RulesError(Code.NOT_PLAYING, self.winner)
        winner = None if self.winner is None else seats.index(self.winner)
        return [self.hands[seat] for seat in seats], winner

    def points(self, target: int, rules: Rules = SEEDS) -> list[int | None]:
        """Each player's points (score_round over those who played; None for the others),
        worked out once for a target and rules: the form that checks a round and the model
        that stores it share the answer."""
        scored = self.__dict__.get("_scored")
        if scored is None or scored[0] != (target, rules):
            hands, winner = self._played()
            played = iter(score_round(hands, winner, target, self.hand_rummy, rules=rules))
            points = [None if hand is None else next(played) for hand in self.hands]
            scored = ((target, rules), points)
            object.__setattr__(self, "_scored", scored)
        return list(scored[1])

    def same_round(self, other: RoundEntry) -> bool:
        """Whether `other` is this round entered again (on another phone, say): the same
        winner, kind and hands, whatever order the cards were tapped in."""

        def shape(entry: RoundEntry) -> tuple:
            hands = tuple(
                None if hand is None else (tuple(sorted(hand.cards)), hand.value, hand.opened)
                for hand in entry.hands
            )
            return entry.winner, entry.hand_rummy, hands

        return shape(self) == shape(other)

    def winners(self, rules: Rules = SEEDS) -> list[int]:
        """Who scores 0 (seats): the one who went out, or everyone with the lowest hand of a
        blocked round among those who played."""
        hands, winner = self._played()
        seats = self.playing
        return [seats[index] for index in round_winners(hands, winner, rules)]

    def document(self, names: Sequence[str]) -> dict:
        """The round as rami-game/1 writes it (docs/formats.md, without the computed fields),
        and as the history keeps it: the hands of those who played it only."""
        document: dict = {}
        if self.blocked:
            document["blocked"] = True
        else:
            document["winner"] = names[self.winner]
        if self.hand_rummy:
            document["hand_rummy"] = True
        hands = {}
        for seat, hand in enumerate(self.hands):
            if seat == self.winner or hand is None:
                continue
            written: dict = {}
            if hand.cards:
                written["cards"] = list(hand.cards)
            elif hand.value is not None:
                written["value"] = hand.value
            if not hand.opened:
                written["opened"] = False
            # A hand rummy opponent with nothing but "not opened" says nothing worth keeping.
            if self.hand_rummy and written == {"opened": False}:
                continue
            hands[names[seat]] = written
        if hands:
            document["hands"] = hands
        return document

    @classmethod
    def from_document(
        cls, document: Mapping, names: Sequence[str], playing: Iterable[int] | None = None
    ) -> RoundEntry:
        """The round that `document` (written by `document`, or checked by the importer)
        holds, played by the seats `playing` (None: every player). A hand left out is the
        winner's, or a hand rummy opponent's who had not opened."""
        playing = set(range(len(names)) if playing is None else playing)
        winner = None if document.get("blocked") else list(names).index(document["winner"])
        hand_rummy = bool(document.get("hand_rummy", False))
        written = document.get("hands", {})
        hands: list[Hand | None] = []
        for seat, name in enumerate(names):
            if seat not in playing:
                hands.append(None)
                continue
            hand = written.get(name)
            # In a hand rummy every opponent had, by definition, never opened (docs/formats.md).
            opened_unless_said = seat == winner or not hand_rummy
            if hand is None:
                hands.append(Hand(opened=opened_unless_said))
                continue
            try:
                hands.append(
                    Hand(
                        cards=tuple(hand.get("cards", ())),
                        value=hand.get("value"),
                        opened=hand.get("opened", opened_unless_said),
                    )
                )
            except RulesError as error:
                raise error.for_player(seat) from None
        return cls(hands=tuple(hands), winner=winner, hand_rummy=hand_rummy)


def round_errors(
    hands: Sequence[Hand | None], winner: int | None, hand_rummy: bool, rules: Rules = SEEDS
) -> list[RulesError]:
    """Every error of a round as typed, at once: a blocked round called a hand rummy, then
    each player's own hand (hand_errors) and the deck's (deck_errors), in seat order. The
    round form shows them all, each next to its player; score_round refuses on the first."""
    kind = [RulesError(Code.HAND_RUMMY_BLOCKED)] if winner is None and hand_rummy else []
    return [
        *kind,
        *hand_errors(hands, winner, hand_rummy, rules),
        *deck_errors(hands, rules),
    ]


def points_so_far(
    hands: Sequence[Hand | None],
    winner: int | None,
    hand_rummy: bool,
    target: int,
    rules: Rules = SEEDS,
) -> list[tuple[int | None, NotOpenedSum | None]]:
    """Each player's points in a round still being typed, and how a never-opened loser's came about
    (NotOpenedSum, else None). They are what the round scores once saved (RoundEntry.points), each
    hand not in yet (None: not typed, or typed wrong) standing in as the cheapest a hand can be.
    Those players show no points, nor does anyone in a blocked round until every hand is in, since
    the lowest hand decides it. The round's kind must be right (round_errors)."""
    if winner is None and None in hands:
        return [(None, None)] * len(hands)
    stand_in = Hand(value=rules.cheapest_card, opened=not hand_rummy)
    entry = RoundEntry(
        tuple(stand_in if hand is None else hand for hand in hands), winner, hand_rummy
    )
    points = entry.points(target, rules)
    winners = set(entry.winners(rules))
    shown = []
    for seat, hand in enumerate(hands):
        if hand is None:
            shown.append((None, None))
        elif seat in winners or hand.opened or hand_rummy:
            shown.append((points[seat], None))
        else:
            shown.append((points[seat], rules.not_opened_sum(hand.worth(rules), target)))
    return shown


# Player names. Characters a name never keeps: control characters (NUL among them, which
# PostgreSQL refuses in text), format characters (bidi overrides that turn the page around a
# name, zero-width spaces and joiners that make "Ana" and "An\u200ba" look alike, the soft
# hyphen) and lone surrogates (which no database can store).
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs"}
# A name must keep at least one character of these: a letter, a digit, punctuation or a symbol.
VISIBLE_CATEGORIES = ("L", "N", "P", "S")
# A symbol that draws nothing, a space to the eye: the blank braille pattern.
LOOKS_BLANK = {"\u2800"}
# Accents and other marks on one letter: Vietnamese puts two on a vowel, Hebrew points and
# Tibetan stacks a few more; beyond this they only pile up over the next lines of the page.
MAX_MARKS = 4
# The name key expands each character at most 18 times (U+FDFA, one Arabic sign for a phrase).
MAX_NAME_KEY_LENGTH = 18 * MAX_NAME_LENGTH

# ICU's spoof checker: the skeleton of Unicode's confusables (TR39), kept up to date with
# ICU itself. Its skeletons are safe to compute from several threads at once.
_SPOOF_CHECKER = icu.SpoofChecker()


def _ignorable(c: str) -> bool:
    # Unicode's Default_Ignorable_Code_Point: besides the format characters, the Hangul
    # fillers (U+115F, U+1160, U+3164, U+FFA0), the combining grapheme joiner (U+034F) and the
    # variation selectors, all drawn as nothing or as a blank.
    return unicodedata.category(c) in INVISIBLE_CATEGORIES or icu.Char.hasBinaryProperty(
        c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def clean_name(name: str) -> str:
    """A name as the game keeps it: in Unicode's composed form (NFC, so that an "é" typed two
    ways is one letter), without invisible characters, trimmed, inner runs of blanks made one
    space."""
    name = unicodedata.normalize("NFC", name)
    name = "".join(" " if c in LOOKS_BLANK else c for c in name if not _ignorable(c))
    # Again: a mark that an invisible character held apart may now compose.
    return unicodedata.normalize("NFC", " ".join(name.split()))


def name_key(name: str) -> str:
    """What two names must not share in one game: Unicode's confusable skeleton (TR39) of the
    folded name. Names that differ in case only, in the width of their letters (full-width
    "Ana") or that look alike share it: "Ana" with a Cyrillic "A" is the Latin name, while
    "Zoë" stays apart from "Zoe". Stored with each player under a unique constraint, so that
    Python and every database compare names the same way (PostgreSQL's lower() and Python's
    casefold() disagree on "İ" and "i")."""
    # Case first, so that names equal ignoring case stay equal; the skeleton maps "0" to "O",
    # hence case once more.
    folded = unicodedata.normalize("NFKC", clean_name(name).casefold())
    return unicodedata.normalize("NFC", _SPOOF_CHECKER.getSkeleton(0, folded).casefold())


def check_name(name: str, limit: int = MAX_NAME_LENGTH) -> str:
    """One name cleaned (clean_name) and checked: something visible, at most `limit`
    characters, at most MAX_MARKS marks on a letter; else RulesError ("name_empty",
    "name_invisible", "name_too_long", "name_marks")."""
    cleaned = clean_name(name)
    if not cleaned and not name.strip():
        raise RulesError(Code.NAME_EMPTY)
    if not any(unicodedata.category(c).startswith(VISIBLE_CATEGORIES) for c in cleaned):
        raise RulesError(Code.NAME_INVISIBLE)
    if len(cleaned) > limit:
        raise RulesError(Code.NAME_TOO_LONG, limit=limit)
    marks = 0
    for c in unicodedata.normalize("NFD", cleaned):
        marks = marks + 1 if unicodedata.category(c) in {"Mn", "Me"} else 0
        if marks > MAX_MARKS:
            raise RulesError(Code.NAME_MARKS, limit=MAX_MARKS)
    return cleaned


def same_name(name: str, other: str, index: int | None = None, members: bool = False) -> RulesError:
    """The error for two names with one key: "name_duplicate" when they are the same name
    ignoring case, "name_lookalike" when only the eye takes them for one; "member_duplicate"
    and "member_lookalike" for a table's members."""
    same = clean_name(name).casefold() == clean_name(other).casefold()
    if members:
        return (
            RulesError(Code.MEMBER_DUPLICATE, index)
            if same
            else RulesError(Code.MEMBER_LOOKALIKE, index)
        )
    return (
        RulesError(Code.NAME_DUPLICATE, index) if same else RulesError(Code.NAME_LOOKALIKE, index)
    )


def check_names(
    names: Sequence[str], members_at_most: int | None = None, players_at_most: int = MAX_PLAYERS
) -> list[str]:
    """The names cleaned (clean_name): 2 to 6 of them (`players_at_most`: more, in a game whose
    players come and go), each checked (check_name) and unique by name key, so neither the same
    ignoring case nor look-alikes. Else RulesError naming the player (its index). The members of a
    table (`members_at_most`: how many it may have) are 1 to that many, and their errors say
    members: "member_count", "member_duplicate", "member_lookalike"."""
    if members_at_most is not None:
        if not 1 <= len(names) <= members_at_most:
            raise RulesError(Code.MEMBER_COUNT, count=len(names), limit=members_at_most)
    elif not MIN_PLAYERS <= len(names) <= players_at_most:
        raise RulesError(Code.PLAYER_COUNT, count=len(names))
    cleaned = []
    seen: dict[str, str] = {}
    for index, name in enumerate(names):
        try:
            name = check_name(name)
        except RulesError as error:
            raise error.for_player(index) from None
        key = name_key(name)
        if key in seen:
            raise same_name(name, seen[key], index, members=members_at_most is not None)
        seen[key] = name
        cleaned.append(name)
    return cleaned


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
