"""The answers that the phones of a table share after a save (scoring/views/poll.py)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from django.http import HttpResponse


class SharedAnswers:
    """The #changes answers (pull.poll) drawn lately in this process, each kept under all that
    it is drawn from (pull._asked). That is the game's version that it shows and the one the
    phone had, the link, the language and what the phone said of itself (typing, a round back
    in its form), each as the poll reads it. The phones of a table all ask after a save, from
    the same version: the first answer is drawn, the next ones are a lookup. The latest are
    kept, at most `size` of them and `max_bytes` in all (an answer is some 10 KB; the bound
    holds whatever a page is sent), the oldest going first.

    The #changes part holds nothing of the phone that asks: an answer with a form or a
    csrf_token is not kept. Nor is one whose latest change is a deletion, since only the phone
    that deleted the round is offered its Undo. Kept by the version as the live update itself
    is: a change that did not move the game's version would reach no phone anyway.

    The phones of a table ask at the same moment, woken together by their streams: while one
    thread draws an answer (`drawn_once`), the others that ask the same wait for it, at most
    WAIT seconds, instead of each drawing it too."""

    WAIT = 2.0  # seconds a poll waits for the same answer drawn by another thread

    def __init__(self, size: int = 2_000, max_bytes: int = 16 * 1024 * 1024) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._answers: OrderedDict[tuple, bytes] = OrderedDict()
        self._drawing: dict[tuple, threading.Event] = {}  # what a thread draws now
        self._lock = threading.Lock()

    def get(self, asked: tuple) -> bytes | None:
        with self._lock:
            answer = self._answers.get(asked)
            if answer is not None:
                self._answers.move_to_end(asked)
            return answer

    @contextmanager
    def drawn_once(self, asked: tuple) -> Iterator[bytes | None]:
        """The answer kept for `asked`, or, while another thread draws it, the answer it
        drew (after waiting for it); None when this thread is to draw it (and keep it, if it
        may be kept): the others that ask the same meanwhile wait until it is done, whatever
        it drew. A waiter given None (the answer could not be kept, or took too long) draws
        its own."""
        with self._lock:
            answer = self._answers.get(asked)
            drawing = self._drawing.get(asked) if answer is None else None
            if answer is None and drawing is None:
                drawing = self._drawing[asked] = threading.Event()
                mine = True
            else:
                mine = False
        if answer is not None:
            yield answer
            return
        if not mine:
            drawing.wait(self.WAIT)
            yield self.get(asked)
            return
        try:
            yield None
        finally:
            with self._lock:
                del self._drawing[asked]
            drawing.set()

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self.bytes = 0

    def keep(self, asked: tuple, response: HttpResponse) -> None:
        content = response.content
        if response.status_code != 200 or b"csrfmiddlewaretoken" in content:
            return
        if len(content) > self.max_bytes:
            return
        with self._lock:
            old = self._answers.pop(asked, None)
            self.bytes += len(content) - (len(old) if old is not None else 0)
            self._answers[asked] = content
            while len(self._answers) > self.size or self.bytes > self.max_bytes:
                _asked, gone = self._answers.popitem(last=False)
                self.bytes -= len(gone)


shared_answers = SharedAnswers()
