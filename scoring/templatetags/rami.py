"""Template tags that draw cards as the app draws them, in the visitor's language."""

from collections.abc import Iterable

from django import template
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

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


_PICKER_KEYS: dict[str, SafeString] = {}


@register.simple_tag
def picker_keys() -> SafeString:
    """The keys of a card picker: the 13 ranks and the joker, then the four suits. The same
    for every player, so drawn once per language and kept (keyed by the language, it cannot go
    stale)."""
    language = get_language()
    if language not in _PICKER_KEYS:
        # A key's name starts with what it shows (WCAG's "label in name", for voice control):
        # a number is its own name, a letter is followed by the card's ("K, king").
        ranks = format_html_join(
            "",
            '<button type="button" class="rank{}" data-rank="{}"{}>{}</button>',
            (
                (
                    "",
                    rank,
                    ""
                    if cards.rank_label(rank).isdigit()
                    else format_html(
                        ' aria-label="{}, {}"', cards.rank_label(rank), cards.card_name(rank)
                    ),
                    cards.rank_label(rank),
                )
                for rank in rules.RANKS
            ),
        ) + format_html(
            '<button type="button" class="rank joker" data-rank="{}" aria-label="{}">★</button>',
            rules.JOKER,
            cards.card_name(rules.JOKER),
        )
        suits = format_html_join(
            "",
            '<button type="button" class="suit{}" data-suit="{}" aria-label="{}">{}</button>',
            (
                (
                    " red" if suit in cards.RED_SUITS else "",
                    suit,
                    cards.suit_name(suit),
                    rules.SUIT_SYMBOLS[suit],
                )
                for suit in rules.SUITS
            ),
        )
        _PICKER_KEYS[language] = format_html(
            '<div class="keys"><div class="ranks" role="group" aria-label="{}">{}</div>'
            '<div class="suits" role="group" aria-label="{}">{}</div></div>',
            gettext("Add a card"),
            ranks,
            gettext("Suit of the last card (optional)"),
            suits,
        )
    return _PICKER_KEYS[language]


@register.simple_tag
def hand_cells(row) -> SafeString:
    """The cells of a round's row (scoreboard.RoundRow), one a player: the points, the
    running total, and what the round table notes of the hand (went out, the lowest hand of
    a blocked round, the cards or the value, not opened and how its points came about).
    Drawn in Python, each word translated once a row: the page's eight rows of six cells
    cost a quarter of what the same markup cost as template tags."""
    total = gettext("total")
    went_out = format_html('<span class="note">{}</span>', gettext("out"))
    lowest = format_html('<span class="note">{}</span>', gettext("lowest hand"))
    not_opened = gettext("not opened")
    cells = []
    for cell in row.hands:
        notes = []
        if cell.went_out:
            notes.append(went_out)
        elif cell.lowest:
            notes.append(lowest)
        hand = cell.hand
        if hand is not None and hand.cards:
            notes.append(format_html('<span class="hand-cards">{}</span>', hand_cards(hand.cards)))
        elif hand is not None and hand.value is not None:
            value = gettext("hand %(value)s") % {"value": hand.value}
            notes.append(format_html('<span class="note">{}</span>', value))
        if not cell.opened:
            explained = not_opened_sum(cell.explained)
            said = f"{not_opened}: {explained}" if explained else not_opened
            notes.append(format_html('<span class="note">{}</span>', said))
        css = "went-out" if cell.went_out else "lowest" if cell.lowest else ""
        cells.append(
            format_html(
                '<td class="{}" role="cell"><span class="points">{}</span> <span class="running">'
                '<span class="visually-hidden">{} </span>{}</span>{}</td>',
                css,
                cell.points,
                total,
                cell.total,
                mark_safe("".join(f" {note}" for note in notes)),  # noqa: S308
            )
        )
    return mark_safe("\n".join(cells))  # noqa: S308


@register.filter
def rounds_shown(board, all_rounds: bool) -> list:
    """The round rows a game page shows (Scoreboard.rounds_shown): the latest, or all."""
    return board.rounds_shown(bool(all_rounds))


@register.filter
def not_opened_sum(sum_: rules.NotOpenedSum | None) -> str:
    """How a never-opened loser's points came about: "61 + 25 = 86", or "81 + 25 → 100, the
    cap" when a cap held them down; nothing for anyone else."""
    if sum_ is None:
        return ""
    numbers = {"worth": sum_.worth, "penalty": sum_.penalty, "points": sum_.points}
    if sum_.capped_by == "cap":
        return gettext("%(worth)s + %(penalty)s → %(points)s, the cap") % numbers
    if sum_.capped_by == "half_target":
        return gettext("%(worth)s + %(penalty)s → %(points)s, half the target") % numbers
    return "{worth} + {penalty} = {points}".format(**numbers)


@register.filter
def bdi(name: object) -> str:
    """A player's name isolated from the text around it (<bdi>): a name written right to left
    cannot turn the line it stands in around. Escaped, like every name."""
    return format_html("<bdi>{}</bdi>", name)


@register.filter
def bdi_names(players: Iterable[object]) -> str:
    """Several names, each isolated (bdi), separated by commas."""
    return format_html_join(", ", "<bdi>{}</bdi>", ((player,) for player in players))


@register.filter
def bdi_names_and(players: Iterable[object]) -> str:
    """Names joined as a sentence joins them ("Cyril and Dana", "Ana, Cyril and Dana"), each
    isolated (bdi)."""
    names = [format_html("<bdi>{}</bdi>", player) for player in players]
    if len(names) < 2:
        return format_html_join("", "{}", ((name,) for name in names))
    sentence = escape(gettext("%(names)s and %(last)s"))
    return mark_safe(  # noqa: S308 (the translation is escaped, each name is a <bdi> of its own)
        sentence % {"names": ", ".join(names[:-1]), "last": names[-1]}
    )


@register.filter
def item(sequence, index: int):
    """`sequence[index]`: a player's line of the board, or their hand of a round, by seat."""
    return sequence[index]
