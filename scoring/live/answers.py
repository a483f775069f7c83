"""The answers that the phones of a table share after a save (scoring/views/poll.py)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import caches
from django.http import HttpResponse


class SharedAnswers:
    """The #changes answers (views.poll) drawn lately in this process, each kept under all that
    it is drawn from (poll._asked): the game's version that it shows and the one the phone
    had, the link, the language and what the phone said of itself. The phones of a table all
    ask after a save, from the same version: the first answer is drawn, the next ones are a
    lookup. Kept in Django's cache "answers" (settings.CACHES: this process's memory, its
    latest MAX_ENTRIES), each at most `max_bytes` (an answer is some 10 KB), so that the whole
    stays within a few MB whatever a page is sent.

    The #changes part holds nothing of the phone that asks: an answer with a form or a
    csrf_token is not kept. Nor is one whose latest change is a deletion, since only the phone
    that deleted the round is offered its Undo (the poll decides).

    What the cache lacks is the one thing written here: the phones of a table ask at the same
    moment, woken together by their streams, and while one thread draws an answer
    (`drawn_once`) the others that ask the same wait for it, at most WAIT seconds, instead of
    each drawing it too."""

    WAIT = 2.0  # seconds a poll waits for the same answer drawn by another thread

    def __init__(self, alias: str = "answers", max_bytes: int = 32 * 1024) -> None:
        self.alias = alias
        self.max_bytes = max_bytes
        self._drawing: dict[str, threading.Event] = {}  # what a thread draws now
        self._lock = threading.Lock()

    @staticmethod
    def key(asked: tuple) -> str:
        """A short cache key for everything an answer is drawn from."""
        return hashlib.blake2b(repr(asked).encode(), digest_size=16).hexdigest()

    def get(self, asked: tuple) -> bytes | None:
        return caches[self.alias].get(self.key(asked))

    @contextmanager
    def drawn_once(self, asked: tuple) -> Iterator[bytes | None]:
        """The answer kept for `asked`, or, while another thread draws it, the answer it
        drew (after waiting for it); None when this thread is to draw it (and keep it, if it
        may be kept): the others that ask the same meanwhile wait until it is done, whatever
        it drew. A waiter given None (the answer could not be kept, or took too long) draws
        its own."""
        key = self.key(asked)
        answer = caches[self.alias].get(key)
        if answer is not None:
            yield answer
            return
        with self._lock:
            drawing = self._drawing.get(key)
            mine = drawing is None
            if mine:
                drawing = self._drawing[key] = threading.Event()
        if not mine:
            drawing.wait(self.WAIT)
            yield self.get(asked)
            return
        try:
            yield None
        finally:
            with self._lock:
                del self._drawing[key]
            drawing.set()

    def clear(self) -> None:
        caches[self.alias].clear()

    def keep(self, asked: tuple, response: HttpResponse) -> None:
        content = response.content
        if response.status_code != 200 or b"csrfmiddlewaretoken" in content:
            return
        if len(content) > self.max_bytes:
            return
        caches[self.alias].set(self.key(asked), content, None)


shared_answers = SharedAnswers()
