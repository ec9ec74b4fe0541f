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

Reads by id or by term (:mod:`graphcite.store.queries.verify_memo`: units, values, revisions, postings,
which terms public units hold) go through one :class:`WarmMemo` per view over tables the whole process
shares: each id or term is read once per evidence generation, whatever combination of them a new
sentence asks for. The index vocabulary is kept too, so a term the index does not hold (a client's new
word) is answered absent without a read: a sentence of new words costs no query at all.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from graphcite.lru import MISSING, LruCache
from graphcite.store.queries import verify_memo
from graphcite.store.queries.serve import (
    CURRENT_UNIT,
    PUBLIC_TERM_POSTINGS_OF_TERM,
    TERM_POSTINGS_OF_TERM,
    current_unit_rows,
    evidence_fingerprint,
    index_postings,
    index_public_postings,
    index_sizes,
    index_vocabulary,
    values_with_unit_start_of_all,
)

__all__ = ["EVIDENCE_TABLES", "TERM_KINDS", "WarmMemo", "WarmReads", "WarmView", "tables_in"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: Tables that change only when evidence is ingested (or a source's pointer moves); source_lineage is
#: derived from source, source_revision and source_link by ingest, in the same transaction.
EVIDENCE_TABLES = frozenset({"source", "source_revision", "evidence_unit", "typed_value", "source_link",
                             "term_posting", "lemma_lookup", "source_lineage"})
_TABLE_REF = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_CTE_NAME = re.compile(r"(?:\bWITH(?:\s+RECURSIVE)?|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^()]*\))?\s+AS\s*\(",
                       re.IGNORECASE)
#: Tables whose rows a check writes or reads back at once: a query naming any of them is never cached.
RECORD_TABLES = frozenset({"answer", "claim", "citation", "verification", "annotation", "reviewer", "acceptance",
                           "graphcite_meta"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WRITE = re.compile(r"^\s*(?:INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|COPY|TRUNCATE)\b", re.IGNORECASE)
#: kinds of keyed evidence reads (graphcite.store.queries.verify) whose keys are index terms
TERM_KINDS = frozenset({"term count", "term postings", "restricted postings", "public terms", "public term count",
                        "public term postings"})
#: per-term point reads (graphcite.store.queries.contradictions): a term the index does not hold has no postings
_TERM_READS = frozenset({TERM_POSTINGS_OF_TERM, PUBLIC_TERM_POSTINGS_OF_TERM})
#: index terms kept in memory at most; a larger vocabulary is not kept (unknown terms are then read)
MAX_VOCABULARY = 2_000_000
_ABSENT = object()


def tables_in(sql: str) -> frozenset[str]:
    """Tables named after FROM/JOIN/INTO/UPDATE in ``sql`` (lower case), the query's own CTE names left out."""
    local = {name.lower() for name in _CTE_NAME.findall(sql)}
    return frozenset(name.lower() for name in _TABLE_REF.findall(sql)) - local


class WarmReads:
    """The shared memory of one process: evidence-query answers, bounded by ``max_entries`` (LRU)."""

    def __init__(self, *, max_entries: int = 20_000, check_every: float = 1.0,
                 memo_entries: int = verify_memo.MAX_ENTRIES, max_vocabulary: int = MAX_VOCABULARY) -> None:
        self.check_every = check_every
        self.memo_entries = memo_entries
        self.max_vocabulary = max_vocabulary
        self._entries: LruCache[tuple[str, str, str], Any] = LruCache(max_entries)
        self._lock = threading.Lock()
        #: set while a WarmMemo reads for its tables: the view then does not keep the same rows again
        self.keyed_read = threading.local()
        #: per kind of keyed read (graphcite.store.queries.verify_memo), what each key read gave
        self._keyed: dict[str, LruCache[Any, Any]] = {}
        self._once: dict[str, Any] = {}
        self._vocabulary: tuple[int, frozenset[str] | None] | None = None  # (generation, terms)
        self._tables: dict[str, bool] = {}
        self._fingerprint: tuple[Any, ...] | None = None
        self._checked = 0.0
        #: bumped whenever the cache is dropped: an answer computed from evidence reads of one
        #: generation is still right while the generation is unchanged (see graphcite.serve.memo)
        self.generation = 0
        #: bumped on every write to a record table through a view (answers, annotations, reviewers...)
        self.record_writes = 0
        #: statements the views sent to the store (reads not answered from memory, and writes)
        self.store_reads = 0

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
        with self._lock:
            self.generation += 1
            self._entries.clear()
            self._keyed = {}
            self._once = {}
            self._vocabulary = None

    def vocabulary(self, store: Any) -> frozenset[str] | None:
        """Every term the index holds (read once per generation), or None when there are too many to keep."""
        generation, kept = self.generation, self._vocabulary
        if kept is not None and kept[0] == generation:
            return kept[1]
        terms = index_vocabulary(getattr(store, "unwrapped", store), self.max_vocabulary)
        with self._lock:
            if self.generation == generation:
                self._vocabulary = (generation, terms)
        return terms

    def prewarm(self, store: Any) -> dict[str, Any]:
        """Read ahead, in a few statements, what a new sentence's contradiction search asks of the store:
        the vocabulary, every term's postings (and its postings in sources that are not restricted, for a
        public search), every current unit's row and every unit's typed values.

        Kept for the current generation like any read, and only what fits: postings and unit rows when
        they all fit in ``max_entries``, values when they fit in ``memo_entries`` (a larger store reads
        them on first use; nothing is read that would not be kept). Returns what was kept and the seconds.
        """
        began = time.perf_counter()
        base = getattr(store, "unwrapped", store)
        generation = self.generation
        vocabulary = self.vocabulary(base)
        terms, units, valued = index_sizes(base)
        table = self._table("unit values at", None)
        room = self._entries.max_entries - len(self._entries)
        fits = terms + units <= room
        fits_public = 2 * terms + units <= room  # a public search's per-term reads too, one per term
        fits_values = units + valued <= table.max_entries
        postings = index_postings(base) if fits else {}
        # the postings of units that are not restricted (None: no source is restricted, the same lists)
        public = index_public_postings(base) if fits_public else None
        rows = current_unit_rows(base) if fits or fits_values else []
        values: dict[str, list[dict[str, Any]]] = {}
        if fits_values:
            values = {row["unit_id"]: [] for row in rows}
            for row in values_with_unit_start_of_all(base):
                values.setdefault(row["unit_id"], []).append(row)

        def keep() -> None:
            if fits:
                for term, unit_ids in postings.items():
                    found = tuple((("unit_id", unit_id),) for unit_id in unit_ids)
                    self._entries.put(_key("rows", TERM_POSTINGS_OF_TERM, [term]), found)
                    if fits_public:  # every term of the index, those only restricted units hold answered empty
                        shown = found if public is None else tuple((("unit_id", unit_id),)
                                                                   for unit_id in public.get(term, ()))
                        self._entries.put(_key("rows", PUBLIC_TERM_POSTINGS_OF_TERM, [term]), shown)
                for row in rows:
                    self._entries.put(_key("rows", CURRENT_UNIT, [row["unit_id"]]), (tuple(row.items()),))
            for unit_id, found in values.items():
                table.put(unit_id, found)

        self._keep(generation, keep)
        return {"terms": len(vocabulary) if vocabulary is not None else None,
                "postings": sum(map(len, postings.values())), "units": len(rows) if fits else 0,
                "valued_units": len(values), "seconds": round(time.perf_counter() - began, 3)}

    def fresh(self) -> bool:
        """Whether the evidence fingerprint was compared less than ``check_every`` seconds ago: memory
        may answer without asking the store first."""
        return self._fingerprint is not None and time.monotonic() - self._checked < self.check_every

    def remembered(self, kind: str, key: Hashable) -> Any:
        """What :meth:`remember` kept for ``key`` in this generation, or :data:`~graphcite.lru.MISSING`."""
        table = self._keyed.get(kind)
        return MISSING if table is None else table.get(key)

    def remember(self, kind: str, key: Hashable, value: Any, generation: int, max_entries: int = 20_000) -> None:
        """Keep ``value``, an answer derived from the evidence reads of ``generation``, while it is current."""
        table = self._table(kind, max_entries)
        self._keep(generation, lambda: table.put(key, value))

    # -- keyed reads (WarmMemo) ---------------------------------------------------------------------
    def _table(self, kind: str, limit: int | None) -> LruCache[Any, Any]:
        with self._lock:
            table = self._keyed.get(kind)
            if table is None:
                table = self._keyed[kind] = LruCache(limit or self.memo_entries)
            return table

    def _keep(self, generation: int, keep: Callable[[], None]) -> None:
        """Run ``keep`` (which stores what a read returned) only while the generation read under lasts:
        a read that raced a write of evidence is used once and forgotten."""
        with self._lock:
            if self.generation == generation:
                keep()

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
        self._reads = 0
        self._memo = WarmMemo(store, warm)
        # the verifier's keyed evidence reads (graphcite.store.queries.verify_memo.memo_of) go through it
        verify_memo.attach_memo(self, self._memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @property
    def unwrapped(self) -> Any:
        return self._store

    def _count(self) -> None:
        self._reads += 1
        self._warm.store_reads += 1  # unlocked: a statistic

    @property
    def store_reads(self) -> int:
        """Statements this view sent to the store: reads not answered from memory, and writes (a keyed
        read of the memo runs through :meth:`rows`, so it counts there)."""
        return self._reads

    @property
    def warm(self) -> WarmReads:
        return self._warm

    def rows(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if not self._warm.cacheable(sql):
            self.passthrough_reads += 1
            self._count()
            return self._store.rows(sql, params)
        if getattr(self._warm.keyed_read, "active", False):  # a WarmMemo's read: its tables keep the rows
            self._count()
            return self._store.rows(sql, params)
        if sql in _TERM_READS and isinstance(params, Sequence) and len(params) == 1:
            vocabulary = self._warm.vocabulary(self._store)
            if vocabulary is not None and params[0] not in vocabulary:
                return []  # a term the index does not hold has no postings
        key = _key("rows", sql, params)
        found = self._warm.get(key)
        if found is MISSING:
            generation = self._warm.generation
            self._count()
            found = tuple(tuple(row.items()) for row in self._store.rows(sql, params))
            self._warm._keep(generation, lambda: self._warm.put(key, found))
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
            generation = self._warm.generation
            self._count()
            found = self._store.scalar(sql, params)
            self._warm._keep(generation, lambda: self._warm.put(key, found))
        return found

    def tuples(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        self.passthrough_reads += 1
        self._count()
        return self._store.tuples(sql, params)  # type: ignore[no-any-return]

    def arrow(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None, **options: Any) -> Any:
        self.passthrough_reads += 1
        self._count()
        return self._store.arrow(sql, params, **options)

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> None:
        self.passthrough_reads += 1
        self._count()
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
        generation = self._warm.generation
        try:
            with self._store.transaction():
                yield self
        except BaseException:
            # a rolled-back write may have been cached as read-your-own-write: forget it all
            self._warm.clear()
            raise
        if self._warm.generation != generation:
            # evidence was written in the transaction: what other views read meanwhile (the old rows) goes
            self._warm.clear()


class WarmMemo:
    """The evidence memo (:class:`graphcite.store.queries.verify_memo.EvidenceMemo`'s interface) of one
    :class:`WarmView`, over tables the :class:`WarmReads` of the process holds for the current generation.

    ``by_key`` reads only the keys no request read before (one statement for them, outside the lock, so
    requests read side by side); a key of a :data:`TERM_KINDS` read that the index vocabulary does not
    hold is answered absent without a read. Kept rows are shared: callers must not change them (as in a
    batch's memo).
    """

    def __init__(self, store: Any, warm: WarmReads) -> None:
        self._store = store  # the view's own store (never the view: the memo registry holds views weakly)
        self._warm = warm
        self.depth = 1  # a nested ``evidence_memo`` block shares this memo and never detaches it
        self.reads = 0

    def once(self, kind: str, read: Callable[[], V]) -> V:
        warm = self._warm
        generation = warm.generation
        found = warm._once.get(kind, _ABSENT)
        if found is _ABSENT:
            self.reads += 1
            flag = warm.keyed_read
            flag.active = True
            try:
                found = read()
            finally:
                flag.active = False
            warm._keep(generation, lambda: warm._once.__setitem__(kind, found))
        return found  # type: ignore[return-value]

    def by_key(self, kind: str, keys: Iterable[K], read: Callable[[set[K]], dict[K, V]], *,
               limit: int | None = None) -> dict[K, V]:
        warm = self._warm
        generation = warm.generation
        table = warm._table(kind, limit)
        wanted = set(keys)
        result: dict[K, V] = {}
        missing: set[K] = set()
        for key in wanted:
            found = table.get(key)
            if found is MISSING:
                missing.add(key)
            elif found is not _ABSENT:
                result[key] = found  # type: ignore[assignment]
        if missing and kind in TERM_KINDS:
            vocabulary = warm.vocabulary(self._store)
            if vocabulary is not None:
                missing = {key for key in missing if key in vocabulary}
        if missing:
            self.reads += 1
            flag = warm.keyed_read
            flag.active = True
            try:
                got = read(missing)
            finally:
                flag.active = False
            result.update({k: v for k, v in got.items() if k in missing})

            def keep() -> None:
                for key in missing:
                    table.put(key, got.get(key, _ABSENT))

            warm._keep(generation, keep)
        return result

    def stash(self, kind: str, key: Hashable, value: Any) -> None:
        """Nothing is read ahead for a service request: the value is dropped (``take`` finds nothing)."""

    def take(self, kind: str, key: Hashable) -> Any | None:
        return None
