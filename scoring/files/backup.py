"""Backing up and restoring whole games and tables, links included (`backup_games`,
`restore_games`). A backup file is a game's or a table's export with a "backup" field of what
no export holds: its tokens, seats and start (docs/formats.md, "Backup files"). A restore
checks each file as an import is, gives back its tokens, and leaves out what was deleted on
request; tables first, so that their games find them. Two ways store the same rows: `restore`
(one game, as the web records it) and `restore_batch` (hundreds in one transaction, 10,000
games in under a minute: bench/RESTORE.md), held row for row to each other by
tests/test_backup.py.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from scoring import rules
from scoring.files import exchange
from scoring.files.exchange import ExchangeError, GameDocument
from scoring.models import (
    TOKEN_PATTERN,
    DeletedLink,
    Game,
    GameEvent,
    Hand,
    Member,
    Player,
    Round,
    Table,
    clock_version,
)
from scoring.models.rounds import history_document

FIELD = "backup"
# Tokens as new_token() makes them (URL-safe, 128 bits at least), as the links take them: also
# safe as file names.
TOKEN = re.compile(TOKEN_PATTERN)
CLASH = f'"{FIELD}": a token belongs to another game'
SAME_TOKENS = f'"{FIELD}": "edit_token" and "view_token" are the same token'
TABLE_CLASH = f'"{FIELD}": a token belongs to another table'
# A game's token that is a table's (or the other way round): its watch-only link would edit,
# or a link would open the other.
A_TABLES = f'"{FIELD}": a token belongs to a table'
A_GAMES = f'"{FIELD}": a token belongs to a game'
# The folder, within a backup's, of the tables' files.
TABLES = "tables"
# Games per transaction in restore_games: big enough that the bulk inserts pay off, small
# enough that a batch that must be done again one game at a time (a token clash) stays short.
BATCH_SIZE = 250
# And at most about this many rounds per transaction (some 2,500 rounds a second are stored in
# bulk on SQLite, bench/RESTORE.md), so that a batch of long games holds the write lock no
# longer than one of short ones: a live server's saves wait at most that long.
ROUNDS_PER_BATCH = 2500
# Rows per INSERT statement.
ROWS_PER_INSERT = 2000


class LeftOut(enum.Enum):
    """A backup that a restore leaves alone on purpose."""

    # Its game or table was deleted on request (DeletedLink): never brought back unasked.
    DELETED = "deleted on request"


DELETED = LeftOut.DELETED


def backup_document(game: Game) -> dict:
    """The game as its export plus what a restore needs to bring back the same links."""
    document = exchange.export_game(game)
    document[FIELD] = {
        "edit_token": game.edit_token,
        "view_token": game.view_token,
        "first_dealer": game.first_dealer,
        "created_at": game.created_at.isoformat(),
    }
    if game.seating:
        document[FIELD]["seating"] = game.seating
    # Each round's dealer, kept whatever was deleted before it.
    dealers = list(game.rounds.order_by("number").values_list("dealer", flat=True))
    if dealers:
        document[FIELD]["dealers"] = dealers

    if game.table_id is not None:
        document[FIELD]["table"] = game.table.edit_token
        document[FIELD]["members"] = list(
            game.players.order_by("seat").values_list("member__name", flat=True)
        )
    return document


def backup_table_document(table: Table) -> dict:
    """A table as rami-table/1 without its games (each has its own backup file, which names
    the table), plus what a restore needs to bring back the same links."""
    return {
        **exchange.table_fields(table),
        FIELD: {
            "edit_token": table.edit_token,
            "view_token": table.view_token,
            "created_at": table.created_at.isoformat(),
        },
    }


@dataclass(frozen=True)
class Backup:
    """A document whose "backup" field has been checked (its game not yet)."""

    document: Mapping
    edit_token: str
    view_token: str
    first_dealer: int
    created_at: datetime
    # The game's changes of seats and dealer (Game.seating), their seats checked by
    # parse_backup against its players.
    seating: tuple[dict, ...] = ()
    # The edit token of the game's table, and each seat's member by name (None: a guest).
    table: str | None = None
    members: tuple[str | None, ...] = ()
    # Each round's dealer (None: not kept, as in a backup from before: dealt as the deal then
    # went).
    dealers: tuple[int | None, ...] = ()

    def dealer_of(self, number: int, players: int) -> int:
        """Who dealt round `number`: as kept, or as the deal went before dealers were kept,
        one seat a round from the first dealer, along the latest change of seats."""
        kept = self.dealers[number - 1] if number <= len(self.dealers) else None
        if kept is not None:
            return kept
        change = next((c for c in reversed(self.seating) if c["from"] <= number), None)
        if change is None:
            return (self.first_dealer + number - 1) % players
        order = change["order"]
        return order[(order.index(change["dealer"]) + number - change["from"]) % len(order)]


def read_backup(document: object) -> Backup:
    """The "backup" field of a document, checked; ExchangeError when it is missing or wrong.
    The game itself is checked by parse_backup."""
    edit_token, view_token, created_at = _links_and_time(document, "import_game")
    fields = document[FIELD]
    first_dealer = fields.get("first_dealer", 0)
    if not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or first_dealer < 0:
        raise ExchangeError(f'"{FIELD}": "first_dealer" is not a seat number')
    table, members = fields.get("table"), fields.get("members", [])
    if table is not None and (not isinstance(table, str) or not TOKEN.fullmatch(table)):
        raise ExchangeError(f'"{FIELD}": "table" is not a token')
    if not isinstance(members, list) or not all(
        member is None or isinstance(member, str) for member in members
    ):
        raise ExchangeError(f'"{FIELD}": "members" must give each player\'s member, or null')
    seating = _seating(fields.get("seating", []))
    dealers = fields.get("dealers", [])
    if not isinstance(dealers, list) or not all(
        dealer is None or _is_seat(dealer) for dealer in dealers
    ):
        raise ExchangeError(f'"{FIELD}": "dealers" must give each round\'s dealer, a seat')
    return Backup(
        document,
        edit_token,
        view_token,
        first_dealer,
        created_at,
        seating,
        table,
        tuple(members),
        tuple(dealers),
    )


def _is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value < rules.MAX_SEATS


SEATING_WRONG = (
    f'"{FIELD}": "seating" must list changes of the deal, each {{"from": a round number, '
    '"dealer": a seat, "order": every seat once}, from later and later rounds'
)


def _seating(seating: object) -> tuple[dict, ...]:
    """The changes of seats and dealer of a backup, their shape checked (their seats against
    the game's players: _check_seating); ExchangeError, one line, else."""
    if not isinstance(seating, list):
        raise ExchangeError(SEATING_WRONG)
    changes = []
    for change in seating:
        if not isinstance(change, Mapping) or set(change) != {"from", "dealer", "order"}:
            raise ExchangeError(SEATING_WRONG)
        number, order = change["from"], change["order"]
        if type(number) is not int or not 1 <= number <= rules.MAX_ROUNDS + 1:
            raise ExchangeError(SEATING_WRONG)
        if changes and number <= changes[-1]["from"]:
            raise ExchangeError(SEATING_WRONG)
        if not isinstance(order, list) or len(order) > rules.MAX_SEATS:
            raise ExchangeError(SEATING_WRONG)
        changes.append({"from": number, "dealer": change["dealer"], "order": list(order)})
    return tuple(changes)


def _check_seating(seating: Sequence[dict], players: int, first: int) -> None:
    """Each change's order: seats of the game's `players`, each once, the dealer among them.
    Every one of the `first` players (those of the first round) is in it; a change made
    before a player joined does not name their seat."""
    for change in seating:
        order, dealer = change["order"], change["dealer"]
        seats = all(_is_seat(seat) and seat < players for seat in order)
        if not seats or len(set(order)) != len(order) or dealer not in order:
            raise ExchangeError(SEATING_WRONG)
        if not set(range(first)) <= set(order):
            raise ExchangeError(SEATING_WRONG)


def _links_and_time(document: object, plain: str) -> tuple[str, str, datetime]:
    """The edit token, view token and start time of a game's or a table's backup, checked;
    ExchangeError when the "backup" field is missing (a plain export, for `plain`) or wrong."""
    if not isinstance(document, Mapping) or not isinstance(document.get(FIELD), Mapping):
        raise ExchangeError(f'not a backup: no "{FIELD}" field (a plain export is for {plain})')
    fields = document[FIELD]
    edit_token, view_token = fields.get("edit_token"), fields.get("view_token")
    for name, token in (("edit_token", edit_token), ("view_token", view_token)):
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise ExchangeError(f'"{FIELD}": "{name}" is not a token')
    if edit_token == view_token:
        # Restored so, the watch-only link would change the game.
        raise ExchangeError(SAME_TOKENS)
    created_at = exchange.read_moment(fields.get("created_at"))
    if created_at is None:
        raise ExchangeError(f'"{FIELD}": "created_at" is not a date and time {exchange.YEARS}')
    return edit_token, view_token, created_at


def parse_backup(backup: Backup) -> GameDocument:
    """The game of a backup, every round checked as an import checks it (exchange.parse_game),
    and its first dealer one of its players; ExchangeError else."""
    parsed = exchange.parse_game(backup.document)
    if backup.first_dealer >= len(parsed.names):
        raise ExchangeError(f'"{FIELD}": "first_dealer" is not a seat number')
    seats = len(parsed.names)
    if any(dealer is not None and dealer >= seats for dealer in backup.dealers):
        raise ExchangeError(f'"{FIELD}": "dealers" must give each round\'s dealer, a seat')
    if backup.members and len(backup.members) != len(parsed.names):
        raise ExchangeError(f'"{FIELD}": "members" must give each player\'s member, or null')
    first = len(parsed.names)
    if parsed.spans is not None:
        first = sum(span.joins <= 1 for span in parsed.spans)
    _check_seating(backup.seating, len(parsed.names), first)
    return parsed


def restore_table(document: object) -> Table | LeftOut | None:
    """Re-create a backed-up table (backup_table_document) with its tokens and members; None
    when a table with its edit token is already there, DELETED when it was deleted on
    request. Raises ExchangeError, creating nothing, when the document is not a sound table
    backup. Its games are restored from their own files, afterwards."""
    edit_token, view_token, created_at = _links_and_time(document, "import_table")
    if Table.objects.filter(edit_token=edit_token).exists():
        return None
    if DeletedLink.deleted([edit_token, view_token]):
        return DELETED
    taken = _tokens_taken([edit_token, view_token])
    if taken:
        raise ExchangeError(A_GAMES if "game" in taken.values() else TABLE_CLASH)
    if document.get("games"):
        raise ExchangeError('"games": a table\'s backup holds none (each has its own file)')
    parsed = exchange.parse_table(document)
    try:
        with transaction.atomic():
            table = Table.start(
                parsed.name, parsed.members, house_rules=parsed.rules, retired=parsed.retired
            )
            Table.objects.filter(pk=table.pk).update(
                edit_token=edit_token, view_token=view_token, created_at=created_at
            )
    except IntegrityError:
        raise ExchangeError(TABLE_CLASH) from None
    table.refresh_from_db()
    return table


@dataclass(frozen=True)
class TableLinks:
    """The tables the backups of some games name, by edit token, and their members by table
    and name key: what their games and players are linked to."""

    tables: dict[str, int]
    members: dict[tuple[int, str], int]

    @classmethod
    def of(cls, backups: Sequence[Backup]) -> TableLinks:
        """Two queries, or none when no backup names a table (every backup from before)."""
        tokens = {backup.table for backup in backups if backup.table is not None}
        if not tokens:
            return cls({}, {})
        found = dict(Table.objects.filter(edit_token__in=tokens).values_list("edit_token", "pk"))
        members = Member.objects.filter(table__in=found.values()).values_list(
            "table_id", "name_key", "pk"
        )
        return cls(found, {(table, key): pk for table, key, pk in members})

    def table(self, backup: Backup) -> int | None:
        return self.tables.get(backup.table) if backup.table is not None else None

    def member(self, backup: Backup, seat: int) -> int | None:
        table = self.table(backup)
        if table is None or seat >= len(backup.members) or backup.members[seat] is None:
            return None
        return self.members.get((table, rules.name_key(backup.members[seat])))


def restore(document: object) -> Game | LeftOut | None:
    """Re-create a backed-up game with its tokens; None when a game with its edit token is
    already there (restoring twice changes nothing), DELETED when it was deleted on request.
    Raises ExchangeError, creating nothing, when the document is not a sound backup.

    One game through exchange.import_game, round by round: the path restore_batch is held to."""
    backup = read_backup(document)
    if Game.objects.filter(edit_token=backup.edit_token).exists():
        return None
    if DeletedLink.deleted([backup.edit_token, backup.view_token]):
        return DELETED
    taken = _tokens_taken([backup.edit_token, backup.view_token])
    if taken:
        raise ExchangeError(_clash(taken.values()))
    try:
        with transaction.atomic():
            players = len(exchange.parse_names(backup.document.get("players")))
            rounds = backup.document.get("rounds")
            count = len(rounds) if isinstance(rounds, list) else 0
            dealers = [backup.dealer_of(number, players) for number in range(1, count + 1)]
            game = exchange.import_game(document, dealers=dealers)
            if backup.first_dealer >= len(game.names):
                raise ExchangeError(f'"{FIELD}": "first_dealer" is not a seat number')
            first = sum(not player.joined for player in game.seated_players)
            _check_seating(backup.seating, len(game.names), first)
            links = TableLinks.of([backup])
            # update(): created_at is auto_now_add, which save() would not let us set.
            Game.objects.filter(pk=game.pk).update(
                edit_token=backup.edit_token,
                view_token=backup.view_token,
                first_dealer=backup.first_dealer,
                seating=list(backup.seating),
                created_at=backup.created_at,
                table_id=links.table(backup),
            )
            players = game.seated_players
            for player in players:
                player.member_id = links.member(backup, player.seat)
            if any(player.member_id for player in players):
                Player.objects.bulk_update(players, ["member"])
    except IntegrityError:
        raise ExchangeError(CLASH) from None
    game.refresh_from_db()
    return game


def _tokens_taken(tokens: Iterable[str]) -> dict[str, str]:
    """Those of `tokens` that a game or a table here already has, as its edit or its
    watch-only token, each with whose ("game" or "table"; two queries): a game or a table
    restored with one of them would open another's page, or its watch-only link would edit.
    (A game whose edit token is a game's here is restored already: the caller leaves it out
    first, as a table does a table's.)"""
    tokens = set(tokens)
    if not tokens:
        return {}
    taken = {}
    for kind, model in (("table", Table), ("game", Game)):
        rows = model.objects.filter(Q(edit_token__in=tokens) | Q(view_token__in=tokens))
        for pair in rows.values_list("edit_token", "view_token"):
            taken.update(dict.fromkeys(set(pair) & tokens, kind))
    return taken


def _clash(kinds: Iterable[str]) -> str:
    """What a game's backup is refused with when its tokens are those `kinds`' ("game",
    "table")."""
    return CLASH if "game" in kinds else A_TABLES


def restore_batch(
    documents: Sequence[object],
) -> list[Game | ExchangeError | LeftOut | None]:
    """Restore many backups at once, with what restore() would give for each, in order. That
    is the new Game; None for a game already there (an edit token met earlier in the batch
    counts too, as it would have been restored by then); DELETED for one deleted on request;
    or the ExchangeError saying why a document was not restored. Every document is checked as
    restore() checks it.

    The games that pass are stored in one transaction, in bulk. When a token of theirs belongs
    to another game (or to two of them), nothing of the batch is kept and its documents are
    restored again one at a time, so that only the game at fault is refused."""
    if not connection.features.can_return_rows_from_bulk_insert:
        # Bulk inserts that do not give back the new rows' ids: one game at a time.
        return [_restore_or_error(document) for document in documents]
    try:
        return _restore_together(documents)
    except IntegrityError:
        if len(documents) == 1:
            return [ExchangeError(CLASH)]
        return [restore_batch([document])[0] for document in documents]


def _restore_or_error(document: object) -> Game | ExchangeError | LeftOut | None:
    try:
        return restore(document)
    except ExchangeError as error:
        return error


def _restore_together(
    documents: Sequence[object],
) -> list[Game | ExchangeError | LeftOut | None]:
    outcomes: list[Game | ExchangeError | LeftOut | None] = [None] * len(documents)
    backups: dict[int, Backup] = {}
    for index, document in enumerate(documents):
        try:
            backups[index] = read_backup(document)
        except ExchangeError as error:
            outcomes[index] = error
    # As restore() does, a game already there is left alone before its rounds are even read.
    there = set(
        Game.objects.filter(
            edit_token__in={backup.edit_token for backup in backups.values()}
        ).values_list("edit_token", flat=True)
    )
    taken = _tokens_taken(
        token
        for backup in backups.values()
        if backup.edit_token not in there
        for token in (backup.edit_token, backup.view_token)
    )
    deleted = DeletedLink.deleted(
        token for backup in backups.values() for token in (backup.edit_token, backup.view_token)
    )
    checked: list[tuple[int, Backup, GameDocument]] = []
    for index, backup in backups.items():
        if backup.edit_token in there:
            continue
        if {backup.edit_token, backup.view_token} & deleted:
            outcomes[index] = DELETED
            continue
        clash = {taken[token] for token in (backup.edit_token, backup.view_token) if token in taken}
        if clash:
            outcomes[index] = ExchangeError(_clash(clash))
            continue
        try:
            parsed = parse_backup(backup)
        except ExchangeError as error:
            outcomes[index] = error
            continue
        if parsed.come_and_go:  # the rare game whose players came and went: the one-game path
            outcomes[index] = _restore_or_error(backup.document)
            there.add(backup.edit_token)
            taken.update(dict.fromkeys((backup.edit_token, backup.view_token), "game"))
            continue
        there.add(backup.edit_token)
        # A later document of the batch with one of these tokens is another game's.
        taken.update(dict.fromkeys((backup.edit_token, backup.view_token), "game"))
        checked.append((index, backup, parsed))
    if checked:
        with transaction.atomic():
            games = _store([(backup, parsed) for _, backup, parsed in checked])
        for (index, _, _), game in zip(checked, games, strict=True):
            outcomes[index] = game
    return outcomes


def _store(games: Sequence[tuple[Backup, GameDocument]]) -> list[Game]:
    """Checked backups as rows, in a few bulk inserts per table: the same rows as restore()
    makes through Game.start, Game.record_round for each round (past the end of a finished
    game too) and the update of the backup's fields."""
    # Game.start sets the clock in milliseconds, then each record_round moves the version to
    # Game.refresh_standing: one more, and never below the clock. A round in the same millisecond
    # (when the clock has not moved on) leaves the clock plus the number of rounds.
    clock = clock_version()
    links = TableLinks.of([backup for backup, _ in games])
    made = []  # (game, names, rounds and their points)
    for backup, parsed in games:
        names = parsed.names
        target = parsed.rules.target_for(len(names))
        scored = [(entry, entry.points(target, parsed.rules)) for entry in parsed.rounds]
        totals = [sum(points[seat] for _, points in scored) for seat in range(len(names))]
        # What refresh_standing stores after the last round (the defaults when there is none).
        standing = rules.standing(totals, target)
        game = Game(
            edit_token=backup.edit_token,
            view_token=backup.view_token,
            first_dealer=backup.first_dealer,
            target_players=len(names),
            seating=list(backup.seating),
            version=clock + len(scored),
            status=standing.status,
            winner_seat=standing.winner,
            house_rules=parsed.rules,
            table_id=links.table(backup),
        )
        made.append((game, names, scored))
    Game.objects.bulk_create([game for game, _, _ in made], batch_size=ROWS_PER_INSERT)
    # bulk_create gives created_at the time of the insert (auto_now_add): the backup's time
    # goes in afterwards, as restore()'s update() does.
    for (game, _, _), (backup, _) in zip(made, games, strict=True):
        game.created_at = backup.created_at
    Game.objects.bulk_update(
        [game for game, _, _ in made], ["created_at"], batch_size=ROWS_PER_INSERT
    )

    seats = [
        [
            Player(
                game_id=game.pk,
                seat=seat,
                name=name,
                name_key=rules.name_key(name),
                member_id=links.member(backup, seat),
            )
            for seat, name in enumerate(names)
        ]
        for (game, names, _), (backup, _) in zip(made, games, strict=True)
    ]
    Player.objects.bulk_create(
        [player for players in seats for player in players], batch_size=ROWS_PER_INSERT
    )
    rounds = [
        [
            Round(
                game_id=game.pk,
                number=number,
                winner_seat=entry.winner,
                hand_rummy=entry.hand_rummy,
                dealer=backup.dealer_of(number, len(names)),
            )
            for number, (entry, _) in enumerate(scored, 1)
        ]
        for (game, names, scored), (backup, _) in zip(made, games, strict=True)
    ]
    Round.objects.bulk_create(
        [round_ for game_rounds in rounds for round_ in game_rounds], batch_size=ROWS_PER_INSERT
    )

    hands, events = [], []
    for (game, names, scored), players, game_rounds in zip(made, seats, rounds, strict=True):
        for round_, (entry, points) in zip(game_rounds, scored, strict=True):
            hands.extend(
                (round_.pk, player.pk, " ".join(hand.cards), hand.value, hand.opened, point)
                for player, hand, point in zip(players, entry.hands, points, strict=True)
            )
            # What record_round logs: the round as it was stored, in the exchange shape.
            events.append(
                GameEvent(
                    game_id=game.pk,
                    kind=GameEvent.Kind.ADDED,
                    round_id=round_.pk,
                    number=round_.number,
                    after=history_document(entry, names, round_.dealer),
                )
            )
    _insert_hands(hands)
    GameEvent.objects.bulk_create(events, batch_size=ROWS_PER_INSERT)
    return [game for game, _, _ in made]


HAND_COLUMNS = ("round", "player", "cards", "value", "opened", "points")


def _insert_hands(rows: list[tuple]) -> None:
    """The hands, four for every round, in one prepared INSERT run for every row: a third of a
    restore's time went into bulk_create building model objects and SQL for them. The values
    are checked already (they passed the rules and make the same rows: tests/test_backup.py)."""
    quote = connection.ops.quote_name
    fields = [Hand._meta.get_field(name) for name in HAND_COLUMNS]
    sql = "INSERT INTO {} ({}) VALUES ({})".format(  # noqa: S608 (names from the model)
        quote(Hand._meta.db_table),
        ", ".join(quote(field.column) for field in fields),
        ", ".join(["%s"] * len(fields)),
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # PostgreSQL's COPY: the rows streamed in one command, no statement per row.
            copy = "COPY {} ({}) FROM STDIN".format(
                quote(Hand._meta.db_table), ", ".join(quote(field.column) for field in fields)
            )
            with cursor.cursor.copy(copy) as stream:
                for row in rows:
                    stream.write_row(row)
        else:
            cursor.executemany(sql, rows)
