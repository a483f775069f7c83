"""A game taken away, from either link: the rami-game/1 document and the rounds as CSV. Both are
built from the document, which holds no token, so the watch-only link cannot leak the edit
link."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from scoring.files import exchange, rounds_csv
from scoring.models import Game
from scoring.views.games import game_or_404
from scoring.web import http
from scoring.web.http import HtmxHttpRequest


def _download(game: Game, content: str, content_type: str, extension: str) -> HttpResponse:
    """The file, named by the moment its game began (UTC), to the second: the games of one
    evening, a rematch among them, download under names of their own."""
    response = HttpResponse(content, content_type=content_type)
    filename = f"rami-game-{game.created_at:%Y-%m-%d-%H%M%S}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def export_json(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The game as a rami-game/1 document, offered as a file."""
    game = game_or_404(**http.token_lookup(token, editable))
    document = exchange.dumps(exchange.export_game(game))
    return _download(game, document, "application/json", "json")


@require_GET
def export_csv(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The rounds as CSV, one row per round and player (scoring/files/rounds_csv.py)."""
    game = game_or_404(**http.token_lookup(token, editable))
    text = rounds_csv.csv_text(exchange.export_game(game))
    return _download(game, text, "text/csv; charset=utf-8", "csv")
