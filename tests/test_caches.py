"""The page fragments' cache (rami_site/caches.py): a long text kept compressed, and every
value given back as it was set."""

from __future__ import annotations

import pickle

from django.core.cache import caches
from django.utils.safestring import SafeData, mark_safe

from rami_site.caches import SHORTEST, CompressedLocMemCache


def kept_bytes(cache: CompressedLocMemCache, key: str) -> int:
    """What the cache holds for `key`, in bytes (LocMemCache keeps each value pickled)."""
    return len(cache._cache[cache.make_and_validate_key(key)])


def test_the_fragments_cache_is_the_compressing_one():
    assert isinstance(caches["rows"], CompressedLocMemCache)


def test_a_long_drawn_fragment_is_kept_compressed_and_comes_back_equal_and_safe():
    cache = CompressedLocMemCache("test-long", {})
    rows = "".join(f'<tr id="round-{n}"><td class="points">{n % 7}</td></tr>\n' for n in range(400))
    fragment = mark_safe(rows)  # noqa: S308 (numbers only)
    assert len(fragment) > SHORTEST
    cache.set("form", fragment)
    back = cache.get("form")
    assert back == fragment
    assert isinstance(back, SafeData)
    assert kept_bytes(cache, "form") < len(fragment) / 4
    # add() and get_many() go the same way.
    assert cache.add("again", fragment)
    assert cache.get_many(["again"]) == {"again": fragment}


def test_a_plain_text_stays_plain_and_a_short_one_is_kept_as_it_is():
    cache = CompressedLocMemCache("test-plain", {})
    plain = "<b>not escaped yet</b>" * 400
    cache.set("plain", plain)
    back = cache.get("plain")
    assert back == plain
    assert not isinstance(back, SafeData)  # escaped where it is shown, as before
    short = mark_safe("<td>7</td>")
    cache.set("short", short)
    assert kept_bytes(cache, "short") == len(pickle.dumps(short, cache.pickle_protocol))
    assert isinstance(cache.get("short"), SafeData)


def test_other_values_and_misses_are_given_back_as_they_are():
    cache = CompressedLocMemCache("test-other", {})
    value = ("points", [1, 2, 3], {"seat": 2})
    cache.set("value", value)
    assert cache.get("value") == value
    assert cache.get("missing") is None
    assert cache.get("missing", "default") == "default"
