"""A group's games (SPEC 2.5): tables, their members, new games from a table, and the standings
across the table's games.

A table is a named group of members; its games are ordinary games (`Game.table`), whose players
are its members (`Player.member`) or guests (no member). Every change here goes through the
game's own methods (`Game.start`, `Game._changing`), so that a game of a table is a game like
any other. One rule keeps a table's people apart: within a table a name key (rules.name_key)
is one person, a member's or a guest's, never both. So a name typed for a new game that is a
member's is that member, a guest who joins becomes the member in the games they played as a
guest, and a member cannot be renamed to a guest's name. The exchange (rami-table/1) can then
link players to members by name alone.

Reading a table's numbers takes a fixed number of queries whatever the number of its games:
`standings` three, `head_to_head` two, `results` two. They work on flat rows aggregated by the
database: one row per player of a game (their final total), and one per member for their rounds.

Every change to a table is made under the table's lock (`_changing`), as a game's is under the
game's: its checks (unique names, at most MAX_MEMBERS members) see what the other phones did,
and a clash is a RulesError, never the database's unique constraint. Locks are taken in one
order: the table, then its games in the order of their ids, then their players and members.

Errors a person can see are `rules.RulesError`s whose messages are in scoring/errors.py.

The exchange format rami-table/1 (SPEC 2.5) is at the end: `export_table`, `parse_table` and
`import_table`, each game through scoring/exchange.py as a single game goes.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from itertools import combinations

from django.db import DatabaseError, transaction
from django.db.models import Count, F, Max, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from . import exchange, rules
from .errors import english
from .exchange import ExchangeError
from .models import Game, Hand, Member, Player, Status, Table

MAX_MEMBERS = 30
MAX_TABLE_NAME_LENGTH = Table._meta.get_field("name").max_length
# Fewer finished games than this, and a member's numbers say little: the page labels them as
# a small sample and ranks them after everyone else's.
SMALL_SAMPLE = 5


# Names


def check_member_names(names: Sequence[str]) -> list[str]:
    """The members of a new table, cleaned: 1 to MAX_MEMBERS names, each checked (rules.check_name)
    and unique by name key; else RulesError naming the member (its index): "member_count",
    "member_duplicate", "member_lookalike" or a name's error."""
    if not 1 <= len(names) <= MAX_MEMBERS:
        raise rules.RulesError("member_count", count=len(names), limit=MAX_MEMBERS)
    cleaned = []
    seen: dict[str, str] = {}
    for index, name in enumerate(names):
        try:
            name = rules.check_name(name)
        except rules.RulesError as error:
            raise error.for_player(index) from None
        key = rules.name_key(name)
        if key in seen:
            raise rules.same_name(name, seen[key], index, members=True)
        seen[key] = name
        cleaned.append(name)
    return cleaned


def check_table_name(name: str) -> str:
    """A table's name, cleaned and checked as a player's is, up to MAX_TABLE_NAME_LENGTH."""
    return rules.check_name(name, MAX_TABLE_NAME_LENGTH)


def table_rules(table: Table) -> rules.Rules:
    """The rules the table's new games play by: the seeds', with its house rules on top."""
    return table.house_rules


# Changing a table


@contextmanager
def _changing(table: Table) -> Iterator[Table]:
    """The one shape of every change to a table, as Game._changing is a game's: in a
    transaction, the table locked and read again, so that what a change checks (a name that
    is free, the number of members) holds until it is made. Inside, the games it changes are
    locked in the order of their ids (_lock_games), and their players and members after them:
    two changes that need the same rows then wait in turn instead of each holding what the
    other waits for (PostgreSQL answers that with "deadlock detected")."""
    with transaction.atomic():
        yield Table.objects.select_for_update().get(pk=table.pk)


def _lock_games(games: Iterable[int]) -> None:
    """Lock these games (ids, or a query of them) in the order of their ids, before any of
    them changes: each game's own change (Game._changing) then finds its lock held already."""
    locked = Game.objects.select_for_update().filter(pk__in=games).order_by("pk")
    list(locked.values_list("pk", flat=True))


def start_table(name: str, members: Sequence[str], house_rules: rules.Rules | None = None) -> Table:
    """A new table named `name` with these members (in this order), whose new games play by
    `house_rules` (the seeds' when None). RulesError when a name is wrong: a member's error
    carries the member's index as its `player`."""
    name = check_table_name(name)
    members = check_member_names(members)
    with transaction.atomic():
        table = Table.objects.create(name=name, house_rules=house_rules or {})
        Member.objects.bulk_create(
            Member(table=table, name=member, name_key=rules.name_key(member), position=position)
            for position, member in enumerate(members)
        )
    return table


