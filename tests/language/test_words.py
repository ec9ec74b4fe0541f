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


def _names(text: str) -> list[str]:
    return [w.surface for w in words_of(text) if w.proper]


@pytest.mark.parametrize(("text", "names"), [
    # a sentence opened after a quotation mark, an ellipsis, a bracket or a dash: its first word is no name
    ("\u2018Heavy rain flooded the Elbe valley.", ["Elbe"]),
    ("\u2026Heavy rain flooded the Elbe valley.", ["Elbe"]),
    ("[Heavy] rain flooded the Elbe valley.", ["Elbe"]),
    ("\u2014 Heavy rain flooded the Elbe valley.", ["Elbe"]),
    # an ordinary word before an acronym or a formula does not join it into one name
    ("Earlier WMO bulletins were revised.", ["WMO"]),
    ("Rising CH4 traps heat.", ["CH4"]),
    # a headline capitalises every word: only what names something stays a name
    ("Storm Surges Flood Coastal Towns Of Iceland", ["Iceland"]),
    ("NOAA Reports Glaciers Are Shrinking Fast", ["NOAA"]),
])
def test_a_capital_that_says_nothing_makes_no_name(text: str, names: list[str]) -> None:
    assert _names(text) == names


@pytest.mark.parametrize(("text", "names"), [
    ("Heavy rain flooded the Elbe valley.", ["Elbe"]),
    ("(Kessler rose early.)", ["Kessler"]),
    ("Maria Lopez grew up in Oslo.", ["Maria", "Lopez", "Oslo"]),
    ("The Federal Aviation Administration grounded the jets.", ["Federal", "Aviation", "Administration"]),
    # a sentence with lower-case content words is no headline: its capitals are names
    ("Engineers at Harbour Works rebuilt the Elbe bridge.", ["Harbour", "Works", "Elbe"]),
])
def test_names_stay_names(text: str, names: list[str]) -> None:
    assert _names(text) == names


@pytest.mark.parametrize(("text", "lemma"), [("We\u2019ve seen warmer winters.", "we"),
                                             ("They're rebuilding the dyke.", "they"),
                                             ("I'd guess the pass is shut.", "i")])
def test_a_pronoun_with_its_auxiliary_is_the_pronoun(text: str, lemma: str) -> None:
    word = words_of(text)[0]
    assert (word.lemma, word.proper) == (lemma, False)


def test_a_contraction_of_a_name_keeps_the_name() -> None:
    assert words_of("Kessler'd know.")[0].proper


def test_a_place_opening_a_sentence_is_a_name() -> None:
    from graphcite.language.words import words_of

    assert words_of("Kenya is in need of food.")[0].proper
    assert not words_of("Prices rose in Kenya.")[0].proper  # an ordinary word opening a sentence


def test_a_class_word_never_says_a_name() -> None:
    from graphcite.language.align import align

    slots = {s.text: s for s in align("Kenya is in need of food.",
                                      "Half of the African country of Somalia is in need of food aid.").slots}
    assert slots["kenya"].status == "other" and slots["kenya"].by == "somalia"  # another country stands there
    alone = {s.text: s for s in align("Kenya is in need of food.", "The African country is in need of food aid.").slots}
    assert alone["kenya"].status == "missing"  # "country" is Kenya's class: it does not name it
