"""Template tags and filters the templates share: values, not markup. Markup is written once,
in a template: a partial of the page that draws it, or a small _x.html where several pages share
it. Three tags draw markup in Python, each saying why in its docstring (times taken in one
process, both ways interleaved; a game page costs about 8 ms): standing, input_attrs and bdi. A
card face and the card keys are kept once drawn, keyed by all that they show. The round form's
rows stay a template although f-strings drew them faster (0.42 against 0.9 ms a page)."""

import dataclasses
import html
import re
from collections.abc import Iterable

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.forms import CheckboxInput
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, pgettext

from scoring import rules
from scoring.rules import card_names

register = template.Library()


# The card faces drawn so far, by language and card code (at most the 66 canonical codes of
# card_names.ALL_CODES a language): drawn from _card.html once, then a lookup.
_FACES: dict[tuple[str | None, str], SafeString] = {}


def _face(code: str, language: str | None) -> SafeString:
    """One card face (templates/scoring/_card.html's), drawn once per language and card: a
    60-round table holds hundreds of them."""
    face = _FACES.get((language, code))
    if face is None:
        drawn = card_names.card_face(code)
        face = render_to_string("scoring/_card.html#face", {"card": drawn})
        if drawn.code == code:  # a code written otherwise ("ah") is drawn, not kept
            _FACES[language, code] = face
    return face


@register.simple_tag
def card(code: str) -> SafeString:
    """A small card face with its full name for screen readers (scoring/rules/card_names.py)."""
    return _face(code, get_language())


@register.simple_tag
def hand_cards(codes: Iterable[str]) -> SafeString:
    """All the faces of a hand in one call: `{% hand_cards hand.cards %}`."""
    language = get_language()
    return format_html_join("", "{}", ((_face(code, language),) for code in codes))


# The card keys of a round form's row, by language: the same for every player, so drawn once.
_PICKER_KEYS: dict[str | None, SafeString] = {}


@register.simple_tag
def picker_keys() -> SafeString:
    """The keys of a card picker (_round_form.html's partial `picker_keys`): the 13 ranks and
    the joker, then the four suits. Drawn once per language and kept: a round form has one
    set a player, on every page and every answer to a save."""
    language = get_language()
    keys = _PICKER_KEYS.get(language)
    if keys is None:
        ranks = [
            (rank, card_names.rank_label(rank), card_names.card_name(rank)) for rank in rules.RANKS
        ]
        suits = [
            (
                suit,
                rules.SUIT_SYMBOLS[suit],
                card_names.suit_name(suit),
                suit in card_names.RED_SUITS,
            )
            for suit in rules.SUITS
        ]
        context = {
            "ranks": ranks,
            "joker": rules.JOKER,
            "joker_name": card_names.card_name(rules.JOKER),
            "suits": suits,
        }
        keys = render_to_string("scoring/_round_form.html#picker_keys", context)
        _PICKER_KEYS[language] = keys
    return keys


# What kept_per_language blocks drew, by block and language.
_KEPT: dict[tuple[template.Node, str | None, str], SafeString] = {}


@register.tag
def kept_per_language(parser, token) -> template.Node:
    """{% kept_per_language %}...{% endkept_per_language %}: drawn once per language (and
    address prefix) in a process, then the same text: base.html's links to the static files
    and its words for the scripts, on every page. Only what depends on nothing but these and
    the settings may be inside (no block, no token, no nonce, nothing else of the request); a
    change of settings (a test's) draws them again."""
    nodelist = parser.parse(("endkept_per_language",))
    parser.delete_first_token()
    return KeptPerLanguage(nodelist)


class KeptPerLanguage(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context) -> SafeString:
        key = (self, get_language(), get_script_prefix())
        drawn = _KEPT.get(key)
        if drawn is None:
            drawn = _KEPT[key] = self.nodelist.render(context)
        return drawn


@receiver(setting_changed)
def _settings_changed(**_kwargs) -> None:
    _KEPT.clear()


# Where a player's standing goes in the round form's rows drawn to be kept (standings_in).
# Never in what a player types: every name is escaped, and "<" with it.
STANDING_HERE = re.compile(r"<!--standing (\d+)-->")


