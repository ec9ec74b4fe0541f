"""Queries of the HTTP service: reviewers, the evidence fingerprint of warm reads and the index vocabulary."""

from __future__ import annotations

from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL
from graphcite.store.queries.contradictions import (
    CURRENT_UNIT,
    PUBLIC_TERM_POSTINGS_OF_TERM,
    TERM_POSTINGS_OF_TERM,
)

__all__ = ["CURRENT_UNIT", "EVIDENCE_FINGERPRINT", "PUBLIC_TERM_POSTINGS_OF_TERM", "TERM_POSTINGS_OF_TERM",
           "add_reviewer_row", "current_unit_rows", "evidence_fingerprint", "index_postings", "index_public_postings",
           "index_sizes", "index_vocabulary", "reviewer_exists", "reviewer_rows", "reviewer_secret",
           "values_with_unit_start_of_all"]

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


def index_sizes(store: Store) -> tuple[int, int, int]:
    """How many terms the index holds, how many units current revisions hold and how many units have values."""
    row = store.tuples("""
        SELECT (SELECT count(DISTINCT term) FROM term_posting),
               (SELECT count(*) FROM evidence_unit u
                JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id),
               (SELECT count(DISTINCT unit_id) FROM typed_value)""")[0]
    return int(row[0]), int(row[1]), int(row[2])


def index_postings(store: Store) -> dict[str, list[str]]:
    """Every term's units, in unit order: the answers of :data:`TERM_POSTINGS_OF_TERM` for all terms at once."""
    postings: dict[str, list[str]] = {}
    for term, unit_id in store.tuples("SELECT term, unit_id FROM term_posting ORDER BY term, unit_id"):
        postings.setdefault(term, []).append(unit_id)
    return postings


def index_public_postings(store: Store) -> dict[str, list[str]] | None:
    """Every term's units in sources that are not restricted, in unit order (the answers of
    :data:`PUBLIC_TERM_POSTINGS_OF_TERM` for all terms at once), or None when no source is restricted (the
    public answers are then :func:`index_postings`'s)."""
    if not store.scalar(f"SELECT count(*) FROM ({RESTRICTED_KEYS_SQL}) restricted"):
        return None
    postings: dict[str, list[str]] = {}
    for term, unit_id in store.tuples(f"""
            SELECT p.term, p.unit_id FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
            WHERE u.source_key NOT IN ({RESTRICTED_KEYS_SQL}) ORDER BY p.term, p.unit_id"""):
        postings.setdefault(term, []).append(unit_id)
    return postings


def current_unit_rows(store: Store) -> list[dict[str, Any]]:
    """The :data:`CURRENT_UNIT` row of every unit of a current revision, by unit id (its columns, its order)."""
    return store.rows("""
        SELECT u.unit_id, u.text, u.status, u.source_key, u.heading_path_json, u.page, u.revision_id,
               rev.visibility, rev.status AS doc_status
        FROM evidence_unit u
        JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id
        JOIN source_revision rev ON rev.revision_id = u.revision_id
        ORDER BY u.unit_id""")


def values_with_unit_start_of_all(store: Store) -> list[dict[str, Any]]:
    """Every typed value with its unit's start (``unit_start``), by unit and start: what
    :func:`graphcite.store.queries.contradictions.values_with_unit_start` reads, for all units at once."""
    return store.rows("SELECT t.*, u.start AS unit_start FROM typed_value t "
                      "JOIN evidence_unit u ON u.unit_id = t.unit_id ORDER BY t.unit_id, t.start, t.\"end\"")


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
