"""Polarity: a negation mismatch between claim and evidence contradicts."""

from __future__ import annotations

import re

from graphcite.language.nlp import lemma
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence, clause_for
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import rule
from graphcite.verify.rules.common import same_predicate, word_lemmas

_LIGHT = frozenset({"not", "no", "never", "do", "does", "did", "be", "is", "are", "was", "were", "have", "has",
                    "had", "use", "used", "make", "get", "can", "could", "may", "must", "should", "will"})

__all__ = ["states_predicate"]


def states_predicate(claim: AtomicClaim, evidence: Evidence) -> bool:
    """Whether the evidence talks about the claim's predicate (so its polarity bears on the claim)."""
    if not claim.predicate or evidence.block_type == "table_row":
        return True
    clause = clause_for(evidence.quote, claim.text)
    words = [lemma(w) for w in claim.predicate.split() if w.isalpha()]
    words = [w for w in words if w not in _LIGHT]
    if not words:
        obj = support_terms(claim.object or "")
        return bool(obj & support_terms(clause)) if obj else True
    terms = word_lemmas(evidence.quote)
    return any(same_predicate(w, terms) for w in words)


@rule("GC401", "negation-mismatch", family="polarity", effect="contradicts",
      good=[("The relay does not retry expired webhooks.", "The relay never retries expired webhooks."),
            ("The relay retries failed webhooks.", "The relay retries failed webhooks twice."),
            ("The pump stops after 40 seconds without flow.", "After 40 seconds without flow the pump stops.")],
      bad=[("The relay retries expired webhooks.", "The relay does not retry expired webhooks."),
           ("Exports are not encrypted at rest.", "Exports are encrypted at rest with per-tenant keys.")])
def negation_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A passage that says the opposite is evidence against the claim, however many words it shares.

    Lexical overlap is blind to "not": "retries" and "does not retry" share every content word.
    Negation inside a condition ("unless it is not idempotent") does not count.
    """
    if claim.connective:
        return None  # a link claim's sides are checked as their own parts
    theirs = evidence.negation_for(claim.text, claim.predicate)
    if bool(claim.negated) == bool(theirs):
        return ""
    if theirs and _says_too(theirs, claim.text):
        return ""  # the claim carries the same negative word ("... without flow"): same polarity
    if not states_predicate(claim, evidence):
        return None  # the evidence is silent on the predicate: the negative-claim rule decides
    if claim.negated and evidence.kind in {"contract", "registry", "manifest"}:
        return None  # a scope-defining source: the negative-claim rule decides
    if claim.negated:
        return f"claim is negated ({claim.negation_cue!r}), evidence is not"
    return f"evidence is negated ({theirs!r}), claim is not"


def _says_too(cue: str, text: str) -> bool:
    """The negation cue occurs in ``text`` as a word (claims and evidence read "without X" alike)."""
    return re.search(rf"(?<![\w']){re.escape(cue)}(?![\w'])", text, re.IGNORECASE) is not None
