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

__all__ = ["claim_negation", "states_predicate"]

# the first auxiliary of a sentence directly negated: "Arctic land does not store ...", "June was not ..."
_MAIN_NEGATION = re.compile(r"^[^,;:]*?\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|"
                            r"should|may|might|must)\s+(not|never)\b|^[^,;:]*?\b\w+(n['\u2019]t)\b", re.I)
_SUBORDINATE = re.compile(r"\b(?:who|which|that|whose|whom|while|although|though|if|unless|when|whether|because|"
                          r"since|as|than)\b", re.I)
_AUX_FIRST = re.compile(r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|should|may|might|"
                        r"must|\w+n['\u2019]t)\b", re.I)


def claim_negation(claim: AtomicClaim) -> str | None:
    """The claim's negation cue: the claim reader's, or, when it found none, a "not" on the first
    auxiliary of the sentence with no subordinate clause before it ("Arctic land does not store twice
    as much carbon", which the reader left unanalysed). A "not" in a relative or conditional clause
    ("the man who is not wearing a hat is running") is not the claim's."""
    if claim.negated:
        return (claim.negation_cue or "not").replace("\u2019", "'")
    reported = _reported_negation(claim)
    if reported:
        return reported
    text = claim.text
    first = _AUX_FIRST.search(text)
    if first is None or _SUBORDINATE.search(text[:first.start()]):
        return None
    found = _MAIN_NEGATION.match(text[first.start():])
    return (found.group(1) or found.group(2)).lower().replace("\u2019", "'") if found else None


# a reporting verb's "that" clause: "they tell us that ...", "scientists say that ..."
_REPORTED = re.compile(r"^(?:(?:us|them|me|you|him|her)\s+)?that\s+(?P<clause>[^,;:]+)", re.I)
_REPORTING_VERBS = frozenset({"say", "tell", "state", "report", "show", "find", "know", "think", "believe",
                              "claim", "argue", "suggest", "indicate", "confirm", "reveal", "conclude", "note",
                              "agree", "explain", "warn", "predict", "estimate", "announce", "observe"})


def _reported_negation(claim: AtomicClaim) -> str | None:
    """A negation in the clause a reporting verb reports ("they tell us that we are not the cause"):
    the claim reader takes "that" for a relative pronoun and leaves the "not" out, but what is
    reported is the claim's content, so its polarity is the claim's."""
    words = {lemma(w) for w in (claim.predicate or "").split() if w.isalpha()}
    found = _REPORTED.match(claim.object or "") if words & _REPORTING_VERBS else None
    if found is None:
        return None
    clause = found.group("clause")
    first = _AUX_FIRST.search(clause)
    if first is None or _SUBORDINATE.search(clause[:first.start()]):
        return None
    negated = _MAIN_NEGATION.match(clause[first.start():])
    return (negated.group(1) or negated.group(2)).lower().replace("\u2019", "'") if negated else None


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
    mine = claim_negation(claim)
    if bool(mine) == bool(theirs):
        return ""
    if theirs and _says_too(theirs, claim.text):
        return ""  # the claim carries the same negative word ("... without flow"): same polarity
    if not states_predicate(claim, evidence):
        return None  # the evidence is silent on the predicate: the negative-claim rule decides
    if mine and evidence.kind in {"contract", "registry", "manifest"}:
        return None  # a scope-defining source: the negative-claim rule decides
    if mine:
        return f"claim is negated ({mine!r}), evidence is not"
    return f"evidence is negated ({theirs!r}), claim is not"


def _says_too(cue: str, text: str) -> bool:
    """The negation cue occurs in ``text`` as a word (claims and evidence read "without X" alike)."""
    return re.search(rf"(?<![\w']){re.escape(cue)}(?![\w'])", text, re.IGNORECASE) is not None