def add_member(table: Table, name: str) -> Member:
    """A new member of the table, listed last; the same member when the name is already one
    (by name key). A guest of the table's games with this name becomes the member in those
    games. RulesError for a wrong name or a table that has MAX_MEMBERS already."""
    name = rules.check_name(name)
    with _changing(table):
        return _members_for(table, [name])[0]


def _members_for(table: Table, names: Sequence[str]) -> list[Member]:
    """The member of each (checked) name: an existing one by name key, or a new one made in
    order, each taking over the guest players of its name in the table's games. Called under
    the table's lock (_changing): the members read here are all there are."""
    with transaction.atomic():
        existing = {member.name_key: member for member in table.members.all()}
        new = []
        for name in names:
            key = rules.name_key(name)
            if key not in existing:
                existing[key] = Member(table=table, name=name, name_key=key)
                new.append(existing[key])
        if not new:
            return [existing[rules.name_key(name)] for name in names]
        if len(existing) > MAX_MEMBERS:
            raise rules.RulesError("member_count", count=len(existing), limit=MAX_MEMBERS)
        last = table.members.aggregate(last=Max("position"))["last"]
        for position, member in enumerate(new, 0 if last is None else last + 1):
            member.position = position
        Member.objects.bulk_create(new)
        for member in new:
            Player.objects.filter(game__table=table, member=None, name_key=member.name_key).update(
                member=member
            )
        Table.objects.filter(pk=table.pk).update(updated_at=timezone.now())
    return [existing[rules.name_key(name)] for name in names]


@dataclass(frozen=True)
class NewMember:
    """A name for new_game that joins the table as a member (a plain str plays as a guest)."""

    name: str


def new_game(
    table: Table,
    players: Sequence[Member | NewMember | str],
    first_dealer: int | None = None,
) -> Game:
    """A new game of the table, its players seated in this order: a `Member` of the table; a
    `NewMember(name)`, who joins the table first; or a `str`, a guest (who plays without
    joining). A name that is already a member's (by name key), given either way, is that
    member. The table's house rules apply.

    The first dealer is `first_dealer` (a seat) when given; else the deal follows on from the
    table's last game (deal_follows_on). RulesError as Game's start form gives it: 2 to 6
    players ("player_count"), a guest's name ("name_empty", ...), the same person twice
    ("name_duplicate", naming the second seat); "member_count" when a new member is one too
    many. ValueError for a member of another table (a caller's mistake, not a player's).
    """
    for player in players:
        if isinstance(player, Member) and player.table_id != table.pk:
            raise ValueError(f"{player} is not a member of {table}")
    # Checked as a game's names are, before anything is made.
    names = rules.check_names(
        [player.name if isinstance(player, Member | NewMember) else player for player in players]
    )
    with _changing(table):
        joining = [
            name
            for name, player in zip(names, players, strict=True)
            if isinstance(player, NewMember)
        ]
        _members_for(table, joining)
        members = {member.name_key: member for member in table.members.all()}
        seated = [members.get(rules.name_key(name)) for name in names]
        # A member plays under the member's name, whatever spelling was typed.
        names = [
            member.name if member else name for name, member in zip(names, seated, strict=True)
        ]
        if first_dealer is None:
            first_dealer = deal_follows_on(table, [rules.name_key(name) for name in names])
        game = Game.start(names, first_dealer=first_dealer, house_rules=table_rules(table))
        _seat_at(table, game, seated)
    return game


def deal_follows_on(table: Table, keys: Sequence[str]) -> int:
    """The seat, among today's players (by name key, in seat order), that deals first: the
    deal follows on from the table's last game. The player who would have dealt its next round
    deals first, as in a rematch; if they do not play today, the next player after them at that
    game who does; if nobody from that game plays today (or the table has no game), seat 0."""
    last = table.games.order_by("-created_at", "-pk").annotate(rounds_played=Count("rounds"))
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


def _seat_at(table: Table, game: Game, members: Sequence[Member | None]) -> None:
    """Make `game` one of the table's, each player linked to their member (None: a guest)."""
    Game.objects.filter(pk=game.pk).update(table=table)
    game.table = table
    players = game.seated_players
    for player, member in zip(players, members, strict=True):
        player.member = member
    Player.objects.bulk_update(players, ["member"])
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now())


