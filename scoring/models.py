"""Games, their players, rounds and hands, and the history of every change; tables (a group's
games, SPEC 2.5) and their members.

A round is recorded, edited, deleted and restored only through the `Game` methods below, each in
one transaction with the game locked, the points computed by `scoring.rules` and stored. The web
views and the importer both go through them. A table changes the same way, through its own
methods (`Table.start` as `Game.start`, `new_game`, `keep_game`, `rename_member`, ...), each with
the table locked; both take their lock through one helper (_locked). Reading a table's numbers is
scoring/tables.py's.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import cached_property

from django.db import connection, models, transaction
from django.db.models import Count, F, Max, OuterRef, Q, Subquery, Sum
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce
from django.db.models.query_utils import DeferredAttribute
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import rules
from .rules import RoundEntry

TOKEN_BYTES = 24  # 192 bits, 32 URL-safe characters
# What a link takes for a token: new_token's characters, and room for a backup's older ones.
TOKEN_PATTERN = "[A-Za-z0-9_-]{22,64}"  # noqa: S105


def new_token() -> str:
    """A random, URL-safe token that never starts with "-", so that a command line never
    takes it for an option (`manage.py export_game TOKEN`)."""
    while (token := secrets.token_urlsafe(TOKEN_BYTES)).startswith("-"):
        pass
    return token


class _RulesAttribute(DeferredAttribute):
    """Whatever is put into a RulesField, its model's attribute holds a rules.Rules: a new
    object's default ({}) and the stored changes too."""

    def __set__(self, instance, value) -> None:
        if isinstance(value, Mapping):
            value = rules.Rules(**value)
        instance.__dict__[self.field.attname] = value


class RulesField(models.JSONField):
    """House rules (SPEC 2.4) as one rules.Rules value, stored as the values that differ from
    the seeds' (Rules.changes()): {} for a game or a table that plays by the players'
    documents, every game stored before house rules among them. RulesError when the stored
    values are not rules."""

    descriptor_class = _RulesAttribute

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("default", dict)
        kwargs.setdefault("blank", True)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        # What the column holds is a plain JSON object: migrations know it as a JSONField, and
        # a historical model (in a data migration) reads the changes as they are stored.
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs

    def from_db_value(self, value, expression, connection):
        value = super().from_db_value(value, expression, connection)
        # One value of the rules read on its own (house_rules__joker) stays that value.
        if isinstance(expression, KeyTransform) or not isinstance(value, Mapping):
            return value
        return rules.Rules(**value)

    def get_prep_value(self, value):
        if isinstance(value, rules.Rules):
            value = value.changes()
        return super().get_prep_value(value)

    def value_from_object(self, obj):
        """The stored changes, for a form (the admin's) and a serializer (dumpdata)."""
        value = super().value_from_object(obj)
        return value.changes() if isinstance(value, rules.Rules) else value

    def validate(self, value, model_instance) -> None:
        if isinstance(value, rules.Rules):
            value = value.changes()
        super().validate(value, model_instance)


class Status(models.TextChoices):
    PLAYING = "playing", _("Playing")
    TIE_BREAK = "tie_break", _("Tie-break round")
    FINISHED = "finished", _("Finished")


# The most members a table may have, and the longest name a table may have.
MAX_MEMBERS = 30
MAX_TABLE_NAME_LENGTH = 60


@contextmanager
def _locked[Row: models.Model](row: Row) -> Iterator[Row]:
    """The one shape of every change, a game's (Game._changing) as a table's
    (Table._changing): in a transaction, the row locked and read again, so that what the change
    checks (the next round's number, a name that is free, the number of members) sees what the
    other phones did, and holds until the change is made."""
    with transaction.atomic():
        yield type(row).objects.select_for_update().get(pk=row.pk)


