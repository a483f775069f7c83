"""The deck check: no hand, and no round, holds more copies of a card than the deck has."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.rules.cards import COPIES_PER_CARD, COPIES_PER_RANK, JOKER, card_rank, card_suit
from scoring.rules.refusals import Code, RulesError
from scoring.rules.rulebook import SEEDS, Hand, Rules


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
