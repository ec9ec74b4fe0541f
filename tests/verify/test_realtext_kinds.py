"""Kinds of error found by reading real claim/evidence pairs the verifier got wrong, one pair of our
own wording each, through the real pipeline (decomposition, alignment, every rule).

Supported kinds: a slot written as a different word form (a compound in one word or two, the parts of
a hyphenated word, an accent, an irregular verb form, an acronym), a two-word term paraphrased as a unit, a more
specific word reached through a less used sense, and a collective noun that adds nothing ("a crowd
of"). Unsupported kind: another thing of the same near class standing in the claim's place.
"""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.models import AtomicClaim
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import evaluate_pair
from graphcite.verify.evidence import evidence_from_text

SUPPORTED = [
    # a compound written as one word in the claim and as two in the evidence, and the reverse
    ("Snowstorms closed the mountain pass.", "Two snow storms closed the mountain pass in January."),
    ("The snow storm closed the pass.", "A snowstorm closed the pass."),
    # the parts of a hyphenated evidence word
    ("Farmers caused the grass fire.", "The grass fire was farmer-caused, the inquiry found."),
    # an accent on one side only
    ("Jose Peña founded the bakery.", "José Peña founded the bakery in a rented garage."),
    # an irregular verb form the lookup lemmatizer reads as another verb ("putting" is not "putt")
    ("The porter is putting the bags on the cart.", "The porter put the bags on the cart."),
    # a two-word term paraphrased as a unit
    ("The cousins played ping pong after lunch.", "After lunch the cousins played table tennis."),
    # a more specific evidence word through a less used sense of it ("hike" as a walk)
    ("The students walked up the ridge.", "The students hiked up the ridge."),
    # an acronym in the claim, its name spelled out in the evidence
    ("The FAA grounded the new jets.", "The Federal Aviation Administration grounded the new jets."),
    # a collective noun that says no more than the plural
    ("A crowd of tourists waited at the gate.", "Tourists waited at the gate."),
]

UNSUPPORTED = [
    # another thing of the same near class in the claim's place
    ("The girl is playing a violin on the porch.", "The girl is playing a trumpet on the porch."),
    ("The courier cycled through the snow.", "The courier cycled through the rain."),
    ("A cat is sleeping on the sofa.", "A cat is sleeping on the bed."),
]


def _relation(claim: str, evidence: str) -> str:
    parts = decompose(claim) or [AtomicClaim(text=claim, span=(0, len(claim)))]
    ev = evidence_from_text(evidence)
    relations = [evaluate_pair(part, ev, VerifierConfig()).relation for part in parts]
    return "supports" if all(r == "supports" for r in relations) else next(r for r in relations if r != "supports")


@pytest.mark.parametrize("row", SUPPORTED, ids=[r[0] for r in SUPPORTED])
def test_reworded_slot_supports(row: tuple[str, str]) -> None:
    assert _relation(*row) == "supports"


@pytest.mark.parametrize("row", UNSUPPORTED, ids=[r[0] + " / " + r[1] for r in UNSUPPORTED])
def test_stand_in_does_not_support(row: tuple[str, str]) -> None:
    assert _relation(*row) != "supports"
