"""This browser's recent games, kept without accounts in a signed cookie.

Each entry is a token and its kind ("g" for an edit link, "v" for a view link). The cookie is
HttpOnly and signed, so a page script cannot read the tokens and nobody can forge the list.
"""

from __future__ import annotations

from typing import NamedTuple

from django.conf import settings
from django.core import signing
from django.db.models import Count, Prefetch, Q
from django.http import HttpRequest, HttpResponse

from scoring.models import Game, Player, Status, Table

COOKIE = "rami_recent"
SALT = "scoring.web.recent"
KEEP = 20
MAX_AGE = 365 * 24 * 3600


def entries(
    request: HttpRequest, cookie: str = COOKIE, kinds: tuple[str, ...] = ("g", "v")
) -> list[tuple[str, str]]:
    """(kind, token) pairs, the most recently opened first (of the games; or of the tables,
    with TABLES_COOKIE and TABLE_KINDS)."""
    value = request.COOKIES.get(cookie)
    if not value:
        return []
    try:
        pairs = signing.loads(value, salt=SALT, max_age=MAX_AGE)
    except (signing.BadSignature, ValueError):
        return []
    if not isinstance(pairs, list):
        return []
    found = [(kind, token) for kind, token in pairs if kind in kinds and isinstance(token, str)]
    return found[:KEEP]


def _store(response: HttpResponse, pairs: list[tuple[str, str]], cookie: str = COOKIE) -> None:
    response.set_cookie(
        cookie,
        signing.dumps([list(pair) for pair in pairs[:KEEP]], salt=SALT, compress=True),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def remember(request: HttpRequest, response: HttpResponse, game: Game, kind: str) -> None:
    """Put the game first in the list. An edit link, once known, is kept over a view link."""
    known = entries(request)
    tokens = {game.edit_token, game.view_token}
    if kind == "v" and ("g", game.edit_token) in known:
        kind, token = "g", game.edit_token
    else:
        token = game.edit_token if kind == "g" else game.view_token
    pairs = [(kind, token)] + [pair for pair in known if pair[1] not in tokens]
    if pairs != known:
        _store(response, pairs)


def forget(request: HttpRequest, response: HttpResponse, token: str) -> None:
    """Take the game or the table with this token off its list."""
    _store(response, [pair for pair in entries(request) if pair[1] != token])
    known = entries(request, TABLES_COOKIE, TABLE_KINDS)
    if any(pair[1] == token for pair in known):
        _store(response, [pair for pair in known if pair[1] != token], TABLES_COOKIE)


class RecentGame(NamedTuple):
    """A game of the list, with its kind of link, and what tells it apart from another game
    of the same players: its rounds, its winner (and its start, on the game)."""

    game: Game
    kind: str

    @property
    def rounds(self) -> int:
        return self.game.round_count

    @property
    def winner(self) -> str | None:
        """The winner's name, once the game is finished."""
        if self.game.status != Status.FINISHED or self.game.winner_seat is None:
            return None
        players = self.game.players.all()
        return next((p.name for p in players if p.seat == self.game.winner_seat), None)


def games(request: HttpRequest) -> list[RecentGame]:
    """The recent games with their kind of link, in the list's order: two queries, the
    rounds counted by the first."""
    pairs = entries(request)
    if not pairs:
        return []
    edit = [token for kind, token in pairs if kind == "g"]
    view = [token for kind, token in pairs if kind == "v"]
    found = (
        Game.objects.filter(Q(edit_token__in=edit) | Q(view_token__in=view))
        .annotate(round_count=Count("rounds"))
        .prefetch_related(Prefetch("players", queryset=Player.objects.order_by("seat")))
    )
    by_token = {}
    for game in found:
        by_token[("g", game.edit_token)] = game
        by_token[("v", game.view_token)] = game
    return [RecentGame(by_token[pair], pair[0]) for pair in pairs if pair in by_token]


# This browser's recent tables, kept the same way in a cookie of their own: "t" for a
# table's edit link, "w" for its watch-only link.

TABLES_COOKIE = "rami_tables"
TABLE_KINDS = ("t", "w")


def remember_table(request: HttpRequest, response: HttpResponse, table: Table, kind: str) -> None:
    """Put the table first in its list. An edit link, once known, is kept over a view link."""
    known = entries(request, TABLES_COOKIE, TABLE_KINDS)
    if kind == "w" and ("t", table.edit_token) in known:
        kind = "t"
    token = table.edit_token if kind == "t" else table.view_token
    tokens = {table.edit_token, table.view_token}
    pairs = [(kind, token)] + [pair for pair in known if pair[1] not in tokens]
    if pairs != known:
        _store(response, pairs, TABLES_COOKIE)


def tables(request: HttpRequest) -> list[tuple[Table, str]]:
    """The recent tables with their kind of link, in the list's order: one query (none
    without the cookie), each table with `member_count` and `game_count`."""
    pairs = entries(request, TABLES_COOKIE, TABLE_KINDS)
    if not pairs:
        return []
    edit = [token for kind, token in pairs if kind == "t"]
    view = [token for kind, token in pairs if kind == "w"]
    found = Table.objects.filter(Q(edit_token__in=edit) | Q(view_token__in=view)).annotate(
        member_count=Count("members", distinct=True), game_count=Count("games", distinct=True)
    )
    by_token = {}
    for table in found:
        by_token[("t", table.edit_token)] = table
        by_token[("w", table.view_token)] = table
    return [(by_token[pair], pair[0]) for pair in pairs if pair in by_token]
