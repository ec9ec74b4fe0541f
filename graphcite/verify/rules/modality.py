"""Modality: may is not must is not does; considered or proposed is not shipped."""

from __future__ import annotations

import re

from graphcite.language.domain import active
from graphcite.language.frames import main_frame
from graphcite.language.nlp import lemma
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule
from graphcite.verify.rules.aligned import aligned_part
from graphcite.verify.rules.common import attributed

__all__ = ["COMPATIBLE", "evidence_modality", "read_modality"]

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


def read_modality(part: AtomicClaim) -> tuple[str, str | None]:
    """(modality, cue) of one claim part or evidence part: the one reading both sides get.

    The parse's clause gives the modal auxiliaries and governing verbs ("must", "need to", "had to",
    "is allowed to") and instructions ("Reject ...", "Do not ..."); where it finds none, the claim
    reader's lexical cues give proposals, plans, considerations and completions.
    """
    frame = main_frame(part.text)
    if frame is not None and frame.modality != "asserted":
        return frame.modality, frame.modality_cue
    if frame is not None and (frame.imperative or _opens_with_order(part.text)):
        return ("must-not" if frame.negated else "must"), frame.predicate  # an instruction obliges
    return part.modality or "asserted", part.modality_cue


def evidence_modality(claim: AtomicClaim, evidence: Evidence) -> tuple[str, str | None]:
    """(modality, cue) of the evidence clause the claim is about, read as the claim is read.

    The quote is decomposed as an answer is, and the part the claim aligns with is read by
    :func:`read_modality`, so "need to", "had to" or "would" read the same on both sides. A table
    row, a code unit (a docstring's "Ask ..." is no order) or a quote with no analysable part keep
    the evidence's own reading of its clause.
    """
    if evidence.block_type != "table_row" and not evidence.is_code:
        part = aligned_part(claim, evidence.quote)
        if part is not None and part.predicate is not None:
            return read_modality(part)
    return evidence.modality_for(claim.text)


_OPENING = re.compile(r"^\W*(?:(?:do not|don't|never|always|please)\s+)?([A-Za-z]+)", re.I)


def _opens_with_order(text: str) -> bool:
    """The text opens with a bare verb the domain lists as an order ("Reject events ...": configuration)."""
    found = _OPENING.match(text)
    if not found or lemma(found.group(1).lower()) not in active().imperative_verbs:
        return False
    return found.group(1).lower() == lemma(found.group(1).lower())  # the bare verb, not "Signing ..."


@rule("GC402", "modality-mismatch", family="modality", effect="contextualizes",
      good=[("Workers may retry after a timeout.", "Workers may retry after a timeout."),
            ("The relay must sign every payload.", "The relay must sign every payload.")],
      bad=[("Workers retry after a timeout.", "Workers may retry after a timeout."),
           ("The team shipped batch exports.", "The team considered batch exports.")])
def modality_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Permission, obligation and fact are different claims.

    "May retry" does not entitle "retries"; a feature that was considered or proposed was not
    shipped. The claim's modality must be entitled by the evidence's.
    """
    if claim.connective:
        return SKIP
    mine = read_modality(claim)[0] if not evidence.is_code else (claim.modality or "asserted")
    theirs, cue = evidence_modality(claim, evidence)
    allowed = COMPATIBLE.get(mine, frozenset({mine}))
    if theirs in allowed:
        return PASS
    if mine == "must-not" and claim.negated and theirs == "must" and evidence.negation_for(claim.text, claim.predicate):
        return PASS
    if mine in {"proposed", "considered", "planned"} and (attributed(claim, evidence)
                                                          or evidence.status in {"proposal", "draft"}):
        return PASS  # the document's status or the attribution carries the modality
    if cue and re.search(rf"\b{re.escape(cue)}\b", claim.sentence or claim.text, re.I):
        return PASS  # "the report says the dispatcher should alert": the claim carries the same modal
    if mine == "asserted" and claim.negated and theirs == "must-not" and evidence.kind in _SCOPE_KINDS:
        return PASS  # a contract that forbids it defines what the component does
    return fail(f"claim is {mine}, evidence is {theirs}" + (f" ({cue!r})" if cue else ""))


_DUTIES = frozenset({"must", "should"})
_PERMISSIONS = frozenset({"may", "can"})


@rule("GC404", "duty-from-permission", family="modality", effect="insufficient",
      good=[("Visitors must keep dogs on a lead.", "Visitors must keep their dogs on a lead in the garden."),
            ("Staff must renew their badges every year.", "Staff need to renew their badges every year.")],
      bad=[("Visitors must bring dogs into the garden.", "Visitors may bring dogs into the garden."),
           ("Tenants should repaint the flat every five years.", "Tenants can repaint the flat every five years.")])
def duty_from_permission(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A permission or an ability is never a duty.

    "Visitors may bring dogs" and "visitors must bring dogs" share every word; the one says what is
    allowed, the other what is required. The general modality rule (GC402) is a note in the default
    configuration, since a fact and its possibility ("rose" / "could rise") are told apart loosely on
    real text; this one case is precise: the claim obliges ("must", "should", "need to") and the
    clause it aligns with only permits or enables ("may", "can", "is allowed to").
    """
    if claim.connective or evidence.is_code:
        return SKIP
    frame = main_frame(claim.text)
    mine = frame.modality if frame is not None else "asserted"
    if mine not in _DUTIES:
        return SKIP  # a duty said by a modal ("must", "need to"); an instruction's mood is not compared here
    theirs, cue = evidence_modality(claim, evidence)
    if theirs not in _PERMISSIONS:
        return PASS
    return fail(f"the claim says it is required ({mine}); the evidence only that it is possible or allowed"
                + (f" ({cue!r})" if cue else ""))
