"""Negative claims: supported by a stated negation or a scope-defining source, never by absence."""

from __future__ import annotations

import re

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence, negation_of
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule
from graphcite.verify.rules.polarity import bounds_a_number, evidence_negation, states_predicate

__all__ = ["SCOPE_KINDS"]

SCOPE_KINDS = frozenset({"contract", "registry", "manifest"})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@rule("GC701", "negative-by-absence", family="negative", effect="insufficient",
      good=[("The fax adapter has no automatic retry.", "The fax adapter has no automatic retry."),
            ("The registry lists no handler for pigeon post.", "Handlers: courier, freight, parcel locker.",
             {"kind": "registry", "source_text": "Handlers: courier, freight, parcel locker."})],
      bad=[("The fax adapter has no automatic retry.", "The fax adapter sends failures to manual review."),
           ("Floods in the valley are not caused by the dam.", "The dam causes floods in the valley.")])
def negative_by_absence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Absence from one passage is not evidence of absence from the system.

    "X has no automatic retry" needs a passage that says so, or a source whose kind defines the complete
    scope (a contract, registry or manifest) and does not list the thing. A denied link ("floods are
    not caused by the dam") is never supported by a passage asserting the link: polarity (GC401) reads
    only the link's sides, so this rule answers for the link itself.
    """
    if not claim.negated or bounds_a_number(claim.text):
        return SKIP  # "can never exceed $20,000" bounds a number: the quantity rules compare it
    if evidence_negation(claim, evidence) or evidence.status in {"rejected", "forbidden"}:
        return PASS
    if evidence.modality_for(claim.text)[0] == "must-not":
        return PASS
    if evidence.kind in SCOPE_KINDS and evidence.source_text is not None:
        wanted = support_terms(claim.object or claim.text) - support_terms(claim.subject or "")
        affirmed = " ".join(s for s in _SENTENCE.split(evidence.source_text) if not negation_of(s))
        present = wanted & support_terms(affirmed)
        if wanted - present:
            return PASS  # the specific thing is not listed by a source that lists everything
        return fail(f"the {evidence.kind} lists {', '.join(sorted(present)) or 'the subject'}")
    if states_predicate(claim, evidence) and not claim.connective:
        return SKIP  # the evidence asserts the positive: polarity contradicts (GC401 skips link claims)
    return fail("the evidence does not state the negation; absence is not evidence")
