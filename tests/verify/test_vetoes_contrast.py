"""Minimal edits of a supported claim that must no longer be supported, each kind with the unedited
claim beside it (which must stay supported), through the real pipeline: decomposition, alignment and
every rule. The sentences are our own; the kinds are those a contrastive test set makes by editing
true claims: doer and done-to exchanged, another doer of a passive, another subject before a
prepositional phrase, an opposite word the alignment cannot anchor (directions of change, posture,
time of day, "before" / "after"), and another century.
"""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.language import lexicon
from graphcite.language.dates import dates_agree, dates_in, ordinals_in
from graphcite.models import AtomicClaim
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import evaluate_pair
from graphcite.verify.evidence import evidence_from_text
from graphcite.verify.rules.roles import head_noun, passive_doer
from graphcite.verify.rules.subject import _head as subject_head


def _relation(claim: str, evidence: str) -> str:
    parts = decompose(claim) or [AtomicClaim(text=claim, span=(0, len(claim)))]
    ev = evidence_from_text(evidence)
    relations = [evaluate_pair(part, ev, VerifierConfig()).relation for part in parts]
    return "supports" if all(r == "supports" for r in relations) else next(r for r in relations if r != "supports")


# (evidence, the claim as the evidence has it, the claim after a minimal edit)
EDITS = [
    # doer and done-to exchanged when a manner adverb closes the object
    ("The farmer is feeding the goat patiently.", "The farmer is feeding the goat.", "The goat is feeding the farmer."),
    # ... and when a prepositional phrase closes it ("between", "without")
    ("The keeper is kicking the ball between the posts.", "The keeper is kicking the ball.",
     "The ball is kicking the keeper between the posts."),
    # the words themselves outweigh a rare sense that makes one a kind of the other ("bull" a "man")
    ("A man is riding a bull at the fair.", "A person is riding a bull at the fair.",
     "A bull is riding a person at the fair."),
    # ... and when the evidence says who did it in a relative clause
    ("The crowd is cheering for a girl who is kicking the ball.", "A girl is kicking the ball.",
     "The ball is kicking a girl."),
    # another doer in a passive claim
    ("The woman is slicing a loaf of bread.", "The loaf of bread is being sliced by the woman.",
     "The loaf of bread is being sliced by the man."),
    # another subject before a prepositional phrase
    ("A woman in a green coat is crossing the bridge.", "A woman in a green coat is crossing the bridge.",
     "A man in a green coat is crossing the bridge."),
    # an opposite the alignment cannot anchor: a direction of change, a posture, a time of day
    ("Since the new pier opened, rising rents have closed many bakeries in the old harbour.",
     "Rents in the old harbour are rising.", "Rents in the old harbour are falling."),
    ("Snowfall on the pass grew steadily over the decade, the rangers report.",
     "Snowfall on the pass grew over the decade.", "Snowfall on the pass declined over the decade."),
    ("The old heron is standing on one leg in the reeds.", "The old heron is standing in the reeds.",
     "The old heron is lying in the reeds."),
    ("Villagers gather around the well at night to share news.", "Villagers gather around the well at night.",
     "Villagers gather around the well at day."),
    # an opposed function word that orders or scales: "before" / "after", "most" / "few"
    ("The market closes before the evening bells ring.", "The market closes before the evening bells.",
     "The market closes after the evening bells."),
    ("Most fishermen in the bay mend their own nets.", "Most fishermen in the bay mend their own nets.",
     "Few fishermen in the bay mend their own nets."),
    # another century than the evidence's years
    ("The watermill was rebuilt in 1873 after the flood.", "The watermill was rebuilt in the 19th century.",
     "The watermill was rebuilt in the 18th century."),
    ("In a 1987 letter the mayor described the canal as finished.",
     "The mayor described the canal as finished in the 20th century.",
     "The mayor described the canal as finished in the 21st century."),
]


@pytest.mark.parametrize("row", EDITS, ids=[r[2] for r in EDITS])
def test_a_minimal_edit_is_no_longer_supported(row: tuple[str, str, str]) -> None:
    evidence, kept, edited = row
    assert _relation(kept, evidence) == "supports"
    assert _relation(edited, evidence) != "supports"


KEPT = [
    # both opposites in the evidence: the claim's is there too
    ("Rents in the old harbour are falling.", "Rents fell in the old harbour while prices rose inland."),
    # "by" with a time is a deadline, not a doer
    ("The reading room was quiet by noon.", "By noon the reading room was quiet."),
    # a passive paraphrase with a more specific doer in the evidence
    ("The hedge is being trimmed by a child.", "A boy is trimming the hedge."),
    # a decade inside the century
    ("The canal was dug in the 19th century.", "The canal was dug in the 1820s by hand."),
]


@pytest.mark.parametrize("row", KEPT, ids=[r[0] for r in KEPT])
def test_an_unedited_claim_stays_supported(row: tuple[str, str]) -> None:
    assert _relation(*row) == "supports"


def test_heads_and_passive_doers() -> None:
    assert head_noun("a car carefully") == "car"
    assert head_noun("the ball between the posts") == "ball"
    assert head_noun("a group of boys") == "boy"
    assert passive_doer(decompose("The bread is being sliced by the cook.")[0]) == "cook"
    assert passive_doer(decompose("The cook is slicing the bread.")[0]) is None
    assert passive_doer(decompose("The bridge was finished by the end of May.")[0]) is None


def test_a_subject_s_head_is_its_first_noun_phrase_s() -> None:
    assert subject_head("a woman in a green coat") == "woman"
    assert subject_head("the water levels in the lower harbour") == "level"
    assert subject_head("what they find") is None  # a clause, not a thing
    assert subject_head("they") is None


def test_centuries_are_year_ranges() -> None:
    century = dates_in("in the 20th century")[0]
    assert century.century == 20
    assert [d.century for d in dates_in("the nineteenth century and the twenty-first century")] == [19, 21]
    assert dates_agree(century, dates_in("in 1999")[0]) and dates_agree(dates_in("in 1999")[0], century)
    assert not dates_agree(century, dates_in("in 1850")[0])
    assert dates_agree(century, dates_in("the 1960s")[0])
    assert not dates_agree(century, dates_in("the 19th century")[0])
    assert ordinals_in("the 20th century") == () and ordinals_in("the twenty-first century") == ()
    assert [o.value for o in ordinals_in("the third woman")] == [3]


@pytest.mark.parametrize(("a", "b"), [("rising", "declining"), ("increase", "reduce"), ("gained", "lost"),
                                      ("melt", "freeze"), ("confirm", "refute"), ("beneficial", "harmful"),
                                      ("warm", "cold"), ("most", "few"), ("decreasing", "rose")])
def test_curated_opposites(a: str, b: str) -> None:
    assert lexicon.related(a, b) == "antonym" and lexicon.related(b, a) == "antonym"


def test_adverbs_that_cannot_head_a_noun_phrase() -> None:
    assert lexicon.is_adverb_only("carefully") and lexicon.is_adverb_only("slowly")
    assert not lexicon.is_adverb_only("fast") and not lexicon.is_adverb_only("home")
    assert not lexicon.is_adverb_only("car")
