"""Queries of the check entry points: earlier checks of an answer revision, claim histories, counts.

Verification records and annotations are appended, never changed, so row counts per answer revision
are a fingerprint of what a summary read from them says (:func:`record_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries import newest_per_claim_sql

__all__ = ["answer_stored", "claim_history", "claim_known", "correcting_answers", "earlier_by_claim",
           "lock_answer_records", "record_counts", "reviews_by_claim", "verification_count"]


def answer_stored(store: Store, rev: str) -> bool:
    """Whether the answer revision ``rev`` is stored."""
    return bool(store.scalar("SELECT count(*) FROM answer WHERE answer_rev = ?", [rev]))


def earlier_by_claim(store: Store, rev: str) -> list[dict[str, Any]]:
    """Per claim of ``rev`` and audience verified before: ``audience``, ``checks``, ``last_at``, ``last_status``,
    ``last_config``."""
    return store.rows(f"""
        SELECT claim_id, audience, count(*) AS checks, max(verified_at) AS last_at,
               max(CASE WHEN newest = 1 THEN status END) AS last_status,
               max(CASE WHEN newest = 1 THEN config_hash END) AS last_config
        FROM ({newest_per_claim_sql("answer_rev = ?", "claim_id, audience, verified_at, status, config_hash")}) v
        GROUP BY claim_id, audience""", [rev])


def reviews_by_claim(store: Store, rev: str) -> list[dict[str, Any]]:
    """Per judged claim of ``rev``: ``judgements``, distinct ``labels`` and ``last_at``."""
    return store.rows("""
        SELECT a.claim_id, count(*) AS judgements, count(DISTINCT a.label) AS labels, max(a.created_at) AS last_at
        FROM annotation a JOIN claim c ON c.claim_id = a.claim_id
        WHERE c.answer_rev = ? GROUP BY a.claim_id""", [rev])


def correcting_answers(store: Store, rev: str) -> list[str]:
    """Revisions stored as corrections of ``rev``, oldest first."""
    return [r["answer_rev"] for r in store.rows(
        "SELECT answer_rev FROM answer WHERE corrects = ? ORDER BY stored_at, answer_rev", [rev])]


def verification_count(store: Store, rev: str) -> int:
    """Verification records of the answer revision ``rev``."""
    return int(store.scalar("SELECT count(*) FROM verification WHERE answer_rev = ?", [rev]))


def record_counts(store: Store, revs: Iterable[str]) -> dict[str, tuple[int, int, int]]:
    """Per answer revision: (verification records, annotations of its claims, correcting revisions), in
    one round trip; a revision with none of them is left out."""
    wanted = sorted(set(revs))
    if not wanted:
        return {}
    own, params = store.in_list("answer_rev", wanted)
    judged, _ = store.in_list("c.answer_rev", wanted)
    corrected, _ = store.in_list("corrects", wanted)
    rows = store.rows(f"""
        SELECT answer_rev, sum(v) AS v, sum(a) AS a, sum(c) AS c FROM (
            SELECT answer_rev, count(*) AS v, 0 AS a, 0 AS c FROM verification WHERE {own} GROUP BY answer_rev
            UNION ALL
            SELECT c.answer_rev, 0, count(*), 0 FROM annotation n JOIN claim c ON c.claim_id = n.claim_id
            WHERE {judged} GROUP BY c.answer_rev
            UNION ALL
            SELECT corrects, 0, 0, count(*) FROM answer WHERE {corrected} GROUP BY corrects) t
        GROUP BY answer_rev""", [*params, *params, *params])
    return {r["answer_rev"]: (int(r["v"]), int(r["a"]), int(r["c"])) for r in rows}


def claim_history(store: Store, claim_id: str, audience: str = "internal") -> list[dict[str, Any]]:
    """Every verification record of a claim made for ``audience``, oldest first (``evidence_revisions_json``
    still encoded)."""
    return store.rows("""
        SELECT record_id, claim_id, answer_rev, config_hash, evidence_revisions_json,
               CAST(verified_at AS VARCHAR) AS verified_at, status, supported, audience
        FROM verification WHERE claim_id = ? AND audience = ? ORDER BY verified_at, record_id""",
                      [claim_id, audience])


def claim_known(store: Store, claim_id: str) -> bool:
    """Whether ``claim_id`` is a stored claim."""
    return bool(store.scalar("SELECT count(*) FROM claim WHERE claim_id = ?", [claim_id]))


def lock_answer_records(store: Store, revs: Iterable[str]) -> None:
    """Inside a transaction: wait until no other writer is recording checks of these answer revisions,
    and keep them to this transaction until it ends (PostgreSQL advisory locks, taken in sorted order).

    Records number the checks before them (:func:`graphcite.verify.records.record_rows`), so two server
    processes must not count and append for one revision at once. A DuckDB file has one writer
    process: nothing to do there.
    """
    wanted = sorted(set(revs))
    if store.engine != "postgresql" or not wanted:
        return
    store.scalar("SELECT count(pg_advisory_xact_lock(hashtext(r))) FROM "
                 "(SELECT unnest(?::text[]) AS r ORDER BY 1) AS revs", [wanted])
