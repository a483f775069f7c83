"""Which phone a request comes from: what a change to a game is made by, so that its Undo is
offered on that phone only (Game.undo; docs/at-the-table.md, changes, Undo and the history).

A phone is a browser: a random name in a cookie, given on the first request that asks for it
(`of`) and kept for two years. It names no person and opens nothing: anyone with the players'
link can change the game anyway; the name only says which of the phones at the table made a
change. Without the cookie (a phone that refuses cookies) every request is a new phone, which
then simply never sees an Undo after a reload.
"""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE = "rami_phone"
COOKIE_AGE = 2 * 365 * 24 * 60 * 60
# secrets.token_urlsafe(16): 128 bits, 22 characters.
PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")


def of(request: HttpRequest) -> str:
    """The phone that sent `request`: its cookie's name, or a new one that PhoneMiddleware
    gives it with the response."""
    phone = getattr(request, "_rami_phone", None)
    if phone is None:
        phone = request.COOKIES.get(COOKIE, "")
        if not PATTERN.fullmatch(phone):
            phone = secrets.token_urlsafe(16)
            request._rami_new_phone = True
        request._rami_phone = phone
    return phone


class PhoneMiddleware:
    """Sets the cookie of a phone named for the first time in this request (only the pages
    that ask: a liveness check or a static file gets no cookie)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(request, "_rami_new_phone", False):
            response.set_cookie(
                COOKIE,
                request._rami_phone,
                max_age=COOKIE_AGE,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response
