"""Cards in the visitor's language: full names, the letters on a card face, suit symbols; the
Django side of the card codes of scoring/rules/cards.py. A full name is one message per card
(context "card"), not a rank and a suit glued together, because the grammar differs: Czech suit
adjectives agree with the rank ("srdcové eso", "srdcový král"), Swedish puts the suit first
("hjärter ess"). The table below stays spelled out so that makemessages finds every name
(tests/test_cards.py checks it covers every code). Face letters are messages too (context "card
face"): Swedish packs print E, Kn, D, K, and read_typed understands them when typed; no source
confirmed other letters for Czech, Bulgarian or Indonesian packs, which keep A K Q J.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import pgettext_lazy

from scoring.rules import JOKER, RANKS, SUIT_SYMBOLS, SUITS, card_rank, card_suit, parse_card

RED_SUITS = frozenset({"H", "D"})
# A joker's face: it has no rank or suit index, and a star reads as "the odd card" everywhere.
JOKER_FACE = "\u2605"

# Translators: the full name of a playing card, written as players of your language say it
# (grammar included: e.g. cs "srdcové eso", id "As hati"). A rank alone is a card whose suit
# was not given.
CARD_NAMES = {
    "AS": pgettext_lazy("card", "ace of spades"),
    "2S": pgettext_lazy("card", "two of spades"),
    "3S": pgettext_lazy("card", "three of spades"),
    "4S": pgettext_lazy("card", "four of spades"),
    "5S": pgettext_lazy("card", "five of spades"),
    "6S": pgettext_lazy("card", "six of spades"),
    "7S": pgettext_lazy("card", "seven of spades"),
    "8S": pgettext_lazy("card", "eight of spades"),
    "9S": pgettext_lazy("card", "nine of spades"),
    "10S": pgettext_lazy("card", "ten of spades"),
    "JS": pgettext_lazy("card", "jack of spades"),
    "QS": pgettext_lazy("card", "queen of spades"),
    "KS": pgettext_lazy("card", "king of spades"),
    "AH": pgettext_lazy("card", "ace of hearts"),
    "2H": pgettext_lazy("card", "two of hearts"),
    "3H": pgettext_lazy("card", "three of hearts"),
    "4H": pgettext_lazy("card", "four of hearts"),
    "5H": pgettext_lazy("card", "five of hearts"),
    "6H": pgettext_lazy("card", "six of hearts"),
    "7H": pgettext_lazy("card", "seven of hearts"),
    "8H": pgettext_lazy("card", "eight of hearts"),
    "9H": pgettext_lazy("card", "nine of hearts"),
    "10H": pgettext_lazy("card", "ten of hearts"),
    "JH": pgettext_lazy("card", "jack of hearts"),
    "QH": pgettext_lazy("card", "queen of hearts"),
    "KH": pgettext_lazy("card", "king of hearts"),
    "AD": pgettext_lazy("card", "ace of diamonds"),
    "2D": pgettext_lazy("card", "two of diamonds"),
    "3D": pgettext_lazy("card", "three of diamonds"),
    "4D": pgettext_lazy("card", "four of diamonds"),
    "5D": pgettext_lazy("card", "five of diamonds"),
    "6D": pgettext_lazy("card", "six of diamonds"),
    "7D": pgettext_lazy("card", "seven of diamonds"),
    "8D": pgettext_lazy("card", "eight of diamonds"),
    "9D": pgettext_lazy("card", "nine of diamonds"),
    "10D": pgettext_lazy("card", "ten of diamonds"),
    "JD": pgettext_lazy("card", "jack of diamonds"),
    "QD": pgettext_lazy("card", "queen of diamonds"),
    "KD": pgettext_lazy("card", "king of diamonds"),
    "AC": pgettext_lazy("card", "ace of clubs"),
    "2C": pgettext_lazy("card", "two of clubs"),
    "3C": pgettext_lazy("card", "three of clubs"),
    "4C": pgettext_lazy("card", "four of clubs"),
    "5C": pgettext_lazy("card", "five of clubs"),
    "6C": pgettext_lazy("card", "six of clubs"),
    "7C": pgettext_lazy("card", "seven of clubs"),
    "8C": pgettext_lazy("card", "eight of clubs"),
    "9C": pgettext_lazy("card", "nine of clubs"),
    "10C": pgettext_lazy("card", "ten of clubs"),
    "JC": pgettext_lazy("card", "jack of clubs"),
    "QC": pgettext_lazy("card", "queen of clubs"),
    "KC": pgettext_lazy("card", "king of clubs"),
    "A": pgettext_lazy("card", "ace"),
    "2": pgettext_lazy("card", "two"),
    "3": pgettext_lazy("card", "three"),
    "4": pgettext_lazy("card", "four"),
    "5": pgettext_lazy("card", "five"),
    "6": pgettext_lazy("card", "six"),
    "7": pgettext_lazy("card", "seven"),
    "8": pgettext_lazy("card", "eight"),
    "9": pgettext_lazy("card", "nine"),
    "10": pgettext_lazy("card", "ten"),
    "J": pgettext_lazy("card", "jack"),
    "Q": pgettext_lazy("card", "queen"),
    "K": pgettext_lazy("card", "king"),
    JOKER: pgettext_lazy("card", "joker"),
}

FACE_LETTERS = {
    # Translators: the index printed in the corner of an ace (one or two letters).
    "A": pgettext_lazy("card face", "A"),
    # Translators: the index printed in the corner of a jack (one or two letters).
    "J": pgettext_lazy("card face", "J"),
    # Translators: the index printed in the corner of a queen (one or two letters).
    "Q": pgettext_lazy("card face", "Q"),
    # Translators: the index printed in the corner of a king (one or two letters).
    "K": pgettext_lazy("card face", "K"),
}

SUIT_NAMES = {
    "S": pgettext_lazy("suit", "spades"),
    "H": pgettext_lazy("suit", "hearts"),
    "D": pgettext_lazy("suit", "diamonds"),
    "C": pgettext_lazy("suit", "clubs"),
}


def card_name(code: str) -> str:
    """A card's full name in the active language: "AH" -> "ace of hearts" (cs "srdcové eso").
    RulesError for an unknown code."""
    return str(CARD_NAMES[parse_card(code)])


def typed_code(code: str) -> str:
    """A card as the active language's players type it, and as its spreadsheet shows it: the
    face letters of its packs and the notation's suit letter (sv "EH", "KnC", "DS"; "JK" for
    a joker). `read_typed` reads it back, as it reads the notation's own codes."""
    card = parse_card(code)
    rank, suit = card_rank(card), card_suit(card)
    if rank == JOKER:
        return JOKER
    return str(FACE_LETTERS.get(rank, rank)) + (suit or "")


