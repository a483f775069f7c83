"""Card codes and the deck they come from.

A code is a rank (A, 2-10, J, Q, K) followed by a suit (S, H, D, C), or "JK" for a joker; codes
are case-insensitive, a rank alone is a card whose suit was not given, and the suit symbols are
read for their letters. The deck is two 52-card packs and four jokers. Their names in words are
scoring/rules/card_names.py's.
"""

from __future__ import annotations

from scoring.rules.refusals import Code, RulesError

JOKER = "JK"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

# The deck: two 52-card packs and four jokers.
COPIES_PER_CARD = 2
COPIES_PER_RANK = COPIES_PER_CARD * len(SUITS)
JOKERS_IN_DECK = 4
DECK_SIZE = COPIES_PER_CARD * len(RANKS) * len(SUITS) + JOKERS_IN_DECK

_SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}


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
