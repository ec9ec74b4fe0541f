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
