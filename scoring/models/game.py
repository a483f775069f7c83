"""A game, reached by its edit link or its view link: what it is, how it starts, its lock
(_changing) and its standing; what a phone showing an older version lacks (changes_since), and
one read of the database for a page (snapshot). Its changes are by concern: rounds
(game_rounds.py), seats and names (game_seats.py), players who come and go
(game_players.py), the Undo (game_undo.py), each run inside the one lock."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, cached_property

from django.db import connection, models, transaction
from django.db.models import F, Sum
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from scoring import rules
from scoring.models.common import Columns, RulesField, Status, _locked, new_token
from scoring.models.deleted import DeletedLink
from scoring.models.game_players import ComingAndGoing
from scoring.models.game_rounds import RoundChanges
from scoring.models.game_seats import SeatChanges
from scoring.models.game_undo import Undo
from scoring.models.rounds import (
    GameEvent,
    Hand,
    Player,
    Round,
    total_after_return,
)


@dataclass(frozen=True)
class Changes:
    """What a phone showing one version of a game needs to show it as it is now
    (Game.changes_since). `what` is NOTHING (it shows the game as it is), ROUNDS (only rounds
    changed: the totals, the banners and the rows make the page fresh again) or EVERYTHING
    (the whole board). `latest` is the latest change to the rounds, which the banners tell of
    (ROUNDS only)."""

    NOTHING = "nothing"
    ROUNDS = "rounds"
    EVERYTHING = "everything"

    what: str
    latest: GameEvent | None = None


# The tables and columns that _plain_rows's statements name, quoted by name.
_COLUMNS = (
    "id",
    "game_id",
    "round_id",
    "player_id",
    "number",
    "winner_seat",
    "hand_rummy",
    "revision",
    "cards",
    "value",
    "opened",
    "points",
    "version",
    "kind",
    "phone",
    "created_at",
    "dealer",
)


def _plain_rows(sql: str, params: Sequence) -> list[tuple]:
    """The rows of a statement in plain SQL, its table and column names ({round}, {number})
    quoted for the database. For the reads of every page view and live update: the ORM's
    building of the query and its per-value conversions cost three times the query itself
    (bench/in_process.py), as for current_version."""
    quote = connection.ops.quote_name
    names = {name: quote(name) for name in _COLUMNS}
    for table, model in (("round", Round), ("hand", Hand), ("event", GameEvent)):
        names[table] = quote(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql.format(**names), params)
        return cursor.fetchall()


class Game(RoundChanges, SeatChanges, ComingAndGoing, Undo, models.Model):
    """One game of Rami at one table, reached by its edit link or its view link."""

    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Grows with every change, so that a phone can ask cheaply whether anything is new. Never
    # below the clock in milliseconds (clock_version): a game restored from a backup or imported
    # starts above every number a phone or a cache has seen of it before.
    version = models.BigIntegerField(default=0)
    # The seat that dealt the first round; the deal moves one seat each round.
    first_dealer = models.PositiveSmallIntegerField(default=0)
    # Changes to the deal made during the game, oldest first: from round `from` on, seat
    # `dealer` deals, then the deal moves along `order` (every seat once). Rounds before a
    # change keep their dealers: [] for a game whose deal moved one seat each round throughout.
    seating = models.JSONField(default=list, blank=True)
    # How many played the first round: the target stays theirs when players come and go.
    # None for a game saved by a release before this was kept: all of its players.
    target_players = models.PositiveSmallIntegerField(null=True, blank=True)
    # Kept in step with the rounds by refresh_standing(), so that lists need no totals.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rules this game plays by (docs/formats.md); stored as what differs from the seeds'.
    house_rules = RulesField()
    # The rematch of this game, made once: every later tap, and every watcher, goes there.
    next_game = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="previous_game"
    )
    # The table (group) this game was played at, if any (docs/at-the-table.md, tables).
    table = models.ForeignKey(
        "Table", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )

    class Meta:
        ordering = ["-created_at"]
        # The live reader reads what moved since a version (scoring/live/reader.py): a range.
        indexes = [models.Index(fields=["version"], name="scoring_game_version")]

    # What a change in progress knows of itself, on the locked copy that _changing yields:
    # whether it changed anything (log() says so), and the version it will give the game.
    changed = False
    next_version = 0

    def __str__(self) -> str:
        return ", ".join(self.names)

    # Reading

    @classmethod
    def current_version(cls, token_field: str, token: str) -> int | None:
        """The version of the game with this edit or view token, or None: what every phone's
        poll asks every 2 s. In plain SQL on the unique index: building the query with the ORM
        cost as much as all the rest of an unchanged poll (bench/RESULTS.md)."""
        if token_field not in ("edit_token", "view_token"):
            raise ValueError(token_field)
        quote = connection.ops.quote_name
        sql = (
            f"SELECT {quote('version')} FROM {quote(cls._meta.db_table)} "  # noqa: S608
            f"WHERE {quote(token_field)} = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [token])
            row = cursor.fetchone()
        return row[0] if row else None

    @classmethod
    def with_players(cls, **lookup: str) -> Game:
        """The game found by `lookup` (edit_token=..., view_token=... or pk=...) with its
        players and its table (None for most), in one query: what every request reads first.
        Written in SQL and made into models as the ORM makes them (models.common.Columns): the
        ORM's query cost ten times the query itself. Game.DoesNotExist when there is none (a
        game always has players)."""
        ((field, token),) = lookup.items()
        field = {"pk": "id"}.get(field, field)
        if field not in ("edit_token", "view_token", "id"):
            raise ValueError(field)
        found = _read_with_players(field, token)
        if found is None:
            raise cls.DoesNotExist
        return found

    @cached_property
    def seated_players(self) -> list[Player]:
        """The players in seat order, read once (with_players reads them with the game)."""
        return list(self.players.order_by("seat"))

    @property
    def names(self) -> list[str]:
        return [player.name for player in self.seated_players]

    @property
    def rules(self) -> rules.Rules:
        """The rules this game plays by: the seeds', with its house rules on top."""
        return self.house_rules

    @property
    def playing(self) -> list[Player]:
        """The players still playing (not those who left), in seat order."""
        return [player for player in self.seated_players if not player.left]

    @property
    def target(self) -> int:
        """The target of the players of the first round, or, before it, of those
        who play."""
        players = self.target_players or len(self.playing) or len(self.seated_players)
        return self.rules.target_for(min(max(players, rules.MIN_PLAYERS), rules.MAX_PLAYERS))

    def totals(self) -> list[int]:
        """Each player's total in seat order (the total they joined with, and their points),
        in one aggregate query."""
        rows = (
            self.players.order_by("seat")
            .annotate(total=Coalesce(Sum("hands__points"), 0))
            .values_list("start", "total", "seat", "returns")
        )
        # One who came back counts on from the total they came back with (one query more).
        return [
            total_after_return(self.pk, seat, returns) if returns else start + points
            for start, points, seat, returns in rows
        ]

    def changes_since(
        self, seen: int | None, all_rounds: bool = False, status_shown: str = Status.PLAYING
    ) -> Changes:
        """What changed since the version `seen` that a phone shows (None when it tells none),
        with its status `status_shown` and every round when `all_rounds` ("Show all"). One
        indexed query of the history (with the count of the rounds) answers NOTHING, ROUNDS
        when the rounds alone changed (added, edited, corrected, deleted or restored), or
        EVERYTHING.

        EVERYTHING (the whole board) whenever the rows alone would not make the page fresh.
        The phone shows no version of the history, or every round (every row would be sent), or
        a finished game. A player was renamed, or the seats or the dealer changed (the heading
        names the dealer). The game finished (the round entry becomes the rematch) or was
        rematched (the version moved, the history did not). The page had no round table, or
        would have none now (a first round, or the last one deleted). The next round has
        crossed a change of seats kept for a later round (its form's order is another)."""
        if seen == self.version:
            return Changes(Changes.NOTHING)
        everything = Changes(Changes.EVERYTHING)
        if seen is None or all_rounds or self.status == Status.FINISHED:
            return everything
        if status_shown not in (Status.PLAYING, Status.TIE_BREAK):
            return everything
        events = _plain_rows(
            "SELECT {version}, {kind}, {id}, {number}, {phone},"
            " (SELECT COUNT(*) FROM {round} WHERE {round}.{game_id} = %s)"
            " FROM {event} WHERE {event}.{game_id} = %s AND {version} >= %s"
            " ORDER BY {version}, {id}",
            [self.pk, self.pk, seen],
        )
        if len(events) < 2 or events[0][0] != seen or events[-1][0] != self.version:
            return everything
        later = [event[1] for event in events[1:]]
        if any(kind not in GameEvent.ROUND_CHANGES for kind in later):
            return everything
        _version, kind, pk, number, phone, rounds = events[-1]
        came = sum(kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED) for kind in later)
        went = later.count(GameEvent.Kind.DELETED)
        if rounds == 0 or rounds - came + went == 0:
            return everything
        # A change of seats kept for a later round (rounds deleted since it was made) that
        # the next round has reached, or left, since: the round form's order is another.
        low, high = sorted((rounds + 1, rounds - came + went + 1))
        if any(low < change["from"] <= high for change in self.seating):
            return everything
        latest = GameEvent(pk=pk, game=self, kind=kind, number=number, phone=phone)
        return Changes(Changes.ROUNDS, latest=latest)

    def latest_round_change(self) -> GameEvent | None:
        """The latest change to the rounds (a rename does not count), with what the banners
        and the Undo tell of it (its kind, round, round number and phone). One query."""
        kinds = ", ".join(["%s"] * len(GameEvent.ROUND_CHANGES))
        found = _plain_rows(
            "SELECT {id}, {kind}, {round_id}, {number}, {phone} FROM {event}"  # noqa: S608
            f" WHERE {{game_id}} = %s AND {{kind}} IN ({kinds})"
            " ORDER BY {created_at} DESC, {id} DESC LIMIT 1",
            [self.pk, *GameEvent.ROUND_CHANGES],
        )
        if not found:
            return None
        pk, kind, round_id, number, phone = found[0]
        return GameEvent(pk=pk, game=self, kind=kind, round_id=round_id, number=number, phone=phone)

    def stored_rounds(self) -> list[tuple]:
        """Every round of the game with its hands, as stored, in round order, in one query. One
        row a hand: the round's id, number, winner seat, hand rummy and revision; the hand's
        player id, cards, value, opened and points (None for a round without hands); the
        round's dealer. Booleans as the database gives them (0 and 1 on SQLite)."""
        rows = _plain_rows(
            "SELECT {round}.{id}, {number}, {winner_seat}, {hand_rummy}, {revision},"
            " {player_id}, {cards}, {value}, {opened}, {points}, {dealer}"
            " FROM {round} LEFT OUTER JOIN {hand} ON {hand}.{round_id} = {round}.{id}"
            " WHERE {round}.{game_id} = %s ORDER BY {number}, {player_id}",
            [self.pk],
        )
        if any(row[10] is None for row in rows):
            stored = {row[0]: row[10] for row in rows}  # a round's rows are together, in order
            dealers = dict(zip(stored, self._dealt(list(stored.values())), strict=True))
            rows = [(*row[:10], dealers[row[0]]) for row in rows]
        return rows

    def played_now(self) -> Game:
        """The game its players play now: the newest of this game's rematches (a rematch of a
        rematch, ...), or this game when it has none. One query a rematch."""
        game = self
        while game.next_game_id is not None:
            game = game.next_game
        return game

    # Creating

    @classmethod
    def start(
        cls,
        names: Sequence[str],
        first_dealer: int = 0,
        house_rules: rules.Rules | None = None,
        table_id: int | None = None,
        members: Sequence[int | None] | None = None,
        starts: Sequence[int] | None = None,
    ) -> Game:
        """A new game for these players (names already checked with rules.check_names), played
        by `house_rules` (None: none, the players' documents' rules). At the table `table_id`
        (its models.Table.new_game), each player the member of `members` in seat order (an
        id; None for a guest)."""
        members = members or [None] * len(names)
        starts = starts or [0] * len(names)
        with transaction.atomic():
            game = cls.objects.create(
                first_dealer=first_dealer % len(names),
                version=clock_version(),
                house_rules=house_rules or {},
                table_id=table_id,
                target_players=len(names),
            )
            Player.objects.bulk_create(
                Player(
                    game=game,
                    seat=seat,
                    name=name,
                    name_key=rules.name_key(name),
                    member_id=member,
                    start=start,
                )
                for seat, (name, member, start) in enumerate(
                    zip(names, members, starts, strict=True)
                )
            )
        return game

    def rematch(
        self,
        house_rules: rules.Rules | None = None,
        seats: Sequence[int] | None = None,
        added: Sequence[str] = (),
        added_members: Sequence[int | None] = (),
    ) -> Game:
        """The next game, made by the first tap; every later tap, on any phone, gets the same
        game. Its players are those at `seats` (None: those still playing at the end). They sit
        in the order the deal went round at the end of this one, and the deal moves on from
        where it stopped. After them come the names `added`, each the member of `added_members`
        at that place, else a guest. It plays by `house_rules`, else by this game's rules.
        Only a finished game has one (Conflict "game_not_finished"); the names are checked as
        a new game's are (RulesError: 2 to 6 players, no name twice).

        A table's game is rematched by its table (models.rematch, Table.rematch), which
        takes its lock first and gives the rules of its next games: ValueError without them.
        The rematch is then the table's too, each player the member they were (a guest stays
        a guest), so that the table's standings count it like the games started there."""
        if self.table_id is not None and house_rules is None:
            raise ValueError("a table's game is rematched by its table (models.rematch)")
        with self._changing() as game:
            if game.next_game_id is not None:
                return game.next_game
            if game.status != Status.FINISHED:
                raise rules.Conflict(rules.Code.GAME_NOT_FINISHED)
            # The players chosen, seated as the deal went round at the end (seat order,
            # unless change_seating changed it), the deal moving on from there to the next
            # of them; the new names after them.
            deal = game.next_deal(*game.last_dealer())
            chosen = {p.seat for p in game.playing} if seats is None else set(seats)
            order = [seat for seat in deal.order if seat in chosen]
            players = [game.seated_players[seat] for seat in order]
            names = rules.check_names([player.name for player in players] + list(added))
            first_dealer = 0
            if order:
                dealer = deal.dealer
                if dealer not in chosen:
                    dealer = rules.next_dealer(deal.order, dealer, chosen)
                first_dealer = order.index(dealer)
            members = [player.member_id for player in players]
            members += list(added_members) or [None] * len(added)
            next_game = Game.start(
                names,
                first_dealer=first_dealer,
                house_rules=game.rules if house_rules is None else house_rules,
                table_id=game.table_id,
                members=members,
            )
            game.next_game = next_game
            game.save(update_fields=["next_game"])
            # Every phone on this game, watchers too, is shown the way to the next one.
            game.changed = True
        return next_game

    def join_table(self, table_id: int, members: Sequence[int]) -> None:
        """Make this game one of the table `table_id`'s, each player (in seat order) the
        member of `members` (an id): what keeping a game at a table does to each game
        (models.Table.keep_game). Its version moves on, so that every phone on it learns
        where it is kept."""
        with self._changing() as game:
            Game.objects.filter(pk=game.pk).update(table=table_id)
            players = game.seated_players
            for player, member in zip(players, members, strict=True):
                player.member_id = member
            Player.objects.bulk_update(players, ["member"])
            game.changed = True
        self.table_id = table_id

    # Deleting on request (docs/deploy.md, "Privacy")

    def delete_on_request(self) -> None:
        """Delete this game for good, with its history; its links are remembered, so that no
        restore of an older backup brings it back unless asked to. A game at a table is deleted
        by its table (models.delete_game), which locks the table first."""
        with _locked(self) as game:
            DeletedLink.remember(DeletedLink.Kind.GAME, game.edit_token, game.view_token)
            game.delete()

    @classmethod
    def leave_table(cls, table_id: int) -> None:
        """The games of the table `table_id` are kept at no table any more (the table is
        deleted); their versions move on, so that every phone on them is told."""
        cls.objects.filter(table_id=table_id).update(
            table=None, version=Greatest(F("version") + 1, clock_version())
        )

    # Changing: every method locks the game, stores the engine's points, keeps history.

    @contextmanager
    def _changing(self) -> Iterator[Game]:
        """The one shape of every change (_locked, as a table's): a transaction, the game locked
        and read again, so that every check sees what the other phones did. When something
        changed (`changed`, set by log()), its standing and version are brought up to date and
        copied to this object. A resent form changes nothing, not even the version."""
        with _locked(self) as game:
            # The players as this object read them, unless a change came in between: that one
            # may have renamed a player, and what this change writes (a round's document) must
            # name the players as they are called now. Read again then, under the lock.
            if game.version == self.version:
                game.seated_players = self.seated_players
            game.changed = False
            # The version this change will give the game (refresh_standing stores it), known
            # before the change so that its events can say it.
            game.next_version = max(game.version + 1, clock_version())
            yield game
            if game.changed:
                game.refresh_standing()
        for name in ("version", "status", "winner_seat", "next_game_id", "updated_at", "seating"):
            setattr(self, name, getattr(game, name))
        self.seated_players = game.seated_players

    def log(self, kind: str, round_: Round | None, **fields) -> GameEvent:
        self.changed = True
        fields.setdefault("number", round_.number if round_ else None)
        return GameEvent.objects.create(
            game=self, kind=kind, round=round_, version=self.next_version, **fields
        )

    def refresh_standing(self) -> rules.Standing:
        """Store the status that the totals give, and move the version on to the one _changing
        worked out under the lock: one more, and never below the clock (clock_version)."""
        playing = [player.seat for player in self.playing]
        standing = rules.standing(self.totals(), self.target, playing)
        self.status = standing.status
        self.winner_seat = standing.winner
        self.version = self.next_version
        self.updated_at = timezone.now()
        Game.objects.filter(pk=self.pk).update(
            status=self.status,
            winner_seat=self.winner_seat,
            version=self.version,
            updated_at=self.updated_at,
        )
        return standing