class Table(models.Model):
    """A group that plays together week after week (SPEC 2.5): its members, its games and
    their standings across games, reached like a game by an edit link and a view link.

    Its games are ordinary games (`Game.table`), whose players are its members
    (`Player.member`) or guests (no member). A table changes only through the methods below,
    as a game does: each under the table's lock (_changing), so that its checks (unique names,
    at most MAX_MEMBERS members) see what the other phones did, and a clash is a RulesError,
    never the database's unique constraint; each game it changes through the game's own
    methods. Locks are taken in one order: the table, then its games in the order of their ids
    (_lock_games), then their players and members; two changes that need the same rows then
    wait in turn instead of each holding what the other waits for (PostgreSQL answers that
    with "deadlock detected").

    One rule keeps a table's people apart: within a table a name key (rules.name_key) is one
    person, a member's or a guest's, never both. So a name typed for a new game that is a
    member's is that member, a guest who joins becomes the member in the games they played as
    a guest, and a member cannot be renamed to a guest's name. The exchange (rami-table/1)
    can then link players to members by name alone."""

    name = models.CharField(max_length=MAX_TABLE_NAME_LENGTH)
    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    # The house rules of the table's new games (SPEC 2.4), as Game.house_rules keeps them.
    house_rules = RulesField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    # Reading

    @property
    def rules(self) -> rules.Rules:
        """The rules the table's new games play by: the seeds', with its house rules on top."""
        return self.house_rules

    @staticmethod
    def check_name(name: str) -> str:
        """A table's name, cleaned and checked as a player's is, up to MAX_TABLE_NAME_LENGTH."""
        return rules.check_name(name, MAX_TABLE_NAME_LENGTH)

    def deal_follows_on(self, keys: Sequence[str]) -> int:
        """The seat, among today's players (by name key, in seat order), that deals first: the
        deal follows on from the table's last game. The player who would have dealt its next
        round deals first, as in a rematch; if they do not play today, the next player after
        them at that game who does; if nobody from that game plays today (or the table has no
        game), seat 0."""
        last = self.games.order_by("-created_at", "-pk").annotate(rounds_played=Count("rounds"))
        last = last.first()
        if last is None:
            return 0
        seated = list(last.players.order_by("seat").values_list("name_key", flat=True))
        next_dealer = last.dealer_for(last.rounds_played + 1, len(seated))
        for step in range(len(seated)):
            key = seated[(next_dealer + step) % len(seated)]
            if key in keys:
                return list(keys).index(key)
        return 0

    # Creating

    @classmethod
    def start(
        cls, name: str, members: Sequence[str], house_rules: rules.Rules | None = None
    ) -> Table:
        """A new table named `name` with these members (in this order), whose new games play
        by `house_rules` (None: none, the players' documents' rules). RulesError when a name
        is wrong: a member's error carries the member's index as its `player`
        (rules.check_names)."""
        name = cls.check_name(name)
        members = rules.check_names(members, members_at_most=MAX_MEMBERS)
        with transaction.atomic():
            table = cls.objects.create(name=name, house_rules=house_rules or {})
            Member.objects.bulk_create(
                Member(table=table, name=member, name_key=rules.name_key(member), position=position)
                for position, member in enumerate(members)
            )
        return table

    def new_game(
        self,
        players: Sequence[Member | NewMember | str],
        first_dealer: int | None = None,
    ) -> Game:
        """A new game of the table, its players seated in this order: a `Member` of the table;
        a `NewMember(name)`, who joins the table first; or a `str`, a guest (who plays without
        joining). A name that is already a member's (by name key), given either way, is that
        member. The table's house rules apply.

        The first dealer is `first_dealer` (a seat) when given; else the deal follows on from
        the table's last game (deal_follows_on). RulesError as Game's start form gives it: 2
        to 6 players ("player_count"), a guest's name ("name_empty", ...), the same person
        twice ("name_duplicate", naming the second seat); "member_count" when a new member is
        one too many. ValueError for a member of another table (a caller's mistake, not a
        player's)."""
        for player in players:
            if isinstance(player, Member) and player.table_id != self.pk:
                raise ValueError(f"{player} is not a member of {self}")
        # Checked as a game's names are, before anything is made.
        names = rules.check_names(
            [
                player.name if isinstance(player, Member | NewMember) else player
                for player in players
            ]
        )
        with self._changing():
            joining = [
                name
                for name, player in zip(names, players, strict=True)
                if isinstance(player, NewMember)
            ]
            self._members_for(joining)
            members = {member.name_key: member for member in self.members.all()}
            seated = [members.get(rules.name_key(name)) for name in names]
            # A member plays under the member's name, whatever spelling was typed.
            names = [
                member.name if member else name for name, member in zip(names, seated, strict=True)
            ]
            if first_dealer is None:
                first_dealer = self.deal_follows_on([rules.name_key(name) for name in names])
            game = Game.start(names, first_dealer=first_dealer, house_rules=self.rules)
            self._seat(game, [member.pk if member else None for member in seated])
            Table.objects.filter(pk=self.pk).update(updated_at=timezone.now())
        return game

    # Changing: every method locks the table first (_changing).

    def _changing(self) -> AbstractContextManager[Table]:
        """The one shape of every change to a table (_locked), as Game._changing is a game's.
        Inside, the games it changes are locked in the order of their ids (_lock_games), and
        their players and members after them."""
        return _locked(self)

    def add_member(self, name: str) -> Member:
        """A new member of the table, listed last; the same member when the name is already
        one (by name key). A guest of the table's games with this name becomes the member in
        those games. RulesError for a wrong name or a table that has MAX_MEMBERS already."""
        name = rules.check_name(name)
        with self._changing():
            return self._members_for([name])[0]

    def _members_for(self, names: Sequence[str]) -> list[Member]:
        """The member of each (checked) name: an existing one by name key, or a new one made
        in order, each taking over the guest players of its name in the table's games. Called
        under the table's lock (_changing): the members read here are all there are."""
        with transaction.atomic():
            existing = {member.name_key: member for member in self.members.all()}
            new = []
            for name in names:
                key = rules.name_key(name)
                if key not in existing:
                    existing[key] = Member(table=self, name=name, name_key=key)
                    new.append(existing[key])
            if not new:
                return [existing[rules.name_key(name)] for name in names]
            if len(existing) > MAX_MEMBERS:
                raise rules.RulesError("member_count", count=len(existing), limit=MAX_MEMBERS)
            last = self.members.aggregate(last=Max("position"))["last"]
            for position, member in enumerate(new, 0 if last is None else last + 1):
                member.position = position
            Member.objects.bulk_create(new)
            for member in new:
                Player.objects.filter(
                    game__table=self, member=None, name_key=member.name_key
                ).update(member=member)
            Table.objects.filter(pk=self.pk).update(updated_at=timezone.now())
        return [existing[rules.name_key(name)] for name in names]

    def _seat(self, game: Game, members: Sequence[int | None]) -> None:
        """Make `game` one of the table's, each player (in seat order) linked to their member
        (an id; None for a guest): the one way a game comes to a table, whether started
        there, kept there or a rematch of one of its games. It writes the game and its
        players, not the table's row: a rematch holds its game's lock, and a lock on the
        table taken after a game's would break the order of every table's change."""
        Game.objects.filter(pk=game.pk).update(table=self)
        # The id only: `self` may be a table known by its id alone (Game.rematch).
        game.table_id = self.pk
        players = game.seated_players
        for player, member in zip(players, members, strict=True):
            player.member_id = member
        Player.objects.bulk_update(players, ["member"])

    def keep_game(self, game: Game) -> Table:
        """Keep `game` (typically finished) at this table. Each player becomes the member of
        their name (by name key), new members made as needed. Keeping a game twice at its
        table changes nothing (a second tap); keeping one at another table is refused
        ("game_at_another_table"). The game's version moves on, so that every phone on it
        learns where it is kept.

        The games of its rematch chain (the games it was a rematch of, and its rematches, the
        same players) that are at no table are kept there too: the evening's games stay
        together whichever of them the group keeps."""
        return Table._keep(self, game, None)

    @classmethod
    def keep_together(cls, game: Game, name: str | None = None) -> Table:
        """Keep `game` as keep_game does at a new table named `name` (the players' names when
        None), whose members are the game's players and whose house rules are the game's. But
        when a game of its rematch chain is kept already (another phone kept it, maybe at this
        very moment), at that table: two phones keeping a game and its rematch at once make
        one table, the second joining the first's."""
        return cls._keep(None, game, name)

    @classmethod
    def _keep(cls, table: Table | None, game: Game, name: str | None) -> Table:
        """keep_game at `table`, or keep_together when None."""
        if game.table_id is not None:
            if table is None or table.pk == game.table_id:
                return game.table
            raise rules.RulesError("game_at_another_table")
        chain = _rematch_chain(game)
        games = Game.objects.filter(pk__in=[other.pk for other in chain])
        kept_at = (
            table.pk if table is not None else _kept_at(game, games.values_list("pk", "table_id"))
        )
        while True:
            with transaction.atomic():
                # The table first, then the chain's games: the order of every table's change.
                at = cls.objects.select_for_update().get(pk=kept_at) if kept_at else None
                table_of = dict(
                    games.select_for_update().order_by("pk").values_list("pk", "table_id")
                )
                if table is not None:
                    if table_of[game.pk] not in (None, table.pk):
                        raise rules.RulesError("game_at_another_table")
                elif _kept_at(game, table_of.items()) != kept_at:
                    # Kept by another phone since we looked: its table is locked first, then
                    # the games again. A game is kept once, so this happens once or twice at
                    # most.
                    kept_at = _kept_at(game, table_of.items())
                    continue
                for other in chain:
                    if table_of[other.pk] is not None:
                        continue
                    with other._changing() as changing:
                        if at is None:
                            at = cls.start(
                                _name_from(changing.names) if name is None else name,
                                changing.names,
                                house_rules=changing.rules,
                            )
                        members = at._members_for(changing.names)
                        at._seat(changing, [member.pk for member in members])
                        # The table is locked (or new) already: its row may be written.
                        Table.objects.filter(pk=at.pk).update(updated_at=timezone.now())
                        changing.changed = True
            game.table = at
            return at

    def rename_member(self, member: Member, name: str) -> None:
        """Rename a member, and their player in every game of the table, each game through
        its own rename (Game._rename_players, under the game's lock): its version moves on and
        its history says who was renamed. Refused (RulesError "name_taken") when another
        member, or a guest in one of the table's games, has the name (by name key); the name
        itself is checked as a player's is. All or nothing: one transaction, under the table's
        lock. ValueError for a member of another table (a caller's mistake)."""
        if member.table_id != self.pk:
            raise ValueError(f"{member} is not a member of {self}")
        name = rules.check_name(name)
        key = rules.name_key(name)
        with self._changing():
            member = Member.objects.get(pk=member.pk)
            if key != member.name_key and (
                self.members.filter(name_key=key).exists()
                or Player.objects.filter(game__table=self, member=None, name_key=key).exists()
            ):
                raise rules.RulesError("name_taken")
            _lock_games(member.players.values("game_id"))
            member.name = name
            member.save()
            for player in member.players.select_related("game").order_by("game_id"):
                player.game._rename_players({player.seat: name})
            Table.objects.filter(pk=self.pk).update(updated_at=timezone.now())

    def rename_players(
        self,
        game: Game,
        names: Mapping[int, str],
        seen: Mapping[int, str] | None = None,
        phone: str = "",
    ) -> list[int]:
        """Rename players of one of the table's games (Game.rename_players comes here): a
        member's new name is the member's, in every game of the table (rename_member), so
        that a member keeps one name; a guest is renamed in this game only. The seats
        renamed. All or nothing, under the table's lock, every game of this game's members
        locked before this one changes (the order of _changing), so that two phones renaming
        on two games never deadlock."""
        with self._changing():
            members = game.players.filter(member__isnull=False).values("member_id")
            _lock_games(Player.objects.filter(member__in=members).values("game_id"))
            renamed = game._rename_players(names, seen=seen, phone=phone)
            members = game.players.filter(seat__in=renamed, member__isnull=False)
            for player in members.select_related("member").order_by("seat"):
                self.rename_member(player.member, player.name)
        return renamed


