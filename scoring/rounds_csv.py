"""The rounds of a game as CSV, for a spreadsheet: one row per round and player.

Written from the rami-game/1 document (Game.to_document()), so that the CSV says exactly what
the JSON export says and carries no token. Columns: round, kind, player, cards, hand value,
opened, points, running total.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from django.utils.translation import gettext as _

from . import rules

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


def round_kind(round_document: Mapping, tie_break: bool) -> str:
    kinds = []
    if round_document.get("hand_rummy"):
        kinds.append(_("hand rummy"))
    elif round_document.get("blocked"):
        kinds.append(_("blocked"))
    elif not tie_break:
        kinds.append(_("normal"))
    if tie_break:
        kinds.append(_("tie-break"))
    return ", ".join(kinds)


def rows(document: Mapping) -> list[list[object]]:
    """The header and a row per round and player, in play and seat order."""
    names = document["players"]
    rounds = document["rounds"]
    after = rules.standings(
        ([round_["points"][name] for name in names] for round_ in rounds),
        len(names),
        document["target"],
    )
    table: list[list[object]] = [header()]
    totals = dict.fromkeys(names, 0)
    tie_break = False  # the first round follows no standing
    for number, round_ in enumerate(rounds, 1):
        kind = round_kind(round_, tie_break)
        went_out = None if round_.get("blocked") else round_.get("winner")
        for name in names:
            hand = round_.get("hands", {}).get(name)
            if hand is not None:
                cards = hand.get("cards", [])
                value = hand["value"] if "value" in hand else rules.hand_value(cards)
                opened = hand.get("opened", True)
            else:
                # No hand: the player who went out (nothing left), or a hand rummy opponent,
                # who had not opened and whose cards were not needed.
                cards = []
                value = 0 if name == went_out else ""
                opened = name == went_out or not round_.get("hand_rummy")
            points = round_["points"][name]
            totals[name] += points
            table.append(
                [
                    number,
                    kind,
                    name,
                    " ".join(cards),
                    value,
                    _("yes") if opened else _("no"),
                    points,
                    totals[name],
                ]
            )
        tie_break = after[number - 1].tie_break
    return [[inert(cell) for cell in row] for row in table]


def csv_text(document: Mapping) -> str:
    """The CSV file: UTF-8 text with a byte order mark, CRLF line ends, as spreadsheets like."""
    buffer = io.StringIO()
    buffer.write(BYTE_ORDER_MARK)
    csv.writer(buffer).writerows(rows(document))
    return buffer.getvalue()