@cache
def _read_together() -> tuple[Columns, Columns, Columns]:
    """The columns of a player, their game and its table, as Game.with_players reads them."""
    return Columns(Player), Columns(Game), Columns(Game._meta.get_field("table").related_model)


@cache
def _with_players_sql(vendor: str, field: str) -> str:
    """Game.with_players's query by `field`, written once for the database's kind."""
    players, games, tables = _read_together()
    quote = connection.ops.quote_name
    player, game, table = (quote(read.model._meta.db_table) for read in (players, games, tables))
    return (
        f"SELECT {players.select(connection)}, {games.select(connection)},"  # noqa: S608
        f" {tables.select(connection)} FROM {player}"
        f" INNER JOIN {game} ON {player}.{quote('game_id')} = {game}.{quote('id')}"
        f" LEFT OUTER JOIN {table} ON {game}.{quote('table_id')} = {table}.{quote('id')}"
        f" WHERE {game}.{quote(field)} = %s ORDER BY {player}.{quote('seat')}"
    )


def _read_with_players(field: str, token: object) -> Game | None:
    """Game.with_players's query: the game whose `field` is `token`, or None."""
    players, games, tables = _read_together()
    with connection.cursor() as cursor:
        cursor.execute(_with_players_sql(connection.vendor, field), [token])
        rows = cursor.fetchall()
    if not rows:
        return None
    split = len(players.fields), len(players.fields) + len(games.fields)
    found = games.make(rows[0][split[0] : split[1]], connection)
    found.table = tables.make(rows[0][split[1] :], connection) if found.table_id else None
    found.seated_players = []
    for row in rows:
        seated = players.make(row[: split[0]], connection)
        seated.game = found
        found.seated_players.append(seated)
    return found


@contextmanager
def snapshot() -> Iterator[None]:
    """Every read inside sees the database at one moment. A page or a live update reads the
    game's version, its history, its totals and its rows one after the other. No page may
    mix two states: a round saved between two reads would be counted in one and missing from the
    next. PostgreSQL: one REPEATABLE READ, READ ONLY transaction. SQLite (in WAL mode): one
    deferred read transaction, which takes no lock that a save waits for (Django's own would:
    the settings ask for IMMEDIATE). Inside a transaction already (a change, or a test's),
    that one holds."""
    if connection.in_atomic_block or connection.vendor not in ("postgresql", "sqlite"):
        yield
        return
    if connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield
        return
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("BEGIN DEFERRED")
    try:
        yield
    finally:
        # Nothing was written: ending the read is all there is to do, whatever happened.
        if connection.connection is not None and connection.connection.in_transaction:
            connection.connection.rollback()


def clock_version() -> int:
    """The clock in ms: no version is below it, so it grows even across a delete and restore."""
    return time.time_ns() // 1_000_000
