"""Polarity: a negation mismatch between claim and evidence contradicts."""

from __future__ import annotations

from graphcite.ingest.nlp import lemma
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import rule

__all__ = ["states_predicate"]


def states_predicate(claim: AtomicClaim, evidence: Evidence) -> bool:
    """Whether the evidence talks about the claim's predicate (so its polarity bears on the claim)."""
    if not claim.predicate:
        return True
    terms = support_terms(evidence.quote)
    words = [lemma(w) for w in claim.predicate.split() if w.isalpha()]
    words = [w for w in words if w not in {"not", "no", "never", "do", "does", "be", "have"}]
    if not words:
        obj = support_terms(claim.object or "")
        return bool(obj & terms) if obj else True
    return any(w in terms for w in words)


@rule("GC401", "negation-mismatch", family="polarity", effect="contradicts",
      good=[("The relay does not retry expired webhooks.", "The relay never retries expired webhooks."),
            ("The relay retries failed webhooks.", "The relay retries failed webhooks twice.")],
      bad=[("The relay retries expired webhooks.", "The relay does not retry expired webhooks."),
           ("Exports are not encrypted at rest.", "Exports are encrypted at rest with per-tenant keys.")])
def negation_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A passage that says the opposite is evidence against the claim, however many words it shares.

    Lexical overlap is blind to "not": "retries" and "does not retry" share every content word.
    Negation inside a condition ("unless it is not idempotent") does not count.
    """
    theirs = evidence.negation
    if bool(claim.negated) == bool(theirs):
        return ""
    if not states_predicate(claim, evidence):
        return None  # the evidence is silent on the predicate: the negative-claim rule decides
    if claim.negated:
        return f"claim is negated ({claim.negation_cue!r}), evidence is not"
    return f"evidence is negated ({theirs!r}), claim is not"
