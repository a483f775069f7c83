"""How often one client may start games and tables: fixed windows counted in Django's cache.

A client is an address. A hall's Wi-Fi makes one address of forty tables, which all start a
game at 19:00; one address must still not fill the database. Two windows do both:

- a minute: RAMI_NEW_GAMES_PER_MINUTE (100 by default). Forty tables starting at once pass with
  room for the ones who start twice; a loop is stopped at 100 a minute;
- an hour: HOURLY times that (600). A hall's evening never comes near it: each of forty tables
  starting a game every ten minutes is 240 an hour. A loop that goes on makes 600 games an
  hour instead of 6,000: 14,400 a day at most instead of 144,000.

Why not count only the games that never got a round, to let a hall's burst through? That needs
the address stored with every game, kept in the database for as long as the game is (for a
game abandoned before its first round: for ever). It needs a query of the database on every
start. And a loop that saves one round in each game escapes it, so the minute's count is needed
beside it anyway. The two windows need nothing stored but a count per address for an hour, in
the cache the limit already had.

The counts have a cache of their own, the "limits" alias of settings.CACHES, so that the page
fragments in the default cache never evict them. By default it is a LocMemCache, one per worker
process: a count holds per process, so a server with N workers lets a client do up to N times
as much. With RAMI_REDIS_URL set, "limits" is a Redis shared by every worker of every server,
and a count holds across all of them, with nothing here changed. A cache that cannot be reached
(Redis away) lets the request through, with a warning in the log: a limit against floods must
not stop the games of everyone else.

A client is its address, REMOTE_ADDR. Behind a proxy that appends the client's address to
X-Forwarded-For, RAMI_TRUST_X_FORWARDED_FOR=true takes the last address of that header instead
(the one the proxy wrote; the ones before it are whatever the client sent). The first refusal
of a client in a window is logged with its address, once: a loop writes one line a minute.
"""

from __future__ import annotations

import hashlib
import logging
import time
from datetime import UTC, datetime
from enum import StrEnum

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest

from scoring.rules import RulesError
from scoring.web import clients, metrics

WINDOW_SECONDS = 60
# The hour's window allows this many times the minute's.
HOURLY = 6


class LimitCode(StrEnum):
    """The codes of a limit's refusal. They are the web's, not the rules' (a rule of Rami knows
    nothing of addresses); their words are in the one catalogue all the same
    (scoring/rules/messages.py, MESSAGES)."""

    TOO_MANY_GAMES = "too_many_games"
    TOO_MANY_TABLES = "too_many_tables"


class TooMany(RulesError):
    """A limit reached: nothing is made, and the phone may try again after `retry_after`
    seconds (a detail). A RulesError, so that a view's one `except RulesError` puts it on the
    form as any refusal; http.RefusalMiddleware answers it 429 with Retry-After."""

    codes = LimitCode


# What a view limited by spend makes, and the code that refuses it past the limit.
REFUSALS = {"new-game": LimitCode.TOO_MANY_GAMES, "new-table": LimitCode.TOO_MANY_TABLES}

log = logging.getLogger(__name__)


def allow(request: HttpRequest, action: str, per_minute: int) -> bool:
    """Count one `action` by this request's client; False once past the limit (wait_for)."""
    return wait_for(request, action, per_minute) == 0


def wait_for(request: HttpRequest, action: str, per_minute: int) -> int:
    """Count one `action` by this request's client. It answers 0 while the client did at most
    `per_minute` in the current minute and HOURLY times that in the current hour, else the
    seconds until the window it overran ends. Each window starts at the clock's turn of the
    minute or hour; `per_minute` 0 means no limit."""
    if per_minute <= 0:
        return 0
    now = time.time()
    address = clients.address_of(request)
    # Hashed: any address (or header) makes a short key that every cache backend accepts.
    client = hashlib.blake2b(address.encode(), digest_size=12).hexdigest()
    for seconds, most in ((WINDOW_SECONDS, per_minute), (WINDOW_SECONDS * 60, per_minute * HOURLY)):
        window = int(now) // seconds
        count = _count(f"rami-limit:{action}:{client}:{seconds}:{window}", seconds, action)
        if count is None:
            return 0
        if count > most:
            if count == most + 1:
                log.warning(
                    "%s limit reached by %s: more than %d in %s; refused until %s",
                    action,
                    address or "an unknown address",
                    most,
                    "a minute" if seconds == WINDOW_SECONDS else "an hour",
                    datetime.fromtimestamp((window + 1) * seconds, UTC).strftime("%H:%M:%S UTC"),
                )
            return max(1, (window + 1) * seconds - int(now))
    return 0


def _count(key: str, seconds: int, action: str) -> int | None:
    """One more in the counter `key`, which lives a little longer than its window; its count,
    or None when the cache cannot be reached (the request is then let through)."""
    # add() creates the counter only if it is missing; incr() is atomic in LocMemCache (a
    # lock), Redis and Memcached. The counter outlives its window; the next has its own.
    counts = caches["limits"]
    try:
        counts.add(key, 0, seconds + 5)
        try:
            return counts.incr(key)
        except ValueError:  # expired between add() and incr()
            counts.add(key, 1, seconds + 5)
            return 1
    except Exception:  # the cache's own errors (redis.ConnectionError...): any backend's
        log.warning("the limits cache cannot be reached: %s let through", action, exc_info=True)
        return None


def spend(request: HttpRequest, action: str) -> None:
    """Count one more `action` ("new-game" or "new-table") made by this request's client; past
    the limit (allow), raise the TooMany that refuses it (errors.MESSAGES), which the view
    raises again with its page (http.Refused: 429 with Retry-After)."""
    wait = wait_for(request, action, settings.RAMI_NEW_GAMES_PER_MINUTE)
    if wait:
        metrics.count_refusal(REFUSALS[action])
        raise TooMany(REFUSALS[action], retry_after=max(wait, WINDOW_SECONDS))


def shared_counts_state() -> str:
    """How the cache of the counts answers, for /healthz: "ok", or "unavailable" (the counts
    are then let through, see allow)."""
    try:
        caches["limits"].get("rami-health")
    except Exception:  # the cache's own errors (redis.ConnectionError...): any backend's
        return "unavailable: new games and tables are let through uncounted"
    return "ok"
