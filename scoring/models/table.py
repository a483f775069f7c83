"""A table, a group's games, reached like a game by an edit link and a view link: what it is,
how it starts, its lock and its history. Its changes are by concern: its games
(table_games.py) and its members (table_members.py). Every write that spans a table and its
games is a method of Table, taking the locks in one order: the table, then its games by id
(_lock_games), then their players and members (docs/architecture.md, "Locks").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager

from django.db import models, transaction
from django.utils import timezone

from scoring import rules
from scoring.models.common import RulesField, _locked, new_token
from scoring.models.deleted import DeletedLink
from scoring.models.game import Game, clock_version
from scoring.models.members import (
    MAX_MEMBERS,
    MAX_TABLE_NAME_LENGTH,
    MIN_ACTIVE,
    Member,
    TableEvent,
)
from scoring.models.table_games import GameChanges
from scoring.models.table_members import MemberChanges, _lock_games


class Table(GameChanges, MemberChanges, models.Model):
    """A group that plays together week after week: its members, its games and
    their standings across games, reached like a game by an edit link and a view link.

    Its games are ordinary games (`Game.table`), whose players are its members
    (`Player.member`) or guests (no member). A table changes only through the methods below,
    as a game does, each under the table's lock (_changing). Its checks (unique names, at most
    MAX_MEMBERS members) then see what the other phones did, and a clash is a RulesError,
    never the database's unique constraint. Each game it changes, it changes through the
    game's own methods, in the lock order of this module's docstring.

    One rule keeps a table's people apart: within a table a name key (rules.name_key) is one
    person, a member's or a guest's, never both. So a name typed for a new game that is a
    member's is that member, a guest who joins becomes the member in the games they played as
    a guest, and a member cannot be renamed to a guest's name. The exchange (rami-table/1)
    can then link players to members by name alone."""

    name = models.CharField(max_length=MAX_TABLE_NAME_LENGTH)
    edit_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    # The house rules of the table's new games, as Game.house_rules keeps them.
    house_rules = RulesField()
    # Grows with every change to the table itself (its rules, its members: _log), so that a
    # form sent from a page older than another phone's change is told so, as a round's is.
    version = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        # The live reader reads what moved since a version (scoring/live/reader.py): a range.
        indexes = [models.Index(fields=["version"], name="scoring_table_version")]

    def __str__(self) -> str:
        return self.name

    # Reading

    @classmethod
    def with_members(cls, **lookup: str) -> tuple[Table, list[Member]]:
        """The table found by `lookup` (edit_token=... or view_token=...) and its members in
        the table's order, in one query: what a table's page reads first, as Game.with_players
        a game's. Table.DoesNotExist when there is none."""
        members = list(
            Member.objects.select_related("table")
            .filter(**{f"table__{field}": value for field, value in lookup.items()})
            .order_by("position", "pk")
        )
        if not members:  # none kept (a table always has some): the table alone
            return cls.objects.get(**lookup), []
        table = members[0].table
        for member in members:
            member.table = table
        return table, members

    @property
    def rules(self) -> rules.Rules:
        """The rules the table's new games play by: the seeds', with its house rules on top."""
        return self.house_rules

    @staticmethod
    def check_name(name: str) -> str:
        """A table's name, cleaned and checked as a player's is, up to MAX_TABLE_NAME_LENGTH."""
        return rules.check_name(name, MAX_TABLE_NAME_LENGTH)

    @staticmethod
    def check_retired(members: Sequence[str], retired: Iterable[str]) -> set[str]:
        """The name keys of the `retired` among `members` (checked names): a table that has
        retired members keeps MIN_ACTIVE who play, as retire keeps them, else RulesError
        "member_last". ValueError for a retired name that is no member's (a caller's mistake:
        the importer says it in its own words first)."""
        keys = {rules.name_key(member) for member in members}
        retired_keys = {rules.name_key(name) for name in retired}
        if not retired_keys <= keys:
            raise ValueError(f"{sorted(retired_keys - keys)} are not members")
        if retired_keys and len(keys - retired_keys) < MIN_ACTIVE:
            raise rules.RulesError(rules.Code.MEMBER_LAST, limit=MIN_ACTIVE)
        return retired_keys

    # Creating

    @classmethod
    def start(
        cls,
        name: str,
        members: Sequence[str],
        house_rules: rules.Rules | None = None,
        retired: Sequence[str] = (),
    ) -> Table:
        """A new table named `name` with these members (in this order). Its new games play by
        `house_rules` (None: none, the players' documents' rules); the members named in
        `retired` (by name key) are retired already, as a file or a backup gives them. RulesError
        when a name is wrong: a member's error carries the member's index as its `player`
        (rules.check_names), or as check_retired gives it."""
        name = cls.check_name(name)
        members = rules.check_names(members, members_at_most=MAX_MEMBERS)
        keys = [rules.name_key(member) for member in members]
        retired_keys = cls.check_retired(members, retired)
        with transaction.atomic():
            table = cls.objects.create(name=name, house_rules=house_rules or {})
            Member.objects.bulk_create(
                Member(
                    table=table,
                    name=member,
                    name_key=key,
                    position=position,
                    retired=key in retired_keys,
                )
                for position, (member, key) in enumerate(zip(members, keys, strict=True))
            )
        return table

    # Changing: every method locks the table first (_changing).

    def _changing(self) -> AbstractContextManager[Table]:
        """The one shape of every change to a table (the lock order: the module's docstring)."""
        return _locked(self)

    def _log(self, kind: str, name: str = "", **change: object) -> TableEvent:
        """Keep a change to the table itself (its rules, a member's standing) in its history,
        with what `change` says of it (TableEvent's fields), and move its version on: called
        on the locked row, inside _changing."""
        self.version = max(self.version + 1, clock_version())
        Table.objects.filter(pk=self.pk).update(version=self.version, updated_at=timezone.now())
        return TableEvent.objects.create(
            table=self, kind=kind, name=name, version=self.version, **change
        )

    # Deleting on request (docs/deploy.md, "Privacy")

    def delete_on_request(self, with_games: bool) -> int:
        """Delete this table for good: its members and its history, and with `with_games` its
        games too (Game.delete_on_request); else its games stay, kept at no table, their
        players no members. Its links are remembered (DeletedLink), as each deleted game's,
        so that no restore brings them back unasked. The number of games deleted."""
        with self._changing() as table:
            games = list(Game.objects.filter(table=table).order_by("pk"))
            _lock_games([game.pk for game in games])
            if with_games:
                for game in games:
                    game.delete_on_request()
            else:
                Game.leave_table(table.pk)
            DeletedLink.remember(DeletedLink.Kind.TABLE, table.edit_token, table.view_token)
            table.delete()
        return len(games) if with_games else 0

    def change_rules(self, new_rules: rules.Rules, seen: int) -> bool:
        """Play the table's next games by `new_rules`; the games started before keep their
        own. `seen` is the table's version the page showed: a page older than another phone's
        change to the table is refused (RulesError "table_changed"), so that nothing it did
        not show is undone. Rules that are the table's already change nothing, whatever
        `seen` (a form sent twice): False. Kept in the table's history (TableEvent RULES,
        with the rules before and after)."""
        with self._changing() as table:
            before = table.rules
            if new_rules == before:
                return False
            if seen != table.version:
                raise rules.Conflict(rules.Code.TABLE_CHANGED)
            table.house_rules = new_rules
            table.save(update_fields=["house_rules"])
            table._log(TableEvent.Kind.RULES, rules_before=before, rules_after=new_rules)
        self.house_rules, self.version = table.house_rules, table.version
        return True


def rematch(game: Game, seats: Sequence[int] | None = None, added: Sequence[str] = ()) -> Game:
    """Game.rematch of any game, with the players at `seats` and the names `added`: a
    table's by its table (Table.rematch), under its lock and by the rules of its next games."""
    if game.table_id is None:
        return game.rematch(seats=seats, added=added)
    return Table(pk=game.table_id).rematch(game, seats=seats, added=added)


def delete_game(game: Game) -> None:
    """Game.delete_on_request of any game: a table's by its table (Table.delete_game)."""
    if game.table_id is None:
        game.delete_on_request()
    else:
        Table(pk=game.table_id).delete_game(game)


def rename_players(
    game: Game, names: Mapping[int, str], seen: Mapping[int, str] | None = None, phone: str = ""
) -> list[int]:
    """Game.rename_players of any game: a table's by its table (Table.rename_players), so
    that a member keeps one name in every game of the table. The seats renamed."""
    if game.table_id is None:
        return game.rename_players(names, seen=seen, phone=phone)
    return Table(pk=game.table_id).rename_players(game, names, seen=seen, phone=phone)