@register.tag
def standings_in(parser, token) -> template.Node:
    """{% standings_in %}...{% endstandings_in %}: what is inside is drawn with
    `standing_later` set, so that the round form's rows say where each player's standing goes
    (<!--standing N-->, seat N) instead of drawing it; each is then drawn there, from the
    board, as the standing tag does. The rows are kept without what a save changes."""
    nodelist = parser.parse(("endstandings_in",))
    parser.delete_first_token()
    return StandingsIn(nodelist)


class StandingsIn(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context) -> SafeString:
        with context.push(standing_later=True):
            drawn = self.nodelist.render(context)
        rows = context["board"].rows_by_seat

        def standing_of(found: re.Match) -> str:
            return standing(context, rows[int(found[1])], seat_row=True)

        return mark_safe(STANDING_HERE.sub(standing_of, drawn))  # noqa: S308 (drawn escaped)


@register.simple_tag(takes_context=True)
def standing(context, row, seat_row: bool = False, oob: bool = False) -> SafeString:
    """A player's standing, `row` (Scoreboard.players): the name with its badges, the total,
    and a bar with what is left to the target. It is one line of the scoreboard's list
    (watch-only link, a finished game, a round taken back). With `seat_row` it is the head of
    the player's row of the round entry, where the board's line *is* the entry's row
    (game.html's `sheet`). There the name labels the row (its id), the points of the round
    just saved (the context's `saved`) stand under the total, and a live update while
    someone types swaps just this (`oob`). Drawn in Python for speed: six, on every page and
    every live update, cost 0.09 ms as this tag and 0.29-0.32 ms as a template."""
    seat = row.player.seat
    fixing = context.get("fixing") if seat_row else None
    if fixing:
        # A saved round back in the form still counts, and its points stand beside the total
        # as they are typed ("→ 14"): the total leaves it out, so that nobody counts it twice.
        taken = sum(hand.points for hand in fixing.hands.all() if hand.player_id == row.player.pk)
        row = dataclasses.replace(row, total=row.total - taken)
    leader = " leader" if row.leader else ""
    if seat_row:
        swap = ' hx-swap-oob="true"' if oob else ""
        opening = f'<span class="total{leader}" id="standing-{seat:d}"{swap}>'
        name_class, name_id, closing = "name hand-name", f' id="name-{seat:d}"', "</span>"
    else:
        champion = " champion" if row.champion else ""
        gone = " gone" if row.left_after is not None else ""
        opening = f'<li class="total{leader}{champion}{gone}">'
        name_class, name_id, closing = "name", "", "</li>"
    name = f'<bdi class="{name_class}"{name_id}>{html.escape(row.player.name)}</bdi>'
    # Each gettext() outside the f-strings: makemessages (xgettext) does not look inside them.
    if row.leads:
        leads = html.escape(gettext("leads"))
        # Where a narrow row has no room for the word (rami.css), first place, said short.
        first = html.escape(pgettext("the leader's badge, short: first place", "1st"))
        name += (
            f'<span class="badge lead"><span class="badge-word">{leads}</span>'
            f'<span class="badge-short" aria-hidden="true">{first}</span></span>'
        )
    if row.deals_next and not seat_row:
        deals = html.escape(gettext("deals next"))
        name += f'<span class="badge deal">{deals}</span>'
    last = ""
    saved = context.get("saved")
    if seat_row and saved:
        said = html.escape(gettext("Round %(number)s") % {"number": saved.number})
        points = saved.hands[seat].points
        last = f'<span class="last"><span class="visually-hidden">{said}: </span>+{points:d}</span>'
    bar = (
        '<svg class="bar" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true"'
        ' focusable="false"><rect class="bar-track" width="100" height="4" rx="2"/>'
        f'<rect class="bar-fill" width="{row.percent:d}" height="4" rx="2"/></svg>'
    )
    to_go = html.escape(to_the_target(row))
    return mark_safe(  # noqa: S308 (every text escaped above)
        f'{opening}\n<span class="who">{name}</span>\n<span class="sum">{row.total:d}</span>\n'
        f'{last}\n<span class="meter">{bar}<span class="to-go">{to_go}</span></span>\n'
        f"{closing}\n"
    )


