"""Random bytes for what every answer needs a little of (the CSRF token's mask, the gzip
padding against BREACH), read from the system 4 KB at a time, each thread its own. Each read is
a system call that lets go of Python's lock: 23 us apiece on the servers measured, and under
load a wait of up to 5 ms to take the lock back, once a character of a mask as Django draws
it. The bytes are os.urandom's, as secrets' are; only the reads are fewer."""

from __future__ import annotations

import os
import threading

READ = 4096  # bytes a read


class _Pool(threading.local):
    def __init__(self) -> None:
        self.bytes = b""
        self.at = 0


_pool = _Pool()


def random_bytes(count: int) -> bytes:
    """`count` bytes from the system's randomness (at most READ)."""
    pool = _pool
    if pool.at + count > len(pool.bytes):
        pool.bytes, pool.at = os.urandom(max(READ, count)), 0
    taken = pool.bytes[pool.at : pool.at + count]
    pool.at += count
    return taken


def below(limit: int) -> int:
    """A whole number from 0 to `limit` - 1 (at most 256), each as likely as the others."""
    even = 256 - 256 % limit  # bytes from `even` up would make the low numbers likelier
    while True:
        byte = random_bytes(1)[0]
        if byte < even:
            return byte % limit


def choices(alphabet: str, length: int) -> str:
    """`length` characters of `alphabet` (at most 256), each as likely as the others."""
    even = 256 - 256 % len(alphabet)
    drawn: list[str] = []
    while len(drawn) < length:
        drawn.extend(alphabet[b % len(alphabet)] for b in random_bytes(2 * length) if b < even)
    return "".join(drawn[:length])
