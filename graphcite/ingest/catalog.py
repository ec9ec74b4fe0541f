"""Read-side views of what ingest stored: the source list and one unit with its typed values."""

from __future__ import annotations

import json
from typing import Any

from graphcite.errors import NotFoundError
from graphcite.store import Store
from graphcite.store.queries import ingest as queries

__all__ = ["list_sources", "show_unit"]


def list_sources(store: Store) -> list[dict[str, Any]]:
    """Every source with its current revision, status, kind, visibility and counts, sorted by key.

    ``revisions`` counts the stored revisions of the source; ``current_seq`` is the number of the
    current one, which is not always the last: a file changed back to earlier content points at
    that earlier revision again.
    """
    return queries.source_list(store)


def show_unit(store: Store, unit_id: str) -> dict[str, Any]:
    """One evidence unit: text, offsets, heading path, status, page or symbol, typed values."""
    row = queries.unit_with_revision(store, unit_id.strip())
    if row is None:
        raise NotFoundError(f"no evidence unit {unit_id!r}", where="UNIT_ID",
                            fix="take a unit id from `graphcite sources` / `graphcite check --json`")
    values = queries.unit_values(store, unit_id.strip())
    return {
        "unit_id": row["unit_id"], "source": row["source_key"], "revision": row["revision_id"],
        "revision_seq": row["revision_seq"], "current": row["revision_id"] == row["current_revision"],
        "start": row["start"], "end": row["end"], "block_type": row["block_type"],
        "heading_path": json.loads(row["heading_path_json"] or "[]"), "status": row["status"],
        "status_cue": row["status_cue"], "page": row["page"], "symbol": row["symbol"],
        "lines": [row["line_start"], row["line_end"]], "kind": row["kind"], "visibility": row["visibility"],
        "table_headers": json.loads(row["table_headers_json"]) if row["table_headers_json"] else None,
        "text": row["text"], "values": values,
    }
