"""Small helpers the rule families share: word lemmas, predicate synonyms, attribution, years."""

from __future__ import annotations

import re
from functools import lru_cache

from graphcite.claims.decompose import decompose
from graphcite.language import lexicon
from graphcite.language.cues import negation_pattern
from graphcite.language.domain import active
from graphcite.language.nlp import lemma
from graphcite.language.values.unitwords import bound_cue_end, bound_cue_start
from graphcite.language.words import word_list
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.verify.evidence import Evidence

__all__ = ["attributed", "attribution_stripped", "blank_values", "framed", "is_year", "locate", "reported_clause",
           "same_predicate", "word_lemmas"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")

@lru_cache(maxsize=65_536)
def word_lemmas(text: str) -> frozenset[str]:
    """Every word of ``text`` as a lowercase lemma, stopwords included (for predicate matching)."""
    out = set()
    for word in _WORD.findall(text.replace("_", " ")):
        low = word.lower()
        out.add(low)
        out.add(lemma(low))
    return frozenset(out)


def same_predicate(word: str, evidence_words: frozenset[str]) -> bool:
    """Whether a predicate lemma (or a synonym, or a shared 5-letter stem) occurs in the evidence."""
    if word in evidence_words:
        return True
    if active().synonyms_of(word) & evidence_words:
        return True
    accepted = active().paraphrase
    if len(word) > 2 and any(lexicon.related(word, w) in accepted for w in evidence_words if len(w) > 2):
        return True
    stem = word[:5]
    if len(stem) == 5 and any(w.startswith(stem) for w in evidence_words):
        return True
    return len(word) >= 3 and any(w.startswith(word) and len(w) <= len(word) + 3 for w in evidence_words)


# an object that is a clause of its own: it has a finite auxiliary or opens with "that"
_CLAUSE = re.compile(r"^\s*that\b|\b(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|"
                     r"should|does|do|did)\b", re.I)


def framed(claim: AtomicClaim) -> bool:
    """The claim reports a clause with a reporting or knowing verb ("surveys show that the ice is
    thinning", "we know the pass had been open"): what is reported is the claim's content, which the
    alignment and the other rules judge; the frame's verb and its subject (who reports) are not
    further things the evidence must say. A reported clause with a negation is not a frame here: the
    negation rules read the claim's own verb, so such a claim keeps every check."""
    if not claim.predicate or not claim.object or not _CLAUSE.search(claim.object):
        return False
    if negation_pattern().search(claim.object):
        return False  # a negated report ("we know it had not been open") is read whole, frame and all
    words = {lemma(w) for w in claim.predicate.split() if w.isalpha()} - {"do", "not", "also", "now", "still"}
    frames = word_list("frame_verbs")
    return bool(words) and all(w in frames or w in _MODALS for w in words) and bool(words & frames)


_MODALS = frozenset({"can", "could", "may", "might", "must", "should", "will", "would", "have", "be"})


@lru_cache(maxsize=8192)
def _first_claim(clause: str) -> AtomicClaim | None:
    parts = decompose(re.sub(r"^\s*(?:us\s+|them\s+|me\s+)?that\s+", "", clause))
    return parts[0] if parts else None


def reported_clause(claim: AtomicClaim) -> AtomicClaim | None:
    """The clause a framed claim reports, read as a claim of its own ("surveys show that the ice is
    thinning" -> "the ice is thinning"), or None when the claim is not framed."""
    return _first_claim(claim.object or "") if framed(claim) else None


_REPORTING = re.compile(r"\b(says?|said|states?|stated|specif(?:y|ies|ied)|recorded|listed|noted|documented|"
                        r"describes?|described|according to|under|rejected|proposed|proposes|considered|forbids|"
                        r"forbade|disagree)\b", re.I)
_ID = re.compile(r"\b[A-Z]{2,}-[0-9][0-9A-Z\-]*\b")


def attributed(claim: AtomicClaim, evidence: Evidence) -> bool:
    """The claim reports what the cited source says ("DR-017 rejected ...", "under the 2022 note ...").

    An attributed claim is about the document, so its status (superseded, rejected) does not reverse it.
    """
    text = claim.text
    if not _REPORTING.search(text):
        return False
    title = f"{evidence.title or ''} {evidence.source_key}"
    ids = set(_ID.findall(text))
    if ids and any(i.lower() in title.lower() for i in ids):
        return True
    title_words = {w for w in word_lemmas(title) if len(w) > 3} - {"note", "notes", "this", "that"}
    claim_words = word_lemmas(text)
    doc_nouns = {"note", "decision", "manual", "handbook", "runbook", "contract", "proposal", "registry",
                 "manifest", "report", "post", "record", "faq", "page", "rules", "rule", "policy"}
    return bool(claim_words & doc_nouns) and len(title_words & claim_words) >= 1


_META_WORDS = re.compile(r"\b(since|superseded|supersedes|replaced|by|note|notes|record|decision|says?|said|states?|"
                         r"stated|specif(?:y|ies|ied)|recorded|listed|noted|documented|describes?|described|"
                         r"according to|under)\b", re.I)


def attribution_stripped(text: str) -> str:
    """The claim without its attribution ("the 2022 note, since superseded by DR-017, specified ...")."""
    return _META_WORDS.sub(" ", _ID.sub(" ", text))


def is_year(value: ExtractedValue, earliest: int = 1900) -> bool:
    """A bare four-digit number from ``earliest`` to 2100 is a year, not a count (``earliest=1000`` where
    only a year can be meant: the years a century in the claim is compared with)."""
    return (value.kind in {"count", "number"} and value.unit is None and value.magnitude is not None
            and value.surface.isdigit() and len(value.surface) == 4 and earliest <= value.magnitude <= 2100)


def locate(text: str, value: ExtractedValue) -> tuple[int, int] | None:
    """Where ``value`` sits in ``text``: its own offsets when they fit, else the first occurrence.

    A later part of a compound sentence keeps offsets into the whole sentence, not into its own text.
    """
    if 0 <= value.start < value.end <= len(text) and text[value.start:value.end] == value.surface:
        return value.start, value.end
    at = text.find(value.surface)
    return (at, at + len(value.surface)) if at != -1 else None


def blank_values(text: str, values: tuple[ExtractedValue, ...] | list[ExtractedValue], bounds: bool = False) -> str:
    """``text`` with every value's surface replaced by a space (numbers are the quantity rules' job);
    with ``bounds``, the cue before a value that only bounds it too ("can never exceed $20,000": the
    bound is the value's, compared as one by the quantity rules, not a word the evidence must repeat), and the
    cue after it that only bounds it ("7 days or more")."""
    spans = sorted((span for v in values if (span := locate(text, v))), reverse=True)
    if bounds:
        spans = [(cue if (cue := bound_cue_start(text, start)) is not None else start,
                  after if (after := bound_cue_end(text, end)) is not None else end) for start, end in spans]
    merged: list[tuple[int, int]] = []  # two values with one surface ("All five ... five attempts") may
    for start, end in sorted(spans):   # locate to one span: each stretch of text is blanked once
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    for start, end in reversed(merged):
        text = text[:start] + " " + text[end:]
    return text
