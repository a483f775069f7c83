"""What the help page "Counting points" shows, worked out by the rules engine.

The page states numbers (a joker costs 20, the never-opened penalty is 25, the target for four
players is 300) and works through five round ends. None of those numbers is written here: they
come from `scoring.rules`, so the page cannot drift from what the app does at the table.

`computed_examples()` runs `rules.score_round` on each example's hands once per process and
keeps plain numbers; `worked_examples()` adds the translated text and the card faces at render
time, in the active language.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.rules.card_names import CardFace, card_faces


@dataclass(frozen=True)
class ExampleSeat:
    """One seat of a worked example: the winner, an opponent or (blocked round) a player."""

    role: str  # "winner", "opponent" or "player"
    number: int  # 1, 2, ... for opponents and players; 0 for the winner
    cards: tuple[str, ...] = ()
    opened: bool = True


@dataclass(frozen=True)
class Example:
    key: str
    title: Promise
    explanation: Promise
    seats: tuple[ExampleSeat, ...]
    blocked: bool = False
    hand_rummy: bool = False
    # The explanation states the never-opened player's sum and cap (%(hand)s, %(penalty)s,
    # %(sum)s, %(cap)s), worked out by the engine.
    numbered: bool = False
    # The players' rules leave this round end open: the page points to "What the app decides".
    decided: bool = False

    @property
    def winner(self) -> int | None:
        return None if self.blocked else 0


def _winner() -> ExampleSeat:
    return ExampleSeat("winner", 0)


EXAMPLES = (
    # The four worked examples of docs/at-the-table.md (counting points), then a blocked round.
    Example(
        key="ace_joker_five",
        title=_("An ace, a joker and a five left"),
        explanation=_("A joker left in the hand is expensive, and so is an ace."),
        seats=(_winner(), ExampleSeat("opponent", 1, ("AH", "JK", "5C"))),
    ),
    Example(
        key="two_players_never_opened",
        title=_("Two players, the opponent never opened"),
        explanation=_(
            "The hand value plus the penalty is more than half the target, so the opponent "
            "scores half the target."
        ),
        seats=(
            _winner(),
            ExampleSeat("opponent", 1, ("KH", "KS", "QD", "JC", "9H"), opened=False),
        ),
    ),
    Example(
        key="four_players_one_never_opened",
        title=_("Four players, only one never opened"),
        # The cap is what the never-opened rule allows, not the most anyone can score: a
        # player who opened can hold more (JK JK A A K K Q Q J J is 122), and a hand rummy
        # costs 200.
        explanation=_(
            "The players who opened score their hand value. The one who never opened scores "
            "the maximum the rule allows: %(hand)s + %(penalty)s = %(sum)s, capped at "
            "%(cap)s points."
        ),
        seats=(
            _winner(),
            ExampleSeat("opponent", 1, ("3H", "4H")),
            ExampleSeat(
                "opponent", 2, ("KH", "KS", "QD", "JC", "9H", "8C", "7D", "JK"), opened=False
            ),
            ExampleSeat("opponent", 3, ("JK", "AH")),
        ),
        numbered=True,
    ),
    Example(
        key="hand_rummy",
        title=_("A hand rummy with three players"),
        explanation=_(
            "The winner opened and went out in the same turn before anyone else had opened: "
            "every opponent scores the fixed points of a hand rummy, whatever is in the hand."
        ),
        seats=(
            _winner(),
            ExampleSeat("opponent", 1, ("2C",), opened=False),
            ExampleSeat("opponent", 2, ("5D", "6D"), opened=False),
        ),
        hand_rummy=True,
    ),
    Example(
        key="blocked",
        title=_("A blocked round with three players"),
        explanation=_(
            "The draw pile ran out and nobody went out. Two players share the lowest hand "
            "value, so both win the round and score 0; the third never opened, so the penalty "
            "is added."
        ),
        seats=(
            ExampleSeat("player", 1, ("4H", "3C")),
            ExampleSeat("player", 2, ("7S",)),
            ExampleSeat("player", 3, ("QD", "8H"), opened=False),
        ),
        blocked=True,
        decided=True,
    ),
)


@dataclass(frozen=True)
class ComputedExample:
    """An example's numbers as the engine gives them: plain data, safe to keep per process."""

    target: int
    hand_values: tuple[int, ...]
    points: tuple[int, ...]


