"""The service's contradiction search by point reads gives the grouped query's rows, in its order.

The warm view (``point_reads``) answers one read per term and per unit from memory; the grouped
query ranks in the database. Both must pick the same candidates for every part, on both engines,
also when common terms are left out and when fewer candidates than asked exist.
"""

from __future__ import annotations

import pytest

from graphcite.claims.decompose import decompose
from graphcite.serve.warm import WarmReads, WarmView
from graphcite.store import Store
from graphcite.store.queries.contradictions import contradiction_candidates
from graphcite.verify.contradictions import _term_rows

SENTENCES = [
    "The relay retries a failed delivery three times before it gives up.",
    "Backups are not kept for more than 30 days.",
    "The ingest service does not accept files larger than 2 GB.",
    "Sessions expire after 15 minutes without activity.",
    "The on-call engineer is not paged for warnings.",
    "Deployments to production run every Tuesday at 10:00.",
    "The cache holds 512 entries and is not shared between workers.",
]


def _terms() -> tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]]:
    wanted, rows = _term_rows([decompose(text) for text in SENTENCES])
    assert len(wanted) >= 5 and len(rows[2]) > 20  # enough parts and terms to compare
    return rows


@pytest.mark.parametrize(("per_part", "common_share"), [(12, 0.05), (3, 0.05), (40, 0.001), (12, 1.0)])
def test_point_reads_give_the_grouped_rows(any_corpus_store: Store, per_part: int, common_share: float) -> None:
    claims, parts, terms = _terms()
    grouped = contradiction_candidates(any_corpus_store, claims, parts, terms, per_part=per_part,
                                       common_share=common_share)
    view = WarmView(any_corpus_store, WarmReads())
    assert view.point_reads
    split = contradiction_candidates(view, claims, parts, terms, per_part=per_part, common_share=common_share)
    assert grouped  # the corpus has candidates for these parts
    assert split == grouped
    assert [list(row) for row in split] == [list(row) for row in grouped]  # same columns, same order
    again = contradiction_candidates(view, claims, parts, terms, per_part=per_part, common_share=common_share)
    assert again == grouped and view.warm.hits > 0  # the second search is answered from memory


ROTATION = ["Signing secrets are rotated every 45 days with an overlap window of 48 hours.",
            "The security on-call rotates a leaked secret by hand with a 1-hour overlap."]


@pytest.mark.parametrize("prewarm", [False, True])
def test_public_point_reads_give_the_public_grouped_rows(any_corpus_store: Store, prewarm: bool) -> None:
    """A public search by point reads (read one by one, or read ahead as the service does) picks the grouped
    query's public candidates, and none of them is a unit of a restricted source."""
    _, (claims, parts, terms) = _term_rows([decompose(text) for text in SENTENCES + ROTATION])
    restricted = {r["unit_id"] for r in any_corpus_store.rows(
        "SELECT unit_id FROM evidence_unit WHERE source_key = 'manuals/signing-keys-internal.md'")}
    internal = contradiction_candidates(any_corpus_store, claims, parts, terms, per_part=12, common_share=0.05)
    assert restricted & {row["unit_id"] for row in internal}  # the control: an internal search finds the runbook
    grouped = contradiction_candidates(any_corpus_store, claims, parts, terms, per_part=12, common_share=0.05,
                                       public=True)
    view = WarmView(any_corpus_store, WarmReads())
    if prewarm:
        view.warm.prewarm(view)
    before = view.store_reads
    split = contradiction_candidates(view, claims, parts, terms, per_part=12, common_share=0.05, public=True)
    assert grouped and split == grouped
    assert not restricted & {row["unit_id"] for row in split}
    if prewarm:  # read ahead: the public search asked the store only for the public unit count
        assert view.store_reads - before == 1
