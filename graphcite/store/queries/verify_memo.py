"""Evidence reads kept for the length of a batch, so that answers citing the same sources share them.

check-batch verifies thousands of answers against a store whose evidence does not change while it runs
(it writes answers and verification records only, at the end). Inside :func:`evidence_memo`, the
verifier's reads of evidence rows by id (sources, revisions, units, their typed values, supersessions)
and of store-wide facts (which sources are superseded, whether any is restricted, the unit count) are
answered from memory after their first read; only ids not seen yet go to the database, in one
statement as before. Nothing is kept by claim text, so a batch of distinct answers gains only what
their shared sources give.

Outside the block every read goes to the database. The memo holds at most :data:`MAX_ENTRIES` entries
of each kind (fewer for whole revisions, whose texts are large; a kind that outgrows its bound starts
afresh), and callers must not change the rows they get.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, TypeVar

from graphcite.store.base import Store

__all__ = ["MAX_ENTRIES", "EvidenceMemo", "attach_memo", "evidence_memo", "memo_of"]

MAX_ENTRIES = 100_000
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_ABSENT = object()


class EvidenceMemo:
    """What one store's evidence reads returned, by kind of read and key."""

    def __init__(self) -> None:
        self._kinds: dict[str, dict[Any, Any]] = {}
        self.depth = 0
        self.reads = 0  # statements sent to the database through this memo

    def once(self, kind: str, read: Callable[[], V]) -> V:
        """The result of a store-wide read, read on first use."""
        held = self._kinds.setdefault(kind, {})
        if kind not in held:
            self.reads += 1
            held[kind] = read()
        return held[kind]  # type: ignore[no-any-return]

    def by_key(self, kind: str, keys: Iterable[K], read: Callable[[set[K]], dict[K, V]], *,
               limit: int | None = None) -> dict[K, V]:
        """``{key: value}`` for the keys that have one: those already read from memory, the others in
        one call of ``read`` (keys it does not answer are remembered as having no value). At most
        ``limit`` keys of the kind are kept (default :data:`MAX_ENTRIES`)."""
        held = self._kinds.setdefault(kind, {})
        wanted = set(keys)
        missing = {k for k in wanted if k not in held}
        result = {k: held[k] for k in wanted - missing if held[k] is not _ABSENT}
        if missing:
            self.reads += 1
            found = read(missing)
            result.update({k: v for k, v in found.items() if k in missing})
            if len(held) + len(missing) > (MAX_ENTRIES if limit is None else limit):
                held.clear()
            for key in missing:
                held[key] = found.get(key, _ABSENT)
        return result

    def stash(self, kind: str, key: Hashable, value: Any) -> None:
        """Keep a value read ahead for one later :meth:`take` of the same key."""
        self._kinds.setdefault(kind, {}).setdefault(key, []).append(value)

    def take(self, kind: str, key: Hashable) -> Any | None:
        """A value stashed for ``key`` (each stashed value is taken once), or None."""
        waiting = self._kinds.get(kind, {}).get(key)
        return waiting.pop(0) if waiting else None


_MEMOS: weakref.WeakKeyDictionary[Store, EvidenceMemo] = weakref.WeakKeyDictionary()


def memo_of(store: Store) -> EvidenceMemo | None:
    """The memo active for ``store``, or None outside :func:`evidence_memo`."""
    return _MEMOS.get(store)


def attach_memo(store: Any, memo: Any) -> None:
    """Make ``memo`` (an :class:`EvidenceMemo` or an object with its methods) the memo of ``store`` for as
    long as ``store`` lives: a view that is itself a long-lived memory, such as the service's warm view,
    rather than a block of :func:`evidence_memo`."""
    _MEMOS[store] = memo


@contextlib.contextmanager
def evidence_memo(store: Store) -> Iterator[EvidenceMemo]:
    """Keep ``store``'s evidence reads for the block (nested blocks share the outer one's memo).

    Use it only where the evidence tables do not change during the block, e.g. the compute phase of a
    batch check; writes to answers, claims and verification records do not matter.
    """
    memo = _MEMOS.get(store)
    if memo is None:
        memo = _MEMOS[store] = EvidenceMemo()
    memo.depth += 1
    try:
        yield memo
    finally:
        memo.depth -= 1
        if memo.depth == 0:
            _MEMOS.pop(store, None)
