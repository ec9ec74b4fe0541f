"""Verb paraphrases and event nouns from WordNet: shared senses dominant for one side, nouns formed from the verb."""

from __future__ import annotations

import pytest

from graphcite.language.predicates import event_nouns, is_verb, verb_paraphrases


@pytest.mark.parametrize("verb, other", [("hold", "contain"), ("cancel", "call off"), ("earn", "make"),
                                         ("win", "gain"), ("chat", "chatter")])
def test_verbs_sharing_a_dominant_sense(verb: str, other: str) -> None:
    assert other in verb_paraphrases(verb)


@pytest.mark.parametrize("verb, other", [("look", "throw"), ("eat", "drink"), ("buy", "sell"), ("open", "close"),
                                         ("sign", "forward"), ("rise", "fall")])
def test_different_or_opposite_verbs_are_not_paraphrases(verb: str, other: str) -> None:
    assert other not in verb_paraphrases(verb)
    assert verb not in verb_paraphrases(other)


def test_event_nouns_are_formed_from_the_verbs_of_its_senses() -> None:
    assert {"dismissal", "firing"} <= event_nouns("fire")  # through "dismiss", a sense it shares
    assert "cancellation" in event_nouns("cancel")
    assert "freight" not in event_nouns("send")  # linked to "ship" by meaning, not formed from it
    assert not {n for n in event_nouns("win") if n.endswith("er")}  # "winner" names a person


def test_is_verb() -> None:
    assert is_verb("strain") and is_verb("talk")
    assert not is_verb("vegetable")
