"""Exception rules: a claim about the thing the evidence sets apart says the opposite of the evidence."""

from __future__ import annotations

from graphcite.language.exceptions import exceptions_of, makes_exception, universal_nouns
from graphcite.language.parse import parse
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, failures, rule

__all__: list[str] = []

_NOUNS = frozenset({"NOUN", "PROPN"})


@rule("GC507", "excepted-in-evidence", family="scope", effect="contradicts",
      good=[("The lift serves the ground floor.", "The lift serves every floor except the attic rooms."),
            ("On match days zone C is controlled until 22:00.",
             "Anyone may park here, except on match days, when zone C is controlled until 22:00."),
            ("The lift does not serve the attic rooms.", "The lift serves every floor except the attic rooms.")],
      bad=[("The lift goes up to the attic rooms.", "The lift serves every floor except the attic rooms."),
           ("Members get 10% off medicines.", "Members get 10% off consultations, but not off medicines or food."),
           ("The Leeds office closes at 5 pm.", "All offices other than the Leeds office close at 5 pm."),
           ("The lift serves every floor.", "The lift serves every floor except the attic rooms.")])
def excepted_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The evidence names a thing only to set it apart; a claim that says the rule holds for it says the opposite.

    "Every floor except the attic rooms" shares the claim's words "attic rooms", so the alignment
    finds them and the share passes; but the passage names them only in the exception ("except",
    "other than", "but not": words.json ``exception_markers``). A claim noun the evidence uses in an
    exception and nowhere else, in a claim that neither negates nor excepts anything itself,
    contradicts the passage; so does a claim that says "every floor" where the passage says "every
    floor except the attic rooms", dropping the exception from the same universal. An exception the
    evidence goes on to describe ("except on match days, when zones C and D are controlled") is
    a case the passage speaks of: a claim about what holds then is compared by the other rules.
    """
    if evidence.block_type == "table_row" or evidence.is_code:
        return SKIP
    excepted = exceptions_of(evidence.quote)
    if not excepted:
        return SKIP
    if makes_exception(claim.text):
        return PASS  # "does not serve the attic": the polarity rules compare the two
    spans = [(e.start, e.end) for e in excepted]
    outside = {t.lemma_.lower() for t in parse(evidence.quote)
               if not any(start <= t.idx < end for start, end in spans)}
    nouns = {t.lemma_.lower() for t in parse(claim.text) if t.pos_ in _NOUNS}
    universal = universal_nouns(claim.text)
    return failures(f"the evidence sets apart {e.text!r}" for e in excepted
                    if ((e.nouns & nouns) - outside and not e.described) or (e.universal and e.universal in universal))
