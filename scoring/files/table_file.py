"""A group's games as one file, rami-table/1 (docs/formats.md): parse_table checks the whole of it,
import_table makes the table (Table.start) and its games (make_game) in short transactions,
export_table writes it back with each member's standings over a period, which import ignores.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import DatabaseError, transaction
from django.db.models import QuerySet

from scoring import rules
from scoring.board import standings as tables
from scoring.board.standings import MemberStanding
from scoring.files.documents import YEARS, ExchangeError, _quoted, dumps, read_moment
from scoring.files.game_file import (
    FORMAT,
    export_game,
    let_others_write,
    make_game,
    parse_game,
    parse_rules,
)
from scoring.models import MAX_MEMBERS, Game, Table
from scoring.rules.messages import english

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
