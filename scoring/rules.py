"""The rules of Rami scoring, in plain Python (no Django).

This module is the single place where a rule is written down: the value of a card left in a
hand, the points of a round (winner, never opened, hand rummy, blocked round, deck check), the
target for a number of players and the standing of a game. Everything else calls it.

Card codes: a rank (A, 2-10, J, Q, K) followed by a suit (S, H, D, C), or "JK" for a joker.
Codes are case-insensitive; a rank alone is a card whose suit was not given. The suit symbols
♠ ♥ ♦ ♣ are accepted for S H D C.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

JOKER = "JK"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

JOKER_POINTS = 20
ACE_POINTS = 11
FACE_POINTS = 10
NEVER_OPENED_PENALTY = 25
NEVER_OPENED_CAP = 100
HAND_RUMMY_POINTS = 200
TARGET_PER_OPPONENT = 100
MIN_PLAYERS, MAX_PLAYERS = 2, 6

# The deck: two 52-card packs and four jokers.
COPIES_PER_CARD = 2
COPIES_PER_RANK = COPIES_PER_CARD * len(SUITS)
JOKERS_IN_DECK = 4
DECK_SIZE = COPIES_PER_CARD * len(RANKS) * len(SUITS) + JOKERS_IN_DECK

_SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}


class RulesError(ValueError):
    """A round or a hand that the rules refuse, with a message fit to show a player.

    `code` names the kind of mistake; `player` is the index of the player concerned (or None);
    `details` holds the rest (`card`, `value`, `count`, `limit`, ...), so that the web layer can
    say the same thing in the player's language.
    """

    MESSAGES = {
        "unknown_card": 'unknown card "{card}": use a rank A, 2-10, J, Q, K with an optional '
        "suit S, H, D, C, or JK for a joker",
        "negative_value": "a hand value cannot be negative ({value})",
        "value_too_large": "a hand value of {value} is more than the whole deck is worth ({limit})",
        "not_a_number": 'the hand value "{value}" is not a whole number',
        "cards_and_value": "give the cards or the hand value, not both",
        "missing_hand": "the cards left in this hand (or their value) are missing",
        "winner_has_cards": "the winner went out, so no cards are left in the winner's hand",
        "winner_out_of_range": "the winner must be one of the {count} players",
        "hand_rummy_opened": "a hand rummy needs every opponent not to have opened yet",
        "hand_rummy_blocked": "a blocked round has no winner, so it cannot be a hand rummy",
        "too_many_copies": 'more "{card}" cards ({count}) than the deck holds ({limit})',
        "player_count": "a game has 2 to 6 players, not {count}",
        "bad_target": "the target must be a positive number of points, not {target}",
        "game_finished": "the game is over: start a rematch to play on",
        "round_taken": "round {number} was saved on another phone first; "
        "this would be round {next}",
        "already_saved": "this round was saved already (and has since been deleted)",
        "already_restored": "this round has already been brought back",
        "too_many_rounds": "a game has at most {limit} rounds",
        "round_gone": "round {number} has been deleted (on another phone, or by a tap before)",
        "round_moved": "round {number} is now round {now}: an earlier round was deleted or "
        "brought back on another phone",
        "round_changed": "round {number} was changed on another phone since this form was opened",
        "game_not_finished": "only a finished game has a rematch",
        "too_many_cards": "a hand holds at most {limit} cards (the whole deck), not {count}",
    }

    def __init__(self, code: str, player: int | None = None, **details: object) -> None:
        self.code = code
        self.player = player
        self.details = details
        super().__init__(self.MESSAGES[code].format(**details))

    def for_player(self, player: int) -> RulesError:
        """The same error, naming the player concerned."""
        return RulesError(self.code, player, **self.details)


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
    raise RulesError("unknown_card", card=str(code).strip())


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


def card_points(code: str) -> int:
    """What a card costs when it is left in a hand at the end of a round."""
    rank = card_rank(parse_card(code))
    if rank == JOKER:
        return JOKER_POINTS
    if rank == "A":
        return ACE_POINTS
    if rank in ("J", "Q", "K"):
        return FACE_POINTS
    return int(rank)


def hand_value(cards: Iterable[str]) -> int:
    """The sum of the cards left in a hand."""
    return sum(card_points(card) for card in cards)


MAX_HAND_VALUE = JOKERS_IN_DECK * JOKER_POINTS + COPIES_PER_RANK * (
    ACE_POINTS + 3 * FACE_POINTS + sum(range(2, 11))
)


def target_for(players: int) -> int:
    """The target of a game: 100 points per opponent."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError("player_count", count=players)
    return TARGET_PER_OPPONENT * (players - 1)


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
            raise RulesError("too_many_cards", count=len(self.cards), limit=DECK_SIZE)
        cards = tuple(parse_card(card) for card in self.cards)
        object.__setattr__(self, "cards", cards)
        if self.value is not None:
            if cards:
                raise RulesError("cards_and_value")
            if isinstance(self.value, bool) or not isinstance(self.value, int):
                raise RulesError("not_a_number", value=self.value)
            if self.value < 0:
                raise RulesError("negative_value", value=self.value)
            if self.value > MAX_HAND_VALUE:
                raise RulesError("value_too_large", value=self.value, limit=MAX_HAND_VALUE)

    @property
    def given(self) -> bool:
        """Whether the cards or the value were given at all."""
        return bool(self.cards) or self.value is not None

    @property
    def points(self) -> int:
        """The hand value: the typed value, or the sum of the cards."""
        return self.value if self.value is not None else hand_value(self.cards)


