"""Connectives: "because", "after", "more than" are claims too and need their own evidence."""

from __future__ import annotations

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import LINK_FAMILIES, Evidence, link_family
from graphcite.verify.registry import rule

__all__: list[str] = []


@rule("GC901", "unsupported-link", family="connective", effect="insufficient",
      good=[("Queue lag rose because the indexer stalled.", "Queue lag rose because the indexer stalled.")],
      bad=[("Queue lag rose because the indexer stalled.", "Queue lag rose and the indexer stalled.")])
def unsupported_link(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """Evidence for each side of a causal, temporal or comparative link is not evidence for the link.

    One source shows lag, another shows duplicates; neither shows that one caused the other. The
    evidence must itself state a link of the same family.
    """
    if not claim.connective:
        return None
    family = link_family(claim.connective)
    pattern = LINK_FAMILIES.get(family or "causal")
    if pattern is not None and pattern.search(evidence.quote):
        return ""
    return f"no {family} link in the evidence for {claim.connective!r}"
