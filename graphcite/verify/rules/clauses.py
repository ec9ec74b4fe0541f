"""Clause rules: every clause of the claim must be said, not only the clause that carries most words."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from graphcite.language.parse import parse
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import SKIP, RuleResult, failures, rule
from graphcite.verify.rules.slots import alignment_for

__all__: list[str] = []

# A clause that qualifies a noun: "the brand that became a perfume house", "a bridge built by the army".
_NOUN_CLAUSES = frozenset({"acl:relcl", "acl"})
_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})
_MIN_WORDS = 2  # one missing word is the share's to weigh; a clause with nothing said is a claim of its own


def _clause_words(head: Token) -> list[Token]:
    """The content words of the clause headed by ``head``, without the clauses nested in it."""
    nested = {t.i for child in head.children if child.dep_ in _NOUN_CLAUSES for t in child.subtree}
    return [t for t in head.subtree if t.i not in nested and t.pos_ in _CONTENT and t.is_alpha]


def _unsaid(doc: Doc, said: frozenset[str], missing: frozenset[str]) -> list[str]:
    """The noun-qualifying clauses of ``doc`` none of whose own content words the evidence says."""
    out: list[str] = []
    for head in doc:
        if head.dep_ not in _NOUN_CLAUSES:
            continue
        inside = _clause_words(head)
        outside = {t.lower_ for t in doc if t.i not in {w.i for w in head.subtree}}
        own = [t for t in inside if t.lower_ not in outside and t.lower_ in missing | said]
        if len(own) >= _MIN_WORDS and not any(t.lower_ in said for t in own):
            out.append(doc[head.left_edge.i:head.right_edge.i + 1].text)
    return out


@rule("GC212", "clause-not-in-evidence", family="slots", effect="insufficient",
      good=[("The guild runs a bakery that sells rye bread.", "The guild runs a small bakery; the bakery sells rye bread."),
            ("She founded the press that printed the almanac.", "She founded the press which printed the almanac.")],
      bad=[("The guild runs a bakery that sells rye bread.", "The guild runs a small bakery in the old mill."),
           ("She was the founder of a label that became a global perfume house.",
            "She was a French designer and the founder of the label.")])
def clause_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A clause that qualifies a noun of the claim asserts something of its own.

    "The founder of a label that became a perfume house" says two things: who founded the label and
    what the label became. Evidence of the first alone shares most of the claim's words, so the share
    of found words passes it, yet the second fact is nowhere. A relative or participial clause none of
    whose own content words (those not also elsewhere in the claim) the evidence says, directly or by
    paraphrase, leaves the claim unsupported.
    """
    found = alignment_for(claim, evidence)
    if not found.slots:
        return SKIP
    said: set[str] = set()
    missing: set[str] = set()
    for slot in found.slots:
        words = {w.lower() for w in slot.text.split()}
        (said if slot.status in {"found", "paraphrase"} else missing).update(words)
    unsaid = _unsaid(parse(claim.text), frozenset(said), frozenset(missing - said))
    return failures(f"the evidence does not say {text!r}" for text in unsaid)
