"""The evidence clause a claim part is compared with: read by the same reader as the claim.

A quote of several clauses says several things; a negation, a modal or a condition of one of them says
nothing about the others. The quote is decomposed by the claim reader itself
(:func:`graphcite.claims.decompose.decompose`), and the part that shares most of the claim part's
words is the one its polarity and modality are read from. A claim that is word for word a clause of
its quote therefore meets a part read exactly as its own, so a claim checked against a copy of
itself can never disagree with itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphcite.claims.decompose import decompose
from graphcite.language.nlp import lemma
from graphcite.models import AtomicClaim
from graphcite.verify.lexical import support_terms

__all__ = ["aligned_part", "evidence_parts"]

#: quotes longer than this are not decomposed (the claim's own clause finder reads whole sentences)
_MAX_CHARS = 4_000


#: where a quote's statements end: a sentence end, a semicolon, a line break
_PIECES = re.compile(r"(?<=[.!?;])\s+|\n+")


def _decomposed(text: str) -> tuple[AtomicClaim, ...]:
    try:
        return tuple(decompose(text))
    except (ValueError, IndexError):  # pragma: no cover - a reader failure must not stop a check
        return ()


@lru_cache(maxsize=16_384)
def _readings(quote: str) -> tuple[tuple[AtomicClaim, ...], tuple[AtomicClaim, ...]]:
    """(parts of the whole quote, parts of each statement of it) as the claim reader reads them."""
    if not quote.strip() or len(quote) > _MAX_CHARS:
        return (), ()
    whole = _decomposed(quote)
    pieces = [p for p in _PIECES.split(quote) if p.strip()]
    if len(pieces) < 2:
        return whole, whole
    return whole, tuple(part for piece in pieces for part in _decomposed(piece))


def evidence_parts(quote: str) -> tuple[AtomicClaim, ...]:
    """The atomic parts of an evidence quote, read statement by statement (at each sentence end,
    semicolon and line break) as claims are read; memoised, since units recur."""
    return _readings(quote)[1]


def _verbs(predicate: str | None) -> frozenset[str]:
    """The predicate's content words as lemmas ("does not automatically retry" -> retry, automatically)."""
    return frozenset(lemma(w) for w in (predicate or "").lower().split() if w.isalpha()) - _LIGHT


_LIGHT = frozenset({"be", "do", "have", "not", "never", "can", "could", "may", "might", "must", "should", "will",
                    "would", "shall", "also", "still", "no"})


@lru_cache(maxsize=65_536)
def _aligned(claim_text: str, predicate: str | None, obj: str | None, quote: str) -> AtomicClaim | None:
    whole, pieces = _readings(quote)
    wanted_text = claim_text.strip()
    for part in (*whole, *pieces):
        if part.text.strip() == wanted_text:
            return part  # the claim copies a clause of its quote: the very same reading
    wanted = support_terms(claim_text)
    said = support_terms(f"{predicate or ''} {obj or ''}")  # what the claim says of its subject
    verbs = _verbs(predicate)
    best, best_key = None, None
    for index, part in enumerate(pieces):
        terms = support_terms(part.text)
        key = (bool(verbs & _verbs(part.predicate)), len(terms & said), len(terms & wanted), -len(terms), -index)
        if best_key is None or key > best_key:
            best, best_key = part, key
    if best_key is None or (not best_key[0] and best_key[2] == 0):
        return None
    return best


def aligned_part(claim: AtomicClaim, quote: str) -> AtomicClaim | None:
    """The part of ``quote`` the claim part is about (None when no part shares a content word)."""
    return _aligned(claim.text, claim.predicate, claim.object, quote)
