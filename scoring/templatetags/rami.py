"""Template tags: what a page draws many times, drawn in Python, each word translated and
every text escaped once; and the filters the templates share.

The one rule of the app's markup: **each piece is written once, in one dialect.** The pieces a
page draws dozens of times are drawn here, in Python, and their templates (_card.html,
_statistics.html, _chart.svg.html) are one tag each that calls them: a card face (hundreds on
a long game's round table), a round's row of the round table, a player's standing, a player's
row of the round form, a player's errors (seat_errors, the row's and the preview's), a hand's
notes (HandNotes, the round table's and the history's), the score chart and the statistics
table. Everything else is a template. Each was measured against the template it replaced,
byte for byte the same markup in every language, before it moved here: the chart 2.35 ms ->
0.29 ms and the statistics 3.0 ms -> 0.65 ms for 60 rounds of 6 players, the round form's six
rows a third of the game page's template work, the board's eight rows of six cells several
times cheaper; the page as a whole then costs about 12 ms of CPU (bench/RESULTS.md). On top
of that, a page's round table, chart and statistics are kept under a digest of the rows they
are drawn from (game.html's {% cache %}, Scoreboard.rounds_key), so a reload is a lookup; and
the answer a save's live update sends is drawn once for all the phones of a table that ask
the same (answers.SharedAnswers). A save changes the rows, so something is drawn after each
one: drawing it cheaply is what keeps the save's answer and the live update fast.

Every gettext() is called outside the f-strings, where makemessages does not look
(tests/test_catalogues.py finds one inside), and every text is escaped before it is put in.
"""

import dataclasses
import html
from collections.abc import Iterable

from django import template
from django.forms import CheckboxInput
from django.urls import reverse
from django.utils.formats import get_format
from django.utils.html import conditional_escape, escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext, pgettext

from scoring import rules
from scoring.rules import cards

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
                    " two" if len(cards.rank_label(rank)) > 1 else "",
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


class HandNotes:
    """What the round table and the history note of a player's hand, after the points: went
    out, or the lowest hand of a blocked round; the cards (their faces) or the hand's value;
    not opened, and how its points came about where the cell says (`explained`). Called on
    each hand of a round (scoreboard.HandRow, history.HandAsItWas: `went_out`, `lowest`,
    `cards`, `value`, `opened`); each word translated once for the round."""

    def __init__(self) -> None:
        self.went_out, self.lowest = (
            f'<span class="note">{html.escape(word)}</span>'
            for word in (gettext("out"), gettext("won: lowest hand"))
        )
        self.not_opened = html.escape(gettext("not opened"))

    def __call__(self, hand) -> str:
        notes = ""
        if hand.went_out:
            notes += f" {self.went_out}"
        elif hand.lowest:
            notes += f" {self.lowest}"
        if hand.cards:
            notes += f' <span class="hand-cards">{hand_cards(hand.cards)}</span>'
        elif hand.value is not None:
            value = html.escape(gettext("hand %(value)s") % {"value": hand.value})
            notes += f' <span class="note">{value}</span>'
        if not hand.opened:
            explained = html.escape(not_opened_sum(getattr(hand, "explained", None)))
            sum_ = f": {explained}" if explained else ""
            notes += f' <span class="note">{self.not_opened}{sum_}</span>'
        return notes


@register.simple_tag
def hand_notes(hand) -> SafeString:
    """HandNotes of one hand, for a template: `{% hand_notes hand %}`."""
    return mark_safe(HandNotes()(hand).strip())  # noqa: S308 (every text escaped in HandNotes)


