"""How often one client may do something: a fixed one-minute window counted in Django's cache.

The counts have a cache of their own, the "limits" alias of settings.CACHES, so that the page
fragments in the default cache never evict them. By default it is a LocMemCache, one per worker
process: a count holds per process, so a server with N workers lets a client do up to N times
as much. That is enough to stop one client from flooding the database (thousands of new games
in seconds), and needs no shared store. With RAMI_REDIS_URL set, "limits" is a Redis shared by
every worker of every server, and a count holds across all of them, with nothing here changed.
A cache that cannot be reached (Redis away) lets the request through, with a warning in the
log: a limit against floods must not stop the games of everyone else.

A client is its address, REMOTE_ADDR. Behind a proxy that appends the client's address to
X-Forwarded-For, RAMI_TRUST_X_FORWARDED_FOR=true takes the last address of that header instead
(the one the proxy wrote; the ones before it are whatever the client sent).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse

from . import http
from .forms import ShowsRefusals
from .rules import Code, RulesError, TooMany

WINDOW_SECONDS = 60
# What a view limited by @limited makes, and the code of the message (errors.MESSAGES) that
# refuses it past the limit.
REFUSALS = {"new-game": Code.TOO_MANY_GAMES, "new-table": Code.TOO_MANY_TABLES}

log = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str:
    """The address the limits count by."""
    if settings.RAMI_TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR", "")


def allow(request: HttpRequest, action: str, per_minute: int) -> bool:
    """Count one `action` by this request's client; False once it did more than `per_minute`
    in the current minute (counted from the clock's minute, so a window is at most 60 s).
    `per_minute` 0 means no limit."""
    if per_minute <= 0:
        return True
    window = int(time.time()) // WINDOW_SECONDS
    # Hashed: any address (or header) makes a short key that every cache backend accepts.
    client = hashlib.blake2b(client_address(request).encode(), digest_size=12).hexdigest()
    key = f"rami-limit:{action}:{client}:{window}"
    # add() creates the counter only if it is missing; incr() is atomic in LocMemCache (a
    # lock), Redis and Memcached. The counter outlives its minute; the next minute has its own.
    counts = caches["limits"]
    try:
        counts.add(key, 0, WINDOW_SECONDS + 5)
        try:
            count = counts.incr(key)
        except ValueError:  # expired between add() and incr()
            counts.add(key, 1, WINDOW_SECONDS + 5)
            count = 1
    except Exception:  # the cache's own errors (redis.ConnectionError...): any backend's
        log.warning("the limits cache cannot be reached: %s let through", action, exc_info=True)
        return True
    return count <= per_minute


@dataclass
class _Count:
    """What a request to a view decorated with @limited may make, and whether it was refused."""

    action: str
    refused: TooMany | None = None


def limited(action: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Decorate a view that makes something new, `action` ("new-game" or "new-table"), which
    one client makes at most RAMI_NEW_GAMES_PER_MINUTE times a minute. The view calls
    `spend(request)` (or `spent(request, form)`) just before making it: past the limit, that
    raises the TooMany that says so (errors.MESSAGES), which the view shows as any refusal,
    everything typed kept, in a form or not; the page it answers then goes out as the refusal
    it is (http.refused: 429 Too Many Requests with Retry-After)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def limited_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            count = request.rami_count = _Count(action)
            response = view(request, *args, **kwargs)
            if count.refused is not None:
                return http.refused(response, count.refused)
            return response

        return limited_view

    return decorate


def spent(request: HttpRequest, form: ShowsRefusals) -> bool:
    """spend() for a view whose form makes the new thing: True when it may; past the limit,
    False, with the reason among the form's errors (everything typed stays)."""
    try:
        spend(request)
    except RulesError as error:
        form.refused(error)
        return False
    return True


def spend(request: HttpRequest) -> None:
    """Count one more of what this view (decorated with @limited) makes; past the limit, raise
    the RulesError that refuses it."""
    count = request.rami_count
    if not allow(request, count.action, settings.RAMI_NEW_GAMES_PER_MINUTE):
        count.refused = TooMany(REFUSALS[count.action], retry_after=WINDOW_SECONDS)
        raise count.refused
