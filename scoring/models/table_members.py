"""A table's members: one added, renamed (with every game they played), retired, back again or
removed, each inside the table's lock (Table._changing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from scoring import rules
from scoring.models.game import Game
from scoring.models.members import MAX_MEMBERS, MIN_ACTIVE, Member, TableEvent
from scoring.models.rounds import Player


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


class MemberChanges:
    """The changes to a table's members, a part of Table."""

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
