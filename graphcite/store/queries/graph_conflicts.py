"""The conflicts audit's reads: current units, candidate pairs from the term index, and their rows.

A unit is current when it is a non-heading unit of the current revision of a source that no
current revision supersedes, and neither it nor its revision is marked otherwise. Candidate pairs
are pairs of current units sharing enough index terms; very common terms propose none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL

__all__ = ["conflict_candidates", "conflict_rows", "current_unit_count"]

_CURRENT_UNITS = """
    SELECT u.unit_id
    FROM evidence_unit u
    JOIN source s ON s.current_revision = u.revision_id
    JOIN source_revision r ON r.revision_id = u.revision_id
    WHERE u.status = 'current' AND r.status = 'current' AND u.block_type <> 'heading'
      AND s.key NOT IN (
          SELECT l.to_key FROM source_link l
          JOIN source_revision dr ON dr.revision_id = l.declared_in
          JOIN source ds ON ds.key = dr.source_key AND ds.current_revision = dr.revision_id
          WHERE l.relation = 'supersedes')
      {visibility}
"""


def _current_units(public: bool) -> str:
    # the same reading of "restricted" as every other public output: any restricted revision counts
    return _CURRENT_UNITS.replace("{visibility}", f"AND s.key NOT IN ({RESTRICTED_KEYS_SQL})" if public else "")


def current_unit_count(store: Store, *, public: bool) -> int:
    """How many current units there are (without restricted sources when ``public``)."""
    return int(store.scalar(f"SELECT count(*) FROM ({_current_units(public)}) cur") or 0)


def conflict_candidates(store: Store, *, public: bool, same_source: bool, max_units_per_term: int,
                        min_shared: int, per_unit: int) -> list[dict[str, Any]]:
    """Pairs ``a`` < ``b`` of current units sharing at least ``min_shared`` index terms (``shared``).

    Terms found in more than ``max_units_per_term`` current units propose no pair; each unit ``a``
    keeps its ``per_unit`` best partners (most shared terms, then by id); pairs from one source
    only when ``same_source``. Ordered by ``a``, ``b``.
    """
    source_filter = "" if same_source else "AND ua.source_key <> ub.source_key"
    return store.rows(f"""
        WITH cur AS ({_current_units(public)}),
        post AS (SELECT p.term, p.unit_id FROM term_posting p JOIN cur ON cur.unit_id = p.unit_id),
        useful AS (SELECT term FROM post GROUP BY term HAVING count(*) BETWEEN 2 AND ?),
        pairs AS (
            SELECT a.unit_id AS a, b.unit_id AS b, count(*) AS shared
            FROM post a JOIN useful t ON t.term = a.term
            JOIN post b ON b.term = a.term AND a.unit_id < b.unit_id
            GROUP BY a.unit_id, b.unit_id HAVING count(*) >= ?)
        SELECT a, b, shared FROM (
            SELECT p.a, p.b, p.shared, row_number() OVER (PARTITION BY p.a ORDER BY p.shared DESC, p.b) AS rank
            FROM pairs p
            JOIN evidence_unit ua ON ua.unit_id = p.a
            JOIN evidence_unit ub ON ub.unit_id = p.b
            WHERE TRUE {source_filter}) ranked
        WHERE rank <= ?
        ORDER BY a, b""", [max_units_per_term, min_shared, per_unit])


def conflict_rows(store: Store, unit_ids: Iterable[str]
                  ) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The units of candidate pairs and their typed values, through one temporary id table.

    unit id -> the unit (text, offsets, status, heading path, page) with its revision's status, date
    and kind; and unit id -> its typed values, by offset.
    """
    values: dict[str, list[dict[str, Any]]] = {}
    with store.temporary("_gc_conflict_units", unit_ids) as view:
        units = {r["unit_id"]: r for r in store.rows(f"""
            SELECT u.unit_id, u.source_key, u.revision_id, u.start, u."end", u.text, u.status, u.heading_path_json,
                   u.page, r.status AS doc_status, CAST(r.effective AS VARCHAR) AS effective, r.kind
            FROM evidence_unit u JOIN {view} i ON i.id = u.unit_id
            JOIN source_revision r ON r.revision_id = u.revision_id""")}
        for row in store.rows(f"""SELECT t.* FROM typed_value t JOIN {view} i ON i.id = t.unit_id
                                  ORDER BY t.unit_id, t.start"""):
            values.setdefault(row["unit_id"], []).append(row)
    return units, values
