"""Queries of the HTTP service: reviewers and the evidence fingerprint of warm reads."""

from __future__ import annotations

from typing import Any

from graphcite.store.base import Store

__all__ = ["EVIDENCE_FINGERPRINT", "add_reviewer_row", "evidence_fingerprint", "reviewer_exists", "reviewer_rows",
           "reviewer_secret"]

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
