"""Clause rules: every clause of the claim must be said, not only the clause that carries most words."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
from graphcite.verify.rules.slots import alignment_for, alignment_in_quote

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


_MODIFIERS = frozenset({"compound", "amod", "flat", "nummod"})


def _own_words(member: Token) -> list[Token]:
    """The words that name one conjunct of a coordination: its head and the compounds and adjectives
    of it ("the engine trend report"), not a phrase attached after it, which may qualify every member."""
    kept = [member, *(t for c in member.children if c.dep_ in _MODIFIERS for t in c.subtree)]
    return sorted((t for t in kept if t.is_alpha and (t is not member or _nominal(t))), key=lambda t: t.i)


def _nominal(token: Token) -> bool:
    """A noun, or a word the tagger missed as one but a determiner marks ("and a whistle")."""
    return token.pos_ in _NOMINAL or any(c.dep_ == "det" for c in token.children)


def _partner(conjunct: Token) -> Token | None:
    """The first member of the coordination a nominal conjunct belongs to. A parse may attach "and in
    the trend report" to the verb instead of "the log"; then the partner is the verb's last nominal
    argument before the conjunct, unless the conjunct heads a clause of its own."""
    head = conjunct.head
    if head.pos_ in _NOMINAL:
        return head
    if any(c.dep_ in {"nsubj", "nsubj:pass", "cop", "aux"} for c in conjunct.children):
        return None
    before = [c for c in head.children if c.i < conjunct.i and c.pos_ in _NOMINAL and c.dep_ in {"obj", "obl", "iobj"}]
    return before[-1] if before else None


def _coordinations(doc: Doc) -> list[list[Token]]:
    """The coordinated nominals of ``doc``: each first member with every nominal conjunct of it, also
    those a parse chained one to the next ("water, electricity and Wi-Fi")."""
    groups: dict[int, list[Token]] = {}
    for token in doc:
        if token.dep_ != "conj" or not _nominal(token):
            continue
        first = _partner(token)
        while first is not None and first.dep_ == "conj" and first.head.pos_ in _NOMINAL:
            first = first.head
        if first is not None:
            groups.setdefault(first.i, [first]).append(token)
    return list(groups.values())


def _conjunct_status(words: list[Token], shared: set[str], said: frozenset[str], missing: frozenset[str]) -> str:
    """"said" when the evidence says one of the conjunct's own words, "unsaid" when it says none and
    misses each, else "unknown" (a word the alignment has no slot for)."""
    keys = [{t.lower_, t.lemma_.lower(), lemma(t.lower_)} for t in words if t.lemma_.lower() not in shared]
    if any(k & said for k in keys):
        return "said"
    return "unsaid" if keys and all(k & missing for k in keys) else "unknown"


def _unsaid_conjuncts(doc: Doc, said: frozenset[str], missing: frozenset[str]) -> list[str]:
    """Conjuncts of a coordination none of whose own words the evidence says while another
    conjunct of the same coordination is said."""
    out: list[str] = []
    for members in _coordinations(doc):
        spans = {m.i: _own_words(m) for m in members}
        claimed = [t for words in spans.values() for t in words]
        shared = {t.lemma_.lower() for t in claimed
                  if sum(t.lemma_.lower() in {w.lemma_.lower() for w in words} for words in spans.values()) > 1}

        statuses = {i: _conjunct_status(words, shared, said, missing) for i, words in spans.items()}
        if "said" not in statuses.values():
            continue
        for member in members:
            if statuses[member.i] == "unsaid":
                words = spans[member.i]
                out.append(doc[min(t.i for t in words):max(t.i for t in words) + 1].text)
    return out


@rule("GC215", "conjunct-not-in-evidence", family="slots", effect="insufficient",
      good=[("Visitors may bring bicycles and scooters into the yard.", "Bicycles and scooters may be brought into the yard."),
            ("The kit holds a torch and a whistle.", "The kit holds a whistle, a torch and a map.")],
      bad=[("The kit holds a torch and a whistle.", "The kit holds a torch."),
           ("Tenants pay for heating, water and parking.", "Tenants pay for heating and parking."),
           ("Renewing the badge or the locker key is free.", "Renewing the badge is free.")])
def conjunct_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Each member of a coordination is a thing the claim asserts.

    "Recorded in the log and in the trend report" against "recorded in the log": every other word is
    found, so the share passes, yet the evidence never names the second place. A conjunct of the
    claim's coordinated nominals none of whose own words the evidence says, directly or by
    paraphrase, while it says another member of the same coordination, is a distinguishing slot left
    unsaid: the claim is not supported whatever the share. The quote must say it: a title or heading
    that names the thing ("Meters") says what the document is about, not that this span lists it.
    """
    found = alignment_in_quote(claim, evidence)
    if not found.slots:
        return SKIP
    said: set[str] = set()
    missing: set[str] = set()
    for slot in found.slots:
        words = {w.lower() for w in slot.text.split()}
        (said if slot.status in {"found", "paraphrase"} else missing if slot.status == "missing" else set()).update(words)
    unsaid = _unsaid_conjuncts(parse(claim.text), frozenset(said), frozenset(missing - said))
    return failures(f"the evidence does not name {text!r}" for text in unsaid)
