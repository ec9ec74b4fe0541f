"""Connectives: "because", "after", "more than" are claims too and need their own evidence."""

from __future__ import annotations

import re

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import LINK_FAMILIES, Evidence, link_family
from graphcite.verify.lexical import lexical_score
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule

__all__: list[str] = []

SIDE_OVERLAP = 0.5


def _split(text: str, pattern: re.Pattern[str]) -> tuple[str, str] | None:
    found = pattern.search(text)
    if not found:
        return None
    return text[:found.start()], text[found.end():]


@rule("GC901", "unsupported-link", family="connective", effect="insufficient",
      good=[("Queue lag rose because the indexer stalled.", "Queue lag rose because the indexer stalled.")],
      bad=[("Queue lag rose because the indexer stalled.", "Queue lag rose and the indexer stalled."),
           ("Logs take less space because the relay makes fewer retries.",
            "Logs take less space because they are kept for a shorter time.")])
def unsupported_link(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Evidence for each side of a causal, temporal or comparative link is not evidence for the link.

    One source shows lag, another shows duplicates; neither shows that one caused the other. The
    evidence must itself state a link of the same family, joining the same two sides.
    """
    if not claim.connective:
        return SKIP
    family = link_family(claim.connective) or "causal"
    pattern = LINK_FAMILIES.get(family, LINK_FAMILIES["causal"])
    sides = _split(evidence.quote, pattern)
    if sides is None:
        return fail(f"no {family} link in the evidence for {claim.connective!r}")
    mine = _split(claim.text, re.compile(rf"\b{re.escape(claim.connective)}\b", re.I)) or _split(claim.text, pattern)
    if mine is None:
        return PASS
    left, right = mine
    ev_left, ev_right = sides
    straight = min(lexical_score(left, ev_left or ev_right), lexical_score(right, ev_right or ev_left))
    crossed = min(lexical_score(left, ev_right or ev_left), lexical_score(right, ev_left or ev_right))
    if max(straight, crossed) >= SIDE_OVERLAP or not left.strip() or not right.strip():
        return PASS
    return fail(f"the evidence links other things with {family} wording; it does not join these two")
