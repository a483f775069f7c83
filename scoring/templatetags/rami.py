"""Template tags that draw cards as the app draws them, in the visitor's language."""

from collections.abc import Iterable

from django import template
from django.utils.html import format_html, format_html_join

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


@register.filter
def bdi(name: object) -> str:
    """A player's name isolated from the text around it (<bdi>): a name written right to left
    cannot turn the line it stands in around. Escaped, like every name."""
    return format_html("<bdi>{}</bdi>", name)


@register.filter
def bdi_names(players: Iterable[object]) -> str:
    """Several names, each isolated (bdi), separated by commas."""
    return format_html_join(", ", "<bdi>{}</bdi>", ((player,) for player in players))
