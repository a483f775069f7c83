"""This browser's recent games, kept without accounts in a signed cookie.

Each entry is a token and its kind ("g" for an edit link, "v" for a view link). The cookie is
HttpOnly and signed, so a page script cannot read the tokens and nobody can forge the list.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse

from .models import Game, Player

COOKIE = "rami_recent"
SALT = "scoring.recent"
KEEP = 20
MAX_AGE = 365 * 24 * 3600


def entries(request: HttpRequest) -> list[tuple[str, str]]:
    """(kind, token) pairs, the most recently opened first."""
    value = request.COOKIES.get(COOKIE)
    if not value:
        return []
    try:
        pairs = signing.loads(value, salt=SALT, max_age=MAX_AGE)
    except (signing.BadSignature, ValueError):
        return []
    if not isinstance(pairs, list):
        return []
    return [
        (kind, token) for kind, token in pairs if kind in ("g", "v") and isinstance(token, str)
    ][:KEEP]


def _store(response: HttpResponse, pairs: list[tuple[str, str]]) -> None:
    response.set_cookie(
        COOKIE,
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
    _store(response, [pair for pair in entries(request) if pair[1] != token])


def games(request: HttpRequest) -> list[tuple[Game, str]]:
    """The recent games with their kind of link, in the list's order (two queries)."""
    pairs = entries(request)
    if not pairs:
        return []
    edit = [token for kind, token in pairs if kind == "g"]
    view = [token for kind, token in pairs if kind == "v"]
    found = Game.objects.filter(Q(edit_token__in=edit) | Q(view_token__in=view)).prefetch_related(
        Prefetch("players", queryset=Player.objects.order_by("seat"))
    )
    by_token = {}
    for game in found:
        by_token[("g", game.edit_token)] = game
        by_token[("v", game.view_token)] = game
    return [(by_token[pair], pair[0]) for pair in pairs if pair in by_token]
