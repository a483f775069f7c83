"""A game, reached by its edit link or its view link.

Every change to its rounds goes through its methods, each in one transaction with the game
locked (_locked); the points are computed by `scoring.rules` and stored. Here too: what a
polling phone lacks (changes_since), and one read of the database for a page (snapshot)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

from django.db import connection, models, transaction
from django.db.models import F, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from scoring import rules
from scoring.models.common import RulesField, Status, _locked, new_token
from scoring.models.deleted import DeletedLink
from scoring.models.rounds import (
    GameEvent,
    Hand,
    Player,
    Round,
    from_history,
    history_document,
    total_after_return,
)
from scoring.rules import RoundEntry


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


@dataclass(frozen=True)
class Seating:
    """Who deals a round (a seat) and the order the deal goes round (every seat once), as
    Game.seating_for gives it and the players page shows it."""

    dealer: int
    order: tuple[int, ...]

    def same_as(self, other: Seating) -> bool:
        """The same dealer, and the same order round the table, whichever seat it is written
        from (the deal goes round: Ana, Boris, Cyril is Boris, Cyril, Ana)."""
        if self.dealer != other.dealer or sorted(self.order) != sorted(other.order):
            return False
        start = other.order.index(self.order[0])
        return self.order == other.order[start:] + other.order[:start]


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
    # Changes to the deal made during the game, oldest first: from round `from` on, seat
    # `dealer` deals, then the deal moves along `order` (every seat once). Rounds before a
    # change keep their dealers: [] for a game whose deal moved one seat each round throughout.
    seating = models.JSONField(default=list, blank=True)
    # How many played the first round: the target stays theirs when players come and go
    # (SPEC 1.5). None for a game saved by a release before this was kept: all of its players.
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
        """The game found by `lookup` (edit_token=... or view_token=...) with its players and
        its table (None for most), in one query: what every request reads first.
        Game.DoesNotExist when there is none (a game always has players)."""
        players = list(
            Player.objects.select_related("game__table")
            .filter(**{f"game__{field}": value for field, value in lookup.items()})
            .order_by("seat")
        )
        if not players:
            raise cls.DoesNotExist
        game = players[0].game
        for player in players:
            player.game = game
        game.seated_players = players
        return game

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
        """The players still playing (SPEC 1.5: not those who left), in seat order."""
        return [player for player in self.seated_players if not player.left]

    @property
    def target(self) -> int:
        """The target of the players of the first round (SPEC 1.5), or, before it, of those
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

    def _seating_change(self, number: int) -> dict | None:
        """The latest change to the deal (`seating`) that round `number` plays under, or None."""
        return next((change for change in reversed(self.seating) if change["from"] <= number), None)

    def _order_for(self, number: int) -> tuple[int, ...]:
        """The order the deal goes round in round `number`, every seat once: the latest change
        of seats', then any seat it does not name (a player who joined since)."""
        change = self._seating_change(number)
        order = list(change["order"]) if change else []
        return tuple(order + [p.seat for p in self.seated_players if p.seat not in order])

    def next_deal(self, last_dealer: int | None, rounds: int) -> Seating:
        """Who deals the next round, after `rounds` rounds of which `last_dealer` dealt the last
        (Round.dealer), and the order the deal goes round: every seat once, those who left
        included (the deal passes over them). A change of seats from that round on
        (change_seating, a player joining) says both. Otherwise the deal goes on to the next
        player playing after the last dealer (rules.next_dealer), along the latest change's
        order or the seat order. Before the first round, the first dealer deals."""
        number = rounds + 1
        change = self._seating_change(number)
        order = self._order_for(number)
        playing = [player.seat for player in self.playing]
        if change is not None and change["from"] == number:
            chosen = change["dealer"]
        elif rounds and last_dealer is not None:
            return Seating(rules.next_dealer(order, last_dealer, playing), order)
        else:
            chosen = self.first_dealer
        if chosen in playing:
            return Seating(chosen, order)
        return Seating(rules.next_dealer(order, chosen, playing), order)

    def last_dealer(self) -> tuple[int | None, int]:
        """The last round's dealer and the number of rounds (one query)."""
        last = self.rounds.order_by("-number").values_list("dealer", "number").first()
        if last is not None and last[0] is None:
            return self._dealt(
                list(self.rounds.order_by("number").values_list("dealer", flat=True))
            )[-1], last[1]
        return last if last is not None else (None, 0)

    def _dealt(self, dealers: list[int | None]) -> list[int]:
        """The rounds' dealers in order, a missing one the player the deal went to: a round the
        release before 0.2.0 saved while 0.2.0's migration ran or before its servers were
        restarted has none (0013 filled the others)."""
        dealt: list[int] = []
        for index, dealer in enumerate(dealers):
            if dealer is None:
                dealer = self.next_deal(dealt[-1] if dealt else None, index).dealer
            dealt.append(dealer)
        return dealt

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

    def record_round(
        self,
        entry: RoundEntry,
        key: str = "",
        past_the_end: bool = False,
        for_round: int | None = None,
        phone: str = "",
        dealer: int | None = None,
    ) -> Round:
        """Add a round after the last one. A repeated `key` (the same form sent twice) returns
        the round it recorded the first time instead of recording it again.

        `for_round` is the number the form was filled in for. When another phone has saved
        that round first, the round is refused ("round_taken") rather than silently added
        after it. A form for a round past the next one was drawn before rounds were deleted (or
        a save undone) on another phone. It still holds the next round that phone saw, and is
        recorded as the next one.

        `phone`: the phone that made the change (phones.of), to whom its Undo belongs.

        A finished game takes no new round, except from a whole game imported (`past_the_end`).
        Its history may hold rounds played before an earlier round was edited so that the game
        ended sooner; a backup must bring those back as they were.
        """
        with self._changing() as game:
            # Read after the lock is held (not as part of the locking query, whose snapshot
            # PostgreSQL takes before it waits): the last round and the key's earlier use.
            rounds = Round.objects.filter(game=OuterRef("pk")).order_by("-number")
            last_round, last_dealer, saved_by_key = (
                Game.objects.filter(pk=game.pk)
                .values_list(
                    Subquery(rounds.values("number")[:1]),
                    Subquery(rounds.values("dealer")[:1]),
                    Subquery(GameEvent.objects.filter(game=game, key=key).values("pk")[:1]),
                )
                .get()
            )
            if key and saved_by_key is not None:
                earlier = GameEvent.objects.select_related("round").get(pk=saved_by_key)
                if earlier.round is None:
                    raise rules.Conflict(rules.Code.ALREADY_SAVED)
                return earlier.round
            if game.status == Status.FINISHED and not past_the_end:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            # Round numbers run from 1 without a gap: the last is the count.
            number = (last_round or 0) + 1
            if for_round is not None and 0 < for_round < number:
                raise rules.Conflict(rules.Code.ROUND_TAKEN, number=for_round, next=number)
            game._check_room(number)
            if not past_the_end:  # a file's round names its own players (exchange)
                game.check_players(entry)
            if dealer is None:  # a file's round may say who dealt it (a backup's)
                if last_round and last_dealer is None:  # saved by the release before
                    last_dealer, _ = game.last_dealer()
                dealer = game.next_deal(last_dealer, number - 1).dealer
            if game.target_players is None:
                game.target_players = len(entry.playing)
                Game.objects.filter(pk=game.pk).update(target_players=game.target_players)
            added = game._new_round(
                number, entry, GameEvent.Kind.ADDED, phone, dealer=dealer, key=key
            )
        return added.round

    def check_players(self, entry: RoundEntry) -> None:
        """A form drawn before a player left or joined on another phone is refused, everything
        typed kept, rather than saved without them or with a hand for one who left (SPEC 1.5)."""
        if entry.playing != tuple(player.seat for player in self.playing):
            raise rules.Conflict(rules.Code.PLAYERS_CHANGED)

    def _check_room(self, number: int) -> None:
        """A game file's limit, on every way a round comes in: every game exports and imports
        again (no real table plays that long)."""
        if number > rules.MAX_ROUNDS:
            raise rules.Conflict(rules.Code.TOO_MANY_ROUNDS, limit=rules.MAX_ROUNDS)

    def _round_as_seen(self, seen: Round) -> Round:
        """The round a phone's form is about, read again under the lock: the one with the
        identity of `seen`, still at its number and revision. Never another round in its
        place: a round deleted since is "round_gone", one moved by a deletion or an Undo
        elsewhere "round_moved", one edited since "round_changed"."""
        round_ = self.rounds.filter(pk=seen.pk).first()
        if round_ is None:
            raise rules.Conflict(rules.Code.ROUND_GONE, number=seen.number)
        if round_.number != seen.number:
            raise rules.Conflict(rules.Code.ROUND_MOVED, number=seen.number, now=round_.number)
        if round_.revision != seen.revision:
            raise rules.Conflict(rules.Code.ROUND_CHANGED, number=seen.number)
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
            hands = round_.hands.order_by("player__seat")
            played = tuple(hands.values_list("player__seat", flat=True))
            if entry.playing != played:  # no page of ours sends another round's players
                missing = next(iter(set(entry.playing) ^ set(played)), None)
                raise rules.RulesError(rules.Code.NOT_PLAYING, missing)
            game._store_again(round_, entry, kind, phone)
        return round_

    def _seated(self, entry: RoundEntry) -> RoundEntry:
        """`entry` with a hand (or None) for every seat: one typed before a player joined has
        none for them, who did not play it."""
        missing = len(self.seated_players) - len(entry.hands)
        return replace(entry, hands=entry.hands + (None,) * missing) if missing > 0 else entry

    def _store_again(
        self,
        round_: Round,
        entry: RoundEntry,
        kind: str,
        phone: str,
        undoes: GameEvent | None = None,
    ) -> GameEvent:
        entry = self._seated(entry)
        names = self.names
        before = round_.document(names)
        round_.revision += 1
        self._store(round_, entry)
        return self.log(
            kind,
            round_,
            before=before,
            after=history_document(entry, names, round_.dealer),
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
        it would be one round more, played after the others. That is done only when the phone
        says so with `as_round`, the number it becomes (the count of rounds plus one, as the
        phone's confirmation showed it). Otherwise "restore_as_extra" says that number, and
        nothing changes. A finished game takes no extra round."""
        with self._changing() as game:
            # GameEvent.DoesNotExist for an event that never deleted a round of this game.
            event = game.events.get(pk=deletion.pk, kind=GameEvent.Kind.DELETED)
            if event.restored:
                raise rules.Conflict(rules.Code.ALREADY_RESTORED)
            rounds = game.rounds.count()
            filled = game.events.filter(
                pk__gt=event.pk, kind__in=[GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED]
            ).exists()
            if filled:
                if as_round != rounds + 1:
                    raise rules.ConfirmFirst(
                        rules.Code.RESTORE_AS_EXTRA, number=event.number, extra=rounds + 1
                    )
                if game.status == Status.FINISHED:
                    raise rules.Conflict(rules.Code.GAME_FINISHED)
            restored = game._restore(event, rounds if filled else None, phone)
        return restored.round

    def _store(self, round_: Round, entry: RoundEntry, new: bool = False) -> None:
        """Save `round_` as `entry` says, with the engine's points for this game (scored once:
        the form that checked the entry scored it already). A seat added since the form was
        drawn (a player joined) has no hand in it; a hand for a seat that is gone since (a join
        undone) is refused as a change of players."""
        seats = len(self.seated_players)
        extra = entry.hands[seats:]
        if any(hand is not None for hand in extra):
            raise rules.Conflict(rules.Code.PLAYERS_CHANGED)
        entry = replace(entry, hands=entry.hands[:seats] + (None,) * (seats - len(entry.hands)))
        points = entry.points(self.target, self.rules)
        round_.store(entry, self.seated_players, points, new=new)

    def _new_round(
        self, number: int, entry: RoundEntry, kind: str, phone: str, dealer: int | None, **fields
    ) -> GameEvent:
        """Store `entry` as a new round at `number` (its place free), dealt by `dealer`, and log
        it as `kind` (added, or restored): the change's event, whose `round` is the new round."""
        round_ = Round(game=self, number=number, dealer=dealer)
        entry = self._seated(entry)
        self._store(round_, entry, new=True)
        after = history_document(entry, self.names, dealer)
        return self.log(kind, round_, after=after, phone=phone, **fields)

    def _restore(
        self, event: GameEvent, last: int | None, phone: str, undoes: GameEvent | None = None
    ) -> GameEvent:
        """Put the round `event` deleted back: after the `last` round, or at its own place
        (when `last` is None; last if fewer rounds remain). The restore's event."""
        rounds = self.rounds.count() if last is None else last
        self._check_room(rounds + 1)
        # The deleted round names the players as they were called then; it comes back with
        # its dealer (one deleted before dealers were kept: dealt as the deal goes now).
        entry, dealer = from_history(event.before, self.names_when(event))
        number = rounds + 1 if last is not None else min(event.number, rounds + 1)
        if dealer is None:
            dealer = self.next_deal(*self.last_dealer()).dealer
        self._shift_rounds(after=number - 1, by=1)
        event.restored = True
        event.save(update_fields=["restored"])
        return self._new_round(number, entry, GameEvent.Kind.RESTORED, phone, dealer, undoes=undoes)

    def go_back(self, change: GameEvent, seen_revision: int, phone: str = "") -> Round:
        """Edit a round back to the version it had before `change` (an edit or a correction
        of it, from the history): one more edit of that round, checked like any edit against
        the revision the phone saw. "round_gone" once the round has been deleted."""
        with self._changing() as game:
            event = game.events.get(pk=change.pk, kind__in=GameEvent.EDITS)
            round_ = game.rounds.filter(pk=event.round_id).first()
            if round_ is None:
                raise rules.Conflict(rules.Code.ROUND_GONE, number=event.number)
            round_ = game._round_as_seen(
                Round(pk=round_.pk, number=round_.number, revision=seen_revision)
            )
            entry, _dealer = from_history(event.before, game.names_when(event))
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
            event = game.events.get(pk=change.pk, kind__in=GameEvent.UNDOABLE)
            game.check_undo(event, phone)
            if event.kind in GameEvent.PLAYER_CHANGES and event.undoes_id is not None:
                # The Undo of a leave or a join is not undone in turn: the players page
                # makes the leave (or the join) again.
                raise rules.Conflict(rules.Code.UNDO_DONE, number=event.number)
            if event.kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED):
                round_ = game.rounds.get(pk=event.round_id)
                return game._delete(round_, phone, undoes=event)
            if event.kind == GameEvent.Kind.DELETED:
                return game._restore(event, None, phone, undoes=event)
            if event.kind == GameEvent.Kind.LEFT:
                return game._come_back(event, phone)
            if event.kind == GameEvent.Kind.JOINED:
                return game._unjoin(event, phone)
            round_ = game.rounds.get(pk=event.round_id)
            entry, _dealer = from_history(event.before, game.names_when(event))
            return game._store_again(round_, entry, GameEvent.Kind.EDITED, phone, undoes=event)

    def check_undo(self, event: GameEvent, phone: str) -> None:
        """Whether `phone` may undo `event` now (see undo): a RulesError saying why not."""
        if not phone or event.phone != phone:
            raise rules.Conflict(rules.Code.UNDO_NOT_YOURS, number=event.number)
        if GameEvent.objects.filter(undoes=event).exists():
            raise rules.Conflict(rules.Code.UNDO_DONE, number=event.number)
        # A player's leave or join holds until the next round is saved (SPEC 1.5), and a join
        # until the next one (the seats are taken in turn); a change to the rounds, until any
        # later one.
        depends: tuple[str, ...] = GameEvent.ROUND_CHANGES
        if event.kind == GameEvent.Kind.LEFT:
            depends = (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED)
        elif event.kind == GameEvent.Kind.JOINED:
            depends = (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED, GameEvent.Kind.JOINED)
        later = (
            self.events.filter(pk__gt=event.pk, kind__in=depends)
            .order_by("-pk")
            .values_list("number", flat=True)
            .first()
        )
        if later is not None and event.kind in GameEvent.PLAYER_CHANGES:
            raise rules.Conflict(rules.Code.PLAYER_OVERTAKEN)
        if later is not None:
            raise rules.Conflict(rules.Code.UNDO_OVERTAKEN, number=event.number, later=later)

    def _shift_rounds(self, after: int, by: int) -> None:
        """Move the numbers of the rounds after `after` by `by`, keeping them unique at every
        step: first out of the way to negative numbers, then to their new place. The changes
        of seats from those rounds on move with them (a change is from the round it was made
        before, whatever its number becomes), so that deleting or restoring an earlier round
        never makes a change look unplayed, its dealer chosen again for the next round. With
        no round after `after` (the last round deleted, to be entered again; a round restored
        as the last), nothing moves: a change made for the next round stays after it. Two
        changes from one round (the round between them deleted): the later one holds, as it
        would for every round after it anyway."""
        moved_rounds = self.rounds.filter(number__gt=after).update(number=-F("number"))
        self.rounds.filter(number__lt=-after).update(number=-F("number") + by)
        # A player came back before a round: they still did, whatever its number becomes.
        for player in self.players.filter(returns__isnull=False):
            if moved_rounds and any(back["from"] > after for back in player.returns):
                player.returns = [
                    {**back, "from": back["from"] + by} if back["from"] > after else back
                    for back in player.returns
                ]
                Player.objects.filter(pk=player.pk).update(returns=player.returns)
        if moved_rounds and any(change["from"] > after for change in self.seating):
            moved = [
                {**change, "from": change["from"] + by} if change["from"] > after else change
                for change in self.seating
            ]
            self.seating = [
                change
                for index, change in enumerate(moved)
                if index + 1 == len(moved) or moved[index + 1]["from"] != change["from"]
            ]
            Game.objects.filter(pk=self.pk).update(seating=self.seating)

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

        This game alone: a table's game is renamed by its table (models.rename_players), so
        that a member keeps one name in every game of the table."""
        with self._changing() as game:
            players = list(game.players.order_by("seat"))
            now = [player.name for player in players]
            renamed = sorted(
                seat for seat, name in names.items() if rules.clean_name(name) != now[seat]
            )
            for seat in renamed:
                if seen is not None and seen.get(seat, now[seat]) != now[seat]:
                    raise rules.Conflict(rules.Code.NAME_CHANGED, seat)
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
                game.seated_players = players
        return renamed

    def change_seating(
        self, dealer: int, order: Sequence[int], seen: Seating | None = None, phone: str = ""
    ) -> bool:
        """From the next round on, seat `dealer` deals and the deal moves along `order` (every
        seat once, starting anywhere: it goes round). It is for a player who sits elsewhere
        after a break, or a deal passed wrongly. The rounds played keep their dealers; the
        seats keep their players (hands and history name them by seat). The change is kept in
        the game's `seating` and in its history: it replaces one from the same round, and one
        from a later round (left by rounds deleted since) goes. Whether anything changed.

        `seen` is the seating the phone's page showed for the next round (seating_for). When it
        is no longer so (another phone changed the seats or the dealer, or saved a round, so
        that the deal moved on), the change is refused ("seating_changed") rather than made
        over what the phone did not see. The same dealer and order as now change
        nothing, not even the version, so a form sent twice is harmless. RulesError as
        rules.check_seating says, and "game_finished" for a game that is over."""
        with self._changing() as game:
            if game.status == Status.FINISHED:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            order = list(order)
            playing = [player.seat for player in game.playing]
            rules.check_seating(dealer, order, playing)
            last_dealer, rounds = game.last_dealer()
            now = game.playing_deal(game.next_deal(last_dealer, rounds))
            chosen = Seating(dealer, tuple(order))
            if chosen.same_as(now):
                return False
            if seen is not None and not seen.same_as(now):
                raise rules.Conflict(rules.Code.SEATING_CHANGED)
            game._seat(dealer, order, rounds + 1, now, phone)
        return True

    def _seat(self, dealer: int, order: list[int], number: int, now: Seating, phone: str) -> None:
        """Seat `dealer` deals round `number`, the deal moving along `order` (the players
        playing; those who left keep their places behind them): kept in `seating` and the
        history."""
        order = order + [seat for seat in self._order_for(number) if seat not in order]
        change = {"from": number, "dealer": dealer, "order": order}
        self.seating = [old for old in self.seating if old["from"] < number] + [change]
        Game.objects.filter(pk=self.pk).update(seating=self.seating)
        before = {"from": number, "dealer": now.dealer, "order": list(now.order)}
        self.log(
            GameEvent.Kind.SEATED, None, number=number, before=before, after=change, phone=phone
        )

    def playing_deal(self, deal: Seating) -> Seating:
        """`deal` as the players page shows it: its order among the players playing."""
        playing = {player.seat for player in self.playing}
        return Seating(deal.dealer, tuple(seat for seat in deal.order if seat in playing))

    def seating_now(self) -> Seating:
        """Who deals next, and the deal's order among the players playing (two queries at most)."""
        return self.playing_deal(self.next_deal(*self.last_dealer()))

    # Players coming and going (SPEC 1.5).

    def leave(self, seat: int, phone: str = "", past_the_end: bool = False) -> GameEvent:
        """The player at `seat` leaves after the last round saved. From the next round on they
        are not in it and the deal passes over them; their total stays, but they can no longer
        win (refresh_standing counts the players still playing). Refused: fewer than
        MIN_PLAYERS left playing ("leave_last"); a player who has played no round yet
        ("leave_unplayed": start the game without them); one who left already ("left_already":
        a form sent twice); anyone from a finished game. A game file's players leave as its
        rounds say (`past_the_end`: exchange's import)."""
        with self._changing() as game:
            player = game._player(seat)
            if player.left:
                raise rules.Conflict(rules.Code.LEFT_ALREADY, seat)
            if game.status == Status.FINISHED and not past_the_end:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            last = player.hands.order_by("-round__number").values_list("round__number", flat=True)
            after = last.first()
            if not past_the_end:  # a file's players leave as its rounds say
                if after is None:
                    raise rules.RulesError(rules.Code.LEAVE_UNPLAYED, seat)
                rules.check_leave(len(game.playing), seat)
            player.left = True
            Player.objects.filter(pk=player.pk).update(left=True)
            return game.log(
                GameEvent.Kind.LEFT, None, number=after, after={"seat": seat}, phone=phone
            )

    def join(
        self,
        name: str,
        after: int | None = None,
        start: int | None = None,
        phone: str = "",
        past_the_end: bool = False,
    ) -> Player:
        """A new player, `name`, joins before the next round, seated after `after` in the deal
        (a seat; None: before the next dealer, the last to deal in the round), while fewer than
        MAX_PLAYERS play ("join_full"). They start with `start` points, or the highest total of
        those playing (rules.start_total). The target stays what the first round's players
        set; before any round, they are one of those. Not in a finished game, but for a
        game file's rounds past its end (`past_the_end`: record_round's)."""
        name = rules.check_name(name)
        with self._changing() as game:
            game._check_joining(past_the_end)
            key = rules.name_key(name)
            other = next((p for p in game.seated_players if p.name_key == key), None)
            if other is not None:
                raise rules.same_name(name, other.name)
            playing = [player.seat for player in game.playing]
            start = game._starting_total(playing, start)
            seat = max(player.seat for player in game.seated_players) + 1
            player = Player.objects.create(
                game=game, seat=seat, name=name, name_key=key, start=start, joined=True
            )
            game.seated_players = [*game.seated_players, player]
            now, order, number = game._deal_with(seat, after, playing)
            if number == 1:
                game.target_players = len(playing) + 1
                Game.objects.filter(pk=game.pk).update(target_players=game.target_players)
            game._sit_down(now, order, number, {"seat": seat, "name": name, "start": start}, phone)
        self.seated_players = game.seated_players
        return player

    def come_back(
        self,
        seat: int,
        after: int | None = None,
        start: int | None = None,
        phone: str = "",
        past_the_end: bool = False,
    ) -> GameEvent:
        """The player at `seat`, who left, comes back before the next round (1.5), as a join of
        their own seat: their name, seat and earlier rounds stay theirs. They sit after `after`
        in the deal (None: before the next dealer) and start with `start` points, or the
        highest total of those playing. Refused as a join is ("join_full": another phone's
        join came first), and for one who is playing ("playing_already"). A game file's
        players come back as its rounds say (`past_the_end`). The change, for its Undo."""
        with self._changing() as game:
            player = game._player(seat)
            # One playing is refused as such, but in a finished game, which is refused as one.
            if not player.left and (past_the_end or game.status != Status.FINISHED):
                raise rules.Conflict(rules.Code.PLAYING_ALREADY, seat)
            game._check_joining(past_the_end)
            playing = [other.seat for other in game.playing]
            start = game._starting_total(playing, start)
            now, order, number = game._deal_with(seat, after, playing)
            was = {"joined": player.joined, "returns": player.returns}
            player.left, player.joined = False, True
            player.returns = [*(player.returns or []), {"from": number, "start": start}]
            Player.objects.filter(pk=player.pk).update(
                left=False, joined=True, returns=player.returns
            )
            logged = {"seat": seat, "start": start, "back": True, "was": was}
            event = game._sit_down(now, order, number, logged, phone)
        self.seated_players = game.seated_players
        return event

    def _check_joining(self, past_the_end: bool) -> None:
        """Whether a player may sit down before the next round (join, come_back): not in a
        finished game, and while fewer than MAX_PLAYERS play ("join_full": a Conflict, the
        page having offered it before another join filled the game). A game file's players
        come and go as its rounds say (`past_the_end`): each of its rounds has 2 to 6 players
        (the rules score none with more), whoever else has not left yet."""
        if past_the_end:
            return
        if self.status == Status.FINISHED:
            raise rules.Conflict(rules.Code.GAME_FINISHED)
        try:
            rules.check_join(len(self.playing), len(self.seated_players))
        except rules.RulesError as full:
            raise rules.Conflict(full.code, full.player, **full.details) from None

    def _starting_total(self, playing: list[int], start: int | None) -> int:
        """The total one who sits down starts with: `start`, or the highest of those playing."""
        if start is None:
            totals = self.totals()
            start = rules.start_total(totals[seat] for seat in playing)
        return rules.check_start_total(start)

    def _deal_with(self, seat: int, after: int | None, playing: list[int]):
        """The next deal, the order of `playing` with `seat` sat after `after` (None: before
        the next dealer, the last to deal in the round), and the next round's number."""
        last_dealer, rounds = self.last_dealer()
        now = self.next_deal(last_dealer, rounds)
        order = [other for other in now.order if other in playing]
        place = order.index(after) + 1 if after in order else order.index(now.dealer)
        order.insert(place, seat)
        return now, order, rounds + 1

    def _sit_down(self, now, order: list[int], number: int, logged: dict, phone: str) -> GameEvent:
        """The join (`logged`: its event's `after`), then the joiner's place in the deal from
        round `number` (the history, read back in time, meets the seat before the player who
        took it)."""
        event = self.log(GameEvent.Kind.JOINED, None, number=number, after=logged, phone=phone)
        self._seat(now.dealer, order, number, self.playing_deal(now), phone)
        return event

    def _player(self, seat: int) -> Player:
        player = next((player for player in self.seated_players if player.seat == seat), None)
        if player is None:
            raise rules.RulesError(rules.Code.SEATING_ORDER)
        return player

    def _come_back(self, leaving: GameEvent, phone: str) -> GameEvent:
        """The Undo of a leave: the player plays again from the next round."""
        seat = leaving.after["seat"]
        Player.objects.filter(game=self, seat=seat).update(left=False)
        self._player(seat).left = False
        return self.log(
            GameEvent.Kind.JOINED,
            None,
            number=leaving.number,
            after={"seat": seat},
            phone=phone,
            undoes=leaving,
        )

    def _unjoin(self, joining: GameEvent, phone: str) -> GameEvent:
        """The Undo of a join: the player, who has played no round and took the last seat
        (check_undo: no join since), is taken out again. One who came back has left again,
        as before."""
        seat = joining.after["seat"]
        if joining.after.get("back"):
            return self._leave_again(joining, phone)
        Player.objects.filter(game=self, seat=seat).delete()
        self.seated_players = [p for p in self.seated_players if p.seat != seat]
        self.seating = [
            {**change, "order": [s for s in change["order"] if s != seat]}
            for change in self.seating
        ]
        Game.objects.filter(pk=self.pk).update(seating=self.seating)
        return self.log(
            GameEvent.Kind.LEFT,
            None,
            number=joining.number,
            after={"seat": seat, "name": joining.after.get("name", "")},
            phone=phone,
            undoes=joining,
        )

    def _leave_again(self, coming_back: GameEvent, phone: str) -> GameEvent:
        """The Undo of a coming back (come_back): the player has left as before, out of the
        deal from the round they came back for."""
        seat = coming_back.after["seat"]
        was = coming_back.after["was"]
        Player.objects.filter(game=self, seat=seat).update(
            left=True, joined=was["joined"], returns=was["returns"]
        )
        player = self._player(seat)
        player.left, player.joined, player.returns = True, was["joined"], was["returns"]
        self.seating = [
            {**change, "order": [s for s in change["order"] if s != seat]}
            if change["from"] >= coming_back.number
            else change
            for change in self.seating
        ]
        Game.objects.filter(pk=self.pk).update(seating=self.seating)
        return self.log(
            GameEvent.Kind.LEFT,
            None,
            number=coming_back.number,
            after={"seat": seat, "back": True},
            phone=phone,
            undoes=coming_back,
        )

    def names_when(self, event: GameEvent) -> list[str]:
        """The players' names as they were just after `event`: today's, with every rename
        since undone. A change's round documents name the players so."""
        names = self.names
        # Those who joined since were not seated then (a joiner takes the next seat): a
        # document that names no players was played by every player seated then.
        joined = self.events.filter(kind=GameEvent.Kind.JOINED, undoes=None, pk__gt=event.pk)
        seats = [
            after["seat"]
            for after in joined.values_list("after", flat=True)
            if not after.get("back")
        ]
        if seats:
            names = names[: min(seats)]
        since = self.events.filter(kind=GameEvent.Kind.RENAMED, pk__gt=event.pk).order_by("-pk")
        for before in since.values_list("before", flat=True):
            # A player whose join was undone since is no longer seated: their renames go too.
            if before["seat"] < len(names):
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
