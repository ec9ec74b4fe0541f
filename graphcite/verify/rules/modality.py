"""Modality: may is not must is not does; considered or proposed is not shipped."""

from __future__ import annotations

import re

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import rule
from graphcite.verify.rules.common import attributed

__all__ = ["COMPATIBLE"]

_SCOPE_KINDS = frozenset({"contract", "registry", "manifest"})

# claim modality -> evidence modalities that entitle it
COMPATIBLE: dict[str, frozenset[str]] = {
    "asserted": frozenset({"asserted", "completed"}),
    "completed": frozenset({"completed", "asserted"}),
    "must": frozenset({"must"}),
    "must-not": frozenset({"must-not"}),
    "should": frozenset({"should", "must"}),
    "may": frozenset({"may", "can", "must", "should", "asserted", "completed"}),
    "can": frozenset({"can", "may", "asserted", "completed"}),
    "considered": frozenset({"considered", "proposed", "planned"}),
    "proposed": frozenset({"proposed", "considered"}),
    "planned": frozenset({"planned", "proposed"}),
}


@rule("GC402", "modality-mismatch", family="modality", effect="contextualizes",
      good=[("Workers may retry after a timeout.", "Workers may retry after a timeout."),
            ("The relay must sign every payload.", "The relay must sign every payload.")],
      bad=[("Workers retry after a timeout.", "Workers may retry after a timeout."),
           ("The team shipped batch exports.", "The team considered batch exports.")])
def modality_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """Permission, obligation and fact are different claims.

    "May retry" does not entitle "retries"; a feature that was considered or proposed was not
    shipped. The claim's modality must be entitled by the evidence's.
    """
    if claim.connective:
        return None
    mine = claim.modality or "asserted"
    theirs, cue = evidence.modality_for(claim.text)
    allowed = COMPATIBLE.get(mine, frozenset({mine}))
    if theirs in allowed:
        return ""
    if mine == "must-not" and claim.negated and theirs == "must" and evidence.negation_for(claim.text, claim.predicate):
        return ""
    if mine in {"proposed", "considered", "planned"} and (attributed(claim, evidence)
                                                          or evidence.status in {"proposal", "draft"}):
        return ""  # the document's status or the attribution carries the modality
    if cue and re.search(rf"\b{re.escape(cue)}\b", claim.sentence or claim.text, re.I):
        return ""  # "the report says the dispatcher should alert": the claim carries the same modal
    if mine == "asserted" and claim.negated and theirs == "must-not" and evidence.kind in _SCOPE_KINDS:
        return ""  # a contract that forbids it defines what the component does
    return f"claim is {mine}, evidence is {theirs}" + (f" ({cue!r})" if cue else "")
