"""What a board works out from its stored rows (each round's points by seat, the standing after
each round), kept in the process under the digest of all they follow from
(Scoreboard.rounds_key): the game page, the watch page and the live updates of one state of a
game work them out once. Kept by content, as the HTML of the round table is: a row changed in
any way gives another digest, so what is kept cannot go stale; the oldest goes first past
`most`. The values are tuples, never changed once made."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

# Boards a process keeps: one a state of a game, 28 KB for a 60-round game of six (56 MB at
# most, as many such games), a few KB for the evening's games of four.
MOST = 2_000


class Kept:
    def __init__(self, most: int = MOST) -> None:
        self.most = most
        self._kept: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        """The value kept under `key`, or `make()`'s, kept from now on (made outside the lock:
        two threads may both make it, and both get the same value)."""
        with self._lock:
            found = self._kept.get(key)
        if found is not None:
            return found
        made = make()
        with self._lock:
            if key in self._kept:
                return self._kept[key]
            while self._kept and len(self._kept) >= self.most:
                del self._kept[next(iter(self._kept))]
            if self.most:  # Kept(0) keeps nothing: each board works its values out
                self._kept[key] = made
            return made


boards = Kept()