@register.filter
def hand_rows(form) -> list[dict]:
    """The round form's rows (RoundForm.seats()), each with what its row reads more than once
    at hand: the seat's `number`, the player's `name`, the "went out" `choice` and the ids of
    its inputs. A template looks a key of a dict up at the first try; a row reads them thirty
    times, six rows a page."""
    rows = []
    for seat in form.seats():
        choice = seat["winner_choice"]
        rows.append(
            {
                **seat,
                "number": seat["player"].seat,
                "name": seat["player"].name,
                "choice": choice,
                "choice_id": choice.id_for_label,
                "cards_id": seat["cards"].id_for_label,
                "value_id": seat["value"].id_for_label,
                "not_opened_id": seat["not_opened"].id_for_label,
            }
        )
    return rows


@register.filter
def in_deal_order(rows: list, order: tuple[int, ...]) -> list:
    """The board's rows (scoreboard.PlayerRow) in the order the deal goes round
    (Scoreboard.deal_order): after a change of seats, the order the players now sit in."""
    place = {seat: position for position, seat in enumerate(order)}
    return sorted(rows, key=lambda row: place.get(row.player.seat, len(place)))


@register.filter
def to_the_target(row) -> str:
    """What a player (scoreboard.PlayerRow) has left to the target: "37 to the target", or
    "target reached"; for a player who left the game, when."""
    if row.left_after is not None:
        return gettext("left after round %(number)s") % {"number": row.left_after}
    if row.to_go:
        return gettext("%(points)s to the target") % {"points": row.to_go}
    return gettext("target reached")


@register.filter
def input_attrs(field) -> SafeString:
    """The attributes of a bound field's <input> after its type, as Django's widget writes
    them. That is the name, the value (unless empty; a checkbox is checked after its id
    instead), the widget's own attributes, aria-invalid and aria-describedby when the field
    has an error, and the id; tests/test_performance.py compares the two. Written here for
    speed, as Django's flatatt writes attributes: the round form's 18 inputs cost 0.19 ms, with
    their attributes as a template 1.3 ms."""
    parts = [f' name="{html.escape(field.html_name)}"']
    value = field.value()
    checkbox = isinstance(field.field.widget, CheckboxInput)
    if not checkbox and value is not None and value != "":
        parts.append(f' value="{html.escape(str(value))}"')
    for name, attr in field.field.widget.attrs.items():
        if attr is True:
            parts.append(f" {name}")
        elif attr is not False:
            parts.append(f' {name}="{html.escape(str(attr))}"')
    if field.errors:
        described = html.escape(f"{field.auto_id}_error")
        parts.append(f' aria-invalid="true" aria-describedby="{described}"')
    parts.append(f' id="{html.escape(field.id_for_label)}"')
    if checkbox and value:
        parts.append(" checked")
    return mark_safe("".join(parts))  # noqa: S308 (each value escaped above)


@register.filter
def hidden_inputs(form) -> SafeString:
    """The form's hidden inputs, as Django's HiddenInput writes them: the name, the value
    (unless empty) and the id, each escaped. tests/test_performance.py compares the two; the
    round form's five as a template cost 0.5 ms."""
    inputs = []
    for field in form.hidden_fields():
        value = field.value()
        shown = "" if value is None or value == "" else f' value="{html.escape(str(value))}"'
        name, id_ = html.escape(field.html_name), html.escape(field.id_for_label)
        inputs.append(f'<input type="hidden" name="{name}"{shown} id="{id_}">')
    return mark_safe("".join(inputs))  # noqa: S308 (each value escaped above)


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
    """A name in <bdi>, escaped: a name written right to left cannot turn its line around.
    A value for {% blocktranslate with name=...|bdi %}, hence Python: format_html draws it, as
    Django's admin draws its small cells."""
    return format_html("<bdi>{}</bdi>", name)


@register.filter
def bdi_names(players: Iterable[object]) -> str:
    """Several names, each isolated (bdi), separated by commas."""
    return format_html_join(", ", "<bdi>{}</bdi>", ((player,) for player in players))


@register.filter
def item(sequence, index: int):
    """`sequence[index]`: a player's line of the board, or their hand of a round, by seat."""
    return sequence[index]
