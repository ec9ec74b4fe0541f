"""Declared claim types: an explicit inference shows what it rests on; background borrows no citations.

An answer may say what kind of claim each sentence is (``"type"`` in the native format): a direct
summary, a synthesis of several sources, an explicit inference (with ``"premises"``, the other claims
it is drawn from), a proposal, or general background from outside the corpus. Two of them change what
the report must show:

* An inference lists its premises, their statuses and its review state. The rules check each premise
  against its own evidence; the step from premises to conclusion is a person's to accept, so the
  inference is ``unreviewed`` until someone has judged it (:func:`mark_reviews`, from the store's
  annotations). An inference is never shown as directly quoted from a source.
* General background is outside the corpus by declaration, so it may not borrow a citation from archive
  evidence (GC954): each such citation is reported and counts for nothing, whatever it says.

Only the *declared* type counts here; the type the decomposer guesses from the wording is a qualifier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphcite.models import ClaimStatus, ClaimVerdict, FindingOut, InferenceOut, InputAnswer, Relation
from graphcite.store import Store
from graphcite.store.queries import verify as reads

__all__ = ["mark_claim_types", "mark_reviews"]

_BORROWED = ("declared general background (outside the corpus) may not borrow a citation from archive "
             "evidence: this citation counts for nothing")


def mark_claim_types(answer: InputAnswer, claims: list[ClaimVerdict]) -> None:
    """Add GC954 to background claims' citations and the inference block to inferences, in place."""
    for claim, verdict in zip(answer.claims, claims, strict=True):
        if claim.claim_type == "background" and verdict.citations:
            for citation in verdict.citations:
                citation.findings.append(FindingOut("GC954", "background-cited", "fail", _BORROWED))
                if citation.relation == Relation.SUPPORTS:
                    citation.relation = Relation.INSUFFICIENT
            if verdict.status == ClaimStatus.SUPPORTED:
                verdict.status, verdict.supported = ClaimStatus.INSUFFICIENT, False
            verdict.note = "general background: outside the corpus, so no archive citation can support it"
    for claim, verdict in zip(answer.claims, claims, strict=True):
        if claim.claim_type != "inference" and not claim.premises:
            continue
        statuses = [str(claims[i].status) for i in claim.premises]
        verdict.inference = InferenceOut(premises=list(claim.premises), premise_status=statuses,
                                         premises_supported=bool(statuses) and all(
                                             s == ClaimStatus.SUPPORTED for s in statuses))
        if not claim.premises:
            verdict.note = "an inference that lists no premises: name the claims it is drawn from"


def mark_reviews(store: Store, claims: Sequence[dict[str, Any]]) -> None:
    """Fill each inference's premise ids and review state from what people recorded (in place).

    ``accepted`` when a reviewer accepted the claim for some use (`graphcite accept`), else ``reviewed``
    when the judgements of its citations agree, ``contested`` when they disagree, ``unreviewed`` when
    nobody has looked at it.
    """
    inferences = [c for c in claims if c.get("inference")]
    if not inferences:
        return
    ids: Mapping[int, str] = {c["index"]: c["claim_id"] for c in claims if c.get("claim_id")}
    wanted = sorted({c["claim_id"] for c in inferences if c.get("claim_id")})
    labels = reads.annotation_labels(store, wanted)
    accepted = reads.accepted_claims(store, wanted)
    for claim in inferences:
        block = claim["inference"]
        premise_ids = [ids[i] for i in block["premises"] if i in ids]
        if premise_ids:
            block["premise_ids"] = premise_ids
        key = claim.get("claim_id") or ""
        seen = labels.get(key, set())
        block["review_state"] = ("accepted" if key in accepted else "unreviewed" if not seen
                                 else "reviewed" if len(seen) == 1 else "contested")
