"""The `rami-game/1` exchange format: a whole game as JSON (SPEC 2.2).

`parse_game` turns a document into player names and `rules.RoundEntry` values without touching
the database (or raises `ExchangeError` saying what is wrong and where); `import_game` makes a
game of it through the same path as the web form, and `export_game` writes a game back with the
computed fields. A round is written by `RoundEntry.document`, the shape the history keeps too.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection, transaction

from . import rules
from .errors import english
from .models import Game
from .rules import MAX_ROUNDS, RoundEntry

FORMAT = "rami-game/1"


class ExchangeError(ValueError):
    """A document that cannot become a game; the message says what and where, on one line."""


def _where(round_number: int | None, name: str | None = None) -> str:
    parts = []
    if round_number is not None:
        parts.append(f"round {round_number}")
    if name is not None:
        parts.append(f"player {_quoted(name)}")
    return ", ".join(parts)


def _fail(round_number: int | None, message: str, name: str | None = None) -> ExchangeError:
    where = _where(round_number, name)
    return ExchangeError(f"{where}: {message}" if where else message)


def _quoted(name: str) -> str:
    """A name in quotes, its invisible characters written as escapes, for a message."""
    shown = "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c) in rules.INVISIBLE_CATEGORIES else c
        for c in name
    )
    return f'"{shown}"'


def parse_names(players: object) -> list[str]:
    """The player names of a document, checked as the start form checks them."""
    if not isinstance(players, list):
        raise ExchangeError('"players" must be a list of 2 to 6 names')
    for name in players:
        if not isinstance(name, str):
            raise ExchangeError(f'"players": {json.dumps(name)} is not a name')
    try:
        return rules.check_names(players)
    except rules.RulesError as error:
        if error.player is None:
            raise ExchangeError(english(error)) from None
        raise _fail(None, english(error), players[error.player]) from None


def _checked_hand(document: object, round_number: int, name: str) -> dict:
    """One hand of a document, its shape checked (the rules check its cards and value when
    the round is read): the same hand, with cards given as one string split into a list."""
    if not isinstance(document, Mapping):
        raise _fail(round_number, 'a hand is {"cards": [...]} or {"value": N}', name)
    unknown = set(document) - {"cards", "value", "opened"}
    if unknown:
        raise _fail(round_number, f"unknown field {json.dumps(sorted(unknown)[0])}", name)
    cards = document.get("cards", [])
    if isinstance(cards, str):
        cards = cards.split()
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise _fail(round_number, '"cards" must be a list of card codes such as "AH"', name)
    if len(cards) > rules.DECK_SIZE:
        raise _fail(round_number, f"more than {rules.DECK_SIZE} cards in one hand", name)
    if not isinstance(document.get("opened", True), bool):
        raise _fail(round_number, '"opened" must be true or false', name)
    return {**document, "cards": cards}


def parse_round(
    document: object,
    names: Sequence[str],
    round_number: int,
    target: int,
    house_rules: rules.Rules,
) -> RoundEntry:
    """One round of a document, checked by the rules (its points computed once to that end)."""
    if not isinstance(document, Mapping):
        raise _fail(round_number, "a round must be an object")
    unknown = set(document) - {"winner", "blocked", "hand_rummy", "hands", "points"}
    if unknown:
        raise _fail(round_number, f"unknown field {json.dumps(sorted(unknown)[0])}")
    blocked = document.get("blocked", False)
    hand_rummy = document.get("hand_rummy", False)
    if not isinstance(blocked, bool) or not isinstance(hand_rummy, bool):
        raise _fail(round_number, '"blocked" and "hand_rummy" must be true or false')
    seats = {name: seat for seat, name in enumerate(names)}
    winner_name = document.get("winner")
    # On export a blocked round carries its computed winner; import ignores it.
    if blocked:
        pass
    elif winner_name is None:
        raise _fail(round_number, 'a round needs a "winner", or "blocked": true')
    elif not isinstance(winner_name, str):
        raise _fail(round_number, '"winner" must be one player\'s name (a round has one winner)')
    elif winner_name not in seats:
        raise _fail(round_number, f'"winner": unknown player "{winner_name}"')

    hands_document = document.get("hands", {})
    if not isinstance(hands_document, Mapping):
        raise _fail(round_number, '"hands" must map player names to hands')
    for name in hands_document:
        if name not in seats:
            raise _fail(round_number, f'"hands": unknown player "{name}"')
    checked = {
        "blocked": blocked,
        "winner": winner_name,
        "hand_rummy": hand_rummy,
        # In seat order, so that the first mistake said is the first player's.
        "hands": {
            name: _checked_hand(hands_document[name], round_number, name)
            for name in names
            if name in hands_document
        },
    }
    try:
        # Read as the history reads a round (RoundEntry.from_document), then scored once.
        entry = RoundEntry.from_document(checked, names)
        entry.points(target, house_rules)
    except rules.RulesError as error:
        name = names[error.player] if error.player is not None else None
        raise _fail(round_number, english(error), name) from None
    return entry


@dataclass(frozen=True)
class GameDocument:
    names: list[str]
    rounds: list[RoundEntry]
    rules: rules.Rules


def parse_rules(document: object) -> rules.Rules:
    """The `rules` object of a document (SPEC 2.4), absent meaning the seeds' rules; raises
    ExchangeError saying which key is wrong and why."""
    if document is None:
        return rules.SEEDS
    if not isinstance(document, Mapping):
        raise ExchangeError('"rules" must be an object of house rules')
    known = set(rules.SEEDS.document())
    for key in document:
        if key not in known:
            raise ExchangeError(f'"rules": unknown key {json.dumps(key)}')
    try:
        return rules.Rules(**document)
    except rules.RulesError as error:
        raise ExchangeError(f'"rules": "{error.details["rule"]}": {english(error)}') from None


def parse_game(document: object) -> GameDocument:
    """A whole document, every round checked; raises ExchangeError on the first mistake."""
    if not isinstance(document, Mapping):
        raise ExchangeError('the file must hold one JSON object with "format": "rami-game/1"')
    if document.get("format") != FORMAT:
        raise ExchangeError(
            f'"format" must be "{FORMAT}", not {json.dumps(document.get("format"))}'
        )
    names = parse_names(document.get("players"))
    house_rules = parse_rules(document.get("rules"))
    target = house_rules.target_for(len(names))
    rounds = document.get("rounds", [])
    if not isinstance(rounds, list):
        raise ExchangeError('"rounds" must be a list')
    if len(rounds) > MAX_ROUNDS:
        raise ExchangeError(f"a game has at most {MAX_ROUNDS} rounds")
    entries = [
        parse_round(round_, names, number, target, house_rules)
        for number, round_ in enumerate(rounds, 1)
    ]
    return GameDocument(names=names, rounds=entries, rules=house_rules)


def import_game(document: object) -> Game:
    """A game from a rami-game/1 document, each round recorded as the web form records it;
    raises ExchangeError (nothing created) when the document is not right."""
    parsed = parse_game(document)
    with transaction.atomic():
        return make_game(parsed)


def make_game(parsed: GameDocument, after_each_round: Callable[[Game], None] | None = None) -> Game:
    """The game of a checked document, each round recorded as the web form records it, in the
    caller's transaction: `after_each_round(game)` may end it and begin another (a long
    import, tables.import_table)."""
    game = Game.start(parsed.names, house_rules=parsed.rules)
    for entry in parsed.rounds:
        game.record_round(entry, past_the_end=True)
        if after_each_round is not None:
            after_each_round(game)
    return game


# A long import or restore works in short transactions: SQLite has one writer at a time, and a
# live server's round saves wait for the lock (20 s, then 503). Between two transactions the
# importer waits this long, so that a writer asleep in SQLite's busy handler (which tries again
# at most every 100 ms) gets its turn before the next transaction takes the lock again.
PAUSE_BETWEEN_TRANSACTIONS = 0.1


def let_others_write() -> None:
    """A pause between two transactions of a long import (on SQLite only: PostgreSQL locks
    rows, and an import's rows are new ones), none inside an outer transaction."""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        time.sleep(PAUSE_BETWEEN_TRANSACTIONS)


def export_game(game: Game) -> dict:
    """The whole game as rami-game/1, with the computed fields that export adds: each round's
    points (and a blocked round's single lowest hand as its winner), the totals, the status."""
    names = game.names
    target = game.target
    rounds = list(game.rounds.with_hands())
    points = [round_.points_by_seat(len(names)) for round_ in rounds]
    after = rules.standings(points, len(names), target)
    documents = []
    for round_, scored in zip(rounds, points, strict=True):
        entry = round_.entry(len(names))
        document = entry.document(names)
        document["points"] = dict(zip(names, scored, strict=True))
        if entry.blocked:
            winners = entry.winners(game.rules)
            document["winner"] = names[winners[0]] if len(winners) == 1 else None
        documents.append(document)
    standing = after[-1] if after else rules.standing([0] * len(names), target)
    return {
        "format": FORMAT,
        "players": names,
        "rules": game.rules.document(),
        "rounds": documents,
        "target": target,
        "totals": dict(zip(names, standing.totals, strict=True)),
        "status": standing.status,
        "winner": names[standing.winner] if standing.winner is not None else None,
    }


# The numbers a file holds are small (a hand's value, a house rule, a seat): longer ones are
# refused before int() or float() meets them. int() refuses more than 4,300 digits with a
# ValueError of its own, and takes quadratic time below that.
MAX_DIGITS = 20
# A float's text (only the computed statistics of an export have any), exponent included.
MAX_FLOAT_LENGTH = 40


class _NumberRefused(Exception):
    def __init__(self, text: str, why: str) -> None:
        super().__init__(why)
        self.text = text
        self.why = why


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _NumberRefused(text, f"a number of {digits} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_FLOAT_LENGTH:
        raise _NumberRefused(text, f"a number of {len(text)} characters")
    value = float(text)
    if not math.isfinite(value):
        raise _NumberRefused(text, f"a number too large ({text})")
    return value


def _parse_constant(name: str) -> float:
    # Python's json reads NaN and Infinity, which JSON itself does not have.
    raise _NumberRefused(name, f"{name} is not a number")


def loads(text: str | bytes) -> object:
    """JSON text to a document, or ExchangeError saying where the JSON is broken or holds a
    number longer than any the formats have."""
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except json.JSONDecodeError as error:
        raise ExchangeError(
            f"not a JSON file: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except _NumberRefused as refused:
        raise ExchangeError(f"not a JSON file: {refused.why}{_place(text, refused.text)}") from None
    except (UnicodeDecodeError, RecursionError):
        raise ExchangeError("not a JSON file: the text cannot be read") from None


def _place(text: str | bytes, number: str) -> str:
    """Where `number` first stands alone in the text, as " at line L, column C" (the decoder
    does not say where a number it hands over was), or nothing."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    found = re.search(rf"(?<![\w.+-]){re.escape(number)}(?![\w.])", text)
    if found is None:
        return ""
    start = found.start()
    line = text.count("\n", 0, start) + 1
    column = start - text.rfind("\n", 0, start)
    return f" at line {line}, column {column}"


# The times a file may give (a table's game's "started", a backup's "created_at"): any that a
# game may really have begun at, and far enough from the calendar's ends (years 1 and 9999) that
# taking them to UTC or to a visitor's time zone cannot overflow.
EARLIEST_YEAR = 1900
LATEST_YEAR = 2999
YEARS = f"from the year {EARLIEST_YEAR} to {LATEST_YEAR}"


def read_moment(text: object) -> datetime | None:
    """An ISO 8601 time of a file as an aware datetime (without a zone: UTC), or None when it is
    not one, or not within YEARS. The year is checked before the time is converted."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def dumps(document: dict) -> str:
    """A document as the app writes it: UTF-8 friendly, indented."""
    return json.dumps(document, ensure_ascii=False, indent=2)
