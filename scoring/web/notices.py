"""The notices a page gives once, such as "New game: …" after a rematch: Django's messages,
each shown once by a browser whatever the order in which its requests arrive.

A phone can learn of a rematch by two requests at the same moment: the answer to its own tap
on Rematch, and a live update of the old game that already sees the new one (views.poll).
Each request adds the notice to the messages cookie it carried, so that, left alone, one page
could show the notice twice, or a later page show it again. Here a notice names what it is
about (its key, `tell`), and the page that shows it leaves that key in a cookie of the phone
(TOLD). A notice whose key is already there, or stands twice among those to show, is dropped
unseen. No request has to come first: the first page that shows the notice is the
only one.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.http import HttpRequest

TOLD = "rami_told"
TOLD_AGE = 30 * 24 * 60 * 60
# The keys a phone remembers: the newest few (a phone follows one game at a time).
KEPT = 8
KEY = re.compile(r"[a-z-]+:\d+")
TAG = "once:"


def tell(request: HttpRequest, key: str, text: str) -> None:
    """Say `text` on the next page this phone shows, once for `key` (a word and a number, as
    "new-game:12"), however many of its requests say it."""
    if not KEY.fullmatch(key):
        raise ValueError(f"a notice's key is a word and a number, not {key!r}")
    messages.info(request, text, extra_tags=TAG + key)


def _key(message) -> str | None:
    tags = message.extra_tags or ""
    return tags[len(TAG) :] if tags.startswith(TAG) else None


class OnceStorage(FallbackStorage):
    """Django's usual message storage (a cookie, the session past its size), less the notices
    this phone was already shown; the keys of those it shows go to the TOLD cookie."""

    def __init__(self, request, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        told = request.COOKIES.get(TOLD, "").split(".")
        self._told = [key for key in told if KEY.fullmatch(key)][-KEPT:]
        self._shown: list[str] = []

    def _unseen(self, messages_: list) -> list:
        seen = set(self._told)
        kept = []
        for message in messages_:
            key = _key(message)
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
            kept.append(message)
        return kept

    def _get(self, *args, **kwargs):
        loaded, all_retrieved = super()._get(*args, **kwargs)
        return (None if loaded is None else self._unseen(loaded)), all_retrieved

    def add(self, level, message, extra_tags=""):
        key = extra_tags[len(TAG) :] if extra_tags.startswith(TAG) else None
        if key is not None:
            waiting = [*self._loaded_messages, *self._queued_messages]
            if key in self._told or any(_key(other) == key for other in waiting):
                return
        super().add(level, message, extra_tags)

    def __iter__(self):
        shown = list(super().__iter__())
        self._shown += [key for key in map(_key, shown) if key is not None]
        return iter(shown)

    def update(self, response):
        unread = super().update(response)
        if self._shown:
            told = [key for key in self._told if key not in self._shown] + self._shown
            response.set_cookie(
                TOLD,
                ".".join(told[-KEPT:]),
                max_age=TOLD_AGE,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return unread