@register.simple_tag(takes_context=True)
def round_row(context, row) -> SafeString:
    """One round of the round table (scoreboard.RoundRow): its number (on the edit page, the
    context's `editable`, the link to edit it), its kind, a tie-break and who dealt it, then a
    cell a player: the points, the running total, and what the round table notes of the hand
    (went out, the lowest hand of a blocked round, the cards or the value, not opened and how
    its points came about). Drawn in Python, each word translated and escaped once a row, as
    the card faces are: the page's eight rows of six cells cost several times as much as
    template tags."""
    number = row.number
    if context.get("editable"):
        url = reverse("round", args=[context["game"].edit_token, number])
        # Translators: the name of the link that a round's number is in the round table: a
        # command, as a button says it (cs "Upravit kolo 3"). The round page's heading,
        # "Edit round %(number)s" without this context, names the page instead.
        label = html.escape(pgettext("link", "Edit round %(number)s") % {"number": number})
        head = f'<a class="round-number" href="{url}" aria-label="{label}">{number:d}</a>'
    else:
        head = f'<span class="round-number">{number:d}</span>'
    # Each gettext() outside the f-strings: makemessages (xgettext) does not look inside them.
    kinds = {"hand_rummy": gettext("hand rummy"), "blocked": gettext("blocked")}
    if row.kind in kinds:
        head += f'\n    <span class="tag">{html.escape(kinds[row.kind])}</span>'
    if row.tie_break:
        tie_break = html.escape(gettext("tie-break"))
        head += f'\n    <span class="tag tie">{tie_break}</span>'
    # Who dealt it (Game.dealer_for: the deal as it went, after any change of seats).
    dealer = f"<bdi>{html.escape(row.dealer.name)}</bdi>"
    dealt = html.escape(gettext("%(name)s dealt")).replace("%(name)s", dealer)
    head += f'\n    <span class="dealt">{dealt}</span>'
    total = html.escape(gettext("total"))
    notes_of = HandNotes()
    cells = []
    for cell in row.hands:
        notes = notes_of(cell)
        css = "went-out" if cell.went_out else "lowest" if cell.lowest else ""
        cells.append(
            f'<td class="{css}" role="cell"><span class="points">{cell.points:d}</span>'
            f' <span class="running"><span class="visually-hidden">{total} </span>'
            f"{cell.total:d}</span>{notes}</td>"
        )
    tie_break = " tie-break" if row.tie_break else ""
    cells = "\n  ".join(cells)
    return mark_safe(  # noqa: S308 (every text escaped above)
        f'<tr id="round-{number:d}" role="row" class="kind-{row.kind}{tie_break}">\n'
        f'  <th scope="row" role="rowheader">\n    {head}\n  </th>\n  {cells}\n</tr>'
    )


@register.simple_tag(takes_context=True)
def standing(context, row, seat_row: bool = False, oob: bool = False) -> SafeString:
    """A player's standing, `row` (Scoreboard.players): the name with its badges, the total,
    and a bar with what is left to the target. One line of the scoreboard's list (watch-only
    link, a finished game, a round taken back), or, with `seat_row`, the head of the player's
    row of the round entry, where the board's line *is* the entry's row (game.html's
    `sheet`): there the name labels the row (its id), the points of the round just saved (the
    context's `saved`) stand under the total, and a live update while someone types swaps
    just this (`oob`). Drawn in Python, as the card faces are: a page draws a dozen."""
    seat = row.player.seat
    fixing = context.get("fixing") if seat_row else None
    if fixing is not None:
        # A saved round back in the form still counts, and its points stand beside the total
        # as they are typed ("→ 14"): the total leaves it out, so that nobody counts it twice.
        taken = sum(hand.points for hand in fixing.hands.all() if hand.player_id == row.player.pk)
        row = dataclasses.replace(row, total=row.total - taken)
    name = html.escape(row.player.name)
    leader = " leader" if row.leader else ""
    if seat_row:
        swap = ' hx-swap-oob="true"' if oob else ""
        opening = f'<span class="total{leader}" id="standing-{seat:d}"{swap}>'
        name = f'<bdi class="name hand-name" id="name-{seat:d}">{name}</bdi>'
        closing = "</span>"
    else:
        champion = " champion" if row.champion else ""
        opening = f'<li class="total{leader}{champion}">'
        name = f'<bdi class="name">{name}</bdi>'
        closing = "</li>"
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
def in_deal_order(rows: list, order: tuple[int, ...]) -> list:
    """The board's rows (scoreboard.PlayerRow) in the order the deal goes round
    (Scoreboard.deal_order): after a change of seats, the order the players now sit in."""
    place = {seat: position for position, seat in enumerate(order)}
    return sorted(rows, key=lambda row: place.get(row.player.seat, len(place)))


