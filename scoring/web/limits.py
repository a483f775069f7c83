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

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest

from rami_site import logs
from scoring.rules import Code, TooMany

WINDOW_SECONDS = 60
# What a view limited by @limited makes, and the code of the message (errors.MESSAGES) that
# refuses it past the limit.
REFUSALS = {"new-game": Code.TOO_MANY_GAMES, "new-table": Code.TOO_MANY_TABLES}

log = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str:
    """The address the limits count by, as the logs name it (rami_site.logs.client_address)."""
    return logs.client_address(
        request.META.get("REMOTE_ADDR", ""),
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        settings.RAMI_TRUST_X_FORWARDED_FOR,
    )


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


def spend(request: HttpRequest, action: str) -> None:
    """Count one more `action` ("new-game" or "new-table") made by this request's client; past
    RAMI_NEW_GAMES_PER_MINUTE in the minute, raise the TooMany that refuses it (errors.MESSAGES),
    which the view raises again with its page (http.Refused: 429 with Retry-After)."""
    if not allow(request, action, settings.RAMI_NEW_GAMES_PER_MINUTE):
        raise TooMany(REFUSALS[action], retry_after=WINDOW_SECONDS)


def shared_counts_state() -> str:
    """How the cache of the counts answers, for /healthz: "ok", or "unavailable" (the counts
    are then let through, see allow)."""
    try:
        caches["limits"].get("rami-health")
    except Exception:  # the cache's own errors (redis.ConnectionError...): any backend's
        return "unavailable: new games and tables are let through uncounted"
    return "ok"
