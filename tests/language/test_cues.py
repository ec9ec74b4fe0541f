"""Negation cues and function-word lemmas, read alike for claims and evidence."""

from __future__ import annotations

import pytest

from graphcite.language.cues import negation_pattern, negation_phrases
from graphcite.language.nlp import lemma
from graphcite.language.words import word_list


@pytest.mark.parametrize("text", ["The kiln doesn\u2019t cool overnight.", "The kiln doesn't cool overnight.",
                                  "The ferry won\u2019t sail.", "It isn\u2019t raining."])
def test_a_contraction_negates_with_either_apostrophe(text: str) -> None:
    found = negation_pattern().search(text)
    assert found is not None and found.group(0).lower().replace("\u2019", "'") == "n't"


@pytest.mark.parametrize("text", ["The kiln\u2019s door cools overnight.", "The \u2018cool\u2019 setting is on.",
                                  "The runners\u2019 times improved."])
def test_a_curly_quote_alone_is_no_negation(text: str) -> None:
    assert negation_pattern().search(text) is None


def test_whole_contractions_are_negation_words_but_not_separate_cues() -> None:
    assert {"doesn't", "isn't", "won't", "can't"} <= word_list("negation")  # a reader that takes words whole
    assert "doesn't" not in negation_phrases()  # the tokenizer splits "n't" off; it is the cue
    assert "n't" in negation_phrases()


@pytest.mark.parametrize(("word", "expected"), [("does", "do"), ("Does", "do"), ("as", "as"), ("doe", "doe"),
                                                ("did", "do"), ("retries", "retry")])
def test_function_words_keep_their_own_lemma(word: str, expected: str) -> None:
    assert lemma(word) == expected