def keep_game(table: Table | None, game: Game, name: str | None = None) -> Table:
    """Keep `game` (typically finished) at a table: `table`, or when None a new one named
    `name` (the players' names when None) whose members are the game's players and whose
    house rules are the game's. Each player becomes the member of their name (by name key),
    new members made as needed. Keeping a game twice at its table changes nothing (a second
    tap); keeping one at another table is refused ("game_at_another_table"). The game's
    version moves on, so that every phone on it learns where it is kept.

    The games of its rematch chain (the games it was a rematch of, and its rematches, the
    same players) that are at no table are kept there too: the evening's games stay together
    whichever of them the group keeps. So when one of them is kept already (another phone
    kept it, maybe at this very moment), `table` None means that table: two phones keeping a
    game and its rematch at once make one table, the second joining the first's.
    """
    if game.table_id is not None:
        if table is None or table.pk == game.table_id:
            return game.table
        raise rules.RulesError("game_at_another_table")
    chain = _rematch_chain(game)
    games = Game.objects.filter(pk__in=[other.pk for other in chain])
    kept_at = table.pk if table is not None else _kept_at(game, games.values_list("pk", "table_id"))
    while True:
        with transaction.atomic():
            # The table first, then the chain's games: the order of every table's change.
            at = Table.objects.select_for_update().get(pk=kept_at) if kept_at else None
            table_of = dict(games.select_for_update().order_by("pk").values_list("pk", "table_id"))
            if table is not None:
                if table_of[game.pk] not in (None, table.pk):
                    raise rules.RulesError("game_at_another_table")
            elif _kept_at(game, table_of.items()) != kept_at:
                # Kept by another phone since we looked: its table is locked first, then the
                # games again. A game is kept once, so this happens once or twice at most.
                kept_at = _kept_at(game, table_of.items())
                continue
            for other in chain:
                if table_of[other.pk] is not None:
                    continue
                with other._changing() as changing:
                    if at is None:
                        at = start_table(
                            _name_from(changing.names) if name is None else name,
                            changing.names,
                            house_rules=changing.rules,
                        )
                    _seat_at(at, changing, _members_for(at, changing.names))
                    changing.changed = True
        game.table = at
        return at


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


def rename_member(member: Member, name: str) -> None:
    """Rename a member, and their player in every game of the table, each game through its
    own rename (Game.rename_player, under the game's lock): its version moves on and its
    history says who was renamed. Refused (RulesError "name_taken") when another member, or a
    guest in one of the table's games, has the name (by name key); the name itself is checked
    as a player's is. All or nothing: one transaction, under the table's lock."""
    name = rules.check_name(name)
    key = rules.name_key(name)
    with _changing(Table(pk=member.table_id)):
        member = Member.objects.get(pk=member.pk)
        if key != member.name_key and (
            Member.objects.filter(table=member.table_id, name_key=key).exists()
            or Player.objects.filter(
                game__table=member.table_id, member=None, name_key=key
            ).exists()
        ):
            raise rules.RulesError("name_taken")
        _lock_games(member.players.values("game_id"))
        member.name = name
        member.save()
        for player in member.players.select_related("game").order_by("game_id"):
            player.game.rename_player(player.seat, name)
        Table.objects.filter(pk=member.table_id).update(updated_at=timezone.now())


def rename_players(
    game: Game, names: Mapping[int, str], seen: Mapping[int, str] | None = None, phone: str = ""
):
    """Rename players of a game from its players' page (Game.rename_players, which checks
    them); in a table's game a member's new name is the member's, in every game of the table
    (rename_member), so that a member keeps one name. All or nothing, and in a table's game
    under the table's lock, every game of this game's members locked before this one changes
    (the order of _changing), so that two phones renaming on two games never deadlock."""
    if game.table_id is None:
        game.rename_players(names, seen=seen, phone=phone)
        return
    with _changing(Table(pk=game.table_id)):
        members = game.players.filter(member__isnull=False).values("member_id")
        _lock_games(Player.objects.filter(member__in=members).values("game_id"))
        renamed = game.rename_players(names, seen=seen, phone=phone)
        members = game.players.filter(seat__in=renamed, member__isnull=False)
        for player in members.select_related("member").order_by("seat"):
            rename_member(player.member, player.name)


