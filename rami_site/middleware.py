"""Middleware of our own: a clear 503 when the database cannot be reached, no gzip on a live
stream, no caching of pages reached by a token, the checks a monitor makes on this machine
answered whatever ALLOWED_HOSTS says, and every answer counted for /metrics."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.middleware.gzip import re_accepts_gzip
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control, patch_vary_headers

from scoring.web import randomness
from scoring.web.clients import is_local_check
from scoring.web.metrics import count_answer

logger = logging.getLogger(__name__)

# Seconds a browser (or a script) is asked to wait before trying again.
RETRY_AFTER_SECONDS = 5


class DatabaseUnavailableMiddleware:
    """Turns an unreachable database into a 503 page that says to try again in a moment: a view
    (or the rendering of its template) that meets django.db.OperationalError or InterfaceError
    (PostgreSQL down, SQLite locked beyond its timeout) answers 503 with templates/503.html and
    `Retry-After`, instead of a bare 500. Nothing was saved: the view's transaction, if any, was
    rolled back. The page is rendered without the request, so that no context processor reaches
    for the session or the user (the database). htmx does not swap a 503; rami.js then says so
    in the round form instead."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        # One line per failed request, without a traceback: the cause is the database, not
        # the code, and a down database would otherwise fill the log with identical stacks.
        logger.error(
            "Database unavailable: %s %s: %s: %s",
            request.method,
            request.path,
            type(exception).__name__,
            exception,
            extra={"request": request, "status_code": 503},
        )
        # No request, hence no context processors: no session, no user, no CSRF token.
        html = render_to_string("503.html")
        response = HttpResponse(html, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        patch_cache_control(response, private=True, no_store=True)
        # Logged above; Django's request logger would add a second line for the same 503.
        response._has_been_logged = True  # type: ignore[attr-defined]
        return response


class TokenPagesNoStoreMiddleware:
    """`Cache-Control: private, no-store` on every response to a URL holding a token (a URL
    pattern with a `token` argument: a game, its rounds, polls, exports, history, the view
    link): the token is the key to the game, and no shared or browser cache may keep what it
    opens. The one exception is a link's QR code, which the browser alone keeps (`private`,
    views.pages.qr_code): it shows only the link the page showing it holds already."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        # A response that says itself how it may be kept, privately, keeps its own: the polls
        # are never_cache, a link's QR code is kept by the browser alone (views.pages.qr_code).
        kept = response.get("Cache-Control", "")
        if (
            match is not None
            and "token" in match.kwargs
            and "no-store" not in kept
            and "private" not in kept
        ):
            patch_cache_control(response, private=True, no_store=True)
        return response


class GZipMiddleware(DjangoGZipMiddleware):
    """Django's GZipMiddleware, with two changes. A live update's stream (scoring/live/
    stream.py) goes out as it is: compressed, its events would wait in the compressor's buffer
    instead of reaching the phone. And a page is compressed at level 4, not 6: the game page
    (58 KB) in 1.7 ms instead of 2.8, to 8.7 KB instead of 8.2 (bench/RESULTS.md), with
    Django's random padding against BREACH."""

    LEVEL = 4

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.get("Content-Type", "").startswith("text/event-stream"):
            return response
        if response.streaming or len(response.content) < 200:
            return super().process_response(request, response)
        if response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        compressed = self.compress(response.content)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response

    def compress(self, content: bytes) -> bytes:
        """django.utils.text.compress_string at LEVEL: gzip with a file name of 0 to
        max_random_bytes - 1 bytes in its header, so that a page's compressed length does
        not tell what it holds."""
        data = gzip.compress(content, compresslevel=self.LEVEL, mtime=0)
        header = bytearray(data[:10])
        header[3] = gzip.FNAME
        name = b"a" * randomness.below(self.max_random_bytes) + b"\x00"
        return bytes(header) + name + data[10:]


class LocalChecksMiddleware:
    """/healthz, /readyz and /metrics asked on this machine (scoring.web.clients.is_local_check:
    a loopback peer, Host localhost or a loopback address or none, no X-Forwarded-For) are
    answered here, before CommonMiddleware's host check: `curl -fsS
    http://127.0.0.1:8001/healthz` works whatever DJANGO_ALLOWED_HOSTS names. Any other request,
    these paths relayed by a proxy among them, goes on to the host check as before."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        from scoring.views import health, pages

        self.views = {
            "/healthz": pages.healthz,
            "/readyz": health.readyz,
            "/metrics": health.metrics_page,
        }

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = self.views.get(request.path_info)
        if view is not None and is_local_check(request):
            return view(request)
        return self.get_response(request)


class CountAnswersMiddleware:
    """Counts every answer of this worker by its status, for /metrics (scoring/web/metrics.py).

    A 429 is a limit's refusal of a new game or table, which scoring/web/limits.py logs itself,
    once a window per client: Django's request logger, which warns of every 4xx, is told it is
    logged, so that a script refused 60 times a minute writes one line, not 60."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        count_answer(response.status_code)
        if response.status_code == 429:
            response._has_been_logged = True  # type: ignore[attr-defined]
        return response
