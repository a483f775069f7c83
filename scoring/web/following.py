"""Every page of a game or of a table follows it live, as its board does (scoring/live/): the
history, the players, a round, the rules. base.html draws, for a page whose context holds
`following` (context), the stream's address and the poller around the page, and rami.js keeps
the stream open: when it tells of a newer version (or every 2 s without a stream, after the
version check), the poller asks for the page again with `?v=` the version it shows, and swaps
it whole, but for a form someone has typed in, which stays as typed (its save then says what
changed). A 204 while the page is up to date (`seen`); a 404 once the game or table is gone,
and the page says so (base.html's data-gone, `gone` here)."""

from __future__ import annotations

from django.urls import reverse

from scoring.web import http
from scoring.web.http import HtmxHttpRequest


def context(request: HtmxHttpRequest, key: str, version: int, gone: str, **query: str) -> dict:
    """What base.html needs to make the page follow the stream `key` from `version`: the
    stream's address, the page's own to ask again (with `query` added), and what to say when
    it is gone."""
    return {
        "following": {
            "live": f"{reverse('live', args=[key])}?v={version}",
            "version": version,
            "pull": request.path + http.with_query(request, v=str(version), **query),
            "gone": gone,
        }
    }


def seen(request: HtmxHttpRequest) -> int | None:
    """The version a page's live update says it shows; None for any other request (a page
    opened from a link with `?v=` in it is drawn whole)."""
    return http.whole_number(request.GET.get("v")) if request.htmx else None