@dataclass(frozen=True)
class NewMember:
    """A name for Table.new_game that joins the table as a member (a plain str plays as a
    guest)."""

    name: str


def _lock_games(games: Iterable[int]) -> None:
    """Lock these games (ids, or a query of them) in the order of their ids, before any of
    them changes: each game's own change (Game._changing) then finds its lock held already."""
    locked = Game.objects.select_for_update().filter(pk__in=games).order_by("pk")
    list(locked.values_list("pk", flat=True))


def _kept_at(game: Game, table_of: Iterable[tuple[int, int | None]]) -> int | None:
    """The table (its id) a game of `game`'s chain is kept at, given each game's (id, table
    id): `game`'s own, else the first found; None when none is kept."""
    table_of = dict(table_of)
    if table_of.get(game.pk) is not None:
        return table_of[game.pk]
    return next((kept for kept in table_of.values() if kept is not None), None)


def _rematch_chain(game: Game) -> list[Game]:
    """`game` first, then the other games of its rematch chain, oldest first: those it was a
    rematch of, then its rematches."""
    before, after = [], []
    earlier = Game.objects.filter(next_game=game).first()
    while earlier is not None:
        before.insert(0, earlier)
        earlier = Game.objects.filter(next_game=earlier).first()
    later = game.next_game
    while later is not None:
        after.append(later)
        later = later.next_game
    return [game, *before, *after]


def _name_from(names: Sequence[str]) -> str:
    """A table's name made of its players' names, cut to fit."""
    name = ", ".join(names)
    if len(name) > MAX_TABLE_NAME_LENGTH:
        name = name[: MAX_TABLE_NAME_LENGTH - 1].rstrip(", ") + "…"
    return name


