"""Read-side views of what ingest stored: the source list and one unit with its typed values."""

from __future__ import annotations

import json
from typing import Any

from graphcite.errors import NotFoundError
from graphcite.store import Store

__all__ = ["list_sources", "show_unit"]


def list_sources(store: Store) -> list[dict[str, Any]]:
    """Every source with its current revision, status, kind, visibility and counts, sorted by key.

    ``revisions`` counts the stored revisions of the source; ``current_seq`` is the number of the
    current one, which is not always the last: a file changed back to earlier content points at
    that earlier revision again.
    """
    rows = store.rows("""
        SELECT s.key, s.title, s.kind, s.visibility, s.current_revision, r.status, r.format,
               CAST(r.effective AS VARCHAR) AS effective,
               (SELECT count(*) FROM source_revision a WHERE a.source_key = s.key) AS revisions,
               r.seq AS current_seq,
               (SELECT count(*) FROM evidence_unit u WHERE u.revision_id = s.current_revision) AS units,
               (SELECT count(*) FROM typed_value t WHERE t.revision_id = s.current_revision) AS "values"
        FROM source s JOIN source_revision r ON r.revision_id = s.current_revision
        ORDER BY s.key""")
    return rows


def show_unit(store: Store, unit_id: str) -> dict[str, Any]:
    """One evidence unit: text, offsets, heading path, status, page or symbol, typed values."""
    row = store.row("""
        SELECT u.*, r.format, r.kind, r.visibility, r.seq AS revision_seq, s.current_revision
        FROM evidence_unit u JOIN source_revision r ON r.revision_id = u.revision_id
        JOIN source s ON s.key = u.source_key WHERE u.unit_id = ?""", [unit_id.strip()])
    if row is None:
        raise NotFoundError(f"no evidence unit {unit_id!r}", where="UNIT_ID",
                            fix="take a unit id from `graphcite sources` / `graphcite check --json`")
    values = store.rows("""SELECT start, "end", surface, magnitude, low, high, unit, dimensionality, kind,
                                  counted_noun, measured, bound, role
                           FROM typed_value WHERE unit_id = ? ORDER BY start""", [unit_id.strip()])
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
