"""The unchanged poll, answered in front of Django where the reader knows the version (granian:
rami_site/asgi.py). scoring/live/__init__.py tells the whole protocol.

A phone without a stream polls every 2 s, and almost always nothing has changed: Django's poll
view (pull.poll) then answers 204 after one query, but through the whole request cycle, its
middleware, and a hop from the event loop to a view thread and back: about 1 ms of a core in
process, and more under a server's load (bench/RESULTS.md). The reader (reader.py) already reads
the versions of the games this process's streams watch every 100 ms, in one query for all; a
game polled lately is read with them (`Reader.follow`). When the reader knows the version the
poll names (`v`), the 204 is answered here, on the event loop, with the headers Django sent on
its last 204 to a poll in this process (`learn`: the security headers, the CSP, never stored):
the same answer, without Django. Anything else (another version, a game the reader does not
know yet or knew too long ago, a host Django would refuse, plain HTTP where HTTPS is required,
another method) goes to Django, as before, with all its checks. Only a game that Django found
(its poll answered 204) is followed: an unknown token is Django's 404 every time, and
never joins the reader's query. What the reader knows is at most a read old (FRESH_FOR at the
most): as a stream does, a poll answered 204 just before the reader saw a change learns of it
at the next poll. granian's access log has a line for every poll, answered here or by Django,
its token masked (rami_site/logs.py). No poll is limited by a count (scoring/web/limits.py
counts new games and tables only).

The headers learned are those of any 204 to a poll in this process: they depend on no request,
but for Content-Language (left out here: a 204 has no content) and the HSTS header, which
Django sends over HTTPS only; a server that requires HTTPS (SECURE_SSL_REDIRECT) answers no
poll over plain HTTP with a 204, here or in Django.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from scoring.live import reader as reading
from scoring.models.common import TOKEN_PATTERN
from scoring.web.http import whole_number

# A game's poll by its edit link (/g/) or its watch-only link (/v/): scoring/urls.py.
POLL = re.compile(rf"/([gv])/({TOKEN_PATTERN})/poll")
# Headers of Django's 204 that belong to the request it answered, never to another.
OWN = frozenset((b"date", b"server", b"content-language", b"content-length"))

_learned: list[tuple[bytes, bytes]] | None = None


def polled(scope: dict) -> str | None:
    """The reader's key of the game a request polls ("g<view token>" for the watch-only link,
    "e<edit token>" for the players' link), or None for any other request."""
    if scope.get("type") != "http":
        return None
    found = POLL.fullmatch(scope["path"])
    if found is None:
        return None
    return ("e" if found[1] == "g" else "g") + found[2]


def learn(key: str, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    """What Django answered to a poll of `key`'s game: a 204 says that the game is there and
    that a phone polls it, and the reader follows it for the next polls (an unknown token, a
    404, is never read; a pull after an event, a 200, comes from a phone with a stream, which
    polls no more); a 204 that sets no cookie gives the headers of the unchanged polls
    answered here."""
    global _learned
    if status != 204:
        return
    reading.reader.follow(key)
    names = {name.lower() for name, _value in headers}
    if b"set-cookie" in names:
        return
    _learned = [(name, value) for name, value in headers if name.lower() not in OWN]


def forget() -> None:
    """Forget the headers learned (a test that changes the settings)."""
    global _learned
    _learned = None


async def answered(scope: dict, send: Callable[[dict], Awaitable[None]], key: str) -> bool:
    """Answer the poll of `scope` (the reader's `key` of its game) with 204, when it asks for
    the version the reader knows and Django would answer it so, and follow the game on; False
    when Django must (its answer then tells `learn`)."""
    headers = _learned
    if headers is None or scope.get("method") != "GET" or not _as_django_would(scope):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    # Django's QueryDict.get gives the last value of a name.
    seen = whole_number((query.get("v") or [""])[-1])
    if seen is None or seen != reading.reader.fresh(key):
        return False
    reading.reader.follow(key)
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
    return True


def _as_django_would(scope: dict) -> bool:
    """Whether Django would serve the request at all: its host among ALLOWED_HOSTS (checked as
    HttpRequest.get_host checks it), and over HTTPS when SECURE_SSL_REDIRECT asks for it. A
    setting that reads the host elsewhere (USE_X_FORWARDED_HOST) leaves it all to Django."""
    if settings.USE_X_FORWARDED_HOST:
        return False
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _port = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    if not domain or not validate_host(domain, allowed):
        return False
    if settings.SECURE_SSL_REDIRECT:
        return _secure(scope, headers)
    return True


def _secure(scope: dict, headers: dict[bytes, bytes]) -> bool:
    """HttpRequest.is_secure, read from the ASGI scope."""
    if settings.SECURE_PROXY_SSL_HEADER:
        header, secure_value = settings.SECURE_PROXY_SSL_HEADER
        # "HTTP_X_FORWARDED_PROTO" is the header x-forwarded-proto.
        name = header.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        value = headers.get(name)
        if value is not None:
            return value.decode("latin-1").split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") == "https"
