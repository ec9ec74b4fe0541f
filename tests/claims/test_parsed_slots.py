"""The clause's slots from the trained parse where the word-shape reader misses the verb."""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.claims.parsed import parsed_slots


@pytest.mark.parametrize(("text", "subject", "predicate", "obj"), [
    ("Members can book rooms for up to 8 hours.", "Members", "can book", "rooms for up to 8 hours"),
    ("The committee has not yet approved the budget.", "The committee", "has not yet approved", "the budget"),
    ("Ticket prices rose by 5% in May.", "Ticket prices", "rose", "by 5% in May"),
])
def test_the_parse_gives_subject_verb_and_object(text: str, subject: str, predicate: str, obj: str) -> None:
    part = decompose(text)[0]
    assert (part.subject, part.predicate, part.object) == (subject, predicate, obj)
    assert part.text[part.predicate_span[0] - part.span[0]:part.predicate_span[1] - part.span[0]] == predicate


def test_a_clause_the_parse_reads_without_a_verb_gives_no_slots() -> None:
    assert parsed_slots("A quiet morning by the river") is None


def test_a_verb_the_parse_took_for_a_noun_after_never_is_the_verb() -> None:
    part = decompose("The dispatcher never retries rate quotes.")[0]
    assert (part.subject, part.predicate, part.object) == ("The dispatcher", "never retries", "rate quotes")
    assert part.negated and part.negation_cue == "never"
    assert not decompose("The scheduler never fails to log a retry.")[0].negated  # two negatives cancel


def test_a_time_phrase_opening_a_sentence_stays_in_its_part() -> None:
    parts = decompose("After the fifth failed attempt the event is parked for 72 hours.")
    assert [p.text for p in parts] == ["After the fifth failed attempt the event is parked for 72 hours"]
    assert parts[0].connective is None