class Member(models.Model):
    """A person of a table: the players of the table's games who are this person point here
    (a guest's player points nowhere)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)
    # rules.name_key(name): what two members of one table must not share.
    name_key = models.CharField(max_length=rules.MAX_NAME_KEY_LENGTH)
    # The order in which the table lists its members.
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["table", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["table", "name_key"], name="unique_member_per_table"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = rules.name_key(self.name)
        super().save(*args, **kwargs)


@dataclass(frozen=True)
class Changes:
    """What a phone showing one version of a game needs to show the game as it is now
    (Game.changes_since): `what` is NOTHING (it shows the game as it is), ROUNDS (only rounds
    changed since: the totals, the banners and the rows the page shows make it a fresh page
    again) or EVERYTHING (the whole board). `latest` is the latest change to the rounds,
    which the banners tell of (ROUNDS only)."""

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


class Game(models.Model):
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
    # Kept in step with the rounds by refresh_standing(), so that lists need no totals.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rules this game plays by (SPEC 2.4); stored as what differs from the seeds'.
    house_rules = RulesField()
    # The rematch of this game, made once: every later tap, and every watcher, goes there.
    next_game = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="previous_game"
    )
    # The table (group) this game was played at, if any (SPEC 2.5).
    table = models.ForeignKey(
        Table, on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )

    class Meta:
        ordering = ["-created_at"]

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
        """The game found by `lookup` (edit_token=... or view_token=...) with its players, in
        one query: what every request reads first. Game.DoesNotExist when there is none (a
        game always has players)."""
        players = list(
            Player.objects.select_related("game")
            .filter(**{f"game__{field}": value for field, value in lookup.items()})
            .order_by("seat")
        )
        if not players:
            raise cls.DoesNotExist
        game = players[0].game
        for player in players:
            player.game = game
        game.__dict__["seated_players"] = players
        return game

    @cached_property
    def seated_players(self) -> list[Player]:
        """The players in seat order, read once for this object (with_players reads them with
        the game)."""
        return list(self.players.order_by("seat"))

    @property
    def names(self) -> list[str]:
        return [player.name for player in self.seated_players]

    @property
    def rules(self) -> rules.Rules:
        """The rules this game plays by: the seeds', with its house rules on top."""
        return self.house_rules

    @property
    def target(self) -> int:
        return self.rules.target_for(len(self.seated_players))

    def totals(self) -> list[int]:
        """Each player's total in seat order, in one aggregate query."""
        return list(
            self.players.order_by("seat")
            .annotate(total=Coalesce(Sum("hands__points"), 0))
            .values_list("total", flat=True)
        )

    def changes_since(
        self, seen: str, all_rounds: bool = False, status_shown: str = Status.PLAYING
    ) -> Changes:
        """What changed since the version `seen` that a phone shows (its status
        `status_shown`, with every round when `all_rounds`: "Show all"), from one indexed
        query of the history (with the count of the rounds): NOTHING, ROUNDS when the rounds
        alone changed (added, edited, corrected, deleted or restored), else EVERYTHING.

        EVERYTHING when the phone shows no version of the history, every round (the rows to
        send would be all of them), or a finished game, or when a player was renamed, the game
        finished (the round entry becomes the rematch) or was rematched (the version moved
        without a change in the history), or when the page had no round table or would have
        none now (a first round, or the last one deleted)."""
        if seen == str(self.version):
            return Changes(Changes.NOTHING)
        everything = Changes(Changes.EVERYTHING)
        if not seen.isdigit() or all_rounds or self.status == Status.FINISHED:
            return everything
        if status_shown not in (Status.PLAYING, Status.TIE_BREAK):
            return everything
        events = _plain_rows(
            "SELECT {version}, {kind}, {id}, {number}, {phone},"
            " (SELECT COUNT(*) FROM {round} WHERE {round}.{game_id} = %s)"
            " FROM {event} WHERE {event}.{game_id} = %s AND {version} >= %s"
            " ORDER BY {version}, {id}",
            [self.pk, self.pk, int(seen)],
        )
        if len(events) < 2 or events[0][0] != int(seen) or events[-1][0] != self.version:
            return everything
        later = [event[1] for event in events[1:]]
        if any(kind not in GameEvent.ROUND_CHANGES for kind in later):
            return everything
        _version, kind, pk, number, phone, rounds = events[-1]
        came = sum(kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED) for kind in later)
        went = later.count(GameEvent.Kind.DELETED)
        if rounds == 0 or rounds - came + went == 0:
            return everything
        latest = GameEvent(pk=pk, game=self, kind=kind, number=number, phone=phone)
        return Changes(Changes.ROUNDS, latest=latest)

    def latest_round_change(self) -> GameEvent | None:
        """The latest change to the rounds (a rename does not count), with what the banners
        tell of it (its kind, round number and phone). One query."""
        kinds = ", ".join(["%s"] * len(GameEvent.ROUND_CHANGES))
        found = _plain_rows(
            "SELECT {id}, {kind}, {number}, {phone} FROM {event}"  # noqa: S608 (placeholders)
            f" WHERE {{game_id}} = %s AND {{kind}} IN ({kinds})"
            " ORDER BY {created_at} DESC, {id} DESC LIMIT 1",
            [self.pk, *GameEvent.ROUND_CHANGES],
        )
        if not found:
            return None
        pk, kind, number, phone = found[0]
        return GameEvent(pk=pk, game=self, kind=kind, number=number, phone=phone)

    def stored_rounds(self) -> list[tuple]:
        """Every round of the game with its hands, as stored, in round order: one row a hand
        (the round's id, number, winner seat, hand rummy, revision; the hand's player id,
        cards, value, opened and points: None for a round without hands). Booleans as the
        database gives them (0 and 1 on SQLite). One query."""
        return _plain_rows(
            "SELECT {round}.{id}, {number}, {winner_seat}, {hand_rummy}, {revision},"
            " {player_id}, {cards}, {value}, {opened}, {points}"
            " FROM {round} LEFT OUTER JOIN {hand} ON {hand}.{round_id} = {round}.{id}"
            " WHERE {round}.{game_id} = %s ORDER BY {number}, {player_id}",
            [self.pk],
        )

    def dealer_for(self, round_number: int, players: int) -> int:
        """The seat that deals round `round_number` (1-based)."""
        return (self.first_dealer + round_number - 1) % players

    # Creating

    @classmethod
    def start(
        cls, names: Sequence[str], first_dealer: int = 0, house_rules: rules.Rules | None = None
    ) -> Game:
        """A new game for these players (names already checked with rules.check_names), played
        by `house_rules` (None: none, the players' documents' rules)."""
        with transaction.atomic():
            game = cls.objects.create(
                first_dealer=first_dealer % len(names),
                version=clock_version(),
                house_rules=house_rules or {},
            )
            Player.objects.bulk_create(
                Player(game=game, seat=seat, name=name, name_key=rules.name_key(name))
                for seat, name in enumerate(names)
            )
        return game

    def rematch(self) -> Game:
        """The next game with the same players, the deal moved on from where this one stopped:
        made by the first tap, and the same game for every tap after it, on any phone. Only a
        finished game has one (RulesError "game_not_finished")."""
        with self._changing() as game:
            if game.next_game_id is not None:
                return game.next_game
            if game.status != Status.FINISHED:
                raise rules.RulesError("game_not_finished")
            names = game.names
            rounds = game.rounds.count()
            next_game = Game.start(
                names, first_dealer=game.dealer_for(rounds + 1, len(names)), house_rules=game.rules
            )
            if game.table_id is not None:
                # At the table, each player the member the same seat was (a guest stays a
                # guest): the table's standings count it like the games started there.
                members = [player.member_id for player in game.seated_players]
                Table(pk=game.table_id)._seat(next_game, members)
            game.next_game = next_game
            game.save(update_fields=["next_game"])
            # Every phone on this game, watchers too, is shown the way to the next one.
            game.changed = True
        return next_game

    # Changing: every method locks the game, stores the engine's points, keeps history.

    @contextmanager
    def _changing(self) -> Iterator[Game]:
        """The one shape of every change (_locked, as a table's): in a transaction, the game
        locked and read again, so that every check sees what the other phones did; then, when
        something changed
        (`changed`, set by log()), its standing and version brought up to date, and copied to
        this object. A resent form changes nothing, not even the version."""
        with _locked(self) as game:
            # The players as this object read them, unless a change came in between: that one
            # may have renamed a player, and what this change writes (a round's document) must
            # name the players as they are called now. Read again then, under the lock.
            if game.version == self.version:
                game.__dict__["seated_players"] = self.seated_players
            game.changed = False
            # The version this change will give the game (refresh_standing stores it), known
            # before the change so that its events can say it.
            game.next_version = max(game.version + 1, clock_version())
            yield game
            if game.changed:
                game.refresh_standing()
        for name in ("version", "status", "winner_seat", "next_game_id", "updated_at"):
            setattr(self, name, getattr(game, name))
        self.__dict__["seated_players"] = game.seated_players

    def record_round(
        self,
        entry: RoundEntry,
        key: str = "",
        past_the_end: bool = False,
        for_round: int | None = None,
        phone: str = "",
    ) -> Round:
        """Add a round after the last one. A repeated `key` (the same form sent twice) returns
        the round it recorded the first time instead of recording it again. `for_round` is the
        number the form was filled in for: when another phone has saved that round first, the
        round is refused (code "round_taken") rather than silently added after it.

        `phone`: the phone that made the change (phones.of), to whom its Undo belongs.

        A finished game takes no new round, except when a whole game is imported
        (`past_the_end`): its history may hold rounds played before an earlier round was
        edited so that the game ended sooner, and a backup must bring those back as they were.
        """
        with self._changing() as game:
            # Read after the lock is held (not as part of the locking query, whose snapshot
            # PostgreSQL takes before it waits): the last round and the key's earlier use.
            rounds = Round.objects.filter(game=OuterRef("pk"))
            last_round, saved_by_key = (
                Game.objects.filter(pk=game.pk)
                .values_list(
                    Subquery(rounds.order_by("-number").values("number")[:1]),
                    Subquery(GameEvent.objects.filter(game=game, key=key).values("pk")[:1]),
                )
                .get()
            )
            if key and saved_by_key is not None:
                earlier = GameEvent.objects.select_related("round").get(pk=saved_by_key)
                if earlier.round is None:
                    raise rules.RulesError("already_saved")
                return earlier.round
            if game.status == Status.FINISHED and not past_the_end:
                raise rules.RulesError("game_finished")
            # Round numbers run from 1 without a gap: the last is the count.
            number = (last_round or 0) + 1
            if for_round is not None and for_round != number:
                raise rules.RulesError("round_taken", number=for_round, next=number)
            game._check_room(number)
            added = game._new_round(number, entry, GameEvent.Kind.ADDED, phone, key=key)
        return added.round

    def _check_room(self, number: int) -> None:
        """The same limit as a game file's (rules.MAX_ROUNDS) on every way a round comes
        in, so that every game can be exported and imported again; no real table plays that
        long."""
        if number > rules.MAX_ROUNDS:
            raise rules.RulesError("too_many_rounds", limit=rules.MAX_ROUNDS)

    def _round_as_seen(self, seen: Round) -> Round:
        """The round a phone's form is about, read again under the lock: the one with the
        identity of `seen`, still at its number and revision. Never another round in its
        place: a round deleted since is "round_gone", one moved by a deletion or an Undo
        elsewhere "round_moved", one edited since "round_changed"."""
        round_ = self.rounds.filter(pk=seen.pk).first()
        if round_ is None:
            raise rules.RulesError("round_gone", number=seen.number)
        if round_.number != seen.number:
            raise rules.RulesError("round_moved", number=seen.number, now=round_.number)
        if round_.revision != seen.revision:
            raise rules.RulesError("round_changed", number=seen.number)
        return round_

    def edit_round(
        self,
        seen: Round,
        entry: RoundEntry,
        phone: str = "",
        kind: str = "edited",
    ) -> Round:
        """Store `entry` in the round `seen` (as a phone saw it: see _round_as_seen): the round
        keeps its number and identity, its revision moves on. `kind`: EDITED from the round's
        page, CORRECTED when a phone took back the round it had just saved to put it right."""
        with self._changing() as game:
            round_ = game._round_as_seen(seen)
            game._store_again(round_, entry, kind, phone)
        return round_

    def _store_again(
        self,
        round_: Round,
        entry: RoundEntry,
        kind: str,
        phone: str,
        undoes: GameEvent | None = None,
    ) -> GameEvent:
        names = self.names
        before = round_.document(names)
        round_.revision += 1
        round_.store(entry, self)
        return self.log(
            kind,
            round_,
            before=before,
            after=entry.document(names),
            phone=phone,
            undoes=undoes,
        )

    def delete_round(self, seen: Round, phone: str = "") -> GameEvent:
        """Delete the round `seen` (as a phone saw it: see _round_as_seen), so that a second
        tap finds it gone rather than deleting the next. The phone that deleted it can undo
        the deletion (undo); the history can bring it back (restore_round)."""
        with self._changing() as game:
            event = game._delete(game._round_as_seen(seen), phone)
        return event

    def _delete(self, round_: Round, phone: str, undoes: GameEvent | None = None) -> GameEvent:
        event = self.log(
            GameEvent.Kind.DELETED,
            None,
            number=round_.number,
            before=round_.document(self.names),
            phone=phone,
            undoes=undoes,
        )
        round_.delete()
        self._shift_rounds(after=event.number, by=-1)
        return event

    def restore_round(
        self, deletion: GameEvent, phone: str = "", as_round: int | None = None
    ) -> Round:
        """Bring back the round that `deletion` deleted, from the history; once only
        ("already_restored").

        While no round has been added or brought back since the deletion, it goes back to
        the place it had (or last, if fewer rounds remain). Once its place has been filled,
        it would be one round more, played after the others: that is done only when the
        phone says so with `as_round`, the number it becomes (the count of rounds plus one,
        as the phone's confirmation showed it); otherwise "restore_as_extra" says that
        number, and nothing changes. A finished game takes no extra round."""
        with self._changing() as game:
            # GameEvent.DoesNotExist for an event that never deleted a round of this game.
            event = game.events.get(pk=deletion.pk, kind=GameEvent.Kind.DELETED)
            if event.restored:
                raise rules.RulesError("already_restored")
            rounds = game.rounds.count()
            filled = game.events.filter(
                pk__gt=event.pk, kind__in=[GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED]
            ).exists()
            if filled:
                if as_round != rounds + 1:
                    raise rules.RulesError(
                        "restore_as_extra", number=event.number, extra=rounds + 1
                    )
                if game.status == Status.FINISHED:
                    raise rules.RulesError("game_finished")
            restored = game._restore(event, rounds if filled else None, phone)
        return restored.round

    def _new_round(
        self, number: int, entry: RoundEntry, kind: str, phone: str, **fields
    ) -> GameEvent:
        """Store `entry` as a new round at `number` (its place free) and log it as `kind`
        (added, or restored): the change's event, whose `round` is the new round."""
        round_ = Round(game=self, number=number)
        round_.store(entry, self, new=True)
        return self.log(kind, round_, after=entry.document(self.names), phone=phone, **fields)

    def _restore(
        self, event: GameEvent, last: int | None, phone: str, undoes: GameEvent | None = None
    ) -> GameEvent:
        """Put the round `event` deleted back: after the `last` round, or at its own place
        (when `last` is None; last if fewer rounds remain). The restore's event."""
        rounds = self.rounds.count() if last is None else last
        self._check_room(rounds + 1)
        # The deleted round names the players as they were called then.
        entry = RoundEntry.from_document(event.before, self.names_when(event))
        number = rounds + 1 if last is not None else min(event.number, rounds + 1)
        self._shift_rounds(after=number - 1, by=1)
        event.restored = True
        event.save(update_fields=["restored"])
        return self._new_round(number, entry, GameEvent.Kind.RESTORED, phone, undoes=undoes)

    def go_back(self, change: GameEvent, seen_revision: int, phone: str = "") -> Round:
        """Edit a round back to the version it had before `change` (an edit or a correction
        of it, from the history): one more edit of that round, checked like any edit against
        the revision the phone saw. "round_gone" once the round has been deleted."""
        with self._changing() as game:
            event = game.events.get(pk=change.pk, kind__in=GameEvent.EDITS)
            round_ = game.rounds.filter(pk=event.round_id).first()
            if round_ is None:
                raise rules.RulesError("round_gone", number=event.number)
            round_ = game._round_as_seen(
                Round(pk=round_.pk, number=round_.number, revision=seen_revision)
            )
            entry = RoundEntry.from_document(event.before, game.names_when(event))
            game._store_again(round_, entry, GameEvent.Kind.EDITED, phone)
        return round_

    def undo(self, change: GameEvent, phone: str) -> GameEvent:
        """Undo `change`: one more change that does the opposite (a save's round deleted, a
        deleted round back at its place, an edit's round as it was before), never a deletion
        of history. Only the phone that made the change can (RulesError "undo_not_yours"),
        once ("undo_done"), and only while no later change to the rounds depends on it
        ("undo_overtaken", naming the round of the latest); a rename does not count. A
        refused Undo changes nothing. The undo's own event is returned."""
        with self._changing() as game:
            event = game.events.get(pk=change.pk, kind__in=GameEvent.ROUND_CHANGES)
            game.check_undo(event, phone)
            if event.kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED):
                round_ = game.rounds.get(pk=event.round_id)
                return game._delete(round_, phone, undoes=event)
            if event.kind == GameEvent.Kind.DELETED:
                return game._restore(event, None, phone, undoes=event)
            round_ = game.rounds.get(pk=event.round_id)
            entry = RoundEntry.from_document(event.before, game.names_when(event))
            return game._store_again(round_, entry, GameEvent.Kind.EDITED, phone, undoes=event)

    def check_undo(self, event: GameEvent, phone: str) -> None:
        """Whether `phone` may undo `event` now (see undo): a RulesError saying why not."""
        if not phone or event.phone != phone:
            raise rules.RulesError("undo_not_yours", number=event.number)
        if GameEvent.objects.filter(undoes=event).exists():
            raise rules.RulesError("undo_done", number=event.number)
        later = (
            self.events.filter(pk__gt=event.pk, kind__in=GameEvent.ROUND_CHANGES)
            .order_by("-pk")
            .values_list("number", flat=True)
            .first()
        )
        if later is not None:
            raise rules.RulesError("undo_overtaken", number=event.number, later=later)

    def _shift_rounds(self, after: int, by: int) -> None:
        """Move the numbers of the rounds after `after` by `by`, keeping them unique at every
        step: first out of the way to negative numbers, then to their new place."""
        self.rounds.filter(number__gt=after).update(number=-F("number"))
        self.rounds.filter(number__lt=-after).update(number=-F("number") + by)

    def rename_player(self, seat: int, name: str, seen: str | None = None) -> bool:
        """Give the player at `seat` a new name (see rename_players); whether it changed."""
        return bool(self.rename_players({seat: name}, None if seen is None else {seat: seen}))

    def rename_players(
        self, names: Mapping[int, str], seen: Mapping[int, str] | None = None, phone: str = ""
    ) -> list[int]:
        """Give the players at these seats (`names`: seat -> name) new names, each rename kept
        in the history; the seats renamed. Each new name is checked as at the start
        (rules.check_name, and its name key against every other player's, new or old: a
        RulesError names the seat), so that two players may also swap names. `seen`
        (seat -> name) is what the phone's form showed: a player renamed on another phone since
        is refused ("name_changed"), not renamed back. A name the player already has changes
        nothing, not even the version, so a form sent twice is harmless.

        The round documents kept in the history name the players as they were called at the
        time: names_when reads them back.

        In a table's game the table renames them (Table.rename_players), so that a member
        keeps one name in every game of the table."""
        if self.table_id is not None:
            return Table(pk=self.table_id).rename_players(self, names, seen=seen, phone=phone)
        return self._rename_players(names, seen=seen, phone=phone)

    def _rename_players(
        self, names: Mapping[int, str], seen: Mapping[int, str] | None = None, phone: str = ""
    ) -> list[int]:
        """rename_players in this game alone: what a table's rename does in each game."""
        with self._changing() as game:
            players = list(game.players.order_by("seat"))
            now = [player.name for player in players]
            renamed = sorted(
                seat for seat, name in names.items() if rules.clean_name(name) != now[seat]
            )
            for seat in renamed:
                if seen is not None and seen.get(seat, now[seat]) != now[seat]:
                    raise rules.RulesError("name_changed", seat)
            checked = list(now)
            for seat in renamed:
                try:
                    checked[seat] = rules.check_name(names[seat])
                except rules.RulesError as error:
                    raise error.for_player(seat) from None
            # Each new name against every other, old or new; said of the name typed, not of
            # the player who has had it all along. Two old names alike are left alone: games
            # from before look-alikes counted as one name may hold such a pair.
            keys = [rules.name_key(name) for name in checked]
            for seat in renamed:
                other = next(
                    (o for o, key in enumerate(keys) if key == keys[seat] and o != seat), None
                )
                if other is not None:
                    raise rules.same_name(checked[seat], checked[other], seat)
            if len(renamed) > 1:
                # Out of each other's way first, for the unique name key (no real key holds a
                # control character: rules.clean_name takes them out).
                for seat in renamed:
                    game.players.filter(seat=seat).update(name_key=f"\x01{seat}")
            for seat in renamed:
                player = players[seat]
                player.name = checked[seat]
                player.save(update_fields=["name", "name_key"])
                game.log(
                    GameEvent.Kind.RENAMED,
                    None,
                    before={"seat": seat, "name": now[seat]},
                    after={"seat": seat, "name": player.name},
                    phone=phone,
                )
            if renamed:
                game.__dict__["seated_players"] = players
        return renamed

    def names_when(self, event: GameEvent) -> list[str]:
        """The players' names as they were just after `event`: today's, with every rename
        since undone. A change's round documents name the players so."""
        names = self.names
        since = self.events.filter(kind=GameEvent.Kind.RENAMED, pk__gt=event.pk).order_by("-pk")
        for before in since.values_list("before", flat=True):
            names[before["seat"]] = before["name"]
        return names

    def log(self, kind: str, round_: Round | None, **fields) -> GameEvent:
        self.changed = True
        fields.setdefault("number", round_.number if round_ else None)
        return GameEvent.objects.create(
            game=self, kind=kind, round=round_, version=self.next_version, **fields
        )

    def refresh_standing(self) -> rules.Standing:
        """Store the status that the totals give, and move the version on to the one _changing
        worked out under the lock: one more, and never below the clock (clock_version)."""
        standing = rules.standing(self.totals(), self.target)
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