@register.filter
def to_the_target(row) -> str:
    """What a player (scoreboard.PlayerRow) has left to the target: "37 to the target", or
    "target reached". A filter: a scoreboard line is drawn a dozen times a page."""
    if row.to_go:
        return gettext("%(points)s to the target") % {"points": row.to_go}
    return gettext("target reached")


@register.filter
def input_attrs(field) -> SafeString:
    """The attributes of a bound field's <input> after its type, as Django's widget writes
    them: the name, the value (unless empty; a checkbox is checked after its id instead), the
    widget's own attributes, aria-invalid and aria-describedby when the field has an error,
    and the id (tests/test_performance.py
    compares the two). In Python: a six-player round form has a dozen such inputs, whose
    attributes cost half the form as template tags."""
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


# The score chart and the statistics table, drawn in Python as the round rows are: their
# templates spent a few thousand template calls a 60-round page on a few dozen numbers. The
# markup is the templates' own, element for element (tests/test_chart.py, test_statistics.py).


@register.simple_tag
def score_chart(chart) -> SafeString:
    """A game's score chart (scoring/chart.py's `Chart`) as an inline SVG in a <figure>, with
    its title and a description that reads out the last round's totals; nothing before the
    first round. No style attribute and no script: the colours are the classes series-0..5 of
    scoring/chart.css, because the CSP allows style sheets from 'self' only. Coordinates are
    written with str(), never localized, so that a decimal comma cannot break them. The axes
    (`x_label` at the right end of the x axis, under the names, where any language's word has
    room) and the lines are drawn by chart_axes and chart_series, which a table's chart of wins
    draws too (table.html). The numbers behind it are the round table's running totals, on the
    same page (its description says so): no second table of them here."""
    if not chart.rounds:
        return mark_safe("")
    # Each gettext() outside the f-strings: makemessages (xgettext) does not look inside them.
    title = html.escape(gettext("Running totals after each round"))
    target = gettext("The target is %(target)s points.") % {"target": chart.target}
    after = gettext("After round %(number)s:") % {"number": chart.rounds[-1].number}
    said = [html.escape(target), html.escape(after)]
    said.append(", ".join(f"{html.escape(line.name)} {line.totals[-1]:d}" for line in chart.series))
    description = " ".join(said) + "."
    if chart.tie_break_bands:
        tie_breaks = html.escape(gettext("Tie-break rounds:"))
        numbers = ", ".join(f"{band.round_number:d}" for band in chart.tie_break_bands)
        description += f" {tie_breaks} {numbers}."
    pointer = html.escape(
        gettext("The totals after each round are in the round-by-round table above.")
    )
    bands = []
    for band in chart.tie_break_bands:
        named = html.escape(gettext("Round %(number)s: tie-break") % {"number": band.round_number})
        bands.append(
            f'<rect class="tie-break" x="{band.x}" y="{chart.top}" width="{band.width}"'
            f' height="{chart.plot_height}"><title>{named}</title></rect>'
        )
    target_label = html.escape(gettext("Target %(target)s") % {"target": chart.target})
    axes = chart_axes(chart, gettext("Round"))
    caption = ""
    if chart.tie_break_bands:
        shaded = html.escape(gettext("Shaded: a tie-break round"))
        caption = (
            f'\n  <figcaption><span class="tie-break-key" aria-hidden="true"></span> {shaded}'
            "</figcaption>"
        )
    bands = "".join(f"\n    {band}" for band in bands)
    return mark_safe(  # noqa: S308 (every text escaped above)
        '<figure class="score-chart">\n'
        f'  <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {chart.width} {chart.height}"'
        ' width="100%" font-size="12" role="img"'
        ' aria-labelledby="score-chart-title score-chart-desc">\n'
        f'    <title id="score-chart-title">{title}</title>\n'
        f'    <desc id="score-chart-desc">{description} {pointer}</desc>{bands}\n'
        f"    {axes}\n"
        '    <g class="target">\n'
        f'      <line x1="{chart.left}" x2="{chart.right}" y1="{chart.target_y}"'
        f' y2="{chart.target_y}" stroke-width="1.5" stroke-dasharray="6 4"/>\n'
        f'      <text x="{chart.left + 4}" y="{chart.target_label_y}">{target_label}</text>\n'
        "    </g>\n"
        f"    {chart_series(chart)}\n"
        f"  </svg>{caption}\n"
        "</figure>\n"
    )


