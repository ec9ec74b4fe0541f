"""What citation resolution reads: units, sources and revisions by id, supersessions, cited spans, values.

Each function is one bulk statement, or none: inside :func:`graphcite.store.queries.verify_memo.evidence_memo`
rows already read by id are answered from memory. Used by :mod:`graphcite.verify.resolve`. Rows are dicts
of the table's columns, in a fixed order so reports are byte-identical on both engines; callers must not
change them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries.verify_memo import memo_of

__all__ = [
    "REVISIONS_KEPT",
    "revisions_by_hash_prefix",
    "revisions_by_id",
    "source_alias_rows",
    "sources_by_key",
    "supersessions",
    "units_by_id",
    "units_of_revisions",
    "units_overlapping",
    "values_of_units",
]

Row = dict[str, Any]
#: Revisions (each with its whole text, or all its units) a batch's memo keeps.
REVISIONS_KEPT = 2_000


def _by_id(store: Store, kind: str, ids: Iterable[str], read: Callable[[set[str]], list[Row]],
           key: str, limit: int | None = None) -> list[Row]:
    """Rows by their id, sorted by it: from the memo when one is active, else one statement."""
    wanted = set(ids)
    if not wanted:
        return []
    memo = memo_of(store)
    if memo is None:
        return read(wanted)
    found = memo.by_key(kind, wanted, lambda missing: {row[key]: row for row in read(missing)}, limit=limit)
    return [found[k] for k in sorted(found)]


def _grouped(store: Store, kind: str, ids: Iterable[str], read: Callable[[set[str]], list[Row]],
             key: str, limit: int | None = None) -> list[Row]:
    """Rows of several per id (read in order of ``key`` first), concatenated by id: memo or one statement."""
    wanted = set(ids)
    if not wanted:
        return []
    memo = memo_of(store)
    if memo is None:
        return read(wanted)

    def group(missing: set[str]) -> dict[str, list[Row]]:
        out: dict[str, list[Row]] = {k: [] for k in missing}
        for row in read(missing):
            out[row[key]].append(row)
        return out

    found = memo.by_key(kind, wanted, group, limit=limit)
    return [row for k in sorted(found) for row in found[k]]


def units_by_id(store: Store, unit_ids: Iterable[str]) -> list[Row]:
    """Every column of the evidence units with these ids (unknown ids are left out), by id."""
    def read(ids: set[str]) -> list[Row]:
        where, params = store.in_list("u.unit_id", ids)
        return store.rows(f"SELECT u.* FROM evidence_unit u WHERE {where} ORDER BY u.unit_id", params)

    return _by_id(store, "unit", unit_ids, read, "unit_id")


def sources_by_key(store: Store, keys: Iterable[str]) -> list[Row]:
    """Every column of the sources with these keys (unknown keys are left out), by key."""
    def read(wanted: set[str]) -> list[Row]:
        where, params = store.in_list("s.key", wanted)
        return store.rows(f"SELECT s.* FROM source s WHERE {where} ORDER BY s.key", params)

    return _by_id(store, "source", keys, read, "key")


def revisions_by_id(store: Store, revision_ids: Iterable[str]) -> list[Row]:
    """Every column of the source revisions with these ids (unknown ids are left out), by id."""
    def read(ids: set[str]) -> list[Row]:
        where, params = store.in_list("r.revision_id", ids)
        return store.rows(f"SELECT r.* FROM source_revision r WHERE {where} ORDER BY r.revision_id", params)

    return _by_id(store, "revision", revision_ids, read, "revision_id", REVISIONS_KEPT)


def revisions_by_hash_prefix(store: Store, prefix: str) -> list[Row]:
    """The revisions whose content hash starts with ``prefix`` (a revision pinned by a short hash)."""
    return store.rows("SELECT * FROM source_revision WHERE starts_with(content_hash, ?) ORDER BY revision_id",
                      [prefix])


def supersessions(store: Store, keys: Iterable[str]) -> list[Row]:
    """``to_key, from_key, effective`` for each source of ``keys`` that a current revision declares
    superseded, with the superseding source's current effective date (text, or None); ordered."""
    def read(wanted: set[str]) -> list[Row]:
        where, params = store.in_list("l.to_key", wanted)
        return store.rows(f"""
        SELECT l.to_key, l.from_key, CAST(r2.effective AS VARCHAR) AS effective
        FROM source_link l
        JOIN source_revision r ON r.revision_id = l.declared_in
        JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
        LEFT JOIN source s2 ON s2.key = l.from_key
        LEFT JOIN source_revision r2 ON r2.revision_id = s2.current_revision
        WHERE l.relation = 'supersedes' AND {where}
        ORDER BY 1, 2, 3""", params)

    return _grouped(store, "supersessions", keys, read, "to_key")


def units_of_revisions(store: Store, revision_ids: Iterable[str]) -> list[Row]:
    """Every unit of these revisions, in document order (by revision, then start)."""
    def read(ids: set[str]) -> list[Row]:
        where, params = store.in_list("u.revision_id", ids)
        return store.rows(f"SELECT u.* FROM evidence_unit u WHERE {where} ORDER BY u.revision_id, u.start", params)

    return _grouped(store, "revision units", revision_ids, read, "revision_id", REVISIONS_KEPT)


def units_overlapping(store: Store, spans: Sequence[tuple[str, int, int]]) -> list[Row]:
    """The units that overlap any ``(revision_id, start, end)`` span (document offsets), each once, in
    document order: one span join, so whole documents are not shipped to Python."""
    if not spans:
        return []
    return store.rows("""
        SELECT DISTINCT u.* FROM evidence_unit u
        JOIN (SELECT unnest(?::VARCHAR[]) AS rid, unnest(?::BIGINT[]) AS s, unnest(?::BIGINT[]) AS e) sp
          ON u.revision_id = sp.rid AND u.start < sp.e AND u."end" > sp.s
        ORDER BY u.revision_id, u.start""", [[x[0] for x in spans], [x[1] for x in spans], [x[2] for x in spans]])


def values_of_units(store: Store, unit_ids: Iterable[str]) -> list[Row]:
    """Every typed value of these units, ordered by unit and start offset."""
    def read(ids: set[str]) -> list[Row]:
        where, params = store.in_list("t.unit_id", ids)
        return store.rows(f"SELECT t.* FROM typed_value t WHERE {where} ORDER BY t.unit_id, t.start, t.\"end\"",
                          params)

    return _grouped(store, "unit values", unit_ids, read, "unit_id")


def source_alias_rows(store: Store) -> list[Row]:
    """``key, title, url`` of every source's current revision (``url`` from its front matter), by key."""
    def read() -> list[Row]:
        return store.rows("""
        SELECT s.key, r.title,
               coalesce(json_extract_string(r.metadata_json, '$.url'), json_extract_string(r.metadata_json, '$.URL'))
               AS url
        FROM source s JOIN source_revision r ON r.revision_id = s.current_revision
        ORDER BY s.key""")

    memo = memo_of(store)
    return memo.once("source aliases", read) if memo is not None else read()
