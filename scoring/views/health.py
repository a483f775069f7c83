"""What a monitor asks of the site: /readyz, whether the whole site is ready (what every server
shares: the database, its migrations, the Redis of the limits when there is one), and /metrics,
its numbers in Prometheus's text format, answered only to a local request or one with the
token (docs/deploy.md, "Monitoring"). /healthz, each server's own check, is views.pages.healthz.
The answers are for operators: in English, never translated."""

from __future__ import annotations

import hmac
import logging

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from scoring.live import reader as reading
from scoring.views.pages import migrations_missing
from scoring.web import clients, limits, metrics

logger = logging.getLogger(__name__)


def site_state() -> list[str]:
    """What keeps the site from being ready, one line each; [] when it is: the database
    answers, has every migration this code needs, and the Redis of the limits answers when
    RAMI_REDIS_URL names one."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        missing = migrations_missing()
    except DatabaseError:
        return ["database unavailable"]
    problems = []
    if missing:
        problems.append(f"migrations missing: {', '.join(missing)}")
    if settings.RAMI_REDIS_URL and (redis := limits.shared_counts_state()) != "ok":
        problems.append(f"redis: {redis}")
    return problems


@require_GET
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Whether the whole site is ready, in plain text: 200 "ready", or 503 with what is not,
    a line each ("database unavailable", "migrations missing: …", "redis: unavailable: …")."""
    problems = site_state()
    if problems:
        logger.error("readyz: %s", "; ".join(problems))
        return HttpResponse("\n".join(problems), status=503, content_type="text/plain")
    return HttpResponse("ready", content_type="text/plain")


def may_scrape(request: HttpRequest) -> bool:
    """A local request (clients.is_local_check), or one with `Authorization: Bearer <token>`
    when RAMI_METRICS_TOKEN is set."""
    if clients.is_local_check(request):
        return True
    token = settings.RAMI_METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if not token or not given.startswith("Bearer "):
        return False
    return hmac.compare_digest(given.removeprefix("Bearer ").strip().encode(), token.encode())


@require_GET
@never_cache
def metrics_page(request: HttpRequest) -> HttpResponse:
    """The site's numbers in Prometheus's text format (scoring/web/metrics.py), or a 404 to
    anyone but a local request or the token's holder: the page is not there for them."""
    if not may_scrape(request):
        raise Http404
    ready = not site_state()
    try:
        stats = metrics.read_stats()
    except DatabaseError:
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    body, content_type = metrics.exposition(stats, reading.reader.open_streams(), ready)
    return HttpResponse(body, content_type=content_type)
