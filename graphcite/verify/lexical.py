"""Lexical support: the share of a claim's content terms found in the evidence envelope.

Content terms are lowercased lookup lemmas with stopwords removed and numbers kept (number words
become digits, so "fourteen days" meets "14 days"). This is the plain check a citation verifier starts
from, and the floor the benchmark measures against.
"""

from __future__ import annotations

from functools import lru_cache

from graphcite.ingest.terms import content_terms

__all__ = ["NUMBER_WORDS", "lexical_score", "missing_terms", "support_terms"]

NUMBER_WORDS: dict[str, str] = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100", "dozen": "12",
    "once": "1", "twice": "2",
}
# Words that carry no support on their own in this domain (units are compared by the quantity rules).
_WEAK = frozenset({"time", "times"})


@lru_cache(maxsize=131_072)
def support_terms(text: str) -> frozenset[str]:
    """Normalised content terms of ``text`` (number words as digits, separators dropped)."""
    out = set()
    terms = content_terms(text)
    for term in list(terms):
        if "." in term or "-" in term:
            terms.extend(content_terms(term.replace(".", " ").replace("-", " ")))
    for term in terms:
        term = NUMBER_WORDS.get(term, term)
        if term.replace(",", "").replace(".", "", 1).isdigit():
            term = term.replace(",", "")
        if term not in _WEAK:
            out.add(term)
    return frozenset(out)


def missing_terms(claim_text: str, evidence_text: str) -> list[str]:
    """Claim content terms absent from the evidence text, sorted."""
    evidence = support_terms(evidence_text)
    return sorted(t for t in support_terms(claim_text) if t not in evidence)


def lexical_score(claim_text: str, evidence_text: str) -> float:
    """Share of the claim's content terms present in the evidence (1.0 for a claim with none)."""
    claim = support_terms(claim_text)
    if not claim:
        return 1.0
    evidence = support_terms(evidence_text)
    return len(claim & evidence) / len(claim)