def rank_label(rank: str) -> str:
    """The index on a card face for a rank ("A", "10", "K"), or the joker's star for "JK"."""
    rank = card_rank(parse_card(rank))
    if rank == JOKER:
        return JOKER_FACE
    if rank in FACE_LETTERS:
        return str(FACE_LETTERS[rank])
    return rank


def read_typed(text: str) -> list[str]:
    """The card codes typed in a hand's field. The letters of the active language's own packs
    are read as the ranks they stand for: Swedish packs print Kn, D and E for the jack, the
    queen and the ace, so "KnH" is the jack of hearts. The card notation's own letters are
    always understood too."""
    local = {
        str(letter).upper(): rank for rank, letter in FACE_LETTERS.items() if str(letter) != rank
    }
    codes = []
    for token in text.split():
        upper = token.upper()
        for letter, rank in sorted(local.items(), key=lambda item: -len(item[0])):
            rest = upper[len(letter) :]
            if upper.startswith(letter) and (
                rest == "" or rest in SUIT_SYMBOLS or rest in SUIT_SYMBOLS.values()
            ):
                token = rank + rest
                break
        codes.append(token)
    return codes


def suit_symbol(code: str) -> str:
    """The suit symbol of a card ("♥" for "AH"), or "" for a joker or a card of unknown suit."""
    suit = card_suit(parse_card(code))
    return SUIT_SYMBOLS[suit] if suit else ""


def suit_name(suit: str) -> str:
    """The name of a suit ("S", "H", "D", "C" or its symbol) in the active language."""
    suit = {symbol: letter for letter, symbol in SUIT_SYMBOLS.items()}.get(suit, suit.upper())
    return str(SUIT_NAMES[suit])


@dataclass(frozen=True)
class CardFace:
    """What a template needs to draw one card: the index, the suit symbol, the colour and the
    accessible name."""

    code: str
    label: str
    symbol: str
    name: str
    red: bool
    joker: bool


def card_face(code: str) -> CardFace:
    card = parse_card(code)
    return CardFace(
        code=card,
        label=rank_label(card),
        symbol=suit_symbol(card),
        name=card_name(card),
        red=card_suit(card) in RED_SUITS,
        joker=card == JOKER,
    )


def card_faces(codes: Iterable[str]) -> list[CardFace]:
    return [card_face(code) for code in codes]


ALL_CODES = (
    *(rank + suit for suit in SUITS for rank in RANKS),
    *RANKS,
    JOKER,
)
