"""Quantity rules: typed values compared with pint after conversion, with their counted nouns and roles."""

from __future__ import annotations

from graphcite.ingest.values import values_agree
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import rule

__all__ = ["claim_values", "comparable", "evidence_values"]

_IGNORED_KINDS = frozenset({"date"})


def claim_values(claim: AtomicClaim) -> list[ExtractedValue]:
    """The claim's values that quantity rules compare (dates are left to the time rules)."""
    return [v for v in claim.values if v.kind not in _IGNORED_KINDS]


def evidence_values(evidence: Evidence) -> list[ExtractedValue]:
    """Values in the quote; the enclosing unit's values when the quote itself has none."""
    found = [v for v in evidence.values if v.kind not in _IGNORED_KINDS]
    if found:
        return found
    return [v for v in evidence.context_values if v.kind not in _IGNORED_KINDS]


def comparable(a: ExtractedValue, b: ExtractedValue) -> bool:
    """Same kind family and dimensionality, so numbers can be compared at all."""
    if {a.kind, b.kind} <= {"version"} or {a.kind, b.kind} <= {"revision"}:
        return True
    if "version" in (a.kind, b.kind) or "revision" in (a.kind, b.kind):
        return False
    return values_agree(a, b) is not None


def _agree(a: ExtractedValue, b: ExtractedValue) -> bool:
    if a.kind in {"version", "revision"}:
        return a.surface.lower().lstrip("v") == b.surface.lower().lstrip("v") or a.magnitude == b.magnitude
    return bool(values_agree(a, b))


def _nouns_clash(a: ExtractedValue, b: ExtractedValue) -> bool:
    return bool(a.counted_noun and b.counted_noun and a.counted_noun != b.counted_noun)


def _describe(v: ExtractedValue) -> str:
    return f"{v.surface!r}" + (f" ({v.counted_noun})" if v.counted_noun else "")


@rule("GC301", "value-mismatch", family="quantity", effect="contradicts",
      good=[("Refund requests are accepted for 14 days.", "Refund requests are accepted for two weeks."),
            ("The request timeout is 1500 ms.", "The request timeout is 1.5 s.")],
      bad=[("Refund requests are accepted for 14 days.", "Refund requests are accepted for 30 days."),
           ("The error budget is 1.25% of requests.", "The error budget is 12.5% of requests.")])
def value_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A number that disagrees after unit conversion contradicts the claim.

    Fourteen days against thirty days is the failure that matters most: the words around the number
    match, so topic similarity says "supported". Values are compared with pint (14 days == 2 weeks)
    and only against evidence values of the same dimension and counted noun.
    """
    mine = claim_values(claim)
    theirs = evidence_values(evidence)
    if not mine or not theirs:
        return None
    problems = []
    for value in mine:
        same_thing = [e for e in theirs if comparable(value, e) and not _nouns_clash(value, e)
                      and not (value.measured and e.measured and value.measured != e.measured)]
        if not same_thing or any(_agree(value, e) for e in same_thing):
            continue
        problems.append(f"claim says {_describe(value)}, evidence says "
                        + ", ".join(_describe(e) for e in same_thing[:3]))
    return "; ".join(problems)


@rule("GC302", "counted-noun-mismatch", family="quantity", effect="insufficient",
      good=[("The worker makes three attempts.", "The worker makes 3 attempts before giving up.")],
      bad=[("The worker makes three retries.", "The worker makes three attempts before giving up.")])
def counted_noun_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """The same number counting a different thing does not support the claim.

    Three attempts are two retries; three status queries are not three deliveries. A count is only
    evidence for a count of the same noun.
    """
    mine = [v for v in claim_values(claim) if v.counted_noun]
    theirs = [v for v in evidence_values(evidence) if v.counted_noun]
    if not mine or not theirs:
        return None
    problems = []
    for value in mine:
        if any(e.counted_noun == value.counted_noun for e in theirs):
            continue
        same_number = [e for e in theirs if e.magnitude == value.magnitude]
        if same_number:
            problems.append(f"claim counts {value.counted_noun!r}, evidence counts "
                            + ", ".join(repr(e.counted_noun) for e in same_number))
    return "; ".join(problems)


@rule("GC303", "measured-mismatch", family="quantity", effect="insufficient",
      good=[("The outage caused 9 minutes of impact.", "The outage caused 9 minutes of impact for shippers.")],
      bad=[("The outage caused 6 hours of impact.", "The team spent 6 hours of investigation on the outage.")])
def measured_mismatch(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A duration or amount of a different measured thing is not evidence for this one.

    Minutes of customer impact and hours of investigation share a dimension and often a sentence;
    comparing them as numbers would be a false match.
    """
    mine = [v for v in claim_values(claim) if v.measured]
    theirs = [v for v in evidence_values(evidence) if v.measured]
    if not mine or not theirs:
        return None
    problems = []
    for value in mine:
        same = [e for e in theirs if comparable(value, e) and values_agree(value, e)]
        if same and all(e.measured != value.measured for e in same):
            problems.append(f"claim measures {value.measured!r}, evidence measures "
                            + ", ".join(repr(e.measured) for e in same))
    return "; ".join(problems)


