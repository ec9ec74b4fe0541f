"""Negative claims: supported by a stated negation or a scope-defining source, never by absence."""

from __future__ import annotations

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import rule
from graphcite.verify.rules.polarity import states_predicate

__all__ = ["SCOPE_KINDS"]

SCOPE_KINDS = frozenset({"contract", "registry", "manifest"})


@rule("GC701", "negative-by-absence", family="negative", effect="insufficient",
      good=[("The fax adapter has no automatic retry.", "The fax adapter has no automatic retry."),
            ("The registry lists no handler for pigeon post.", "Handlers: courier, freight, parcel locker.",
             {"kind": "registry", "source_text": "Handlers: courier, freight, parcel locker."})],
      bad=[("The fax adapter has no automatic retry.", "The fax adapter sends failures to manual review.")])
def negative_by_absence(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """Absence from one passage is not evidence of absence from the system.

    "X has no automatic retry" needs a passage that says so, or a source whose kind defines the complete
    scope (a contract, registry or manifest) and does not list the thing.
    """
    if not claim.negated:
        return None
    if evidence.negation:
        return ""
    if states_predicate(claim, evidence):
        return None  # the evidence asserts the positive: polarity contradicts
    if evidence.kind in SCOPE_KINDS and evidence.source_text is not None:
        wanted = support_terms(claim.object or claim.text) - support_terms(claim.subject or "")
        present = wanted & support_terms(evidence.source_text)
        if wanted and not present:
            return ""
        return f"the {evidence.kind} mentions {', '.join(sorted(present)) or 'the subject'}"
    return "the evidence does not state the negation; absence is not evidence"
