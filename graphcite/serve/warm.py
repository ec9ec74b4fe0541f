"""Warm evidence reads for a long-running process: answers to evidence queries kept in memory.

A check asks the store a dozen small questions about the cited sources (units, values, revisions,
lineage, conflicting units). Each costs a millisecond or two on DuckDB, more than the rules take, and
the answers only change when evidence is ingested. :class:`WarmReads` remembers them, keyed by the SQL
text and its parameters, for queries that read *evidence tables only*; a query that touches an answer,
claim, verification or annotation table always goes to the store, so a check sees the records written
a moment before.

The cache is dropped whenever anything is written to an evidence table through a view that shares
it (:meth:`WarmReads.wrote`), and whenever the evidence fingerprint changes: one cheap query over the
evidence tables (row counts and the current-revision pointers), asked at most every ``check_every``
seconds, notices what another process ingested (several servers on one PostgreSQL store). A query naming a record table anywhere (even in a sub-query that FROM/JOIN
parsing might miss) is never cached; a query is cached only when everything it reads is evidence (a join with an Arrow
view registered for one call is not: the view's rows are not part of the key).
A query result is returned as a fresh list of fresh dicts, so a caller that edits what it got cannot poison
the cache.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphcite.lru import MISSING, LruCache
from graphcite.store.queries.serve import evidence_fingerprint

__all__ = ["EVIDENCE_TABLES", "WarmReads", "WarmView", "tables_in"]

#: Tables that change only when evidence is ingested (or a source's pointer moves).
EVIDENCE_TABLES = frozenset({"source", "source_revision", "evidence_unit", "typed_value", "source_link",
                             "term_posting", "lemma_lookup"})
_TABLE_REF = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_CTE_NAME = re.compile(r"(?:\bWITH(?:\s+RECURSIVE)?|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^()]*\))?\s+AS\s*\(",
                       re.IGNORECASE)
#: Tables whose rows a check writes or reads back at once: a query naming any of them is never cached.
RECORD_TABLES = frozenset({"answer", "claim", "citation", "verification", "annotation", "reviewer", "acceptance",
                           "graphcite_meta"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WRITE = re.compile(r"^\s*(?:INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|COPY|TRUNCATE)\b", re.IGNORECASE)



def tables_in(sql: str) -> frozenset[str]:
    """Tables named after FROM/JOIN/INTO/UPDATE in ``sql`` (lower case), the query's own CTE names left out."""
    local = {name.lower() for name in _CTE_NAME.findall(sql)}
    return frozenset(name.lower() for name in _TABLE_REF.findall(sql)) - local


class WarmReads:
    """The shared memory of one process: evidence-query answers, bounded by ``max_entries`` (LRU)."""

    def __init__(self, *, max_entries: int = 20_000, check_every: float = 1.0) -> None:
        self.check_every = check_every
        self._entries: LruCache[tuple[str, str, str], Any] = LruCache(max_entries)
        self._tables: dict[str, bool] = {}
        self._fingerprint: tuple[Any, ...] | None = None
        self._checked = 0.0
        #: bumped whenever the cache is dropped: an answer computed from evidence reads of one
        #: generation is still right while the generation is unchanged (see graphcite.serve.memo)
        self.generation = 0
        #: bumped on every write to a record table through a view (answers, annotations, reviewers...)
        self.record_writes = 0

    def cacheable(self, sql: str) -> bool:
        """True for a read whose every table is an evidence table (decided once per SQL text)."""
        known = self._tables.get(sql)
        if known is None:
            names = tables_in(sql)
            words = {word.lower() for word in _WORD.findall(sql)}
            known = (bool(names & EVIDENCE_TABLES) and not _WRITE.match(sql) and not words & RECORD_TABLES
                     and names <= EVIDENCE_TABLES)
            self._tables[sql] = known
        return known

    @property
    def hits(self) -> int:
        return self._entries.hits

    @property
    def misses(self) -> int:
        return self._entries.misses

    def clear(self) -> None:
        self._entries.clear()
        self.generation += 1

    def wrote(self, sql_or_table: str) -> None:
        """Something was written: drop everything when it touched an evidence table."""
        names = tables_in(sql_or_table) or frozenset({sql_or_table.lower()})
        if names & EVIDENCE_TABLES:
            self.clear()
            self._fingerprint = None
        if names - EVIDENCE_TABLES:
            self.record_writes += 1

    def revalidate(self, store: Any) -> None:
        """Compare the evidence fingerprint with the one the cache was filled under (rate-limited)."""
        now = time.monotonic()
        if now - self._checked < self.check_every and self._fingerprint is not None:
            return
        self._checked = now
        fingerprint = evidence_fingerprint(store)
        if fingerprint != self._fingerprint:
            self.clear()
            self._fingerprint = fingerprint

    def get(self, key: tuple[str, str, str]) -> Any:
        """The answer kept for ``key``, or :data:`~graphcite.lru.MISSING`."""
        return self._entries.get(key)

    def put(self, key: tuple[str, str, str], value: Any) -> None:
        self._entries.put(key, value)




def _key(kind: str, sql: str, params: Sequence[Any] | Mapping[str, Any] | None) -> tuple[str, str, str]:
    return kind, sql, repr(params)


class WarmView:
    """A store view whose evidence reads go through :class:`WarmReads`; everything else passes through."""

    #: repeated evidence reads are answered from memory here, so a query that :mod:`graphcite.store.queries`
    #: can split into point reads (the contradiction search) is cheaper split
    point_reads = True

    def __init__(self, store: Any, warm: WarmReads) -> None:
        self._store = store
        self._warm = warm
        #: reads that went to the store (a record table, or a write): an answer built while this
        #: stayed 0 depended on evidence reads only
        self.passthrough_reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @property
    def unwrapped(self) -> Any:
        return self._store

    @property
    def warm(self) -> WarmReads:
        return self._warm

    def rows(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if not self._warm.cacheable(sql):
            self.passthrough_reads += 1
            return self._store.rows(sql, params)
        key = _key("rows", sql, params)
        found = self._warm.get(key)
        if found is MISSING:
            found = tuple(tuple(row.items()) for row in self._store.rows(sql, params))
            self._warm.put(key, found)
        return [dict(items) for items in found]

    def row(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        if not self._warm.cacheable(sql):
            self.passthrough_reads += 1
            return self._store.scalar(sql, params)
        key = _key("scalar", sql, params)
        found = self._warm.get(key)
        if found is MISSING:
            found = self._store.scalar(sql, params)
            self._warm.put(key, found)
        return found

    def tuples(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        self.passthrough_reads += 1
        return self._store.tuples(sql, params)  # type: ignore[no-any-return]

    def arrow(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None, **options: Any) -> Any:
        self.passthrough_reads += 1
        return self._store.arrow(sql, params, **options)

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> None:
        self.passthrough_reads += 1
        self._warm.wrote(sql)
        self._store.execute(sql, params)

    def bulk_insert(self, table: str, rows: Any, **options: Any) -> int:
        self._warm.wrote(table)
        return int(self._store.bulk_insert(table, rows, **options))

    def add(self, record: Any) -> None:
        self._warm.wrote(type(record).__tablename__)
        self._store.add(record)

    @contextmanager
    def transaction(self) -> Iterator[WarmView]:
        try:
            with self._store.transaction():
                yield self
        except BaseException:
            # a rolled-back write may have been cached as read-your-own-write: forget it all
            self._warm.clear()
            raise