@register.simple_tag
def chart_axes(chart, x_label: str) -> SafeString:
    """The chart's grid, the values of the y axis, and the x axis named `x_label` ("Round",
    "Game") with its numbers."""
    grid = "".join(f"M{chart.left} {tick.position}H{chart.right}" for tick in chart.y_ticks)
    bottom = chart.bottom + 16
    texts = [
        f'<text x="{chart.left - 6}" y="{tick.position}" text-anchor="end"'
        f' dominant-baseline="middle">{tick.value:d}</text>'
        for tick in chart.y_ticks
    ]
    label = conditional_escape(x_label)  # a {% translate ... as x_label %} comes escaped
    texts.append(f'<text x="{chart.width - 2}" y="{bottom}" text-anchor="end">{label}</text>')
    texts.extend(
        f'<text x="{tick.position}" y="{bottom}" text-anchor="middle">{tick.value:d}</text>'
        for tick in chart.x_ticks
    )
    texts = "".join(f"\n      {text}" for text in texts)
    return mark_safe(  # noqa: S308 (the label escaped above, the rest are numbers)
        f'<g class="axis">\n      <path class="grid" d="{grid}"/>{texts}\n    </g>'
    )


@register.simple_tag
def chart_series(chart) -> SafeString:
    """One group a player: the line, a leader from its end to the name, a dot at the end, and
    the name (shortened, with the whole name as its title)."""
    groups = []
    for line in chart.series:
        label = html.escape(line.label)
        if line.label != line.name:
            label = f"<title>{html.escape(line.name)}</title>{label}"
        groups.append(
            f'<g class="series {line.css_class}">\n'
            f'      <polyline points="{line.points}" fill="none" stroke-width="2.5"'
            ' stroke-linejoin="round" stroke-linecap="round"/>\n'
            f'      <line class="leader" x1="{line.end_x}" y1="{line.end_y}"'
            f' x2="{line.label_x - 3}" y2="{line.label_y}" stroke-width="1"/>\n'
            f'      <circle cx="{line.end_x}" cy="{line.end_y}" r="3.5"/>\n'
            f'      <text x="{line.label_x}" y="{line.label_y}" dominant-baseline="middle">'
            f"{label}</text>\n    </g>"
        )
    return mark_safe("\n    ".join(groups))  # noqa: S308 (every name escaped above)


