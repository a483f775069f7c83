"""Template filters that draw cards as the app draws them."""

from django import template

from scoring import rules

register = template.Library()

RED_SUITS = {"H", "D"}


@register.inclusion_tag("scoring/_card.html")
def card(code: str):
    """A small card face: rank and suit symbol, red for hearts and diamonds, a star for a joker."""
    rank = rules.card_rank(code)
    suit = rules.card_suit(code)
    return {
        "code": code,
        "joker": rank == rules.JOKER,
        "rank": rank,
        "symbol": rules.SUIT_SYMBOLS.get(suit, "") if suit else "",
        "red": suit in RED_SUITS,
    }


@register.simple_tag
def picker_ranks() -> list[dict]:
    """The 14 buttons of the card picker: the 13 ranks and the joker."""
    return [{"code": rank, "label": rank} for rank in rules.RANKS] + [
        {"code": rules.JOKER, "label": "★", "joker": True}
    ]


@register.simple_tag
def picker_suits() -> list[dict]:
    return [
        {"code": suit, "symbol": rules.SUIT_SYMBOLS[suit], "red": suit in RED_SUITS}
        for suit in rules.SUITS
    ]