@rule("GC304", "limit-vs-observed", family="quantity", effect="insufficient",
      good=[("Checkout latency must stay at most 200 ms.", "Checkout latency is capped at a maximum of 200 ms.")],
      bad=[("The p99 latency was 200 ms during the incident.", "The latency limit is a maximum of 200 ms.")])
def limit_vs_observed(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A limit is not an observation: "at most 200 ms" says nothing about what was measured.

    A configured maximum and a measured value share number and unit; treating one as the other turns
    a policy into a measurement or the reverse.
    """
    pairs = [(c, e) for c in claim_values(claim) for e in evidence_values(evidence)
             if comparable(c, e) and values_agree(c, e)]
    if not pairs:
        return None
    problems = []
    for mine, theirs in pairs:
        claim_role = mine.role or ("observed" if claim.tense == "past" else None)
        if claim_role and theirs.role and claim_role != theirs.role and {claim_role, theirs.role} & {"observed"}:
            problems.append(f"claim {mine.surface!r} is {claim_role}, evidence {theirs.surface!r} is {theirs.role}")
    return "; ".join(problems)


@rule("GC305", "version-vs-revision", family="quantity", effect="insufficient",
      good=[("The adapter implements version 2 of the contract.", "Carrier adapters implement version 2 of the contract.")],
      bad=[("The adapter implements version 4 of the contract.", "This is revision 4 of the carrier contract.")])
def version_vs_revision(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A version of a contract is not a revision of a document, even with the same number.

    "Version 2" names an interface generation; "revision 2" names an edit of a page. Matching the
    digit alone confuses the two.
    """
    mine = [v for v in claim_values(claim) if v.kind in {"version", "revision"}]
    if not mine:
        return None
    theirs = [v for v in evidence_values(evidence) if v.kind in {"version", "revision"}]
    problems = [f"claim {v.surface!r} is a {v.kind}, evidence {e.surface!r} is a {e.kind}"
                for v in mine for e in theirs if e.kind != v.kind and e.magnitude == v.magnitude]
    return "; ".join(problems)


@rule("GC306", "value-not-in-evidence", family="quantity", effect="insufficient",
      good=[("The relay retries five times.", "The relay retries five times with backoff.")],
      bad=[("The relay retries five times.", "The relay retries failed webhooks with exponential backoff.")])
def value_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """A claim's number must be stated by the evidence, not only its topic.

    A passage about retries without a count cannot support "retries five times"; the number came
    from somewhere else.
    """
    mine = claim_values(claim)
    if not mine:
        return None
    theirs = evidence_values(evidence)
    missing = [v for v in mine if not any(comparable(v, e) for e in theirs)]
    return "; ".join(f"no value comparable to {_describe(v)} in the evidence" for v in missing)