@register.simple_tag
def statistics_table(statistics) -> SafeString:
    """The players' numbers of a game (scoring/statistics.py's PlayerStatistics, in seat
    order), one column a player; nothing before the first round. Up to four columns fit a
    320 px phone, each number under its player's name and a line for what it counts
    (statistics.css); five or six scroll sideways inside the box. The roles keep it a table
    where a browser drops the table semantics of a table laid out as a grid."""
    if not statistics:
        return mark_safe("")

    def cells(values) -> str:
        return "".join(f'<td role="cell">{value}</td>' for value in values)

    def best_or_worst(points, numbers) -> str:
        return f"{points:d} {round_numbers(numbers)}" if numbers else ""

    names = "".join(
        f'<th scope="col" role="columnheader"><bdi>{html.escape(player.name)}</bdi></th>'
        for player in statistics
    )
    # What floatformat:1 writes, for a fraction already rounded to tenths (average_points) and
    # under 1000: "12.5", or "12,5" in Czech, Bulgarian, Indonesian and Swedish.
    decimal = html.escape(get_format("DECIMAL_SEPARATOR"))
    # Each gettext() outside the f-strings: makemessages (xgettext) does not look inside them.
    rows = [
        (gettext("Rounds won"), [f"{player.rounds_won:d}" for player in statistics]),
        (gettext("Hand rummies"), [f"{player.hand_rummies:d}" for player in statistics]),
        (gettext("Caught not opened"), [f"{player.never_opened:d}" for player in statistics]),
        (
            gettext("Average points a round"),
            [f"{player.average_points:.1f}".replace(".", decimal) for player in statistics],
        ),
        (
            gettext("Best round"),
            [best_or_worst(player.best_points, player.best_rounds) for player in statistics],
        ),
        (
            gettext("Worst round"),
            [best_or_worst(player.worst_points, player.worst_rounds) for player in statistics],
        ),
        (
            gettext("Most rounds in a row at 0"),
            [f"{player.longest_run:d}" for player in statistics],
        ),
    ]
    body = []
    for index, (heading, values) in enumerate(rows):
        # The first row's note says what a round won is (a blocked round's lowest hands too).
        note = ' aria-describedby="rounds-won-note"' if index == 0 else ""
        body.append(
            '      <tr role="row">\n'
            f'        <th scope="row" role="rowheader"{note}>{html.escape(heading)}</th>\n'
            f"        {cells(values)}\n"
            "      </tr>\n"
        )
    caption = html.escape(gettext("Player statistics"))
    note = html.escape(
        gettext(
            "Rounds won counts the rounds a player went out in and the blocked rounds they"
            " won with the lowest hand (each player who shares it)."
        )
    )
    body = "".join(body)
    return mark_safe(  # noqa: S308 (every text escaped above)
        '<div class="statistics" tabindex="0" role="region" aria-labelledby="statistics-title">\n'
        '  <table class="player-statistics" role="table">\n'
        f'    <caption id="statistics-title">{caption}</caption>\n'
        '    <thead role="rowgroup">\n'
        f'      <tr role="row"><td role="cell"></td>{names}</tr>\n'
        "    </thead>\n"
        f'    <tbody role="rowgroup">\n{body}    </tbody>\n'
        "  </table>\n"
        f'  <p class="statistics-note" id="rounds-won-note">{note}</p>\n'
        "</div>\n"
    )


def round_numbers(numbers: tuple[int, ...]) -> str:
    """The rounds of a best or worst score: a few are listed, a long list (a frequent winner's
    zeros) is counted."""
    count = len(numbers)
    if count <= 3:
        listed = ", ".join(f"{number:d}" for number in numbers)
        said = ngettext("round %(list)s", "rounds %(list)s", count) % {"list": listed}
    else:
        said = ngettext("%(counter)s round", "%(counter)s rounds", count) % {"counter": count}
    return f'<small class="round-numbers">{html.escape(said)}</small>'


@register.simple_tag
def seat_errors(seat: dict) -> SafeString:
    """The errors of one player's cards and value (RoundForm.seats()), each field's under the
    id its input's aria-describedby names: the same in the round form's row (hand_row) and in
    a preview's answer (game.html's #preview), which puts them in that row's #errors-N."""
    errors = ""
    for field in (seat["cards"], seat["value"]):
        if field.errors:
            said = "".join(
                f'<p class="field-error" role="alert">{conditional_escape(error)}</p>'
                for error in field.errors
            )
            errors += f'<div id="{html.escape(field.auto_id)}_error">{said}</div>'
    return mark_safe(errors)  # noqa: S308 (every text escaped above)


