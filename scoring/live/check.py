"""The version check of a page without a stream, /live/<key>/version?v=N: 204 when this
process's reader read version N within the last second (live.reader.FRESH_FOR), else "pull",
with no query and no Django; an address of its own, so it copies none of Django's checks
(docs/architecture.md, "A page without a stream")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import lru_cache
from urllib.parse import parse_qs

from django.http import HttpRequest, HttpResponse

from scoring.live import reader as reading
from scoring.live import stream
from scoring.web.http import whole_number

SUFFIX = "/version"
# No cache may keep it: a 204 is true for the moment it was read.
HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
]
PULL = b"pull"


@lru_cache(maxsize=8192)
def _watched(key: str) -> str | None:
    """What a key watches (stream.watched_by), its signature checked once a process: a page
    checks the same key every 2 s, and the check is half the cost of the answer."""
    return stream.watched_by(key)


def is_check(path: str) -> bool:
    """Whether an address under the stream's prefix is a version check."""
    return path.startswith(stream.PREFIX) and path.endswith(SUFFIX)


def checked(key: str, v: str | None) -> int:
    """The check of `key`'s version `v` (the query's value): 204 when the reader knows it is
    the current one, 200 when the page must pull, 404 for a key not handed out. The key's
    game or table is followed by the reader either way."""
    watched = _watched(key)
    if watched is None:
        return 404
    reading.reader.follow(watched)
    seen = whole_number(v)
    return 204 if seen is not None and seen == reading.reader.fresh(watched) else 200


async def asgi_check(
    scope: dict, receive: Callable, send: Callable[[dict], Awaitable[None]]
) -> None:
    """The check on the event loop (rami_site/asgi.py): no thread, no query."""
    if scope["method"] != "GET":
        status = 405
    else:
        key = scope["path"][len(stream.PREFIX) : -len(SUFFIX)]
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        # As Django's QueryDict.get reads a name given twice: its last value.
        status = checked(key, (query.get("v") or [""])[-1])
    await send({"type": "http.response.start", "status": status, "headers": _headers(status)})
    await send({"type": "http.response.body", "body": _body(status)})


def check(request: HttpRequest, key: str) -> HttpResponse:
    """The same check for a WSGI server (runserver, the tests' live server)."""
    status = 405 if request.method != "GET" else checked(key, request.GET.get("v"))
    response = HttpResponse(_body(status), status=status, content_type="text/plain")
    for name, value in _headers(status):
        response[name.decode()] = value.decode()
    return response


def _headers(status: int) -> list[tuple[bytes, bytes]]:
    if status == 204:
        return HEADERS
    return [(b"content-type", b"text/plain; charset=utf-8"), *HEADERS]


def _body(status: int) -> bytes:
    return {204: b"", 200: PULL, 404: b"not found", 405: b"GET only"}[status]
