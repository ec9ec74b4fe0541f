"""What stored answers read: answer revisions, their claims and atomic parts.

Answers are written in bulk by :func:`graphcite.claims.answers.add_answer` (``Store.bulk_insert``);
these functions read them back for :mod:`graphcite.claims.answers` and the later stages that look a
claim up by id. Rows are dicts in a fixed order, the same on both engines.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphcite.store.base import Store

__all__ = [
    "answer_by_id",
    "answer_by_rev",
    "answer_exists",
    "answer_names",
    "answer_summaries",
    "atomic_parts",
    "claim_by_id",
    "claim_ids_starting",
    "claims_by_id",
]

Row = dict[str, Any]
_CLAIM_COLUMNS = "claim_id, answer_rev, ordinal, part, parent_id, text"


def answer_exists(store: Store, answer_rev: str) -> bool:
    """Whether an answer revision is stored."""
    return bool(store.scalar("SELECT count(*) FROM answer WHERE answer_rev = ?", [answer_rev]))


def answer_names(store: Store) -> list[str]:
    """Every stored answer id and answer revision id, each once, sorted (for "did you mean")."""
    return [row["name"] for row in store.rows(
        "SELECT DISTINCT answer_id AS name FROM answer UNION SELECT answer_rev AS name FROM answer ORDER BY name")]


def answer_by_rev(store: Store, answer_rev: str) -> Row | None:
    """``answer_rev, content_json, format`` of one answer revision, or None."""
    return store.row("SELECT answer_rev, content_json, format FROM answer WHERE answer_rev = ?", [answer_rev])


def answer_by_id(store: Store, answer_id: str) -> Row | None:
    """``answer_rev, content_json, format`` of the latest stored revision of an answer id, or None.

    Latest by ``stored_at`` and, within one second, by insertion order (``rowid``; ``ctid`` on PostgreSQL)."""
    return store.row("SELECT answer_rev, content_json, format FROM answer WHERE answer_id = ? "
                     "ORDER BY stored_at DESC, rowid DESC LIMIT 1", [answer_id])


def atomic_parts(store: Store, answer_rev: str) -> list[Row]:
    """``ordinal, atomic_json`` of every atomic part of an answer revision, by claim then part."""
    return store.rows("SELECT ordinal, atomic_json FROM claim WHERE answer_rev = ? AND part IS NOT NULL "
                      "ORDER BY ordinal, part", [answer_rev])


def answer_summaries(store: Store) -> list[Row]:
    """Every answer revision with its claim count and correction link, by answer id then storage time.

    Columns: ``answer_rev, answer_id, question, format, corrects, correction_rationale, stored_at``
    (text) and ``claims`` (input claims, atomic parts not counted)."""
    return store.rows("""
        SELECT a.answer_rev, a.answer_id, a.question, a.format, a.corrects, a.correction_rationale,
               CAST(a.stored_at AS VARCHAR) AS stored_at,
               (SELECT count(*) FROM claim c WHERE c.answer_rev = a.answer_rev AND c.part IS NULL) AS claims
        FROM answer a ORDER BY a.answer_id, a.stored_at, a.answer_rev""")


def claims_by_id(store: Store, claim_ids: Iterable[str]) -> dict[str, Row]:
    """Claim id -> ``claim_id, answer_rev, ordinal, part, parent_id, text`` for the known ids."""
    ids = set(claim_ids)
    if not ids:
        return {}
    where, params = store.in_list("claim_id", ids)
    return {r["claim_id"]: r for r in store.rows(
        f"SELECT {_CLAIM_COLUMNS} FROM claim WHERE {where} ORDER BY claim_id", params)}


def claim_by_id(store: Store, claim_id: str) -> Row | None:
    """``claim_id, answer_rev, ordinal, part, parent_id, text`` of one claim (input claim or atomic part),
    or None."""
    return store.row(f"SELECT {_CLAIM_COLUMNS} FROM claim WHERE claim_id = ?", [claim_id])


def claim_ids_starting(store: Store, prefix: str, limit: int = 6) -> list[str]:
    """Up to ``limit`` claim ids that start with ``prefix`` (letters and digits only: nothing to escape)."""
    rows = store.rows("SELECT claim_id FROM claim WHERE claim_id LIKE ? ORDER BY claim_id LIMIT ?", [prefix + "%", limit])
    return [r["claim_id"] for r in rows]
