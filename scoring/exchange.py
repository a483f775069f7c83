"""The `rami-game/1` exchange format: a whole game as JSON (SPEC 2.2).

This module reads and writes the format without touching the database: `parse_game` turns a
document into player names and `RoundEntry` values (or raises `ExchangeError` saying what is
wrong and where), `round_document` writes one round back. `Game.from_document` and
`Game.to_document` in models.py use it; so does the round history, which keeps each round in
this same shape.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import rules

FORMAT = "rami-game/1"
MAX_ROUNDS = 500
MAX_NAME_LENGTH = 30


class ExchangeError(ValueError):
    """A document that cannot become a game; the message says what and where, on one line."""


@dataclass(frozen=True)
class RoundEntry:
    """One round as the players entered it: a hand per seat, who went out (None for a blocked
    round) and whether it was a hand rummy."""

    hands: tuple[rules.Hand, ...]
    winner: int | None
    hand_rummy: bool = False

    @property
    def blocked(self) -> bool:
        return self.winner is None

    def points(self, target: int) -> list[int]:
        return rules.score_round(self.hands, self.winner, target, hand_rummy=self.hand_rummy)


def hand_document(hand: rules.Hand) -> dict:
    document: dict = {}
    if hand.cards:
        document["cards"] = list(hand.cards)
    elif hand.value is not None:
        document["value"] = hand.value
    if not hand.opened:
        document["opened"] = False
    return document


def round_document(entry: RoundEntry, names: Sequence[str]) -> dict:
    """The round as the format writes it (without the computed fields)."""
    document: dict = {}
    if entry.blocked:
        document["blocked"] = True
    else:
        document["winner"] = names[entry.winner]
    if entry.hand_rummy:
        document["hand_rummy"] = True
    hands = {}
    for seat, hand in enumerate(entry.hands):
        if seat == entry.winner:
            continue
        written = hand_document(hand)
        # A hand rummy opponent with nothing but "not opened" says nothing worth keeping.
        if entry.hand_rummy and written == {"opened": False}:
            continue
        hands[names[seat]] = written
    if hands:
        document["hands"] = hands
    return document


def _where(round_number: int | None, name: str | None = None) -> str:
    parts = []
    if round_number is not None:
        parts.append(f"round {round_number}")
    if name is not None:
        parts.append(f'player "{name}"')
    return ", ".join(parts)


def _fail(round_number: int | None, message: str, name: str | None = None) -> ExchangeError:
    where = _where(round_number, name)
    return ExchangeError(f"{where}: {message}" if where else message)


class NamesError(ExchangeError):
    """Player names that cannot make a game: `code` says why, `index` which name."""

    MESSAGES = {
        "count": "a game has 2 to 6 players, not {count}",
        "empty": "a player's name is empty",
        "too_long": 'player "{name}": a name has at most {limit} characters',
        "duplicate": 'player "{name}": two players have the same name',
        "invisible": "player {name}: a name needs at least one letter, digit or sign",
    }

    def __init__(self, code: str, index: int | None = None, **details: object) -> None:
        self.code = code
        self.index = index
        self.details = details
        super().__init__(self.MESSAGES[code].format(**details))


def parse_names(players: object) -> list[str]:
    """The player names of a document, checked as the start form checks them."""
    if not isinstance(players, list):
        raise ExchangeError('"players" must be a list of 2 to 6 names')
    for name in players:
        if not isinstance(name, str):
            raise ExchangeError(f'"players": {json.dumps(name)} is not a name')
    return check_names(players)


# Characters a name never keeps: control characters (NUL among them, which PostgreSQL refuses
# in text), format characters (bidi overrides that turn the page around a name, zero-width
# spaces and joiners that make "Ana" and "An\u200ba" look alike, the soft hyphen) and lone
# surrogates (which no database can store).
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs"}
# A name must keep at least one character of these: a letter, a digit, punctuation or a symbol.
VISIBLE_CATEGORIES = ("L", "N", "P", "S")


def clean_name(name: str) -> str:
    """A name as the game keeps it: in Unicode's composed form (NFC, so that an "é" typed two
    ways is one letter), without invisible characters, trimmed, inner runs of spaces made one."""
    name = unicodedata.normalize("NFC", name)
    name = "".join(c for c in name if unicodedata.category(c) not in INVISIBLE_CATEGORIES)
    return " ".join(name.split())


def name_key(name: str) -> str:
    """What two names must not share in one game: the cleaned name, case folded. Stored with
    each player under a unique constraint, so that Python and every database compare names the
    same way (PostgreSQL's lower() and Python's casefold() disagree on "İ" and "i")."""
    return unicodedata.normalize("NFC", clean_name(name).casefold())


def check_names(names: Sequence[str]) -> list[str]:
    """Names cleaned (clean_name), 1-30 characters with one visible, unique ignoring case
    (name_key), 2 to 6 of them; NamesError else."""
    cleaned = [clean_name(name) for name in names]
    if not rules.MIN_PLAYERS <= len(cleaned) <= rules.MAX_PLAYERS:
        raise NamesError("count", count=len(cleaned))
    seen: set[str] = set()
    for index, (name, given) in enumerate(zip(cleaned, names, strict=True)):
        if not name and not given.strip():
            raise NamesError("empty", index)
        if not any(unicodedata.category(c).startswith(VISIBLE_CATEGORIES) for c in name):
            raise NamesError("invisible", index, name=json.dumps(given))
        if len(name) > MAX_NAME_LENGTH:
            raise NamesError("too_long", index, name=name, limit=MAX_NAME_LENGTH)
        if name_key(name) in seen:
            raise NamesError("duplicate", index, name=name)
        seen.add(name_key(name))
    return cleaned


def _parse_hand(document: object, round_number: int, name: str) -> rules.Hand:
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
    value = document.get("value")
    opened = document.get("opened", True)
    if not isinstance(opened, bool):
        raise _fail(round_number, '"opened" must be true or false', name)
    try:
        return rules.Hand(cards=tuple(cards), value=value, opened=opened)
    except rules.RulesError as error:
        raise _fail(round_number, str(error), name) from None


def parse_round(
    document: object, names: Sequence[str], round_number: int, target: int
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
    if blocked:
        # On export a blocked round carries its computed winner; import ignores it.
        winner = None
    elif winner_name is None:
        raise _fail(round_number, 'a round needs a "winner", or "blocked": true')
    elif not isinstance(winner_name, str):
        raise _fail(round_number, '"winner" must be one player\'s name (a round has one winner)')
    elif winner_name not in seats:
        raise _fail(round_number, f'"winner": unknown player "{winner_name}"')
    else:
        winner = seats[winner_name]

    hands_document = document.get("hands", {})
    if not isinstance(hands_document, Mapping):
        raise _fail(round_number, '"hands" must map player names to hands')
    for name in hands_document:
        if name not in seats:
            raise _fail(round_number, f'"hands": unknown player "{name}"')
    hands = []
    for seat, name in enumerate(names):
        given = hands_document.get(name)
        if given is None:
            # A hand rummy needs no hands: an opponent left out had not opened.
            hands.append(rules.Hand(opened=seat == winner or not hand_rummy))
        else:
            hands.append(_parse_hand(given, round_number, name))
    entry = RoundEntry(hands=tuple(hands), winner=winner, hand_rummy=hand_rummy)
    try:
        entry.points(target)
    except rules.RulesError as error:
        name = names[error.player] if error.player is not None else None
        raise _fail(round_number, describe_rules_error(error, blocked), name) from None
    return entry


def describe_rules_error(error: rules.RulesError, blocked: bool) -> str:
    if error.code == "missing_hand" and blocked:
        return "a blocked round needs every player's hand"
    if error.code == "missing_hand":
        return "the hand of a player who did not go out is missing"
    return str(error)


@dataclass(frozen=True)
class GameDocument:
    names: list[str]
    rounds: list[RoundEntry]


def parse_game(document: object) -> GameDocument:
    """A whole document, every round checked; raises ExchangeError on the first mistake."""
    if not isinstance(document, Mapping):
        raise ExchangeError('the file must hold one JSON object with "format": "rami-game/1"')
    if document.get("format") != FORMAT:
        raise ExchangeError(
            f'"format" must be "{FORMAT}", not {json.dumps(document.get("format"))}'
        )
    names = parse_names(document.get("players"))
    target = rules.target_for(len(names))
    rounds = document.get("rounds", [])
    if not isinstance(rounds, list):
        raise ExchangeError('"rounds" must be a list')
    if len(rounds) > MAX_ROUNDS:
        raise ExchangeError(f"a game has at most {MAX_ROUNDS} rounds")
    entries = [
        parse_round(round_, names, number, target) for number, round_ in enumerate(rounds, 1)
    ]
    return GameDocument(names=names, rounds=entries)


def loads(text: str | bytes) -> object:
    """JSON text to a document, or ExchangeError saying where the JSON is broken."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ExchangeError(
            f"not a JSON file: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except (UnicodeDecodeError, RecursionError):
        raise ExchangeError("not a JSON file: the text cannot be read") from None


def dumps(document: dict) -> str:
    """A document as the app writes it: UTF-8 friendly, indented."""
    return json.dumps(document, ensure_ascii=False, indent=2)
