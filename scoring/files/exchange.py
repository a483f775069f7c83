"""The exchange formats: `rami-game/1`, a whole game as JSON, and beside it `rami-table/1`, a
group's games; docs/formats.md describes both.

`parse_game` turns a document into player names and `rules.RoundEntry` values without touching
the database, or raises `ExchangeError` saying what is wrong and where. `import_game` makes a
game of it through the same path as the web form; `export_game` writes a game back with the
computed fields. A round is written by `RoundEntry.document`, the shape the history keeps too.

A table's document goes the same way, each of its games as a single game goes. `parse_table`
checks the whole of it; `import_table` makes the table (Table.start) and its games (make_game).
`export_table` (or `export_table_text`, streamed game by game) writes it back with each
member's standings (scoring.board.standings) over a period ("period": all time unless asked),
which import ignores.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from django.db import DatabaseError, connection, transaction
from django.db.models import QuerySet

from scoring import rules
from scoring.board import standings as tables
from scoring.board.standings import MemberStanding
from scoring.models import MAX_MEMBERS, Game, Round, Table
from scoring.rules import MAX_ROUNDS, RoundEntry
from scoring.rules.messages import english

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


PLAYER_FIELDS = {"name", "joins", "start", "leaves", "back"}
STAY_FIELDS = {"joins", "start", "leaves"}


def parse_names(players: object) -> list[str]:
    """The player names of a document, checked as the start form checks them (a player may be
    an object, SPEC 2.2: parse_players)."""
    return parse_players(players)[0]


def parse_players(players: object) -> tuple[list[str], list[rules.Span]]:
    """The players of a document, and when each played (rules.Span; `start` None for a
    joiner's default, the highest total then). Each is a name, or an object for one who joined
    or left during the game (SPEC 2.2: {"name", "joins", "start", "leaves"}). Names checked
    as the start form checks them, at most six playing any one round (the rounds say)."""
    if not isinstance(players, list) or len(players) > rules.MAX_SEATS:
        raise ExchangeError('"players" must be a list of 2 to 6 names')
    names, spans = [], []
    for player in players:
        if isinstance(player, str):
            names.append(player)
            spans.append(rules.Span())
            continue
        if not isinstance(player, Mapping) or not isinstance(player.get("name"), str):
            raise ExchangeError(f'"players": {json.dumps(player)} is not a name')
        name = player["name"]
        unknown = set(player) - PLAYER_FIELDS
        if unknown:
            raise _fail(None, f"unknown field {json.dumps(sorted(unknown)[0])}", name)
        first = _stay(player, name, after=None)
        back = player.get("back", [])
        if not isinstance(back, list) or len(back) > MAX_ROUNDS:
            raise _fail(None, '"back" must be a list of the times they came back', name)
        stays = [first]
        for stay in back:
            if not isinstance(stay, Mapping) or set(stay) - STAY_FIELDS:
                raise _fail(None, '"back" holds objects of "joins", "start" and "leaves"', name)
            stays.append(_stay(stay, name, after=stays[-1]))
        names.append(name)
        spans.append(replace(first, back=tuple(stays[1:])))
    try:
        names = rules.check_names(names, players_at_most=rules.MAX_SEATS)
    except rules.RulesError as error:
        if error.player is None:
            raise ExchangeError(english(error)) from None
        raise _fail(None, english(error), names[error.player]) from None
    first = len(rules.playing_in(1, spans))
    if not rules.MIN_PLAYERS <= first <= rules.MAX_PLAYERS:
        raise ExchangeError(english(rules.RulesError(rules.Code.PLAYER_COUNT, count=first)))
    return names, spans


def _stay(stay: Mapping, name: str, after: rules.Span | None) -> rules.Span:
    """One stretch of rounds a player of a document plays (rules.Span, without `back`): the
    first from its player's object, a later one from its "back" list, which starts after
    the stay before it ended (`after`)."""
    joins, leaves, start = stay.get("joins", 1), stay.get("leaves"), stay.get("start")
    if type(joins) is not int or not 1 <= joins <= MAX_ROUNDS + 1:
        raise _fail(None, '"joins" must be the number of the first round played', name)
    if after is not None and (after.leaves is None or joins <= after.leaves):
        raise _fail(None, 'a player comes back after the round they left "leaves"', name)
    # A player who left without a round left (their rounds deleted since): joins - 1.
    if leaves is not None and (type(leaves) is not int or not joins - 1 <= leaves <= MAX_ROUNDS):
        raise _fail(None, '"leaves" must be the number of the last round played, or null', name)
    if start is not None:
        try:
            rules.check_start_total(start)
        except rules.RulesError as error:
            raise _fail(None, english(error), name) from None
    return rules.Span(joins, leaves, start)


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


ROUND_FIELDS = {"winner", "winners", "blocked", "hand_rummy", "hands", "points", "players"}


def round_players(document: Mapping, names: Sequence[str], round_number: int) -> list[int] | None:
    """The seats a round lists as its players ("players": their names), or None when it lists
    none. Export lists them only for a round whose players are not those the player objects
    give (a round brought back from the history where a later joiner did not play it)."""
    if "players" not in document:
        return None
    listed = document["players"]
    if not isinstance(listed, list) or not all(name in names for name in listed):
        raise _fail(round_number, '"players" must list the names of those who played it')
    return sorted({names.index(name) for name in listed})


def parse_round(
    document: object,
    names: Sequence[str],
    round_number: int,
    target: int,
    house_rules: rules.Rules,
    spans: Sequence[rules.Span] | None = None,
    playing: Sequence[int] | None = None,
) -> RoundEntry:
    """One round of a document, checked by the rules (its points computed once to that end).
    It is played by the players it lists ("players", when the player objects do not give
    them: round_players), else by those whose `spans` hold it (SPEC 1.5), else by the seats
    `playing` (None: everyone)."""
    if not isinstance(document, Mapping):
        raise _fail(round_number, "a round must be an object")
    unknown = set(document) - ROUND_FIELDS
    if unknown:
        raise _fail(round_number, f"unknown field {json.dumps(sorted(unknown)[0])}")
    blocked = document.get("blocked", False)
    hand_rummy = document.get("hand_rummy", False)
    if not isinstance(blocked, bool) or not isinstance(hand_rummy, bool):
        raise _fail(round_number, '"blocked" and "hand_rummy" must be true or false')
    seats = {name: seat for seat, name in enumerate(names)}
    listed = round_players(document, names, round_number)
    if listed is not None:
        playing = listed
    winner_name = document.get("winner")
    # On export a blocked round carries its computed winner(s); import ignores them.
    if blocked:
        pass
    elif winner_name is None:
        raise _fail(round_number, 'a round needs a "winner", or "blocked": true')
    elif not isinstance(winner_name, str):
        raise _fail(round_number, '"winner" must be one player\'s name (a round has one winner)')
    elif winner_name not in seats:
        raise _fail(round_number, f'"winner": unknown player "{winner_name}"')
    if playing is None:
        playing = list(range(len(names)))
        if spans is not None:
            playing = rules.playing_in(round_number, spans)
    if winner_name is not None and not blocked and seats[winner_name] not in playing:
        raise _fail(round_number, "not playing this round", winner_name)

    hands_document = document.get("hands", {})
    if not isinstance(hands_document, Mapping):
        raise _fail(round_number, '"hands" must map player names to hands')
    for name in hands_document:
        if name not in seats:
            raise _fail(round_number, f'"hands": unknown player "{name}"')
        if seats[name] not in playing:
            raise _fail(round_number, "a hand for a player not playing this round", name)
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
        entry = RoundEntry.from_document(checked, names, playing)
        entry.points(target, house_rules)
    except rules.RulesError as error:
        name = names[error.player] if error.player is not None else None
        raise _fail(round_number, english(error.under(house_rules)), name) from None
    return entry


@dataclass(frozen=True)
class GameDocument:
    names: list[str]
    rounds: list[RoundEntry]
    rules: rules.Rules
    # When each player played (SPEC 1.5): everyone throughout, in an older file.
    spans: list[rules.Span] | None = None

    @property
    def come_and_go(self) -> bool:
        return self.spans is not None and any(span != rules.Span() for span in self.spans)


def parse_rules(document: object) -> rules.Rules:
    """The `rules` object of a document (docs/formats.md), absent meaning the seeds' rules; raises
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
    names, spans = parse_players(document.get("players"))
    house_rules = parse_rules(document.get("rules"))
    rounds = document.get("rounds", [])
    # The target of the first round's players (SPEC 1.5).
    first = len(rules.playing_in(1, spans))
    if isinstance(rounds, list) and rounds and isinstance(rounds[0], Mapping):
        listed = round_players(rounds[0], names, 1)
        first = len(listed) if listed is not None else first
    try:
        target = house_rules.target_for(first)
    except rules.RulesError as error:
        raise ExchangeError(english(error)) from None
    if not isinstance(rounds, list):
        raise ExchangeError('"rounds" must be a list')
    if len(rounds) > MAX_ROUNDS:
        raise ExchangeError(f"a game has at most {MAX_ROUNDS} rounds")
    entries = [
        parse_round(round_, names, number, target, house_rules, spans)
        for number, round_ in enumerate(rounds, 1)
    ]
    return GameDocument(names=names, rounds=entries, rules=house_rules, spans=spans)


def import_game(document: object, dealers: Sequence[int] | None = None) -> Game:
    """A game from a rami-game/1 document, each round recorded as the web form records it (by
    `dealers`, each round's dealer's seat, when a backup says who dealt); raises ExchangeError
    (nothing created) when the document is not right."""
    parsed = parse_game(document)
    with transaction.atomic():
        return make_game(parsed, dealers=dealers)


def make_game(
    parsed: GameDocument,
    after_each_round: Callable[[Game], None] | None = None,
    dealers: Sequence[int] | None = None,
) -> Game:
    """The game of a checked document, each round recorded as the web form records it, in the
    caller's transaction: `after_each_round(game)` may end it and begin another (a long
    import, import_table)."""
    if not parsed.come_and_go:
        game = Game.start(parsed.names, house_rules=parsed.rules)
        for number, entry in enumerate(parsed.rounds, 1):
            dealer = dealers[number - 1] if dealers else None
            game.record_round(entry, past_the_end=True, dealer=dealer)
            if after_each_round is not None:
                after_each_round(game)
        return game
    return _make_game_of_comings_and_goings(parsed, after_each_round, dealers)


def _make_game_of_comings_and_goings(
    parsed: GameDocument,
    after_each_round: Callable[[Game], None] | None,
    dealers: Sequence[int] | None = None,
) -> Game:
    """A game whose players come and go (SPEC 1.5), made as the web makes it. The first
    round's players start it. Each who joins joins before their first round (Game.join),
    seated after the player listed before them, no later than those listed after. Each who
    leaves leaves after their last (Game.leave). Its rounds are recorded by seat."""
    spans = parsed.spans
    # Each sits where the file lists them: a player joins no later than those listed after.
    joining = [min(span.joins for span in spans[index:]) for index in range(len(spans))]
    first = [index for index, joins in enumerate(joining) if joins <= 1]
    game = Game.start(
        [parsed.names[index] for index in first],
        house_rules=parsed.rules,
        starts=[spans[index].start or 0 for index in first],
    )
    if parsed.rounds:  # the target of the first round's players (SPEC 1.5)
        game.target_players = len(parsed.rounds[0].playing)
        Game.objects.filter(pk=game.pk).update(target_players=game.target_players)
    seat_of = {index: seat for seat, index in enumerate(first)}
    for number, entry in enumerate([*parsed.rounds, None], 1):
        for index, span in enumerate(spans):
            if joining[index] == number and index not in seat_of:
                before = [seat_of[i] for i in range(index) if i in seat_of]
                after = before[-1] if before else None
                try:
                    player = game.join(parsed.names[index], after, span.start, past_the_end=True)
                except rules.RulesError as error:
                    raise _fail(number, english(error), parsed.names[index]) from None
                seat_of[index] = player.seat
        # Those who left after the round before leave once the newcomers are seated: the
        # game never has fewer than two players playing on the way. Then those who left
        # earlier come back (a stay of no round leaves again at once).
        for index, span in enumerate(spans):
            for stay in span.stays:
                if stay.leaves == number - 1 and stay.leaves >= stay.joins:
                    try:
                        game.leave(seat_of[index], past_the_end=True)
                    except rules.RulesError as error:
                        raise _fail(number - 1, english(error), parsed.names[index]) from None
        for index, span in enumerate(spans):
            for stay in span.back:
                if stay.joins == number:
                    try:
                        game.come_back(seat_of[index], None, stay.start, past_the_end=True)
                        if stay.leaves is not None and stay.leaves < stay.joins:
                            game.leave(seat_of[index], past_the_end=True)
                    except rules.RulesError as error:
                        raise _fail(number, english(error), parsed.names[index]) from None
        if entry is None:
            break
        hands: list[rules.Hand | None] = [None] * len(game.seated_players)
        for index, seat in seat_of.items():
            hands[seat] = entry.hands[index]
        winner = None if entry.winner is None else seat_of[entry.winner]
        dealer = dealers[number - 1] if dealers else None
        game.record_round(
            RoundEntry(tuple(hands), winner, entry.hand_rummy), past_the_end=True, dealer=dealer
        )
        if after_each_round is not None:
            after_each_round(game)
    for index, span in enumerate(spans):  # who left without a round left
        if span.leaves is not None and span.leaves < span.joins:
            game.leave(seat_of[index], past_the_end=True)
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
    """The whole game as rami-game/1, with the computed fields: each round's points, a blocked
    round's winners, the totals, the status. A blocked round's winners are every player with
    its lowest hand, in seat order; its "winner" is that player when there is one alone, else
    null."""
    names = game.names
    target = game.target
    rounds = list(game.rounds.with_hands())
    entries = [round_.entry(len(names)) for round_ in rounds]
    points = [
        [hand.points if hand is not None else None for hand in _hands_by_seat(round_, names)]
        for round_ in rounds
    ]
    starts = [player.start for player in game.seated_players]
    players = _exported_players(game, entries)
    spans = parse_players(players)[1]
    restarts = rules.restarts_of(spans)
    after = rules.standings(points, len(names), target, start=starts, restarts=restarts)
    documents = []
    for entry, scored in zip(entries, points, strict=True):
        document = entry.document(names)
        document["points"] = {
            name: point for name, point in zip(names, scored, strict=True) if point is not None
        }
        if entry.blocked:
            winners = [names[seat] for seat in entry.winners(game.rules)]
            document["winner"] = winners[0] if len(winners) == 1 else None
            document["winners"] = winners
        documents.append(document)
    totals = rules.totals_now(after, starts, restarts)
    standing = rules.standing(totals, target, [player.seat for player in game.playing])
    for number, (entry, document) in enumerate(zip(entries, documents, strict=True), 1):
        if list(entry.playing) != rules.playing_in(number, spans):
            document["players"] = [names[seat] for seat in entry.playing]
    return {
        "format": FORMAT,
        "players": players,
        "rules": game.rules.document(),
        "rounds": documents,
        "target": target,
        "totals": dict(zip(names, standing.totals, strict=True)),
        "status": standing.status,
        "winner": names[standing.winner] if standing.winner is not None else None,
    }


def _hands_by_seat(round_: Round, names: Sequence[str]) -> list:
    hands: list = [None] * len(names)
    for hand in round_.hands_with_players():
        hands[hand.player_seat] = hand
    return hands


def _exported_players(game: Game, entries: Sequence[RoundEntry]) -> list:
    """The players as rami-game/1 writes them (SPEC 2.2): a name, or, for exactly the players
    who joined or left, an object. It says the first round they played, the total they
    started with and the last round they played (null: to the end)."""
    players: list = []
    for player in game.seated_players:
        if not (player.joined or player.left):
            players.append(player.name)
            continue
        played = [number for number, entry in enumerate(entries, 1) if player.seat in entry.playing]
        # Each stay ends before the next one begins: one who came back (Player.returns).
        returns = player.returns or []
        froms = [back["from"] for back in returns]
        stays = []
        for begins, ends, start in zip(
            [None, *froms],
            [*froms, None],
            [player.start, *(back["start"] for back in returns)],
            strict=True,
        ):
            rounds = [
                n for n in played if (begins is None or n >= begins) and (ends is None or n < ends)
            ]
            joins = begins if begins is not None else (rounds[0] if rounds else len(entries) + 1)
            leaves = None
            if ends is not None or player.left:  # after the last round of the stay; or none
                leaves = rounds[-1] if rounds else joins - 1
            stays.append({"joins": joins, "start": start, "leaves": leaves})
        players.append({"name": player.name, **stays[0]} | ({"back": stays[1:]} if returns else {}))
    return players


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


# A group's games: rami-table/1, each game a rami-game/1 document as above

TABLE_FORMAT = "rami-table/1"
# A table file's games; what a group plays in years, and a file that still reads in seconds.
MAX_GAMES = 2000
STANDING_FIELDS = (
    "games",
    "wins",
    "win_rate",
    "average_total",
    "best_game",
    "worst_game",
    "part_games",
    "rounds",
    "average_round",
    "rounds_won",
    "hand_rummies_made",
    "hand_rummies_suffered",
    "never_opened",
)


def export_table(table: Table, period: str = tables.ALL_TIME) -> dict:
    """The table as rami-table/1: its name, members (and which of them "retired"), house
    rules and every game, oldest first (export_game, and when it began as "started"). Then
    each member's computed "standings" over the "period" (tables.PERIODS: "all" unless
    asked), which import ignores; every game is written whatever the period."""
    period = tables.chosen_period(period)
    return {
        **table_fields(table),
        "games": [_exported_game(game) for game in _games_in_order(table)],
        "period": period,
        "standings": _exported_standings(table, period),
    }


def export_table_text(table: Table, period: str = tables.ALL_TIME) -> Iterator[str]:
    """export_table's document as the text dumps writes of it, character for character, made
    and handed on one game at a time: a table of 2,000 games is some 10 MB, which a download
    then never holds whole (scoring/views/tables.py, export_table)."""
    head = dumps({**table_fields(table), "games": []})
    # The games go where json would have put them: "games" is the last key of the head.
    yield head.removesuffix("[]\n}") + "["
    separator = "\n"
    for game in _games_in_order(table).iterator(chunk_size=100):
        yield separator + _indented(dumps(_exported_game(game)), "    ")
        separator = ",\n"
    closing = "\n  ]" if separator != "\n" else "]"
    period = tables.chosen_period(period)
    standings = dumps({"period": period, "standings": _exported_standings(table, period)})
    # The period and the standings as the last keys of the document: their text without its
    # own braces.
    yield closing + ",\n" + standings.removeprefix("{\n").removesuffix("}")
    yield "}"


def _indented(text: str, indent: str) -> str:
    return "\n".join(indent + line for line in text.split("\n"))


def table_fields(table: Table) -> dict:
    """A table's document without its games: what it is, its name, members (those retired
    listed again under "retired", always written) and rules (a backup's table file holds
    these, backup.backup_table_document)."""
    members = list(table.members.all())
    return {
        "format": TABLE_FORMAT,
        "name": table.name,
        "members": [member.name for member in members],
        "retired": [member.name for member in members if member.retired],
        "rules": table.rules.document(),
    }


def _games_in_order(table: Table) -> QuerySet[Game]:
    return table.games.order_by("created_at", "pk")


def _exported_game(game: Game) -> dict:
    return {**export_game(game), "started": _started(game.created_at)}


def _exported_standings(table: Table, period: str) -> dict:
    return {
        standing.name: {field: _exported(getattr(standing, field)) for field in STANDING_FIELDS}
        for standing in _in_table_order(tables.standings(table, period=period))
    }


def _started(moment: datetime) -> str:
    """A time as ISO 8601 in UTC, "Z" for the zone, as docs/formats.md writes it."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _exported(value: object) -> object:
    return round(value, 3) if isinstance(value, float) else value


def _in_table_order(table_standings: list[MemberStanding]) -> list[MemberStanding]:
    return sorted(
        table_standings, key=lambda standing: (standing.member.position, standing.member.pk)
    )


@dataclass(frozen=True)
class TableDocument:
    """A rami-table/1 document, checked: the table's name, members (those `retired` among
    them, by their names in `members`) and rules, and its games (each checked by parse_game),
    in the order they are to be made."""

    name: str
    members: list[str]
    rules: rules.Rules
    games: list[tuple[datetime | None, dict]]
    retired: list[str]


def parse_table(document: object) -> TableDocument:
    """A whole rami-table/1 document, every game and round checked as import_game checks it;
    raises ExchangeError on the first mistake, in one line saying what and where
    ('game 2, round 3, player "Cyril": Unknown card “1X”...'). Touches no database."""
    if not isinstance(document, Mapping):
        raise ExchangeError(f'the file must hold one JSON object with "format": "{TABLE_FORMAT}"')
    if document.get("format") != TABLE_FORMAT:
        raise ExchangeError(
            f'"format" must be "{TABLE_FORMAT}", not {json.dumps(document.get("format"))}'
        )
    name = document.get("name")
    if not isinstance(name, str):
        raise ExchangeError('"name" must be the table\'s name')
    try:
        name = Table.check_name(name)
    except rules.RulesError as error:
        raise ExchangeError(f'"name": {english(error)}') from None
    members = _parse_members(document.get("members"))
    retired = _parse_retired(document.get("retired", []), members)
    house_rules = parse_rules(document.get("rules"))
    games = document.get("games", [])
    if not isinstance(games, list):
        raise ExchangeError('"games" must be a list of rami-game/1 documents')
    if len(games) > MAX_GAMES:
        raise ExchangeError(f"a table has at most {MAX_GAMES} games")
    checked = [(_parse_game(game, number), game) for number, game in enumerate(games, 1)]
    # In the order they began; a game without "started" keeps its place after the dated
    # ones, in the order given (sorted() is stable).
    checked.sort(key=lambda pair: (pair[0] is None, pair[0] or datetime.min.replace(tzinfo=UTC)))
    return TableDocument(
        name=name, members=members, rules=house_rules, games=checked, retired=retired
    )


def _parse_members(members: object) -> list[str]:
    if not isinstance(members, list):
        raise ExchangeError(f'"members" must be a list of 1 to {MAX_MEMBERS} names')
    for member in members:
        if not isinstance(member, str):
            raise ExchangeError(f'"members": {json.dumps(member)} is not a name')
    try:
        return rules.check_names(members, members_at_most=MAX_MEMBERS)
    except rules.RulesError as error:
        if error.player is None:
            raise ExchangeError(f'"members": {english(error)}') from None
        raise ExchangeError(
            f'"members": {_quoted(members[error.player])}: {english(error)}'
        ) from None


def _parse_retired(retired: object, members: list[str]) -> list[str]:
    """The members named in "retired" (optional), by their names in "members"."""
    if not isinstance(retired, list):
        raise ExchangeError('"retired" must be a list of names from "members"')
    by_key = {rules.name_key(member): member for member in members}
    named = []
    for name in retired:
        if not isinstance(name, str) or rules.name_key(name) not in by_key:
            raise ExchangeError(f'"retired": {_shown(name)} is not one of "members"')
        named.append(by_key[rules.name_key(name)])
    try:
        Table.check_retired(members, named)
    except rules.RulesError as error:
        raise ExchangeError(f'"retired": {english(error)}') from None
    return named


def _shown(value: object) -> str:
    return _quoted(value) if isinstance(value, str) else json.dumps(value)


def _parse_game(document: object, number: int) -> datetime | None:
    """When the game began (its "started", or None), the game itself checked; ExchangeError
    saying which game."""
    if not isinstance(document, Mapping):
        raise ExchangeError(f'game {number}: a game must be a "{FORMAT}" object')
    try:
        parse_game(document)
    except ExchangeError as error:
        raise ExchangeError(
            f"game {number}, {error}" if _located(error) else f"game {number}: {error}"
        ) from None
    started = document.get("started")
    if started is None:
        return None
    moment = read_moment(started)
    if moment is None:
        raise ExchangeError(
            f'game {number}: "started" must be a date and time (ISO 8601) {YEARS}, '
            f"not {json.dumps(started)}"
        )
    return moment


def _located(error: ExchangeError) -> bool:
    """Whether the message begins with where it is ('round 3, ...', 'player "Ana": ...')."""
    return str(error).startswith(("round ", "player "))


# A transaction of import_table ends after this many rounds or this long, whichever comes
# first (each round is recorded as the web form records it, some 5 ms on SQLite, 20 ms on a
# busy machine), so that the write lock is never held for much more than a second.
ROUNDS_PER_TRANSACTION = 150
TRANSACTION_SECONDS = 0.5


def import_table(document: object, progress: Callable[[int, int], None] | None = None) -> Table:
    """A table from a rami-table/1 document: its members, then each game made as
    import_game makes it (the web's path, every round recorded by Game.record_round),
    dated by its "started", its players linked to the members of their names. Raises
    ExchangeError (parse_table's) and creates nothing when the document is not right.

    A big file (2,000 games of 20 rounds take minutes) is made in short transactions, so that
    a live server keeps saving rounds meanwhile. The games come first, outside any table,
    where nothing shows them (their tokens are new and given to nobody yet). A transaction
    ends after ROUNDS_PER_TRANSACTION rounds or TRANSACTION_SECONDS, even inside a game. The
    table, its members and the links to its games follow in one short transaction. A
    failure part-way (a database error, Ctrl-C) removes the games made so far, so that
    nothing of the file is left. `progress(games made, games)` is called after each
    transaction."""
    parsed = parse_table(document)
    # Every game begun, in order, before a transaction that holds it can commit.
    made: list[int] = []

    def begun(game: Game) -> None:
        if not made or made[-1] != game.pk:
            made.append(game.pk)

    def committed() -> None:
        if progress is not None:
            progress(len(made), len(parsed.games))

    try:
        with _ShortTransactions(committed) as short:

            def recorded(game: Game) -> None:
                begun(game)
                short.round_recorded()

            for started, game_document in parsed.games:
                game = make_game(parse_game(game_document), after_each_round=recorded)
                begun(game)
                # update(): created_at is auto_now_add, which save() would not let us set.
                # A game without "started" began when it was imported.
                if started is not None:
                    Game.objects.filter(pk=game.pk).update(created_at=started)
        table = Table.gather(
            parsed.name, parsed.members, made, house_rules=parsed.rules, retired=parsed.retired
        )
    except BaseException:
        # A database that has gone away cannot take them back either: the error that stopped
        # the import is the one to tell.
        with contextlib.suppress(DatabaseError):
            _remove_games(made)
        raise
    return table


class _ShortTransactions:
    """One transaction after another: `round_recorded` ends the current one, once it has
    recorded ROUNDS_PER_TRANSACTION rounds or lasted TRANSACTION_SECONDS, and begins the
    next (let_others_write between the two); `committed` is called after each."""

    def __init__(self, committed: Callable[[], object]) -> None:
        self.committed = committed

    def __enter__(self) -> _ShortTransactions:
        self._begin()
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.atomic.__exit__(kind, error, traceback)
        if kind is None:
            self.committed()

    def _begin(self) -> None:
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.began = time.monotonic()
        self.rounds = 0

    def round_recorded(self) -> None:
        self.rounds += 1
        if (
            self.rounds >= ROUNDS_PER_TRANSACTION
            or time.monotonic() - self.began >= TRANSACTION_SECONDS
        ):
            self.atomic.__exit__(None, None, None)
            self.committed()
            let_others_write()
            self._begin()


# Games removed per transaction after a failed import.
GAMES_PER_REMOVAL = 50


def _remove_games(pks: list[int]) -> None:
    """Remove the games an import made before it failed, a few at a time (each delete its own
    transaction, as short as the import's)."""
    for start in range(0, len(pks), GAMES_PER_REMOVAL):
        Game.objects.filter(pk__in=pks[start : start + GAMES_PER_REMOVAL]).delete()
