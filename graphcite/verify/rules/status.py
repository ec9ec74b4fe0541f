"""Status and time: headings and documents that reverse a sentence, and superseded evidence."""

from __future__ import annotations

import re

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, RuleResult, fail, rule
from graphcite.verify.rules.common import attributed

_REPORTS_REJECTION = re.compile(r"\b(reject(?:ed|s)?|ruled out|not to implement|do not implement|forbids?|forbidden|"
                                r"prohibit(?:s|ed)?|turned down|declined|dropped|must not)\b", re.I)

__all__: list[str] = []

_NOT_THE_CASE = {"rejected": "contradicts", "forbidden": "contradicts",
                 "proposal": "contextualizes", "draft": "contextualizes"}
_TENTATIVE = frozenset({"considered", "proposed", "planned"})
_OLD = frozenset({"superseded", "historical"})


def _where(evidence: Evidence) -> str:
    cue = evidence.status_cue or " > ".join(evidence.heading_path) or "the document"
    return f"{cue!r}"


@rule("GC601", "heading-reversal", family="status", effect="contradicts",
      good=[("Automatic retry is allowed for the relay.", "Automatic retry is allowed for the relay.",
             {"status": "current", "heading_path": ("Retry policy", "Current decision")}),
            ("The team proposed automatic retry for the relay.", "Automatic retry is proposed for the relay.",
             {"status": "proposal", "heading_path": ("Proposal",)})],
      bad=[("Automatic retry is allowed for the relay.", "Automatic retry is allowed for the relay.",
            {"status": "rejected", "status_cue": "Rejected alternatives",
             "heading_path": ("Retry policy", "Rejected alternatives")})])
def heading_reversal(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Text under "Rejected alternatives" or "Do not implement" says the opposite of what it reads.

    A chunk-level verifier sees "automatic retry is allowed" and calls it support; the enclosing
    heading says the idea was rejected. Proposal and draft sections only support tentative claims.
    """
    if evidence.status not in _NOT_THE_CASE:
        return PASS
    if evidence.status in {"proposal", "draft"} and (claim.modality in _TENTATIVE or claim.claim_type == "proposal"):
        return PASS
    if evidence.status in {"rejected", "forbidden"} and (
            (claim.modality in {"considered", "proposed"} and claim.tense == "past")
            or _REPORTS_REJECTION.search(claim.text)):
        return PASS  # "X was proposed (and rejected)" is true; "DR-1 proposes X" is not
    if attributed(claim, evidence) and evidence.status in {"proposal", "draft"}:
        return PASS  # "PROP-31 would cap ..." reports the proposal; a rejection must be reported as one
    return fail(f"evidence is {evidence.status} under {_where(evidence)}")


@rule("GC602", "superseded-evidence", family="status", effect="contextualizes",
      good=[("The relay retried webhooks three times in 2023.", "The relay retries webhooks three times.",
             {"status": "superseded", "superseded_by": (("decisions/dr-9.md", "2024-02-01"),)}),
            ("The relay retries webhooks three times.", "The relay retries webhooks three times.")],
      bad=[("The relay retries webhooks three times.", "The relay retries webhooks three times.",
            {"status": "superseded", "superseded_by": (("decisions/dr-9.md", "2024-02-01"),)})])
def superseded_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Superseded or historical text supports what was, not what is.

    There is no recency heuristic: an old incident record stays authoritative for a past-tense claim.
    For a current-tense claim the finding names what superseded the evidence and when.
    """
    old = evidence.status in _OLD or bool(evidence.superseded_by)
    if not old:
        return PASS
    if claim.tense == "past" or attributed(claim, evidence):
        return PASS
    if evidence.superseded_by:
        by = ", ".join(f"{key}" + (f" (effective {date})" if date else "") for key, date in evidence.superseded_by)
        return fail(f"evidence is superseded by {by}")
    return fail(f"evidence is {evidence.status} under {_where(evidence)}")


_PAST = re.compile(r"\b(was|were|had|did|used to|previously|formerly|until then|at the time)\b", re.I)
_PRESENT = re.compile(r"\b(is|are|has|have|does|do|now|still|currently|today)\b", re.I)


@rule("GC603", "past-evidence-current-claim", family="status", effect="contextualizes",
      good=[("The relay had no connection limit in July.", "The relay had no connection limit."),
            ("The relay has no connection limit.", "The relay has no connection limit.")],
      bad=[("The relay still has no connection limit.", "The relay had no connection limit.")])
def past_evidence_current_claim(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A passage that says how things were does not show how they are now.

    An incident report's "the relay had no limit" supports the past, not "the relay has no limit";
    the fix may have landed since. This is not a recency heuristic: the old record stays authoritative
    for the past-tense claim.
    """
    if claim.tense != "current" or evidence.block_type == "table_row" or attributed(claim, evidence):
        return PASS
    from graphcite.verify.evidence import clause_for

    clause = clause_for(evidence.quote, claim.text)
    if _PAST.search(clause) and not _PRESENT.search(clause):
        return fail("the evidence describes the past; the claim is about now")
    return PASS
