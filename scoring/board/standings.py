"""Reading a table: its members' standings across its games, who finished lower than whom (head
to head), and its games with their players' totals (results). Reads only: a table changes
through models.Table. Each takes a fixed number of queries whatever the number of games, on flat
rows the database aggregates (one a player of a game, one a member for their rounds); a page
that shows all three reads those rows once (Played.of) and hands them to each, five queries in
all (tests/test_table_views.py counts them at 200 games). A period (this month, this year)
filters the same rows and costs no query more."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from itertools import combinations

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from scoring import rules
from scoring.models import Hand, Member, Player, Status, Table, total_after_return

# Fewer finished games than this, and a member's numbers say little: the page labels them as
# a small sample and ranks them after everyone else's.
SMALL_SAMPLE = 5


# The periods the standings may count: the games started this calendar month, this calendar
# year, or all of them (the default, and what an unknown value means).
PERIODS = ("month", "year", "all")
ALL_TIME = "all"


def chosen_period(value: object) -> str:
    """The period asked for (`?period=`), or all time for anything else."""
    return value if value in PERIODS else ALL_TIME


def period_bounds(period: str) -> tuple[datetime, datetime] | None:
    """When `period` begins and the next one begins, in the server's time zone (the table's
    group meets in one place; TIME_ZONE), for "month" and "year"; None for all time."""
    if period not in ("month", "year"):
        return None
    today = timezone.localdate()
    first = today.replace(day=1) if period == "month" else today.replace(month=1, day=1)
    # 32 days on from the 1st is in the next month; 366 on from 1 January, in the next year.
    after = first + timedelta(days=32 if period == "month" else 366)
    following = after.replace(day=1) if period == "month" else after.replace(month=1, day=1)
    return (
        timezone.make_aware(datetime.combine(first, datetime.min.time())),
        timezone.make_aware(datetime.combine(following, datetime.min.time())),
    )


def _within(started: datetime, bounds: tuple[datetime, datetime] | None) -> bool:
    return bounds is None or bounds[0] <= started < bounds[1]


# Reading a table: standings, head to head, results


@dataclass(frozen=True)
class MemberStanding:
    """One member's numbers across the table's games.

    Game figures count finished games only, since a game in play has no final total yet.
    `games` and `wins` count them, and `win_rate` is wins / games (None without a finished
    game). `average_total` is the mean final total, to one decimal rounded half up as a hand
    count gives it. `best_game` and `worst_game` are the lowest and highest final total. These
    three compare whole games only: `part_games` counts the finished games the member left
    before their end or joined after their start, whose totals count in none of them (a game
    left after four rounds is no best game); their rounds count in the round figures.
    `playing` is how many of the table's unfinished games they sit in.

    Round figures count every round they played at the table, finished game or not. `rounds`
    counts them, and `average_round` is the points a round, to one decimal. `rounds_won`
    counts those they went out in or held the lowest hand of a blocked round, as a game's own
    statistics count them. `hand_rummies_made` and `hand_rummies_suffered` count hand rummies.
    `never_opened` counts the rounds they were caught with cards in hand before a first meld,
    as a game's statistics count them: not in a hand rummy, which they pay anyway, nor with
    the lowest hand of a blocked round.

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
    part_games: int
    playing: int
    rounds: int
    average_round: float | None
    rounds_won: int
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
    # When the game began, for the standings of a period.
    started: datetime
    # Whether they left the game before its end: played, and not won (docs/rules.md,
    # "Part-games at a table").
    left: bool = False
    # Whether they joined the game under way, with the total they joined with.
    joined: bool = False

    @property
    def part_game(self) -> bool:
        """A game they did not play whole: its total compares with no whole game's."""
        return self.left or self.joined


def _seats(table: Table) -> list[_Seat]:
    """Every player of the table's games with their total, oldest game first: one query."""
    rows = (
        Player.objects.filter(game__table=table)
        .values_list(
            "game_id",
            "seat",
            "name",
            "member_id",
            "game__status",
            "game__winner_seat",
            "game__created_at",
            "left",
            "joined",
            "returns",
        )
        # A player who joined late counts from the total they joined with.
        .annotate(total=F("start") + Coalesce(Sum("hands__points"), 0))
        .order_by("game__created_at", "game_id", "seat")
    )
    seats = []
    for row in rows:
        game_id, seat, name, member_id, status, winner_seat, started, left, joined, back, total = (
            row
        )
        finished = status == Status.FINISHED
        if back:  # one who came back counts on from the total they came back with
            total = total_after_return(game_id, seat, back)
        seats.append(
            _Seat(
                game_id=game_id,
                seat=seat,
                name=name,
                member_id=member_id,
                finished=finished,
                won=finished and seat == winner_seat,
                total=total,
                started=started,
                left=left,
                joined=joined,
            )
        )
    return seats