def _deck_limits(card: str) -> list[tuple[str, int]]:
    """What a card counts against, and how many of that the deck holds: a joker against the
    jokers; any other card against its rank, and a card with a suit against itself too."""
    rank = card_rank(card)
    if rank == JOKER:
        return [(JOKER, JOKERS_IN_DECK)]
    if card_suit(card) is None:
        return [(rank, COPIES_PER_RANK)]
    return [(card, COPIES_PER_CARD), (rank, COPIES_PER_RANK)]


def check_deck(hands: Sequence[Hand]) -> None:
    """Refuse a round whose hands hold more copies of a card than the deck has."""
    seen: Counter[str] = Counter()
    for index, hand in enumerate(hands):
        for card in hand.cards:
            for counted, limit in _deck_limits(card):
                seen[counted] += 1
                if seen[counted] > limit:
                    raise RulesError(
                        "too_many_copies", index, card=counted, count=seen[counted], limit=limit
                    )


def round_winners(hands: Sequence[Hand], winner: int | None) -> list[int]:
    """The players who score 0: the one who went out, or in a blocked round (winner None)
    every player sharing the lowest hand value."""
    if winner is not None:
        return [winner]
    lowest = min(hand.points for hand in hands)
    return [index for index, hand in enumerate(hands) if hand.points == lowest]


def score_round(
    hands: Sequence[Hand], winner: int | None, target: int, hand_rummy: bool = False
) -> list[int]:
    """The points each player scores in a round, in the order of `hands`.

    `winner` is the index of the player who went out, or None for a blocked round (the draw
    pile ran out). `hand_rummy` marks a winner who opened and went out in one turn while no
    opponent had opened: every opponent then scores 200 whatever is in the hand.
    """
    hands = list(hands)
    if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
        raise RulesError("player_count", count=len(hands))
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise RulesError("bad_target", target=target)
    if winner is not None and (
        isinstance(winner, bool) or not isinstance(winner, int) or not 0 <= winner < len(hands)
    ):
        raise RulesError("winner_out_of_range", count=len(hands))

    if winner is None:
        if hand_rummy:
            raise RulesError("hand_rummy_blocked")
    elif hands[winner].cards or hands[winner].value:
        raise RulesError("winner_has_cards", winner)

    if hand_rummy:
        for index, hand in enumerate(hands):
            if index != winner and hand.opened:
                raise RulesError("hand_rummy_opened", index)
        check_deck(hands)
        return [0 if index == winner else HAND_RUMMY_POINTS for index in range(len(hands))]

    for index, hand in enumerate(hands):
        if index != winner and not hand.given:
            raise RulesError("missing_hand", index)
    check_deck(hands)

    never_opened_cap = min(NEVER_OPENED_CAP, target // 2)
    winners = round_winners(hands, winner)
    points = []
    for index, hand in enumerate(hands):
        if index in winners:
            points.append(0)
        elif not hand.opened:
            points.append(min(hand.points + NEVER_OPENED_PENALTY, never_opened_cap))
        else:
            points.append(hand.points)
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


def standing(totals: Sequence[int], target: int) -> Standing:
    """The standing of a game from each player's total: over as soon as a total reaches the
    target, won by the lowest total, with tie-break rounds while the lowest is shared."""
    totals = tuple(totals)
    if not totals:
        raise RulesError("player_count", count=0)
    lowest = min(totals)
    leaders = tuple(index for index, total in enumerate(totals) if total == lowest)
    reached = max(totals) >= target
    finished = reached and len(leaders) == 1
    return Standing(
        totals=totals,
        target=target,
        finished=finished,
        winner=leaders[0] if finished else None,
        tie_break=reached and len(leaders) > 1,
        leaders=leaders,
    )


def standings(round_points: Iterable[Sequence[int]], players: int, target: int) -> list[Standing]:
    """The standing after each round in turn, from the points of each round."""
    totals = [0] * players
    after = []
    for points in round_points:
        totals = [total + point for total, point in zip(totals, points, strict=True)]
        after.append(standing(totals, target))
    return after
