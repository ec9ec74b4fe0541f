"""Kept parses of evidence units (the ``unit_parse`` table): one read for the units a check cites, one bulk
write for the parses it made.

A row is ``(unit_id, text_key, pipeline_version, parse)``: the serialised parse of one text read from the
unit, keyed by the digest of that text and by what parsed it. Only rows of the version asked for are
read, so a parse made by another pipeline is never used. Stores older than schema 5 opened read-only have
no such table: they read nothing and keep nothing (their texts are parsed as before).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from graphcite.store.base import Store

__all__ = ["PARSES_SINCE", "keep_unit_parses", "unit_parses"]

#: The schema version that added ``unit_parse``.
PARSES_SINCE = 5


def _has_table(store: Store) -> bool:
    return store.schema_version >= PARSES_SINCE


def unit_parses(store: Store, unit_ids: Iterable[str], version: str) -> list[tuple[str, bytes]]:
    """``(text_key, parse)`` of every kept parse of these units made by ``version``, in one statement
    (ordered by unit and key, so two reads of the same store hand over the same parses in the same order)."""
    wanted = set(unit_ids)
    if not wanted or not _has_table(store):
        return []

    def read(ids: set[str]) -> dict[str, list[tuple[str, bytes]]]:
        where, params = store.in_list("p.unit_id", ids)
        rows = store.tuples(f"SELECT p.unit_id, p.text_key, p.parse FROM unit_parse p WHERE {where} "
                            "AND p.pipeline_version = ? ORDER BY p.unit_id, p.text_key", [*params, version])
        found: dict[str, list[tuple[str, bytes]]] = {}
        for unit, key, data in rows:
            found.setdefault(unit, []).append((key, bytes(data)))
        return found

    # never through a batch's or the service's evidence memo: it would remember a unit as having no parse
    # after its first check kept one
    found = read(wanted)
    return [pair for unit in sorted(found) for pair in found[unit]]


def keep_unit_parses(store: Store, parses: Sequence[tuple[str, str, bytes]], version: str) -> int:
    """Keep ``(unit_id, text_key, parse)`` rows made by ``version``, in one bulk write (Arrow; COPY on
    PostgreSQL), with the kept parses of another version of the same units dropped in one statement.

    The write is its own transaction, even inside a caller's (a check's records): on DuckDB through a
    cursor of its own, on PostgreSQL inside a savepoint. So a write that cannot be made now (a read-only
    store, a concurrent writer of the same rows) keeps nothing and never fails the caller: a parse not
    kept is made again. Returns the rows written.
    """
    if not parses or store.read_only or not _has_table(store):
        return 0
    import pyarrow as pa

    rows = sorted({(unit, key): data for unit, key, data in parses}.items())
    table = pa.table({"unit_id": pa.array([u for (u, _k), _d in rows], pa.string()),
                      "text_key": pa.array([k for (_u, k), _d in rows], pa.string()),
                      "pipeline_version": pa.array([version] * len(rows), pa.string()),
                      "parse": pa.array([d for _uk, d in rows], pa.binary())})
    units = sorted({u for (u, _k), _d in rows})
    if not store.in_transaction:
        return _written(store, lambda: _write(store, table, units, version))
    if store.engine == "duckdb":
        view = store.cursor_view()
        try:
            return _written(view, lambda: _write(view, table, units, version))
        finally:
            with contextlib.suppress(*store.errors):
                view.con.close()
    store.execute("SAVEPOINT gc_keep_parses")
    written = _written(store, lambda: _write(store, table, units, version))
    store.execute("ROLLBACK TO SAVEPOINT gc_keep_parses" if not written else "RELEASE SAVEPOINT gc_keep_parses")
    return written


def _write(store: Store, table: Any, units: list[str], version: str) -> int:
    with store.transaction():
        where, params = store.in_list("unit_id", units)
        store.execute(f"DELETE FROM unit_parse WHERE {where} AND pipeline_version <> ?", [*params, version])
        return store.bulk_insert("unit_parse", table, or_ignore=True)


def _written(store: Store, write: Callable[[], int]) -> int:
    from graphcite.errors import StoreError

    try:
        return write()
    except (StoreError, *store.errors):
        return 0
