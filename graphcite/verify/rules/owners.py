"""Owners of values: a value the evidence states of one conjunct is not the claim's value for another."""

from __future__ import annotations

from graphcite.language.owners import attributes, value_owners
from graphcite.language.words import as_written, words_of
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import SKIP, RuleResult, failures, rule
from graphcite.verify.rules.common import locate
from graphcite.verify.rules.quantity import agree, claim_values, comparable, evidence_values


def _unit_words(values: list[ExtractedValue]) -> frozenset[str]:
    """The units and counted nouns of ``values``: shared by every conjunct, never what tells them apart."""
    out: set[str] = set()
    for value in values:
        for word in words_of(value.surface):
            out.add(word.lemma)
        if value.counted_noun:
            out.add(value.counted_noun.lower())
    return frozenset(out)


@rule("GC309", "value-of-another", family="quantity", effect="contradicts",
      good=[("Tickets cost £9 for adults.", "Tickets cost £5 for children and £9 for adults."),
            ("The northern route takes 40 minutes.", "The southern route takes 25 minutes and the northern route 40 minutes."),
            ("The plant employs 150 people in York.", "The plant employs 200 people in Leeds and 150 in York.")],
      bad=[("Tickets cost £9 for children.", "Tickets cost £5 for children and £9 for adults."),
           ("The southern route takes 40 minutes.", "The southern route takes 25 minutes and the northern route 40 minutes."),
           ("Flex desk members pay £12 an hour for extra hours.",
            "Extra hours cost £18 an hour for Flex desk members and £12 an hour on the other plans.")])
def value_of_another(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A value the evidence gives to one member of a list is not the value of another member.

    "Tickets cost £5 for children and £9 for adults" against "tickets cost £9 for children": every word
    and number of the claim is in the sentence, so the share of found words and each value check
    pass, yet the sentence gives the £9 to adults and the children's price is another. The evidence's
    values of one kind are split into their conjuncts (:func:`graphcite.language.owners.value_owners`);
    a claim value equal to one conjunct's value, that names all the words setting another conjunct apart
    and none of its own conjunct's, has swapped the two.
    """
    mine = claim_values(claim)
    theirs = [e for e in evidence_values(evidence) if locate(evidence.quote, e) is not None]
    if not mine or len(theirs) < 2 or evidence.block_type == "table_row":
        return SKIP  # a table row's cells are read by column (GC301)
    claim_words = {w.lemma for w in words_of(claim.text)}
    problems: list[str] = []
    read = False
    for value in mine:
        if sum(comparable(value, other) for other in mine) > 1:
            continue  # the claim lists several of its own: it states the list, not one member
        same_kind = [e for e in theirs if comparable(value, e)]
        spans = tuple(sorted({span for e in same_kind if (span := locate(evidence.quote, e)) is not None}))
        owners = value_owners(evidence.quote, spans, _unit_words(same_kind))
        if owners is None:
            continue
        matched = [i for i, span in enumerate(spans) if any(agree(value, e) and locate(evidence.quote, e) == span
                                                             for e in same_kind)]
        if len(matched) != 1:
            continue
        read = True
        own = owners[matched[0]]
        others = frozenset().union(*(o for i, o in enumerate(owners) if i != matched[0]))
        if claim_words & (own - others):
            continue
        # the claim must name all that sets another conjunct apart ("Flex desk members"; a "Fixed desk
        # member" of "the other plans" shares only the class words with the Flex conjunct)
        taken = next((sorted(o - own) for i, o in enumerate(owners)
                      if i != matched[0] and o - own and o - own <= claim_words), None)
        if taken:
            problems.append(f"the evidence gives {value.surface!r} to "
                            f"{', '.join(repr(as_written(evidence.quote, w)) for w in sorted(own - others)[:3])}, "
                            f"not to {', '.join(repr(as_written(evidence.quote, w)) for w in taken[:3])}")
    return failures(problems) if read else SKIP


@rule("GC211", "attribute-of-another", family="slots", effect="insufficient",
      good=[("A woman in a pink shirt is surfing.", "A woman in a pink shirt is surfing on a yellow board."),
            ("The shirt is pink.", "She wears a pink shirt and a pink hat.")],
      bad=[("A woman in a pink shirt is surfing on a yellow board.",
            "A woman in a yellow shirt is surfing on a pink board."),
           ("The small dog is chasing the big cat.", "The big dog is chasing the small cat.")])
def attribute_of_another(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A description the evidence gives to one thing is not a description of another.

    "A woman in a pink shirt ... on a yellow board" against "a yellow shirt ... a pink board": every
    word is in the sentence and in the same places but two, so the share of found words passes; the
    colours have changed owners. Each adjective the claim attaches to a noun (before it, or said of
    it) must be attached to that noun in the evidence when the evidence has both words: an adjective
    the evidence gives to another noun, while it gives the claim's noun an adjective the claim gives to
    another, has changed places with it.
    """
    mine = attributes(claim.text)
    if not mine or evidence.block_type == "table_row":
        return SKIP
    theirs = attributes(evidence.quote)
    problems = []
    for adjective, noun in sorted(mine):
        if (adjective, noun) in theirs:
            continue
        elsewhere = sorted(n for a, n in theirs if a == adjective and n != noun)
        # the adjective the evidence gives the noun instead must be one the claim gives to another noun: a
        # swap ("pink shirt ... yellow board"), not another description ("a new study" / "effective tests")
        moved = {a for a, n in mine if n != noun}
        instead = sorted(a for a, n in theirs if n == noun and a != adjective and a in moved)
        if elsewhere and instead:
            problems.append(f"the evidence says {as_written(evidence.quote, adjective)!r} of "
                            f"{as_written(evidence.quote, elsewhere[0])!r} and "
                            f"{as_written(evidence.quote, instead[0])!r} of {as_written(evidence.quote, noun)!r}")
    return failures(problems)
