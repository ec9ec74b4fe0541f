"""Clause rules: every clause of the claim must be said, not only the clause that carries most words."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from graphcite.language.parse import parse
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
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


_NOMINAL = frozenset({"NOUN", "PROPN"})


def _subject_lemmas(head: Token) -> frozenset[str]:
    """The content lemmas of the subject of a copular nominal ("Jacqueline B. Wender is ..."), or of the
    noun an appositive describes ("Ms Lund, the daughter of ...")."""
    if head.dep_ == "appos":
        words = list(head.head.subtree)
        words = [t for t in words if not (head.left_edge.i <= t.i <= head.right_edge.i)]
    else:
        subject = next((c for c in head.children if c.dep_ in {"nsubj", "nsubj:pass"}), None)
        words = list(subject.subtree) if subject is not None else []
    return frozenset(t.lemma_.lower() for t in words if t.pos_ in _NOMINAL | {"ADJ"} and t.is_alpha)


def _predicated(token: Token) -> bool:
    """Whether ``token`` heads what is said of a subject: a copular nominal or an appositive."""
    return token.dep_ == "appos" or any(c.dep_ == "cop" for c in token.children)


def _said_inside_another(claim_text: str, quote: str) -> str | None:
    """The evidence's nominal that holds the claim's predicate noun as a dependent, said of the claim's
    subject ("is Assistant to the President" against "is the President"), when the evidence never
    says the noun itself of that subject."""
    doc = parse(claim_text)
    # the root that is a copular nominal (a parse may cut "Maren K." from "Dahl is ..." as a sentence)
    head = next((t for t in doc if t.dep_ == "ROOT" and t.pos_ in _NOMINAL and _predicated(t)), None)
    if head is None:
        return None
    subject, noun = _subject_lemmas(head), head.lemma_.lower()
    if not subject:
        return None
    inside = None
    for token in parse(quote):
        if not _predicated(token) or not subject & _subject_lemmas(token):
            continue
        if token.lemma_.lower() == noun:
            return None  # the evidence says the noun of the subject itself
        held = [t for t in token.subtree if t.lemma_.lower() == noun and t.dep_ in {"nmod", "obl", "nmod:poss"}]
        if held and inside is None:
            inside = _nominal_text(token, quote)
    return inside


def _nominal_text(token: Token, quote: str) -> str:
    """The nominal ``token`` heads, without its subject, copula and punctuation ("Assistant to the President")."""
    dropped = {t.i for c in token.children if c.dep_ in {"nsubj", "nsubj:pass", "cop", "punct"} for t in c.subtree}
    kept = [t for t in token.subtree if t.i not in dropped and not t.is_punct]
    return quote[kept[0].idx:kept[-1].idx + len(kept[-1].text)] if kept else token.text


@rule("GC213", "role-inside-another", family="slots", effect="insufficient",
      good=[("Ines Roca is the director of the museum.", "Ines Roca, the director of the museum, opened the show."),
            ("Ines Roca is the director of the museum.", "Ines Roca is the director of the city museum.")],
      bad=[("Ines Roca is the director of the museum.", "Ines Roca is assistant to the director of the museum."),
           ("Ines Roca is the mayor.", "Ines Roca, the daughter of the mayor, opened the show.")])
def role_inside_another(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The role the claim gives its subject must be the evidence's role for it, not a word inside it.

    "X is the director" against "X is assistant to the director": every word of the claim is in the
    evidence and the share passes, but the evidence's nominal for X is "assistant", and "director"
    only names whom X assists. Read from the parse: the claim's copular noun must head a nominal the
    evidence says of the same subject (a copular clause or an appositive); found only as a dependent
    of another such nominal, the claim is not said.
    """
    if evidence.block_type == "table_row" or evidence.is_code:
        return SKIP
    inside = _said_inside_another(claim.text, evidence.quote)
    return fail(f"the evidence says it is {inside!r}") if inside else PASS
