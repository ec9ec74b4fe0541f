"""A bounded, thread-safe memory of recent answers (least recently used first out).

The service and the verifier remember deterministic results per process (decompositions, pair
verdicts, evidence reads, whole reports); each is one of these, so eviction and locking are written once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["MISSING", "LruCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: what :meth:`LruCache.get` returns for a key it does not hold (None may be a remembered value)
MISSING: object = object()


class LruCache(Generic[K, V]):
    """At most ``max_entries`` values by key; ``hits`` and ``misses`` count :meth:`get` calls."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | object:
        """The value kept for ``key`` (now the most recent), or :data:`MISSING`."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self.hits += 1
                return self._entries[key]
            self.misses += 1
        return MISSING

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``; the least recently used entries go beyond ``max_entries``."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is held (asking counts neither a hit nor a miss, nor makes it recent)."""
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