# Reading a table: standings, head to head, results


@dataclass(frozen=True)
class MemberStanding:
    """One member's numbers across the table's games.

    Game figures count finished games only (a game in play has no final total yet): `games`,
    `wins`, `win_rate` (wins / games, None without a finished game), `average_total` (the mean
    final total, to one decimal rounded half up as a hand count gives it), `best_game` and
    `worst_game` (the lowest and highest final total). `playing` is how many of the table's
    unfinished games they sit in.

    Round figures count every round they played at the table, finished game or not: `rounds`,
    `average_round` (points a round, to one decimal), `rounds_won` (went out, or held the
    lowest hand of a blocked round: the rounds they scored 0 in without a hand rummy
    against them), `went_out` (only the rounds they went out in, as a game's own statistics
    count them), `hand_rummies_made`, `hand_rummies_suffered`, and `never_opened` (caught
    with cards in hand before a first meld, as a game's statistics count them: not in a hand
    rummy, which they pay anyway, nor with the lowest hand of a blocked round).

    `small_sample`: fewer than SMALL_SAMPLE finished games; such a member has no `rank`.
    `rank` (1 = best) orders the others by win rate, then by the lower average total.
    """

    member: Member
    games: int
    wins: int
    win_rate: float | None
    average_total: float | None
    best_game: int | None
    worst_game: int | None
    playing: int
    rounds: int
    average_round: float | None
    rounds_won: int
    went_out: int
    hand_rummies_made: int
    hand_rummies_suffered: int
    never_opened: int
    small_sample: bool
    rank: int | None = None

    @property
    def name(self) -> str:
        return self.member.name


@dataclass(frozen=True)
class _Seat:
    """A player of one of the table's games, as one flat row: their final total so far."""

    game_id: int
    seat: int
    name: str
    member_id: int | None
    finished: bool
    won: bool
    total: int


def _seats(table: Table) -> list[_Seat]:
    """Every player of the table's games with their total, oldest game first: one query."""
    rows = (
        Player.objects.filter(game__table=table)
        .values_list("game_id", "seat", "name", "member_id", "game__status", "game__winner_seat")
        .annotate(total=Coalesce(Sum("hands__points"), 0))
        .order_by("game__created_at", "game_id", "seat")
    )
    return [
        _Seat(
            game_id=game_id,
            seat=seat,
            name=name,
            member_id=member_id,
            finished=status == Status.FINISHED,
            won=status == Status.FINISHED and seat == winner_seat,
            total=total,
        )
        for game_id, seat, name, member_id, status, winner_seat, total in rows
    ]


