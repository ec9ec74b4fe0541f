"""Word shapes: a chemical formula whose subscripts a copied page set apart is still one word."""

from __future__ import annotations

import pytest

from graphcite.language.words import words_of


@pytest.mark.parametrize(("text", "formula", "span"), [
    ("Output of CO 2 rose in May.", "CO2", "CO 2"),
    ("Output of CO2 rose in May.", "CO2", "CO2"),
    ("Farms release N 2 O and CH 4 alike.", "N2O", "N 2 O"),
    ("Ozone (O 3) thins in spring.", "O3", "O 3"),
])
def test_a_spaced_formula_is_one_word_with_its_own_offsets(text: str, formula: str, span: str) -> None:
    word = next(w for w in words_of(text) if w.surface == formula)
    assert text[word.start:word.end] == span


@pytest.mark.parametrize("text", ["The CO 25 bus leaves at noon.", "Use CO 2.5 units.", "The ECHO 2 probe.",
                                  "Figure 2 of the CO report."])
def test_a_letter_group_before_another_number_stays_apart(text: str) -> None:
    assert not any(w.surface.startswith("CO2") or w.surface.endswith("2") for w in words_of(text))


def test_a_possessive_word_ends_before_its_s() -> None:
    word = words_of("The harbour\u2019s wall is old.")[1]
    assert (word.surface, word.end) == ("harbour", 11)
