"""Alignment and lexicon answers behind the real-text kinds (tests/verify/test_realtext_kinds.py)."""

from __future__ import annotations

from graphcite.language.align import align
from graphcite.language.lexicon import (
    is_adjective,
    is_class_of,
    is_cohyponym,
    is_similar,
    is_verb_form,
    related,
    same_attribute,
)
from graphcite.language.nlp import lemma


def _slots(claim: str, evidence: str) -> dict[str, tuple[str, str | None]]:
    return {s.text: (s.status, s.relation) for s in align(claim, evidence).slots}


def test_irregular_verb_forms_take_wordnet_base() -> None:
    assert lemma("putting") == "put"
    assert lemma("dying") == "die"
    assert lemma("running") == "run"  # a regular form is left to the lookup table


def test_compound_in_one_word_meets_two_words() -> None:
    assert _slots("Snowstorms closed the pass.", "Snow storms closed the pass.")["snowstorm"][0] == "paraphrase"
    slots = _slots("The snow storm closed the pass.", "A snowstorm closed the pass.")
    assert slots["snow"][0] == slots["storm"][0] == "paraphrase"


def test_hyphenated_words_hold_their_parts() -> None:
    assert _slots("Farmers caused it.", "It was farmer-caused.")["cause"][0] == "found"
    assert _slots("A long-term trend.", "A trend over the long term.")["long-term"][0] == "paraphrase"
    # parts scattered over the evidence are not the compound
    assert _slots("It was not farmer-caused.", "Farmers have caused it.")["farmer-caused"][0] == "missing"


def test_accents_are_folded_on_both_sides() -> None:
    assert align("José Peña baked bread.", "Jose Pena baked bread.").score == 1.0


def test_two_word_term_is_matched_as_a_unit() -> None:
    slots = _slots("They played ping pong.", "They played table tennis.")
    assert slots["ping"] == slots["pong"] == ("paraphrase", "synonym")


def test_less_used_sense_gives_a_mirrored_kind() -> None:
    assert related("walk", "hike") == "hyponym"
    assert related("hike", "walk") == "hypernym"
    assert related("food", "meat") == "hyponym"
    assert related("carbon", "lead") is None  # graphite is two steps away: too far for a rare sense


def test_collective_noun_before_of_is_no_slot() -> None:
    assert "crowd" not in _slots("A crowd of tourists waited.", "Tourists waited.")
    assert "crowd" in _slots("The crowd waited.", "Tourists waited.")


def test_stand_in_needs_a_near_class_and_the_same_place() -> None:
    assert is_cohyponym("violin", "trumpet") and is_cohyponym("snow", "rain")
    assert not is_cohyponym("dog", "puppy") and not is_cohyponym("rain", "rain")
    assert _slots("She played a violin.", "She played a trumpet.")["violin"] == ("other", "cohyponym")
    # a near-class word elsewhere in the evidence is not in the claim's place
    assert _slots("She played a violin.", "She sang. A trumpet lay on the table.")["violin"][0] == "missing"


def test_acronym_meets_its_spelled_out_name() -> None:
    assert align("The WMO issued a warning.", "The World Meteorological Organization issued a warning.").score == 1.0
    assert align("The World Meteorological Organization issued a warning.", "The WMO issued a warning.").score == 1.0
    assert align("The WHO issued a warning.", "The World Meteorological Organization issued a warning.").missing_names


def test_opposite_anchored_by_nearest_content_words() -> None:
    # function words lie between the opposite and its neighbours: the nearest content words anchor it
    assert _slots("The harp is being tuned by a woman.", "A man is tuning the harp.")["woman"] == ("opposite", "antonym")
    assert _slots("A slide which is outdoors.", "A slide which is indoors.")["outdoor"] == ("opposite", "antonym")
    # an opposite elsewhere in the sentence, next to other words, stays unanchored
    assert _slots("A slide which is outdoors.", "Indoors there is a pool, and a slide.")["outdoor"][0] == "missing"


