"""The pages around the games: the help page "Counting points" and a game's own rules, the QR
codes of the links, the web app manifest, and the health check."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language, gettext
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET

from scoring import rules
from scoring.models import Game, Table
from scoring.rules import house_rules, worked_examples
from scoring.views.games import followed, following_game, game_or_404
from scoring.web import http, limits, sharing
from scoring.web.http import HtmxHttpRequest

logger = logging.getLogger(__name__)


@require_GET
def rules_page(request: HttpRequest) -> TemplateResponse:
    """The help page "Counting points", in the visitor's language. Template:
    scoring/rules.html; context: `numbers` (the rule numbers, by name), `card_values` (rows of
    the card value table), `targets` ((players, target) pairs) and `examples` (the worked
    round ends, computed by the rules)."""
    context = {
        "numbers": worked_examples.rule_numbers(),
        "card_values": worked_examples.card_value_rows(rules.SEEDS),
        "targets": worked_examples.targets(rules.SEEDS),
        "examples": worked_examples.worked_examples(rules.SEEDS),
    }
    return TemplateResponse(request, "scoring/rules.html", context)


@require_GET
def game_rules_page(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The rules a game plays by, from either link: each value as the table set it, the card
    values, the targets and the help page's round ends worked out under them. Template:
    scoring/game_rules.html; context: `game`, `editable`, `house_rules` (what differs from the
    players' documents), `values` (label, value pairs), `card_values`, `targets`, `examples`."""
    game = game_or_404(**http.token_lookup(token, editable))
    if (answer := followed(request, game, editable)) is not None:
        return answer
    house = game.rules
    said = [rule for rule in house_rules.in_words(house) if rule.said is not None]
    context = {
        "game": game,
        "editable": editable,
        "house_rules": house_rules.summary(house),
        "values": [{"label": rule.label, "value": rule.said} for rule in said],
        "card_values": worked_examples.card_value_rows(house),
        "targets": worked_examples.targets(house),
        "examples": worked_examples.worked_examples(house),
        **following_game(request, game),
    }
    return TemplateResponse(request, "scoring/game_rules.html", context)


# Whose token each link's address holds, by the name of the link's page (scoring/urls.py).
LINKS = {
    "game": (Game, "edit_token"),
    "view": (Game, "view_token"),
    "table": (Table, "edit_token"),
    "table_view": (Table, "view_token"),
}
# A QR code under the address that names what it encodes never changes: kept a year.
QR_KEPT_FOR = 365 * 24 * 60 * 60


@require_GET
def qr_code(request: HttpRequest, token: str, link: str) -> HttpResponse:
    """The QR code of a game's or a table's link (`link`: the name of its page, LINKS) as an
    SVG picture, at the link's own address plus `qr.svg`: the share panel's `<img>`
    (templates/scoring/_share.html). From the address that names what it encodes (`for`, as
    sharing.links writes it) it is kept by the browser for good, and privately: it holds the
    token of its link (the players' link's QR code their edit token), so no shared cache may
    keep it. Any other `for` (a page drawn before the server's address changed) gets the code
    of the link as it is now, not kept (TokenPagesNoStoreMiddleware). An unknown token is a
    404, as the link's own page is."""
    model, field = LINKS[link]
    if not model.objects.filter(**{field: token}).exists():
        raise Http404
    url = sharing.public_url(request, reverse(link, args=[token]))
    response = HttpResponse(sharing.qr_svg(url), content_type="image/svg+xml")
    if request.GET.get("for") == sharing.drawn_as(url):
        patch_cache_control(response, private=True, max_age=QR_KEPT_FOR, immutable=True)
    return response


# Installing the app on a phone. The colours match templates/_head_icons.html.
THEME_COLOUR = "#1d6b46"  # the table green of static/scoring/icons/icon.svg
ICONS = [
    ("scoring/icons/icon-192.png", "192x192", "image/png", "any"),
    ("scoring/icons/icon-512.png", "512x512", "image/png", "any"),
    ("scoring/icons/icon-maskable-512.png", "512x512", "image/png", "maskable"),
    ("scoring/icons/icon.svg", "any", "image/svg+xml", "any"),
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
            {"src": static(path), "sizes": sizes, "type": kind, "purpose": purpose}
            for path, sizes, kind, purpose in ICONS
        ],
    }
    return JsonResponse(
        document,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Whether this server can answer pages, in plain text, for a proxy or a load balancer. It
    answers 200 "ok" after a query. It answers 503 with one line when the database does not answer
    ("database unavailable") or lacks migrations this code needs ("migrations missing: ...", which),
    so that no page is sent to a server that would answer it 500. With RAMI_REDIS_URL, a second line
    says how Redis is: a Redis away lets new games through uncounted, but the pages work, so it is
    no 503."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        missing = migrations_missing()
    except DatabaseError:
        logger.exception("healthz: the database does not answer")
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    if missing:
        logger.error("healthz: migrations missing: %s", ", ".join(missing))
        return HttpResponse(
            f"migrations missing: {', '.join(missing)}", status=503, content_type="text/plain"
        )
    lines = ["ok"]
    if settings.RAMI_REDIS_URL:
        lines.append(f"redis: {limits.shared_counts_state()}")
    return HttpResponse("\n".join(lines), content_type="text/plain")


# Set once the database has every migration this code knows: a process's code does not change,
# and migrations are not taken back under a running server, so it is checked no more.
_migrated = False


def migrations_missing() -> list[str]:
    """The migrations this code has and the database lacks ("scoring.0013_..."), in the order
    `migrate` would apply them; [] once all are applied (then no query is made again)."""
    global _migrated
    if _migrated:
        return []
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    missing = [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]
    _migrated = not missing
    return missing
