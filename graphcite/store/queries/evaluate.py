"""What evaluation reads: reviewers' annotations and the citations they judge.

Annotations are appended (``Store.bulk_insert``), never changed; these functions read them and the
claims and citations they are about for :mod:`graphcite.evaluate`.
"""

from __future__ import annotations

from typing import Any

from graphcite.store.base import Store

__all__ = ["annotation_count", "annotation_rows", "citation", "citations_of", "input_claim"]

Row = dict[str, Any]


def input_claim(store: Store, claim_id: str) -> Row | None:
    """``claim_id, answer_rev`` of an input claim (not an atomic part), or None."""
    return store.row("SELECT claim_id, answer_rev FROM claim WHERE claim_id = ? AND part IS NULL", [claim_id])


def citation(store: Store, claim_id: str, ordinal: int) -> Row | None:
    """Every column of one citation of a claim (numbered from 0 in input order), or None."""
    return store.row("SELECT * FROM citation WHERE claim_id = ? AND ordinal = ?", [claim_id, ordinal])


def citations_of(store: Store, claim_id: str) -> list[Row]:
    """Every column of a claim's citations, in input order (empty for an unknown claim)."""
    return store.rows("SELECT * FROM citation WHERE claim_id = ? ORDER BY ordinal", [claim_id])


def annotation_count(store: Store, claim_id: str, citation_index: int) -> int:
    """How many judgements one citation of a claim has had."""
    return int(store.scalar("SELECT count(*) FROM annotation WHERE claim_id = ? AND citation_index = ?",
                            [claim_id, citation_index]))


def annotation_rows(store: Store) -> list[Row]:
    """Every annotation (all columns, plus ``created`` as text and the claim's text as ``claim_text``),
    by claim, citation, time and id."""
    return store.rows("""
        SELECT a.*, CAST(a.created_at AS VARCHAR) AS created, c.text AS claim_text
        FROM annotation a JOIN claim c ON c.claim_id = a.claim_id
        ORDER BY a.claim_id, a.citation_index, a.created_at, a.annotation_id""")
