"""Circular citation: an answer that cites the sentence it wrote into a document.

Adoption (:mod:`graphcite.lifecycle.adopt`) turns an accepted claim into a unit of a maintained
document. When a claim of that same answer (any revision of it, the adopted claim included) later
cites the adopted unit, the answer is resting on its own words: the document adds no independent
support, however authoritative it is. The verifier cannot see this (the unit is ordinary document
text); the adoption records can, so it is reported here, as a lifecycle finding beside staleness.

A citation counts as landing on the adopted unit when it names it (``chunk_id``) or when the claim's
latest verification located the cited span in it.
"""

from __future__ import annotations

import json
from typing import Any

from graphcite.store import Store
from graphcite.store.queries import lifecycle_accept as queries

__all__ = ["CIRCULAR_CITATION", "circular_citations"]

#: the kind of the finding
CIRCULAR_CITATION = "circular-citation"


def _located_units(result_json: str | None) -> dict[int, set[str]]:
    """Citation index -> the unit ids a verification result located that citation's spans in."""
    if not result_json:
        return {}
    out: dict[int, set[str]] = {}
    for position, cit in enumerate(json.loads(result_json).get("citations") or []):
        index = cit.get("index", position)
        units = out.setdefault(index, set())
        for spot in [cit, *(cit.get("located_spans") or [])]:
            if spot.get("unit_id"):
                units.add(spot["unit_id"])
    return out


def circular_citations(store: Store) -> list[dict[str, Any]]:
    """Every citation by a claim of an answer that lands on a sentence adopted from that same answer.

    Each finding: ``finding`` (``circular-citation``), the citing ``claim_id``, ``answer_rev`` and
    ``citation`` index, the ``source`` and adopted ``unit_id``, the ``adoption_id`` with the
    ``adopted_claim_id`` and ``adopted_answer_rev`` it came from, ``how`` the citation reached the unit
    and a one-line ``detail``; ordered by claim, citation and adoption. Empty before any adoption.
    """
    candidates = queries.adopted_citations(store)
    if not candidates:
        return []
    results = queries.latest_results(store, {row["claim_id"] for row in candidates})
    located = {claim_id: _located_units(result) for claim_id, result in results.items()}
    findings = []
    for row in candidates:
        if row["unit_id"] is None:
            continue
        if row["chunk_id"] == row["unit_id"]:
            how = "names the adopted unit"
        elif row["unit_id"] in located.get(row["claim_id"], {}).get(row["citation_index"], set()):
            how = "was located in the adopted unit by its verification"
        else:
            continue
        findings.append({
            "finding": CIRCULAR_CITATION, "claim_id": row["claim_id"], "answer_rev": row["answer_rev"],
            "citation": row["citation_index"], "source": row["source_key"], "unit_id": row["unit_id"],
            "adoption_id": row["adoption_id"], "adopted_claim_id": row["adopted_claim_id"],
            "adopted_answer_rev": row["adopted_answer_rev"], "how": how,
            "detail": f"citation [{row['citation_index'] + 1}] of {row['claim_id']} rests on its own answer: "
                      f"unit {row['unit_id']} of {row['source_key']} is the sentence of claim "
                      f"{row['adopted_claim_id']} adopted as {row['adoption_id']}; the citation {how}"})
    return findings
