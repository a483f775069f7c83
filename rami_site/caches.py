"""The process's cache of page fragments (settings.CACHES["rows"]): Django's LocMemCache, its
long texts kept compressed.

A fresh round form is about 15 KB of HTML for four players, and each worker keeps one a table
(and one a deal's order) beside the round rows: at 2,000 tables that is tens of MB a worker.
HTML this repetitive compresses about sevenfold at zlib's fastest level; a page that takes
the form pays about 20 us to inflate it, against some 4 ms to draw the page.
(bench/RESULTS.md, "2,000 tables within every budget: one quiet hour".)
"""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.utils.safestring import SafeData, mark_safe

# Texts shorter than this are kept as they are: a round's row (1.5-2.5 KB) saves less than
# inflating it would cost on every page.
SHORTEST = 4096


class Compressed(NamedTuple):
    """A text kept compressed, and whether it was marked safe (a drawn fragment is)."""

    data: bytes
    safe: bool


def packed(value: Any) -> Any:
    if isinstance(value, str) and len(value) >= SHORTEST:
        return Compressed(zlib.compress(value.encode(), 1), isinstance(value, SafeData))
    return value


def unpacked(value: Any) -> Any:
    if isinstance(value, Compressed):
        text = zlib.decompress(value.data).decode()
        return mark_safe(text) if value.safe else text  # noqa: S308 (as it was set)
    return value


class CompressedLocMemCache(LocMemCache):
    """LocMemCache, each text of SHORTEST characters or more compressed as it is set and
    given back as it was (a safe string safe, a plain one plain)."""

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return super().add(key, packed(value), timeout, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        super().set(key, packed(value), timeout, version)

    def get(self, key, default=None, version=None) -> Any:
        return unpacked(super().get(key, default, version))
