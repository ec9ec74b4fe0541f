"""The one bounded memory the verifier and the service share: least recently used goes first."""

from __future__ import annotations

import threading

from graphcite.lru import MISSING, LruCache


def test_least_recently_used_goes_first_and_none_is_a_value() -> None:
    cache: LruCache[str, int | None] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", None)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)           # so "b" goes
    assert cache.get("b") is MISSING and cache.get("c") == 3 and cache.get("a") == 1
    cache.put("d", None)        # and now "c"
    assert cache.get("d") is None and cache.get("c") is MISSING
    assert (cache.hits, cache.misses, len(cache)) == (4, 2, 2)
    cache.clear()
    assert len(cache) == 0 and cache.get("a") is MISSING


def test_threads_never_push_it_past_its_bound() -> None:
    cache: LruCache[int, int] = LruCache(100)

    def fill(offset: int) -> None:
        for n in range(2000):
            cache.put(offset + n, n)
            cache.get(offset + n // 2)

    threads = [threading.Thread(target=fill, args=(k * 10_000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 100 and cache.hits + cache.misses == 8000
