"""Tables (a group's games) and their members: a table changes only through its own
methods, as a game does (scoring/models/game.py), under the same lock helper.

Every write that spans a table and its games is here, a method of Table (gather, new_game,
keep_game and keep_together, rematch, rename_member, rename_players), or for any game,
at a table or not, a function below (rematch, rename_players). The importer of a table file
(gather) and the restore's bulk store (files/backup.py, held row for row to Game.start and
Game.record_round by tests/test_backup.py) write through here or make new rows only. A game
knows nothing of tables: each game it changes, it changes through the game's own public
methods.

The lock order, the one place it is written: the table first, then its games in the order
of their ids (_lock_games), then their players and members. Two changes that need the same
rows then wait in turn instead of each holding what the other waits for (PostgreSQL answers
that with "deadlock detected"). A game's own change (Game._changing) finds its lock held
already when a table's change has taken it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.models.common import RulesField, _locked, new_token
from scoring.models.deleted import DeletedLink
from scoring.models.game import Game, clock_version
from scoring.models.rounds import Player

# The most members a table may have, and the longest name a table may have.
MAX_MEMBERS = 30
# The fewest members who play (not retired) that a table keeps once one has retired or been
# removed: enough for a game.
MIN_ACTIVE = rules.MIN_PLAYERS
MAX_TABLE_NAME_LENGTH = 60


class Table(models.Model):
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

    def deal_follows_on(self, keys: Sequence[str]) -> int:
        """The seat, among today's players (by name key, in seat order), that deals first, so
        that the deal follows on from the table's last game. The player who would have dealt
        its next round deals first, as in a rematch. If they do not play today, the next player
        after them who does, round that game's table (its seating order at the end). If nobody
        from that game plays today (or the table has no game), seat 0."""
        last = self.games.order_by("-created_at", "-pk").first()
        if last is None:
            return 0
        seated = list(last.players.order_by("seat").values_list("name_key", flat=True))
        # Round the table as the deal went at the end of that game (Game.change_seating),
        # from the player who would have dealt next (one who left that game included).
        seating = last.next_deal(*last.last_dealer())
        start = seating.order.index(seating.dealer)
        for step in range(len(seating.order)):
            key = seated[seating.order[(start + step) % len(seating.order)]]
            if key in keys:
                return list(keys).index(key)
        return 0

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

    @classmethod
    def gather(
        cls,
        name: str,
        members: Sequence[str],
        games: Sequence[int],
        house_rules: rules.Rules | None = None,
        retired: Sequence[str] = (),
    ) -> Table:
        """A new table (start) whose games are `games` (ids of games made already, at no
        table, as a table file's import makes them), each player the member of their name
        (a guest when none): in one transaction."""
        with transaction.atomic():
            table = cls.start(name, members, house_rules=house_rules, retired=retired)
            Game.objects.filter(pk__in=games).update(table=table)
            for member in table.members.all():
                Player.objects.filter(game__table=table, name_key=member.name_key).update(
                    member=member
                )
        return table

    def new_game(
        self,
        players: Sequence[Member | NewMember | str],
        first_dealer: int | None = None,
        house_rules: rules.Rules | None = None,
    ) -> Game:
        """A new game of the table, its players seated in this order: a `Member` of the table;
        a `NewMember(name)`, who joins the table first; or a `str`, a guest (who plays without
        joining). A name that is already a member's (by name key), given either way, is that
        member, and a retired member who plays comes back (_bring_back). The game plays by
        `house_rules` when given (its own: the table's do not change), else by the table's
        rules as they are now.

        The first dealer is `first_dealer` (a seat) when given; else the deal follows on from
        the table's last game (deal_follows_on). RulesError as Game's start form gives it: 2
        to 6 players ("player_count"), a guest's name ("name_empty", ...), the same person
        twice ("name_duplicate", naming the second seat); "member_count" when a new member is
        one too many. ValueError for a member of another table (a caller's mistake, not a
        player's)."""
        for player in players:
            if isinstance(player, Member):
                self._check_ours(player)
        # Checked as a game's names are, before anything is made.
        names = rules.check_names(
            [
                player.name if isinstance(player, Member | NewMember) else player
                for player in players
            ]
        )
        with self._changing() as table:
            joining = [
                name
                for name, player in zip(names, players, strict=True)
                if isinstance(player, NewMember)
            ]
            table._members_for(joining)
            members = {member.name_key: member for member in table.members.all()}
            seated = [members.get(rules.name_key(name)) for name in names]
            # A retired member who plays today is back, however they were given.
            table._bring_back(member for member in seated if member is not None)
            # A member plays under the member's name, whatever spelling was typed.
            names = [
                member.name if member else name for name, member in zip(names, seated, strict=True)
            ]
            if first_dealer is None:
                first_dealer = table.deal_follows_on([rules.name_key(name) for name in names])
            if house_rules is None:
                house_rules = table.rules
            game = Game.start(
                names,
                first_dealer=first_dealer,
                house_rules=house_rules,
                table_id=table.pk,
                members=[member.pk if member else None for member in seated],
            )
            Table.objects.filter(pk=table.pk).update(updated_at=timezone.now())
        return game

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

    def delete_game(self, game: Game) -> None:
        """Game.delete_on_request of one of this table's games, under the table's lock; the
        table's version moves on, so that its pages drop the game."""
        with self._changing() as table:
            _lock_games([game.pk])
            game.delete_on_request()
            table.version = max(table.version + 1, clock_version())
            Table.objects.filter(pk=table.pk).update(
                version=table.version, updated_at=timezone.now()
            )

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

    def add_member(self, name: str) -> Member:
        """A new member, listed last; the same member when the name is one already (by name
        key), back if they had retired. A guest of the table's games with this name becomes
        the member in those games. RulesError: a wrong name, or MAX_MEMBERS reached."""
        name = rules.check_name(name)
        with self._changing() as table:
            return table._members_for([name])[0]

    def _members_for(self, names: Sequence[str]) -> list[Member]:
        """The member of each (checked) name: an existing one by name key (a retired one
        comes back, _bring_back), or a new one made in order, each taking over the guest
        players of its name in the table's games. Called on the locked row, under the table's
        lock (_changing): the members read here are all there are."""
        with transaction.atomic():
            existing = {member.name_key: member for member in self.members.all()}
            self._bring_back(existing[key] for key in map(rules.name_key, names) if key in existing)
            new = []
            for name in names:
                key = rules.name_key(name)
                if key not in existing:
                    existing[key] = Member(table=self, name=name, name_key=key)
                    new.append(existing[key])
            if not new:
                return [existing[rules.name_key(name)] for name in names]
            if len(existing) > MAX_MEMBERS:
                raise rules.RulesError(
                    rules.Code.MEMBER_COUNT, count=len(existing), limit=MAX_MEMBERS
                )
            last = self.members.aggregate(last=Max("position"))["last"]
            for position, member in enumerate(new, 0 if last is None else last + 1):
                member.position = position
            Member.objects.bulk_create(new)
            for member in new:
                Player.objects.filter(
                    game__table=self, member=None, name_key=member.name_key
                ).update(member=member)
                self._log(TableEvent.Kind.JOINED, name=member.name)
        return [existing[rules.name_key(name)] for name in names]

    def keep_game(self, game: Game) -> Table:
        """Keep `game` (typically finished) at this table, with its rematch chain (_keep)."""
        return Table._keep(self, game, None)

    @classmethod
    def keep_together(cls, game: Game, name: str | None = None) -> Table:
        """keep_game at a new table named `name` (None: the players' names), or at the table of
        a game of its rematch chain kept already (another phone's, maybe at this moment)."""
        return cls._keep(None, game, name)

    @classmethod
    def _keep(cls, table: Table | None, game: Game, name: str | None) -> Table:
        """Keep `game` at `table` (keep_game), or when None at a new table named `name`
        (keep_together), whose members are the game's players and whose house rules are the
        game's.

        Each player becomes the member of their name (by name key), new members made as
        needed. The games of its rematch chain (the games it was a rematch of, and its
        rematches, the same players) that are at no table are kept there too: the evening's
        games stay together whichever of them the group keeps. Keeping a game twice at its
        table changes nothing (a second tap); keeping one at another table is refused
        ("game_at_another_table"). The game's version moves on, so that every phone on it
        learns where it is kept.

        With no table given, a game of the chain kept already (another phone kept it, maybe at
        this very moment) is kept at that table. Two phones keeping a game and its rematch at
        once so make one table, the second joining the first's."""
        if game.table_id is not None:
            if table is None or table.pk == game.table_id:
                return game.table
            raise rules.Conflict(rules.Code.GAME_AT_ANOTHER_TABLE)
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
                        raise rules.Conflict(rules.Code.GAME_AT_ANOTHER_TABLE)
                elif _kept_at(game, table_of.items()) != kept_at:
                    # Kept by another phone since we looked: its table is locked first, then
                    # the games again. A game is kept once, so this happens once or twice at
                    # most.
                    kept_at = _kept_at(game, table_of.items())
                    continue
                for other in chain:
                    if table_of[other.pk] is not None:
                        continue
                    # Its players as they are now: the game is locked.
                    names = list(other.players.order_by("seat").values_list("name", flat=True))
                    if at is None:
                        at = cls.start(
                            _name_from(names) if name is None else name,
                            names,
                            house_rules=other.rules,
                        )
                    other.join_table(at.pk, [member.pk for member in at._members_for(names)])
                    # The table is locked (or new) already: its row may be written.
                    Table.objects.filter(pk=at.pk).update(updated_at=timezone.now())
            game.table = at
            return at

    def retire(self, member: Member, seen: int) -> bool:
        """Retire a member who left the group: they stay in the games they played, the
        standings and head to head, but new games no longer offer them, until they come back
        (come_back, or a new game they play in). `seen` is the table's version the page
        showed. Whether anything changed: retiring a retired member (a form sent twice)
        changes nothing. RulesError "table_changed" when the table changed since `seen` (or
        the member was removed meanwhile); "member_last" when fewer than MIN_ACTIVE members
        would be left to play."""
        with self._changing() as table:
            member = table._member(member)
            if member.retired:
                return False
            table._check_seen(seen)
            table._check_leaving(member)
            Member.objects.filter(pk=member.pk).update(retired=True)
            table._log(TableEvent.Kind.RETIRED, name=member.name)
        return True

    def come_back(self, member: Member, seen: int) -> bool:
        """A retired member plays again: new games offer them. Whether anything changed
        (nothing for a member who plays already); RulesError "table_changed" as retire."""
        with self._changing() as table:
            member = table._member(member)
            if not member.retired:
                return False
            table._check_seen(seen)
            table._bring_back([member])
        return True

    def remove_member(self, member: Member, seen: int) -> bool:
        """Remove a member added by mistake: only one who never played (no player of any of
        the table's games is theirs), so that no game and no standing changes; the history
        keeps their name. Whether anything changed (nothing for a member removed already).
        RulesError "table_changed" as retire; "member_played" for a member who played (to be
        retired instead); "member_last" when fewer than MIN_ACTIVE members would be left to
        play."""
        self._check_ours(member)
        with self._changing() as table:
            member = table.members.filter(pk=member.pk).first()
            if member is None:
                return False
            table._check_seen(seen)
            if member.players.exists():
                raise rules.RulesError(rules.Code.MEMBER_PLAYED)
            table._check_leaving(member)
            member.delete()
            table._log(TableEvent.Kind.REMOVED, name=member.name)
        return True

    def _check_ours(self, member: Member) -> None:
        """ValueError for a member of another table: a caller's mistake, never a player's."""
        if member.table_id != self.pk:
            raise ValueError(f"{member} is not a member of {self}")

    def _member(self, member: Member) -> Member:
        """`member` read again under the table's lock; "table_changed" when removed meanwhile.
        ValueError for a member of another table (a caller's mistake)."""
        self._check_ours(member)
        found = self.members.filter(pk=member.pk).first()
        if found is None:
            raise rules.Conflict(rules.Code.TABLE_CHANGED)
        return found

    def _check_seen(self, seen: int) -> None:
        """A change made from a page older than the table's last change is refused: what it
        showed may no longer be so (a form's `seen`, the version the page showed)."""
        if seen != self.version:
            raise rules.Conflict(rules.Code.TABLE_CHANGED)

    def _check_leaving(self, member: Member) -> None:
        """A member who plays may leave (retire, or be removed) only while MIN_ACTIVE others
        play: enough for a game. A retired member's removal changes no one who plays."""
        if not member.retired and self.members.filter(retired=False).count() <= MIN_ACTIVE:
            raise rules.RulesError(rules.Code.MEMBER_LAST, limit=MIN_ACTIVE)

    def _bring_back(self, members: Iterable[Member]) -> None:
        """Each retired one of `members` plays again, their return kept in the history. Called
        on the locked row, under _changing."""
        for member in members:
            if member.retired:
                member.retired = False
                Member.objects.filter(pk=member.pk).update(retired=False)
                self._log(TableEvent.Kind.RETURNED, name=member.name)

    def rematch(
        self, game: Game, seats: Sequence[int] | None = None, added: Sequence[str] = ()
    ) -> Game:
        """Game.rematch of one of the table's games, under the table's lock first (the order of
        every table's change; the game's own is taken inside). The rematch is one of the
        table's next games. It plays by the table's rules as they are now (not by rules that
        game alone had), and a member who retired since plays it, and so comes back, as any
        retired member who plays does. A name `added` that is a member's (by name key) is that
        member, under the member's name; another plays as a guest."""
        with self._changing() as table:
            members = {member.name_key: member for member in table.members.all()}
            found = [members.get(rules.name_key(name)) for name in added]
            added = [
                member.name if member else name for name, member in zip(added, found, strict=True)
            ]
            next_game = game.rematch(
                house_rules=table.rules,
                seats=seats,
                added=added,
                added_members=[member.pk if member else None for member in found],
            )
            table._bring_back(Member.objects.filter(players__game=next_game))
        return next_game

    def rename_member(self, member: Member, name: str) -> None:
        """Rename a member, and their player in every game of the table, each game through
        its own rename (Game.rename_players, under the game's lock): its version moves on and
        its history says who was renamed. Refused (RulesError "name_taken") when another
        member, or a guest in one of the table's games, has the name (by name key); the name
        itself is checked as a player's is. All or nothing: one transaction, under the table's
        lock. ValueError for a member of another table (a caller's mistake)."""
        self._check_ours(member)
        name = rules.check_name(name)
        key = rules.name_key(name)
        with self._changing() as table:
            member = Member.objects.get(pk=member.pk)
            if member.name == name:
                return
            if key != member.name_key and (
                table.members.filter(name_key=key).exists()
                or Player.objects.filter(game__table=table, member=None, name_key=key).exists()
            ):
                raise rules.RulesError(rules.Code.NAME_TAKEN)
            _lock_games(member.players.values("game_id"))
            before = member.name
            member.name = name
            member.save()
            for player in member.players.select_related("game").order_by("game_id"):
                player.game.rename_players({player.seat: name})
            table._log(TableEvent.Kind.RENAMED, name=name, name_before=before)

    def rename_players(
        self,
        game: Game,
        names: Mapping[int, str],
        seen: Mapping[int, str] | None = None,
        phone: str = "",
    ) -> list[int]:
        """Rename players of one of the table's games (models.rename_players comes here): a
        member's new name is the member's, in every game of the table (rename_member), so
        that a member keeps one name; a guest is renamed in this game only. The seats
        renamed. All or nothing, under the table's lock, every game of this game's members
        locked before this one changes (the order of _changing), so that two phones renaming
        on two games never deadlock."""
        with self._changing():
            members = game.players.filter(member__isnull=False).values("member_id")
            _lock_games(Player.objects.filter(member__in=members).values("game_id"))
            renamed = game.rename_players(names, seen=seen, phone=phone)
            members = game.players.filter(seat__in=renamed, member__isnull=False)
            for player in members.select_related("member").order_by("seat"):
                self.rename_member(player.member, player.name)
        return renamed


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
    # A member who left the group: kept in the games they played, the standings and head to
    # head, but not offered for new games; they can come back.
    retired = models.BooleanField(default=False)

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


class TableEvent(models.Model):
    """One change to a table itself, kept for its history with when it was made: its rules
    for the next games changed (the rules before and after), a member added, renamed (the
    name before), retired, back, or removed."""

    class Kind(models.TextChoices):
        RULES = "rules", _("Rules for the next games changed")
        JOINED = "joined", _("Member added")
        RENAMED = "renamed", _("Member renamed")
        RETIRED = "retired", _("Member retired")
        RETURNED = "returned", _("Member came back")
        REMOVED = "removed", _("Member removed")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The member's name at the time (it outlives a removed member); a rename's new name.
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH, blank=True)
    # A rename: the member's name before it.
    name_before = models.CharField(max_length=rules.MAX_NAME_LENGTH, blank=True)
    # A change of the rules: the table's rules before and after it (None for another kind).
    rules_before = RulesField(null=True, default=None)
    rules_after = RulesField(null=True, default=None)
    # The table's version after the change.
    version = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}".strip()
