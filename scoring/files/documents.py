"""A document's text, read strictly and written plainly: JSON without a number too long to read or
a constant that is no JSON (loads), a moment of the years a game may have (read_moment), and the
one error that says what is wrong in a document and where (ExchangeError).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from datetime import UTC, datetime

from scoring import rules


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
