"""Queries of the HTTP service: reviewers, the evidence fingerprint of warm reads and the index vocabulary."""

from __future__ import annotations

from typing import Any

from graphcite.store.base import Store

__all__ = ["EVIDENCE_FINGERPRINT", "TERM_POSTINGS_OF_TERM", "add_reviewer_row", "evidence_fingerprint",
           "index_vocabulary", "reviewer_exists", "reviewer_rows", "reviewer_secret"]

#: One cheap read over the evidence tables that changes whenever evidence is ingested or a pointer moves.
EVIDENCE_FINGERPRINT = ("SELECT (SELECT count(*) FROM source) AS sources, "
                        "(SELECT count(*) FROM source_revision) AS revisions, "
                        "(SELECT count(*) FROM source_link) AS links, "
                        "(SELECT string_agg(key || '=' || coalesce(current_revision, '') || ':' || "
                        "coalesce(visibility, ''), ',' ORDER BY key) FROM source) AS pointers")


def evidence_fingerprint(store: Store) -> tuple[Any, ...]:
    """Row counts of the evidence tables and every source's current-revision pointer, as one tuple."""
    row = store.rows(EVIDENCE_FINGERPRINT)
    return tuple(row[0].values()) if row else ()


#: The one-term postings read of the contradiction search on a warm view
#: (:func:`graphcite.store.queries.contradictions.contradiction_candidates`, ``point_reads``): the service
#: answers it without a read for a term the index does not hold (tests/serve/test_gate_warm.py holds the
#: two texts equal by counting the reads of a sentence of new words).
TERM_POSTINGS_OF_TERM = "SELECT unit_id FROM term_posting WHERE term = ?"


def index_vocabulary(store: Store, limit: int) -> frozenset[str] | None:
    """Every term the index holds, or None when it holds more than ``limit`` (too many to keep in memory)."""
    rows = store.tuples("SELECT DISTINCT term FROM term_posting LIMIT ?", [limit + 1])
    return None if len(rows) > limit else frozenset(row[0] for row in rows)


def reviewer_exists(store: Store, name: str) -> bool:
    return bool(store.scalar("SELECT count(*) FROM reviewer WHERE name = ?", [name]))


def add_reviewer_row(store: Store, name: str, token_hash: str, salt: str, created_at: Any) -> None:
    """Insert one reviewer (one row, one statement: a reviewer is added by hand, never in bulk)."""
    store.execute("INSERT INTO reviewer (name, token_hash, salt, created_at) VALUES (?, ?, ?, ?)",
                  [name, token_hash, salt, created_at])


def reviewer_rows(store: Store) -> list[dict[str, Any]]:
    """Every reviewer's name and creation time, oldest first (never a hash or a salt)."""
    return store.rows("SELECT name, created_at FROM reviewer ORDER BY created_at, name")


def reviewer_secret(store: Store, name: str) -> dict[str, Any] | None:
    """The token hash and salt of reviewer ``name``, or None."""
    return store.row("SELECT token_hash, salt FROM reviewer WHERE name = ?", [name])
