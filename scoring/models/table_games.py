"""A table's changes to its games: a new game started by its members, a finished game kept at the
table with its rematch chain, a rematch at the table, and a game removed from it, each inside
the table's lock (Table._changing) with the games locked in the order of their ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Self

from django.db import transaction
from django.utils import timezone

from scoring import rules
from scoring.models.game import Game, clock_version
from scoring.models.members import MAX_TABLE_NAME_LENGTH, Member
from scoring.models.rounds import Player
from scoring.models.table_members import NewMember, _lock_games


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


class GameChanges:
    """The changes a table makes to its games, a part of Table."""

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

    @classmethod
    def gather(
        cls,
        name: str,
        members: Sequence[str],
        games: Sequence[int],
        house_rules: rules.Rules | None = None,
        retired: Sequence[str] = (),
    ) -> Self:
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
            type(self).objects.filter(pk=table.pk).update(updated_at=timezone.now())
        return game

    def delete_game(self, game: Game) -> None:
        """Game.delete_on_request of one of this table's games, under the table's lock; the
        table's version moves on, so that its pages drop the game."""
        with self._changing() as table:
            _lock_games([game.pk])
            game.delete_on_request()
            table.version = max(table.version + 1, clock_version())
            type(self).objects.filter(pk=table.pk).update(
                version=table.version, updated_at=timezone.now()
            )

    def keep_game(self, game: Game) -> Self:
        """Keep `game` (typically finished) at this table, with its rematch chain (_keep)."""
        return self._keep(self, game, None)

    @classmethod
    def keep_together(cls, game: Game, name: str | None = None) -> Self:
        """keep_game at a new table named `name` (None: the players' names), or at the table of
        a game of its rematch chain kept already (another phone's, maybe at this moment)."""
        return cls._keep(None, game, name)

    @classmethod
    def _keep(cls, table: Self | None, game: Game, name: str | None) -> Self:
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
                    cls.objects.filter(pk=at.pk).update(updated_at=timezone.now())
            game.table = at
            return at

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