@register.simple_tag(takes_context=True)
def hand_row(context, seat: dict) -> SafeString:
    """One player's row of the round form (RoundForm.seats(): the player, the bound fields of
    their cards, value and not-opened box, their "went out" choice, the points worked out and
    how they came about): "went out", the name (with the context's `sheet`, the player's
    standing), the points, the card keys, the value field, the not-opened switch, the typed
    cards, and the field errors. Drawn in Python, each word translated once a row, as the
    round rows are: six of them were a third of the game page's template work. The inputs'
    attributes are input_attrs's, as Django's widgets write them (tests/test_performance.py)."""
    form = context["form"]
    player = seat["player"]
    number = player.seat
    cards, value, not_opened = seat["cards"], seat["value"], seat["not_opened"]
    choice = seat["winner_choice"]
    # Each gettext() outside the f-strings: makemessages (xgettext) does not look inside them.
    went_out = html.escape(gettext("went out"))
    points_label = html.escape(gettext("points"))
    remove_label = html.escape(gettext("Remove"))
    cards_label = html.escape(gettext("Cards"))
    name = html.escape(player.name)
    chosen = html.escape(gettext("Cards chosen for %(name)s") % {"name": player.name})
    instead = html.escape(
        gettext("Hand value of %(name)s, instead of the cards") % {"name": player.name}
    )
    cards_id = html.escape(cards.id_for_label)
    value_id = html.escape(value.id_for_label)
    choice_id = html.escape(choice.id_for_label)
    winner = form["winner"]
    invalid = ' aria-invalid="true"' if winner.errors else ""
    checked = " checked" if choice.data["selected"] else ""
    if context.get("sheet"):
        who = standing(context, context["board"].players[number], seat_row=True)
    else:
        who = f'<bdi class="hand-name" id="name-{number:d}">{name}</bdi>'
    points = "" if seat["points"] is None else f"{seat['points']:d}"
    errors = seat_errors(seat)
    explain = html.escape(not_opened_sum(seat["explain"]))
    return mark_safe(  # noqa: S308 (every text escaped above)
        f'<div class="hand seat-{number:d}" role="group" aria-labelledby="name-{number:d}">\n'
        '<div class="hand-head">\n'
        f'<label class="out-choice" for="{choice_id}"><input type="radio"'
        f' name="{html.escape(winner.html_name)}"'
        f' value="{conditional_escape(choice.data["value"])}" id="{choice_id}"'
        f" required{invalid}{checked}><span>{went_out}</span></label>\n"
        f"{who}\n"
        f'<output id="points-{number:d}" class="points-preview" for="{cards_id} {value_id}"'
        f' aria-label="{points_label}">{points}</output>\n'
        "</div>\n"
        '<div class="hand-inputs">\n'
        f'<div class="picker" data-field="{cards_id}" data-remove-label="{remove_label} %s">\n'
        f"{picker_keys()}\n"
        f'<div class="chosen" role="group" aria-live="polite" aria-label="{chosen}"></div>\n'
        "</div>\n"
        '<div class="hand-side">\n'
        '<span class="value-field">\n'
        f'<label class="visually-hidden" for="{value_id}">{instead}</label>\n'
        f'<input type="number"{input_attrs(value)}>\n'
        "</span>\n"
        f'<label class="switch not-opened" for="{html.escape(not_opened.id_for_label)}">'
        f'<input type="checkbox"{input_attrs(not_opened)}>'
        f"<span>{conditional_escape(not_opened.label)}</span></label>\n"
        "</div>\n"
        '<div class="typed">\n'
        f'<label class="cards-label" for="{cards_id}">{cards_label}</label>\n'
        f'<input type="text"{input_attrs(cards)}>\n'
        "</div>\n"
        "</div>\n"
        f'<p id="explain-{number:d}" class="explain">{explain}</p>\n'
        f'<div id="errors-{number:d}" class="seat-errors">\n{errors}\n</div>\n'
        "</div>"
    )
