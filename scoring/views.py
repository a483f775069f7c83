"""Views: thin glue between requests, forms, the Game methods and the templates."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from . import counting, exchange
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


# i18n: the help page "Counting points" (issue 5).
@require_GET
def rules_page(request: HttpRequest) -> TemplateResponse:
    """The help page "Counting points", in the visitor's language. Template:
    scoring/rules.html; context: `numbers` (the rule numbers, by name), `card_values` (rows of
    the card value table), `targets` ((players, target) pairs) and `examples` (the worked
    round ends, computed by the rules engine)."""
    context = {
        "numbers": counting.rule_numbers(),
        "card_values": counting.card_value_rows(),
        "targets": counting.targets(),
        "examples": counting.worked_examples(),
    }
    return TemplateResponse(request, "scoring/rules.html", context)
