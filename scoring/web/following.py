"""Every page of a game or table besides its board follows it live: base.html draws the
stream's address and the poller for a page whose context holds `following`, and a pull asks
for the page again with `?v=`: 204 while it is up to date (`seen`), 404 once the game or table
is gone (`gone`), else the page, swapped whole but for a form someone has typed in
(docs/architecture.md, "The pull")."""

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
