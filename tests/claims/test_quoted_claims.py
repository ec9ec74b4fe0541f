"""A claim wrapped in quotation marks or brackets is read like the bare sentence.

The reader never splits or reads cues inside quotations and brackets; a stray opening quote (a
quotation cut from a longer passage) or marks around the whole sentence enclose nothing to protect,
and used to leave the reader with no words at all: no predicate, and a lost negation.
"""

from __future__ import annotations

import pytest

from graphcite.claims.decompose import decompose

BARE = "The reservoir does not supply the eastern villages"


@pytest.mark.parametrize("written", [
    f"\u201c{BARE}.",              # stray opening curly quote
    f"\u2018{BARE}.\u2019",        # single quotes around the sentence
    f'"{BARE}."',                  # straight quotes around the sentence
    f"{BARE}.\u201d",              # stray closing quote
])
def test_a_quoted_claim_reads_like_the_bare_sentence(written: str) -> None:
    (bare,) = decompose(BARE + ".")
    (quoted,) = decompose(written)
    assert (quoted.negated, quoted.predicate, quoted.subject) == (bare.negated, bare.predicate, bare.subject)
    assert (quoted.negated, quoted.predicate) == (True, "does not supply")
    assert quoted.text == BARE


def test_a_quotation_inside_the_sentence_stays_closed_to_cues() -> None:
    (claim,) = decompose('The survey said "the reservoir does not supply the villages" in 2019.')
    assert claim.predicate == "said" and claim.negated is False
    (aside,) = decompose("The reservoir (not the canal) supplies the villages.")
    assert aside.negated is False and aside.predicate == "supplies"
