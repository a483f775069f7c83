"""The rules a game plays by (Rules): the players' documents' (SEEDS) or a table's own; what a card
and a hand left are worth under them (card_points, Hand), and the target a game plays to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import ClassVar

from scoring.rules.cards import (
    COPIES_PER_RANK,
    DECK_SIZE,
    JOKER,
    JOKERS_IN_DECK,
    card_rank,
    parse_card,
)
from scoring.rules.refusals import Code, RulesError

MIN_PLAYERS, MAX_PLAYERS = 2, 6


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
