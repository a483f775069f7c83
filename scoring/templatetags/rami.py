"""Template tags that draw cards as the app draws them, in the visitor's language."""

from django import template

from scoring import cards, rules

register = template.Library()


@register.inclusion_tag("scoring/_card.html")
def card(code: str) -> dict:
    """A small card face with its full name for screen readers (scoring/cards.py)."""
    return {"card": cards.card_face(code)}


@register.simple_tag
def picker_ranks() -> list[dict]:
    """The 14 buttons of the card picker: the 13 ranks and the joker."""
    return [
        {"code": rank, "label": cards.rank_label(rank), "name": cards.card_name(rank)}
        for rank in rules.RANKS
    ] + [{"code": rules.JOKER, "label": "★", "name": cards.card_name(rules.JOKER), "joker": True}]


@register.simple_tag
def picker_suits() -> list[dict]:
    return [
        {
            "code": suit,
            "symbol": rules.SUIT_SYMBOLS[suit],
            "name": cards.suit_name(suit),
            "red": suit in cards.RED_SUITS,
        }
        for suit in rules.SUITS
    ]