@contextmanager
def snapshot() -> Iterator[None]:
    """Every read inside sees the database at one moment: a page or a live update drawn from
    the game's version, its history, its totals and its rows, read one after the other,
    never mixes two states (a round saved between two reads would be counted in one and
    missing from the next). PostgreSQL: one REPEATABLE READ, READ ONLY transaction. SQLite
    (in WAL mode): one deferred read transaction, which takes no lock that a save waits for
    (Django's own would: the settings ask for IMMEDIATE). Inside a transaction already (a
    change, or a test's), that one holds."""
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
    """The clock in milliseconds: a version is never below it, so that it only grows, even for
    a game that is deleted and restored from a backup."""
    return time.time_ns() // 1_000_000


class Player(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)
    # rules.name_key(name): what two players of one game must not share.
    name_key = models.CharField(max_length=rules.MAX_NAME_KEY_LENGTH)
    # In a table's game, the member this player is (None for a guest, and outside tables).
    member = models.ForeignKey(
        Member, on_delete=models.SET_NULL, null=True, blank=True, related_name="players"
    )

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="unique_seat_per_game"),
            models.UniqueConstraint(fields=["game", "name_key"], name="unique_name_key_per_game"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = rules.name_key(self.name)
        super().save(*args, **kwargs)


class RoundQuerySet(models.QuerySet):
    def with_hands(self) -> RoundQuerySet:
        """In order, each with its hands and their players, in two queries."""
        return self.order_by("number").prefetch_related(
            models.Prefetch("hands", queryset=Hand.objects.select_related("player"))
        )


class Round(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    # Not a PositiveIntegerField: renumbering passes through negative numbers (_shift_rounds).
    number = models.IntegerField()
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    hand_rummy = models.BooleanField(default=False)
    # One more with every edit: a phone's form names the revision it shows, and an edit or a
    # delete made from an older one is refused (Game._round_as_seen).
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="unique_round_number_per_game"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number}"

    @property
    def blocked(self) -> bool:
        """A blocked round (the draw pile ran out) has no player who went out."""
        return self.winner_seat is None

    def store(self, entry: RoundEntry, game: Game, new: bool = False) -> None:
        """Save this round and its hands as `entry` says, with the engine's points (scored
        once: the form that checked the entry scored it already). A `new` round has no hands
        to replace."""
        points = entry.points(game.target, game.rules)
        self.winner_seat = entry.winner
        self.hand_rummy = entry.hand_rummy
        self.save()
        if not new:
            self.hands.all().delete()
        Hand.objects.bulk_create(
            Hand(
                round=self,
                player=player,
                cards=" ".join(hand.cards),
                value=hand.value,
                opened=hand.opened,
                points=point,
            )
            for player, hand, point in zip(game.seated_players, entry.hands, points, strict=True)
        )

    def _hands_with_players(self):
        """The hands, each with its player: prefetched, or read in one query (not one more
        query per hand for its seat)."""
        if "hands" in getattr(self, "_prefetched_objects_cache", {}):
            return self.hands.all()
        return self.hands.select_related("player")

    def entry(self, players: int) -> RoundEntry:
        hands = [rules.Hand(opened=True)] * players
        for hand in self._hands_with_players():
            hands[hand.player_seat] = hand.as_rules_hand()
        return RoundEntry(hands=tuple(hands), winner=self.winner_seat, hand_rummy=self.hand_rummy)

    def points_by_seat(self, players: int) -> list[int]:
        points = [0] * players
        for hand in self.hands.all():
            points[hand.player_seat] = hand.points
        return points

    def document(self, names: Sequence[str]) -> dict:
        return self.entry(len(names)).document(names)


class Hand(models.Model):
    """What one player held at the end of one round, and the points the engine gave."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="hands")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hands")
    # Canonical card codes separated by spaces ("AH JK 5C"), or empty.
    cards = models.CharField(max_length=512, blank=True)
    value = models.PositiveIntegerField(null=True, blank=True)
    opened = models.BooleanField(default=True)
    points = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="unique_hand_per_round"),
            models.CheckConstraint(condition=Q(points__gte=0), name="points_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.cards or self.value or '-'}"

    @property
    def player_seat(self) -> int:
        return self.player.seat

    @property
    def card_list(self) -> list[str]:
        return self.cards.split()

    def as_rules_hand(self) -> rules.Hand:
        return rules.Hand(cards=tuple(self.card_list), value=self.value, opened=self.opened)


class GameEvent(models.Model):
    """One change to a game, kept for its history, made by one phone: a round added, edited,
    corrected, deleted or restored, or a player renamed. An undo is one more such change
    (`undoes`); a deleted round can be restored from it."""

    class Kind(models.TextChoices):
        ADDED = "added", _("Round added")
        EDITED = "edited", _("Round edited")
        # An edit made by taking back a round just saved, to put it right.
        CORRECTED = "corrected", _("Round corrected")
        DELETED = "deleted", _("Round deleted")
        RESTORED = "restored", _("Round restored")
        RENAMED = "renamed", _("Player renamed")

    # The kinds that change a round in place, and every kind that changes the rounds.
    EDITS = (Kind.EDITED, Kind.CORRECTED)
    ROUND_CHANGES = (Kind.ADDED, Kind.EDITED, Kind.CORRECTED, Kind.DELETED, Kind.RESTORED)

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    number = models.IntegerField(null=True)
    round = models.ForeignKey(Round, on_delete=models.SET_NULL, null=True, related_name="+")
    # The round in the rami-game/1 shape, before and after the change.
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)
    restored = models.BooleanField(default=False)
    # The idempotency key of the form that made the change ("" for none).
    key = models.CharField(max_length=64, blank=True)
    # The phone that made the change (scoring.phones; "" for none, as for an import): its
    # Undo is offered there only.
    phone = models.CharField(max_length=64, blank=True)
    # The change this one undid (Game.undo), once: an undo is one more change.
    undoes = models.OneToOneField(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="undone_by"
    )
    # The game's version after the change (None for changes made before it was kept): a poll
    # from the version of one change learns from the changes after it what it has to redraw.
    version = models.BigIntegerField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "key"], condition=~Q(key=""), name="unique_event_key_per_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number}"