def test_opposite_of_a_word_too_common_to_be_a_slot() -> None:
    slots = _slots("He carried the trunk up the stairs.", "He carried the trunk down the stairs.")
    assert slots["up"] == ("opposite", "antonym")
    # never a slot of its own: its absence costs nothing
    assert "up" not in _slots("He carried the trunk up the stairs.", "He carried the trunk to the attic stairs.")
    # its opposite somewhere else is no opposite
    assert "up" not in _slots("He carried the trunk up the stairs.", "Down the road, he carried the trunk and stairs.")


def test_opposed_particles_come_from_the_word_lists() -> None:
    assert _slots("The otter swam into the cave.", "The otter swam out of the cave.")["into"] == ("opposite", "antonym")
    assert _slots("The otter sat in front of the cave.", "The otter sat behind the cave.")["front"][0] == "opposite"
    # the particle itself in the evidence: nothing opposed
    assert "into" not in _slots("The otter swam into the cave.", "The otter swam out and then into the cave.")


def test_a_class_in_any_of_its_senses_names_a_thing() -> None:
    assert is_class_of("instrument", "guitar")  # the musical sense, not the most used one of "instrument"
    assert is_class_of("kid", "boy")
    assert not is_class_of("guitar", "instrument")  # a class does not name one of its kinds
    assert not is_class_of("dog", "cat")
    slots = _slots("A child plays an instrument.", "A child plays the cello.")
    assert slots["instrument"] == ("paraphrase", "hyponym")


def test_a_verb_form_is_not_its_nouns_class() -> None:
    assert is_verb_form("wearing") and is_verb_form("worn") and not is_verb_form("boy")
    assert is_class_of("wear", "cap")  # "wear" is also clothing
    assert _slots("The cyclist is wearing a cap.", "The cyclist holds a cap.")["wear"][0] == "missing"
    # after a determiner an -ing word is a noun: "a building" names a hospital by its class
    assert _slots("A building burned.", "A hospital burned.")["build"] == ("paraphrase", "hyponym")


def test_another_value_of_the_same_property_on_the_same_noun() -> None:
    assert is_adjective("brown") and not is_adjective("beach") and not is_adjective("the")
    assert same_attribute("blue", "green") and not same_attribute("slow", "large")
    assert _slots("A brown dog swam.", "A white dog swam.")["brown"] == ("other", "modifier")
    # another property of the same thing is not another value of it; the word stands in the claim's
    # place all the same, so the evidence speaks of another endpoint than the claim's (insufficient)
    assert _slots("A slow endpoint failed.", "A large endpoint failed.")["slow"] == ("other", "in its place")
    assert _slots("A slow endpoint failed.", "The endpoint failed.")["slow"][0] == "missing"


def test_another_word_framed_by_the_same_words_stands_in_the_claims_place() -> None:
    assert _slots("The deputy harbour master signs.", "The chief harbour master signs.")["deputy"] == \
        ("other", "in its place")
    # a word the lexicon links to the claim's is a rewording, not another thing
    assert _slots("A man in sunglasses sat here.", "A man in shades sat here.")["sunglass"][0] != "other"
    # two function words alone are too weak a frame; one more matching word makes it
    assert _slots("Cats sleep in boxes at night.", "Dogs run in circles at noon.")["box"][0] == "missing"
    assert _slots("Protection was seen in mice during the trial.",
                  "Protection was seen in humans during the trial.")["mouse"][0] == "other"
    assert _slots("The tour visits the old harbour at dawn.",
                  "The tour visits the fish harbour at dawn.")["old"] == ("other", "in its place")
    # the words must be written side by side: a comma breaks the frame
    assert _slots("The deputy harbour master signs.", "The deputy, harbour master signs.")["deputy"][0] == "found"
    # a near-synonym in the same cluster, or one derived from it, is a rewording
    assert is_similar("huge", "big") and is_similar("darkened", "dark") and not is_similar("rocky", "sandy")
    assert not is_similar("wet", "dry")  # antonyms never
    # the adjective must stand on the same noun, next to it
    assert _slots("A brown dog swam.", "A dog, white and old, swam.")["brown"][0] == "missing"
