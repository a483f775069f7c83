"""Template tags that draw cards as the app draws them, in the visitor's language."""

from collections.abc import Iterable

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from scoring import cards, rules

register = template.Library()


# The HTML of each card face drawn so far, by language and card code: keyed by all that it
# shows (the catalogues are read once, when the server starts), so it cannot go stale; at most
# the 66 canonical codes (cards.ALL_CODES) a language.
_FACES: dict[tuple[str | None, str], SafeString] = {}


def _face(code: str, language: str | None) -> SafeString:
    """One card face: its index and suit symbol, red for hearts and diamonds, a star for a
    joker; its accessible name is the card's full name in the active language. One element
    only, drawn in Python: a 60-round table holds hundreds of them."""
    html = _FACES.get((language, code))
    if html is None:
        face = cards.card_face(code)
        colour = " card-red" if face.red else ""
        joker = " card-joker" if face.joker else ""
        html = format_html(
            '<span class="card{}{}" role="img" aria-label="{}">{}{}</span>',
            colour,
            joker,
            face.name,
            face.label,
            face.symbol,
        )
        if face.code == code:  # a code written otherwise ("ah") is drawn, not kept
            _FACES[language, code] = html
    return html


@register.simple_tag
def card(code: str) -> SafeString:
    """A small card face with its full name for screen readers (scoring/cards.py)."""
    return _face(code, get_language())


@register.simple_tag
def hand_cards(codes: Iterable[str]) -> SafeString:
    """All the faces of a hand in one call: `{% hand_cards cell.cards %}`."""
    language = get_language()
    return format_html_join("", "{}", ((_face(code, language),) for code in codes))


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
