"""Views: thin glue between requests, forms, the Game methods and the templates."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.utils.translation import get_language, gettext
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from . import exchange, rounds_csv
from .models import Game


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@require_GET
def start(request: HtmxHttpRequest) -> TemplateResponse:
    """The start page. Template: scoring/start.html."""
    return TemplateResponse(request, "scoring/start.html", {})


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """A liveness answer that has checked the database; also the benchmark's floor."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return HttpResponse("ok", content_type="text/plain")


@require_GET
def export_json(request: HttpRequest, token: str) -> HttpResponse:
    """The game as a rami-game/1 document, offered as a file."""
    game = get_object_or_404(Game, edit_token=token)
    response = HttpResponse(exchange.dumps(game.to_document()), content_type="application/json")
    filename = f"rami-game-{game.created_at:%Y-%m-%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# Exports from the view page and as CSV. The view-token exports are built from the
# rami-game/1 document, which holds no token, so a view link cannot leak the edit link.


def _download(game: Game, content: str, content_type: str, extension: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    filename = f"rami-game-{game.created_at:%Y-%m-%d}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _csv_download(game: Game) -> HttpResponse:
    text = rounds_csv.csv_text(game.to_document())
    return _download(game, text, "text/csv; charset=utf-8", "csv")


@require_GET
def export_csv(request: HttpRequest, token: str) -> HttpResponse:
    """The rounds as CSV, one row per round and player (scoring/rounds_csv.py)."""
    return _csv_download(get_object_or_404(Game, edit_token=token))


@require_GET
def view_export_csv(request: HttpRequest, token: str) -> HttpResponse:
    """The same CSV, from the read-only link."""
    return _csv_download(get_object_or_404(Game, view_token=token))


@require_GET
def view_export_json(request: HttpRequest, token: str) -> HttpResponse:
    """The rami-game/1 document, from the read-only link."""
    game = get_object_or_404(Game, view_token=token)
    return _download(game, exchange.dumps(game.to_document()), "application/json", "json")


# Installing the app on a phone. The colours match templates/_head_icons.html.
THEME_COLOUR = "#1d6b46"  # the table green of static/scoring/icons/icon.svg
ICONS = [
    ("scoring/icons/icon-192.png", "192x192", "any"),
    ("scoring/icons/icon-512.png", "512x512", "any"),
    ("scoring/icons/icon-maskable-512.png", "512x512", "maskable"),
]


@require_GET
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, linked from templates/_head_icons.html."""
    document = {
        "id": "/",
        "name": gettext("Rami score keeper"),
        "short_name": gettext("Rami"),
        "description": gettext("Keeps the score of a game of Rami for everyone at the table."),
        "lang": get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in ICONS
        ]
        + [
            {
                "src": static("scoring/icons/icon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
                "purpose": "any",
            }
        ],
    }
    return JsonResponse(
        document,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
