"""What the export formats read beyond the graph fetch: whole table rows for Parquet, revision texts for
Web Annotation selectors.

:func:`table_rows` copies every column of a store table for a set of ids, in the table's column
order and a fixed row order, so a Parquet file is byte-identical on both engines. Used by
:mod:`graphcite.export.parquet` and :mod:`graphcite.export.webanno`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from graphcite.store.base import Store
from graphcite.store.columns import arrow_schema, column_names

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EXPORT_TABLES", "claim_family", "revision_texts", "table_rows"]

Row = dict[str, Any]

#: Table -> (the id column a selection filters on, the row order of the export).
EXPORT_TABLES: dict[str, tuple[str, str]] = {
    "source": ("key", "key"),
    "source_revision": ("revision_id", "source_key, seq"),
    "evidence_unit": ("unit_id", "source_key, ordinal, unit_id"),
    "typed_value": ("unit_id", "unit_id, start, value_id"),
    "source_link": ("from_key", "link_id"),
    "answer": ("answer_rev", "answer_rev"),
    "claim": ("claim_id", "answer_rev, ordinal, part NULLS FIRST"),
    "citation": ("claim_id", "claim_id, ordinal"),
    "verification": ("claim_id", "claim_id, verified_at, record_id"),
    "annotation": ("claim_id", "claim_id, created_at, annotation_id"),
}


def table_rows(store: Store, table: str, ids: Iterable[str]) -> pa.Table:
    """Every column of the rows of ``table`` (one of :data:`EXPORT_TABLES`) whose id column is in ``ids``,
    as Arrow with the table's schema, in the export's row order (no ids: an empty table)."""
    column, order = EXPORT_TABLES[table]
    names = ", ".join(f'"{n}"' for n in column_names(table))
    where, params = store.in_list(column, ids)
    return store.arrow(f"SELECT {names} FROM {table} WHERE {where} ORDER BY {order}", params or None,
                       schema=arrow_schema(table))


def claim_family(store: Store, claim_ids: Iterable[str]) -> list[Row]:
    """``claim_id, parent_id, part, answer_rev, ordinal`` of these claims and of their atomic parts, by
    claim id (no ids: empty)."""
    ids = set(claim_ids)
    if not ids:
        return []
    where, params = store.in_list("claim_id", ids)
    inner, inner_params = store.in_list("c.claim_id", ids)
    return store.rows(f"SELECT claim_id, parent_id, part, answer_rev, ordinal FROM claim WHERE {where} "
                      f"OR parent_id IN (SELECT c.claim_id FROM claim c WHERE {inner}) ORDER BY claim_id",
                      [*params, *inner_params])


def revision_texts(store: Store, revision_ids: Iterable[str]) -> dict[str, Row]:
    """Revision id -> ``revision_id, text, ingested_at`` (text) for the known ids of ``revision_ids``."""
    ids = set(revision_ids)
    if not ids:
        return {}
    where, params = store.in_list("revision_id", ids)
    return {r["revision_id"]: r for r in store.rows(
        f"SELECT revision_id, text, CAST(ingested_at AS VARCHAR) AS ingested_at FROM source_revision "
        f"WHERE {where} ORDER BY revision_id", params)}