def one_decimal(total: int, count: int) -> float | None:
    """total / count to one decimal, rounded half up (166.65 -> 166.7) as a person rounds, not
    to even as round() does; None for no count."""
    if not count:
        return None
    mean = (Decimal(total) / Decimal(count)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return float(mean)


def _round_counts(table: Table) -> dict[int, dict]:
    """Per member, their rounds at the table counted by the database: one query."""
    went_out = Q(round__winner_seat=F("player__seat"))
    blocked_lowest = Q(round__winner_seat__isnull=True, points=0)
    rummy = Q(round__hand_rummy=True)
    rows = (
        Hand.objects.filter(player__game__table=table, player__member__isnull=False)
        .values("player__member")
        .annotate(
            rounds=Count("pk"),
            scored=Sum("points"),
            went_out=Count("pk", filter=went_out),
            lowest=Count("pk", filter=blocked_lowest),
            made=Count("pk", filter=went_out & rummy),
            suffered=Count("pk", filter=rummy & ~went_out),
            never_opened=Count("pk", filter=Q(opened=False) & ~rummy & ~went_out & ~blocked_lowest),
        )
        .order_by()
    )
    return {row.pop("player__member"): row for row in rows}


def standings(table: Table) -> list[MemberStanding]:
    """Every member's numbers across the table's games (MemberStanding), in three queries
    whatever the number of games: the ranked members first (by rank), then the small samples
    in the table's order of members."""
    members = list(table.members.all())
    finished: dict[int, list[_Seat]] = defaultdict(list)
    playing: dict[int, int] = defaultdict(int)
    for seat in _seats(table):
        if seat.member_id is None:
            continue
        if seat.finished:
            finished[seat.member_id].append(seat)
        else:
            playing[seat.member_id] += 1
    counts = _round_counts(table)
    table_standings = []
    for member in members:
        games = finished[member.pk]
        totals = [seat.total for seat in games]
        wins = sum(seat.won for seat in games)
        rounds = counts.get(member.pk, {})
        table_standings.append(
            MemberStanding(
                member=member,
                games=len(games),
                wins=wins,
                win_rate=wins / len(games) if games else None,
                average_total=one_decimal(sum(totals), len(totals)),
                best_game=min(totals, default=None),
                worst_game=max(totals, default=None),
                playing=playing[member.pk],
                rounds=rounds.get("rounds", 0),
                average_round=one_decimal(rounds.get("scored", 0), rounds.get("rounds", 0)),
                rounds_won=rounds.get("went_out", 0) + rounds.get("lowest", 0),
                went_out=rounds.get("went_out", 0),
                hand_rummies_made=rounds.get("made", 0),
                hand_rummies_suffered=rounds.get("suffered", 0),
                never_opened=rounds.get("never_opened", 0),
                small_sample=len(games) < SMALL_SAMPLE,
            )
        )
    return _ranked(table_standings)


def _ranked(table_standings: list[MemberStanding]) -> list[MemberStanding]:
    ranked = sorted(
        (standing for standing in table_standings if not standing.small_sample),
        key=lambda standing: (-standing.win_rate, standing.average_total),
    )
    with_rank = []
    for index, standing in enumerate(ranked):
        previous = with_rank[-1] if with_rank else None
        # Equal win rate and average: the same rank.
        if previous and (previous.win_rate, previous.average_total) == (
            standing.win_rate,
            standing.average_total,
        ):
            rank = previous.rank
        else:
            rank = index + 1
        with_rank.append(replace(standing, rank=rank))
    return with_rank + [standing for standing in table_standings if standing.small_sample]


@dataclass(frozen=True)
class HeadToHead:
    """Two members, `first` listed before `second` in the table, over the finished games they
    both played: how often each finished with the lower total, and how often they tied."""

    first: Member
    second: Member
    games: int
    first_lower: int
    second_lower: int
    ties: int


def head_to_head(table: Table) -> list[HeadToHead]:
    """Each pair of members who finished a game together, in the table's order of members;
    two queries whatever the number of games."""
    members = list(table.members.all())
    order = {member.pk: index for index, member in enumerate(members)}
    by_game: dict[int, list[_Seat]] = defaultdict(list)
    for seat in _seats(table):
        if seat.finished and seat.member_id is not None:
            by_game[seat.game_id].append(seat)
    pairs: dict[tuple[int, int], list[int]] = {}
    for seats in by_game.values():
        seats.sort(key=lambda seat: order[seat.member_id])
        for one, other in combinations(seats, 2):
            counts = pairs.setdefault((one.member_id, other.member_id), [0, 0, 0, 0])
            counts[0] += 1
            if one.total < other.total:
                counts[1] += 1
            elif other.total < one.total:
                counts[2] += 1
            else:
                counts[3] += 1
    by_pk = {member.pk: member for member in members}
    return [
        HeadToHead(by_pk[first], by_pk[second], *pairs[first, second])
        for first, second in sorted(pairs, key=lambda pair: (order[pair[0]], order[pair[1]]))
    ]


@dataclass(frozen=True)
class ResultPlayer:
    """One player of a game in the table's list: `member_id` None for a guest."""

    seat: int
    name: str
    member_id: int | None
    total: int

    @property
    def guest(self) -> bool:
        return self.member_id is None


@dataclass(frozen=True)
class GameResult:
    """One game of the table as its page lists it and its chart draws it. Both links are here:
    a page reached by the table's view link must link its games by `view_token` only."""

    edit_token: str
    view_token: str
    started: datetime
    status: str
    version: int
    rounds: int
    target: int
    players: tuple[ResultPlayer, ...]
    winner: ResultPlayer | None

    @property
    def finished(self) -> bool:
        return self.status == Status.FINISHED

    def total_of(self, member_id: int) -> int | None:
        """The total of this member in this game, or None when they did not play it."""
        for player in self.players:
            if player.member_id == member_id:
                return player.total
        return None


def results(table: Table) -> list[GameResult]:
    """The table's games, oldest first, with their players' totals: two queries whatever the
    number of games."""
    games = list(
        table.games.order_by("created_at", "pk")
        .annotate(rounds_played=Count("rounds"))
        .values_list(
            "pk",
            "edit_token",
            "view_token",
            "created_at",
            "status",
            "version",
            "winner_seat",
            "house_rules",
            "rounds_played",
        )
    )
    players: dict[int, list[ResultPlayer]] = defaultdict(list)
    for seat in _seats(table):
        players[seat.game_id].append(ResultPlayer(seat.seat, seat.name, seat.member_id, seat.total))
    listed = []
    for pk, edit_token, view_token, started, status, version, winner, house, rounds in games:
        seated = tuple(players[pk])
        listed.append(
            GameResult(
                edit_token=edit_token,
                view_token=view_token,
                started=started,
                status=status,
                version=version,
                rounds=rounds,
                target=house.target_for(len(seated)),
                players=seated,
                winner=seated[winner] if winner is not None else None,
            )
        )
    return listed


# The exchange: rami-table/1 (SPEC 2.5)

FORMAT = "rami-table/1"
# A table file's games; what a group plays in years, and a file that still reads in seconds.
MAX_GAMES = 2000
STANDING_FIELDS = (
    "games",
    "wins",
    "win_rate",
    "average_total",
    "best_game",
    "worst_game",
    "rounds",
    "average_round",
    "rounds_won",
    "hand_rummies_made",
    "hand_rummies_suffered",
    "never_opened",
)


def export_table(table: Table) -> dict:
    """The table as rami-table/1: its name, members, house rules and every game (its export,
    exchange.export_game, with the computed fields, and when it began as "started"), oldest
    first; then the computed "standings" of each member, which import ignores."""
    return {
        **_table_fields(table),
        "games": [_exported_game(game) for game in _games_in_order(table)],
        "standings": _exported_standings(table),
    }


def export_table_text(table: Table) -> Iterator[str]:
    """export_table's document as the text exchange.dumps writes of it, character for
    character, made and handed on one game at a time: a table of 2,000 games is some 10 MB,
    which a download then never holds whole (table_views, export_table)."""
    head = exchange.dumps({**_table_fields(table), "games": []})
    # The games go where json would have put them: "games" is the last key of the head.
    yield head.removesuffix("[]\n}") + "["
    separator = "\n"
    for game in _games_in_order(table).iterator(chunk_size=100):
        yield separator + _indented(exchange.dumps(_exported_game(game)), "    ")
        separator = ",\n"
    closing = "\n  ]" if separator != "\n" else "]"
    standings = exchange.dumps({"standings": _exported_standings(table)})
    # The standings as the last key of the document: their text without its own braces.
    yield closing + ",\n" + standings.removeprefix("{\n").removesuffix("}")
    yield "}"


def _indented(text: str, indent: str) -> str:
    return "\n".join(indent + line for line in text.split("\n"))


def _table_fields(table: Table) -> dict:
    return {
        "format": FORMAT,
        "name": table.name,
        "members": [member.name for member in table.members.all()],
        "rules": table_rules(table).document(),
    }


def _games_in_order(table: Table) -> QuerySet[Game]:
    return table.games.order_by("created_at", "pk")


def _exported_game(game: Game) -> dict:
    return {**exchange.export_game(game), "started": _started(game.created_at)}


def _exported_standings(table: Table) -> dict:
    return {
        standing.name: {field: _exported(getattr(standing, field)) for field in STANDING_FIELDS}
        for standing in _in_table_order(standings(table))
    }


def _started(moment: datetime) -> str:
    """A time as ISO 8601 in UTC, "Z" for the zone as SPEC 2.5 writes it."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _exported(value: object) -> object:
    return round(value, 3) if isinstance(value, float) else value


def _in_table_order(table_standings: list[MemberStanding]) -> list[MemberStanding]:
    return sorted(
        table_standings, key=lambda standing: (standing.member.position, standing.member.pk)
    )


@dataclass(frozen=True)
class TableDocument:
    """A rami-table/1 document, checked: the table's name, members and rules, and its games
    (each checked by exchange.parse_game), in the order they are to be made."""

    name: str
    members: list[str]
    rules: rules.Rules
    games: list[tuple[datetime | None, dict]]


def parse_table(document: object) -> TableDocument:
    """A whole rami-table/1 document, every game and round checked as import_game checks it;
    raises exchange.ExchangeError on the first mistake, in one line saying what and where
    ('game 2, round 3, player "Cyril": Unknown card “1X”...'). Touches no database."""
    if not isinstance(document, Mapping):
        raise ExchangeError(f'the file must hold one JSON object with "format": "{FORMAT}"')
    if document.get("format") != FORMAT:
        raise ExchangeError(
            f'"format" must be "{FORMAT}", not {json.dumps(document.get("format"))}'
        )
    name = document.get("name")
    if not isinstance(name, str):
        raise ExchangeError('"name" must be the table\'s name')
    try:
        name = check_table_name(name)
    except rules.RulesError as error:
        raise ExchangeError(f'"name": {english(error)}') from None
    members = _parse_members(document.get("members"))
    house_rules = exchange.parse_rules(document.get("rules"))
    games = document.get("games", [])
    if not isinstance(games, list):
        raise ExchangeError('"games" must be a list of rami-game/1 documents')
    if len(games) > MAX_GAMES:
        raise ExchangeError(f"a table has at most {MAX_GAMES} games")
    checked = [(_parse_game(game, number), game) for number, game in enumerate(games, 1)]
    # In the order they began; a game without "started" keeps its place after the dated
    # ones, in the order given (sorted() is stable).
    checked.sort(key=lambda pair: (pair[0] is None, pair[0] or datetime.min.replace(tzinfo=UTC)))
    return TableDocument(name=name, members=members, rules=house_rules, games=checked)


def _parse_members(members: object) -> list[str]:
    if not isinstance(members, list):
        raise ExchangeError(f'"members" must be a list of 1 to {MAX_MEMBERS} names')
    for member in members:
        if not isinstance(member, str):
            raise ExchangeError(f'"members": {json.dumps(member)} is not a name')
    try:
        return check_member_names(members)
    except rules.RulesError as error:
        if error.player is None:
            raise ExchangeError(f'"members": {english(error)}') from None
        raise ExchangeError(
            f'"members": {exchange._quoted(members[error.player])}: {english(error)}'
        ) from None


def _parse_game(document: object, number: int) -> datetime | None:
    """When the game began (its "started", or None), the game itself checked; ExchangeError
    saying which game."""
    if not isinstance(document, Mapping):
        raise ExchangeError(f'game {number}: a game must be a "{exchange.FORMAT}" object')
    try:
        exchange.parse_game(document)
    except ExchangeError as error:
        raise ExchangeError(
            f"game {number}, {error}" if _located(error) else f"game {number}: {error}"
        ) from None
    started = document.get("started")
    if started is None:
        return None
    moment = exchange.read_moment(started)
    if moment is None:
        raise ExchangeError(
            f'game {number}: "started" must be a date and time (ISO 8601) {exchange.YEARS}, '
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
    exchange.import_game makes it (the web's path, every round recorded by Game.record_round),
    dated by its "started", its players linked to the members of their names. Raises
    ExchangeError (parse_table's) and creates nothing when the document is not right.

    A big file (2,000 games of 20 rounds take minutes) is made in short transactions, so that
    a live server keeps saving rounds meanwhile: the games first, outside any table, where
    nothing shows them (their tokens are new and given to nobody yet), a transaction ending
    after ROUNDS_PER_TRANSACTION rounds or TRANSACTION_SECONDS, even inside a game; then the
    table, its members and the links to its games in one short transaction at the end. A
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
                game = exchange.make_game(
                    exchange.parse_game(game_document), after_each_round=recorded
                )
                begun(game)
                # update(): created_at is auto_now_add, which save() would not let us set.
                # A game without "started" began when it was imported.
                if started is not None:
                    Game.objects.filter(pk=game.pk).update(created_at=started)
        with transaction.atomic():
            table = start_table(parsed.name, parsed.members, house_rules=parsed.rules)
            Game.objects.filter(pk__in=made).update(table=table)
            for member in table.members.all():
                Player.objects.filter(game__table=table, name_key=member.name_key).update(
                    member=member
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
    next (exchange.let_others_write between the two); `committed` is called after each."""

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
            exchange.let_others_write()
            self._begin()


# Games removed per transaction after a failed import.
GAMES_PER_REMOVAL = 50


def _remove_games(pks: list[int]) -> None:
    """Remove the games an import made before it failed, a few at a time (each delete its own
    transaction, as short as the import's)."""
    for start in range(0, len(pks), GAMES_PER_REMOVAL):
        Game.objects.filter(pk__in=pks[start : start + GAMES_PER_REMOVAL]).delete()