@cache
def computed_examples(house: rules.Rules) -> dict[str, ComputedExample]:
    """Each example scored by rules.score_round under `house` (once per process and rules:
    keyed by the rules, it cannot go stale). An example those rules refuse (a joker in a deck
    without jokers) is left out."""
    computed = {}
    for example in EXAMPLES:
        target = house.target_for(len(example.seats))
        hands = [rules.Hand(cards=seat.cards, opened=seat.opened) for seat in example.seats]
        try:
            points = rules.score_round(
                hands, example.winner, target, hand_rummy=example.hand_rummy, rules=house
            )
        except rules.RulesError:
            continue
        computed[example.key] = ComputedExample(
            target=target,
            hand_values=tuple(hand.worth(house) for hand in hands),
            points=tuple(points),
        )
    return computed


@dataclass(frozen=True)
class SeatRow:
    role: str
    number: int
    opened: bool
    cards: list[CardFace]
    hand_value: int
    points: int


@dataclass(frozen=True)
class WorkedExample:
    key: str
    title: str
    explanation: str
    players: int
    target: int
    rows: list[SeatRow]
    decided: bool


def worked_examples(house: rules.Rules) -> list[WorkedExample]:
    """The examples in the active language, with their numbers computed under `house` and
    their card faces."""
    computed = computed_examples(house)
    worked = []
    for example in EXAMPLES:
        if example.key not in computed:
            continue
        numbers = computed[example.key]
        rows = [
            SeatRow(
                role=seat.role,
                number=seat.number,
                opened=seat.opened,
                cards=card_faces(seat.cards),
                hand_value=hand_value,
                points=points,
            )
            for seat, hand_value, points in zip(
                example.seats, numbers.hand_values, numbers.points, strict=True
            )
        ]
        worked.append(
            WorkedExample(
                key=example.key,
                title=str(example.title),
                explanation=_explanation(example, numbers),
                players=len(example.seats),
                target=numbers.target,
                rows=rows,
                decided=example.decided,
            )
        )
    return worked


def _explanation(example: Example, numbers: ComputedExample) -> str:
    """The example's explanation in the active language, with its never-opened player's
    numbers filled in when it states them."""
    if not example.numbered:
        return str(example.explanation)
    seat = next(
        index
        for index, seat in enumerate(example.seats)
        if not seat.opened and index != example.winner
    )
    hand = numbers.hand_values[seat]
    return str(example.explanation) % {
        "hand": hand,
        "penalty": rules.SEEDS.not_opened_penalty,
        "sum": hand + rules.SEEDS.not_opened_penalty,
        "cap": min(rules.SEEDS.not_opened_cap, numbers.target // 2),
    }


def rule_numbers() -> dict[str, int]:
    """The numbers the page states (the seeds' rules), each from the rules module."""
    two_player_target = rules.SEEDS.target_for(rules.MIN_PLAYERS)
    return {
        "joker": rules.SEEDS.card_points(rules.JOKER),
        "ace": rules.SEEDS.card_points("A"),
        "face": rules.SEEDS.card_points("K"),
        "penalty": rules.SEEDS.not_opened_penalty,
        "cap": rules.SEEDS.not_opened_cap,
        "hand_rummy": rules.SEEDS.hand_rummy,
        "per_opponent": rules.SEEDS.target_per_opponent,
        "two_player_target": two_player_target,
        "two_player_cap": min(rules.SEEDS.not_opened_cap, two_player_target // 2),
        "copies_per_card": rules.COPIES_PER_CARD,
        "copies_per_rank": rules.COPIES_PER_RANK,
        "jokers": rules.SEEDS.jokers_in_deck,
        "max_hand_value": rules.MAX_HAND_VALUE,
        "min_players": rules.MIN_PLAYERS,
        "max_players": rules.MAX_PLAYERS,
    }


def targets(house: rules.Rules) -> list[tuple[int, int]]:
    """(players, target) for every game size."""
    return [
        (players, house.target_for(players))
        for players in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)
    ]


def card_value_rows(house: rules.Rules) -> list[tuple[str, list[CardFace], int | None]]:
    """The rows of the table of card values: which cards, a face of each, their points
    (None for "its number")."""
    return [
        ("joker", card_faces([rules.JOKER]), house.card_points(rules.JOKER)),
        ("ace", card_faces(["AS"]), house.card_points("A")),
        ("faces", card_faces(["KH", "QC", "JD"]), house.card_points("K")),
        ("numbers", card_faces(["2S", "7D", "10H"]), None),
    ]
