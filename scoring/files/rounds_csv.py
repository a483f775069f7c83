"""The rounds of a game as CSV, for a spreadsheet: one row per round and player, written from
the rami-game/1 export (so it says what the JSON says, and carries no token), with a row for a
player's start and leave. In the visitor's language and as their spreadsheets read it: UTF-8
with a byte order mark, and ";" between fields where the language writes decimals with a comma
(docs/at-the-table.md); the cards as that language's players type them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from django.utils import formats
from django.utils.translation import gettext as _

from scoring import rules
from scoring.files import exchange
from scoring.rules.card_names import typed_code

# Excel and LibreOffice read a file as UTF-8 (names like "Šárka", "Гошо") only with a BOM.
BYTE_ORDER_MARK = "\ufeff"

# A cell starting with one of these is run as a formula by a spreadsheet (OWASP, "CSV
# Injection"): a player named "=HYPERLINK(...)" must stay a name.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell: object) -> object:
    """The cell with a leading apostrophe if a spreadsheet would run it as a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def header() -> list[str]:
    return [
        _("Round"),
        _("Kind"),
        _("Player"),
        _("Cards"),
        _("Hand value"),
        _("Opened"),
        _("Points"),
        _("Total"),
    ]


def round_kind(kind: str, tie_break: bool) -> str:
    """The round's kind (rules.RoundEntry.kind) in words, and whether it was a tie-break."""
    labels = {"hand_rummy": _("hand rummy"), "blocked": _("blocked"), "normal": _("normal")}
    kinds = [] if kind == "normal" and tie_break else [labels[kind]]
    if tie_break:
        kinds.append(_("tie-break"))
    return ", ".join(kinds)


def rows(document: Mapping) -> list[list[object]]:
    """The header and a row per round and player, in play and seat order: each round read back
    into the rules' value of a round, the running totals from rules.standings."""
    names, spans = exchange.parse_players(document["players"])
    rounds = document["rounds"]
    # The game's own card values (an export always says them; a document without is the seeds').
    house = exchange.parse_rules(document.get("rules"))
    after = rules.standings(
        ([round_["points"].get(name) for name in names] for round_ in rounds),
        len(names),
        document["target"],
        start=[span.start or 0 for span in spans],
        restarts=rules.restarts_of(spans),
    )
    table: list[list[object]] = [header()]
    for number, (round_, standing) in enumerate(zip(rounds, after, strict=True), 1):
        # A player who joins: the total they start with, before their first round, so that
        # each player's points add up to their total.
        for seat, (name, span) in enumerate(zip(names, spans, strict=True)):
            if span.joins == number and number > 1:
                start = span.start or 0
                table.append([number, _("starting total"), name, "", "", "", start, start])
            # One who comes back counts on from the total they come back with: the row's
            # points are what takes their total there.
            for stay in span.back:
                if stay.joins == number:
                    before = after[number - 2].totals[seat] if number > 1 else span.start or 0
                    start = stay.start or 0
                    row = [number, _("comes back"), name, "", "", "", start - before, start]
                    table.append(row)
        # The first round follows no standing.
        tie_break = number > 1 and after[number - 2].tie_break
        playing = rules.playing_in(number, spans)
        entry = rules.RoundEntry.from_document(round_, names, playing)
        kind = round_kind(entry.kind, tie_break)
        # A row for each player of the round: none for one who was not playing it.
        for seat, (name, hand) in enumerate(zip(names, entry.hands, strict=True)):
            if hand is None:
                continue
            # A hand rummy opponent's cards were not needed: no value to show.
            shown = hand.given or seat == entry.winner
            table.append(
                [
                    number,
                    kind,
                    name,
                    # In the language's own letters (sv "EH KnC"), as its round form reads.
                    " ".join(typed_code(code) for code in hand.cards),
                    hand.worth(house) if shown else "",
                    _("yes") if hand.opened else _("no"),
                    round_["points"][name],
                    standing.totals[seat],
                ]
            )
        # A player who left after this round: said once, with the total they keep.
        for seat, (name, span) in enumerate(zip(names, spans, strict=True)):
            if any(stay.leaves == number for stay in span.stays):
                table.append(
                    [number, _("left the game"), name, "", "", "", "", standing.totals[seat]]
                )
    return [[inert(cell) for cell in row] for row in table]


def delimiter() -> str:
    """The field separator of the active language's spreadsheets: ";" where its decimal
    separator is a comma (Django's locale formats), "," elsewhere."""
    return ";" if formats.get_format("DECIMAL_SEPARATOR") == "," else ","


def csv_text(document: Mapping) -> str:
    """The CSV file in the active language: UTF-8 text with a byte order mark, the language's
    field separator, CRLF line ends, as spreadsheets like."""
    buffer = io.StringIO()
    buffer.write(BYTE_ORDER_MARK)
    csv.writer(buffer, delimiter=delimiter()).writerows(rows(document))
    return buffer.getvalue()