@dataclass(frozen=True)
class Played:
    """What the reads of a table share, each read once: its members in the table's order, and
    every player of its games with their total (_Seat), oldest game first. A page that shows
    standings, head to head and results reads them once (Played.of) and hands them to each."""

    members: list[Member]
    seats: list[_Seat]

    @classmethod
    def of(cls, table: Table, members: list[Member] | None = None) -> Played:
        """The table's members (`members`, when the caller has read them already) and its
        seats: two queries, or one."""
        if members is None:
            members = list(table.members.all())
        return cls(members=members, seats=_seats(table))

    def who_played(self) -> set[int]:
        """The members (ids) who sit in at least one of the table's games, finished or not."""
        return {seat.member_id for seat in self.seats if seat.member_id is not None}

    def who_played_last(self) -> set[int]:
        """The members (ids) who played the table's latest game to its end (or play it still):
        not those who left it."""
        last = self.seats[-1].game_id if self.seats else None
        return {
            seat.member_id
            for seat in self.seats
            if seat.game_id == last and seat.member_id is not None and not seat.left
        }


def one_decimal(total: int, count: int) -> float | None:
    """total / count to one decimal, rounded half up (166.65 -> 166.7) as a person rounds, not
    to even as round() does; None for no count."""
    if not count:
        return None
    mean = (Decimal(total) / Decimal(count)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return float(mean)


def _round_counts(table: Table, bounds: tuple[datetime, datetime] | None) -> dict[int, dict]:
    """Per member, their rounds at the table (in the games begun within `bounds`, when given)
    counted by the database: one query."""
    went_out = Q(round__winner_seat=F("player__seat"))
    blocked_lowest = Q(round__winner_seat__isnull=True, points=0)
    rummy = Q(round__hand_rummy=True)
    hands = Hand.objects.filter(player__game__table=table, player__member__isnull=False)
    if bounds is not None:
        hands = hands.filter(
            player__game__created_at__gte=bounds[0], player__game__created_at__lt=bounds[1]
        )
    rows = (
        hands.values("player__member")
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


def standings(
    table: Table, played: Played | None = None, period: str = ALL_TIME
) -> list[MemberStanding]:
    """Every member's numbers across the table's games (MemberStanding), or across those begun
    in `period` (PERIODS). Three queries whatever the number of games (one, given what was
    `played` already). The ranked members come first (by rank), then the small samples in the
    table's order of members. A retired member is there as any other: they played."""
    played = played or Played.of(table)
    bounds = period_bounds(period)
    finished: dict[int, list[_Seat]] = defaultdict(list)
    playing: dict[int, int] = defaultdict(int)
    for seat in played.seats:
        if seat.member_id is None or not _within(seat.started, bounds):
            continue
        if seat.finished:
            finished[seat.member_id].append(seat)
        else:
            playing[seat.member_id] += 1
    counts = _round_counts(table, bounds)
    table_standings = []
    for member in played.members:
        games = finished[member.pk]
        totals = [seat.total for seat in games if not seat.part_game]
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
                part_games=len(games) - len(totals),
                playing=playing[member.pk],
                rounds=rounds.get("rounds", 0),
                average_round=one_decimal(rounds.get("scored", 0), rounds.get("rounds", 0)),
                rounds_won=rounds.get("went_out", 0) + rounds.get("lowest", 0),
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
        # No whole game (part-games only): after those with an average.
        key=lambda standing: (
            -standing.win_rate,
            standing.average_total is None,
            standing.average_total or 0,
        ),
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


def head_to_head(
    table: Table, played: Played | None = None, period: str = ALL_TIME
) -> list[HeadToHead]:
    """Each pair of members who finished a game together (one begun in `period`, PERIODS),
    both to its end (one who left a game is not compared in it: docs/rules.md, "Part-games at
    a table"), in the table's order of members. Two queries whatever the number of games
    (none, given what was `played` already)."""
    played = played or Played.of(table)
    bounds = period_bounds(period)
    members = played.members
    order = {member.pk: index for index, member in enumerate(members)}
    by_game: dict[int, list[_Seat]] = defaultdict(list)
    for seat in played.seats:
        both_to_the_end = seat.finished and seat.member_id is not None and not seat.left
        if both_to_the_end and _within(seat.started, bounds):
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


def results(table: Table, played: Played | None = None) -> list[GameResult]:
    """The table's games, oldest first, with their players' totals: two queries whatever the
    number of games (one, given what was `played` already)."""
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
            "target_players",
            "rounds_played",
        )
    )
    players: dict[int, list[ResultPlayer]] = defaultdict(list)
    for seat in played.seats if played else _seats(table):
        players[seat.game_id].append(ResultPlayer(seat.seat, seat.name, seat.member_id, seat.total))
    listed = []
    for pk, edit_token, view_token, started, status, version, winner, house, by, rounds in games:
        seated = tuple(players[pk])
        # The target of the first round's players (Game.target): those who joined later
        # do not move it.
        by = min(max(by or len(seated), rules.MIN_PLAYERS), rules.MAX_PLAYERS)
        listed.append(
            GameResult(
                edit_token=edit_token,
                view_token=view_token,
                started=started,
                status=status,
                version=version,
                rounds=rounds,
                target=house.target_for(by),
                players=seated,
                winner=seated[winner] if winner is not None else None,
            )
        )
    return listed
