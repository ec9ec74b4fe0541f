"""The source_lineage table: its reads (a support chain's sources and lineage) and the reads and writes that keep it.

Each row holds one key's source card (the source and its revisions) and the links of its upward
closure, computed by :mod:`graphcite.ingest.lineage` from source, source_revision and source_link.
Every function takes the :class:`Store` first and runs on DuckDB and PostgreSQL alike; point reads
keep the indexed key the only condition of their ``WHERE`` (see :mod:`graphcite.store.queries.graph`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphcite.models import LINEAGE_RELATIONS, SOURCE_RELATIONS
from graphcite.store.base import Store
from graphcite.store.queries.graph import REVISION_COLUMNS, SOURCE_COLUMNS, ids_filter, rows_for_ids

__all__ = [
    "MAX_LINEAGE_LEVELS",
    "all_followed_links",
    "all_revision_rows",
    "all_source_rows",
    "lineage_links_into",
    "lineage_rows",
    "lineage_table_empty",
    "links_touching",
    "replace_lineage_rows",
    "stale_sources",
]

#: A walk upward stops after this many levels: a row's closure holds links of levels 0..63 (keys at most
#: 63 levels above its key are visited). Ingest writes the rows to this depth and the graph reads them so.
MAX_LINEAGE_LEVELS = 64

_LINK_COLUMNS = "link_id, from_key, to_key, relation, declared_in"


def lineage_rows(store: Store, keys: Iterable[str], *, links: bool = True) -> list[dict[str, Any]]:
    """``key``, ``source_json`` (and ``links_json`` unless ``links`` is false) of the stored rows among ``keys``."""
    columns = "key, source_json, links_json" if links else "key, source_json"
    return rows_for_ids(store, f"SELECT {columns} FROM source_lineage WHERE {{ids}}", "key", keys)


def lineage_table_empty(store: Store) -> bool:
    return store.row("SELECT key FROM source_lineage LIMIT 1") is None


def stale_sources(store: Store) -> list[str]:
    """Sources whose lineage row is missing or was computed for another current revision, sorted."""
    return [r["key"] for r in store.rows("""
        SELECT s.key FROM source s LEFT JOIN source_lineage l ON l.key = s.key
        WHERE l.key IS NULL OR l.current_revision IS DISTINCT FROM s.current_revision
        ORDER BY s.key""")]


def links_touching(store: Store, keys: Iterable[str]) -> list[dict[str, Any]]:
    """The followed links (lineage and supersedes) from or into ``keys``, unordered (one row per link)."""
    keys = list(keys)
    if not keys:
        return []
    with ids_filter(store, "from_key", keys) as (out_filter, out_values), \
            ids_filter(store, "to_key", keys) as (in_filter, in_values):
        rows = store.rows(f"""
            SELECT {_LINK_COLUMNS} FROM source_link WHERE {out_filter}
            UNION SELECT {_LINK_COLUMNS} FROM source_link WHERE {in_filter}""", [*out_values, *in_values])
    return [row for row in rows if row["relation"] in SOURCE_RELATIONS]


def lineage_links_into(store: Store, keys: Iterable[str]) -> list[dict[str, Any]]:
    """The derived_from / quotes / implements links into ``keys`` (one level of a walk down), unordered."""
    rows = rows_for_ids(store, f"SELECT {_LINK_COLUMNS} FROM source_link WHERE {{ids}}", "to_key", keys)
    return [row for row in rows if row["relation"] in LINEAGE_RELATIONS]


def all_followed_links(store: Store) -> list[dict[str, Any]]:
    """Every lineage and supersedes link of the store, by link id."""
    condition, params = store.in_list("relation", SOURCE_RELATIONS)
    return store.rows(f"SELECT {_LINK_COLUMNS} FROM source_link WHERE {condition} ORDER BY link_id", params)


def all_source_rows(store: Store) -> list[dict[str, Any]]:
    """Every source (the columns of :func:`graphcite.store.queries.graph.source_rows`), by key."""
    return store.rows(f"SELECT {SOURCE_COLUMNS} FROM source ORDER BY key")


def all_revision_rows(store: Store) -> list[dict[str, Any]]:
    """Every revision (the columns of :func:`graphcite.store.queries.graph.revision_rows`), by source and sequence."""
    return store.rows(f"SELECT {REVISION_COLUMNS} FROM source_revision ORDER BY source_key, seq")


def replace_lineage_rows(store: Store, keys: Iterable[str] | None, rows: Sequence[Mapping[str, Any]]) -> None:
    """Delete the rows of ``keys`` (every row for None) and write ``rows`` in one bulk insert."""
    if keys is None:
        store.execute("DELETE FROM source_lineage")
    else:
        keys = sorted(set(keys))
        if keys:
            with ids_filter(store, "key", keys) as (condition, values):
                store.execute(f"DELETE FROM source_lineage WHERE {condition}", values)
    store.bulk_insert("source_lineage", list(rows))
