"""What each value of a list is said of (graphcite.language.owners), read from real parses."""

from __future__ import annotations

import re

from graphcite.language.owners import value_owners


def _spans(text: str, *surfaces: str) -> tuple[tuple[int, int], ...]:
    return tuple((m.start(), m.end()) for s in surfaces for m in [re.search(re.escape(s), text)] if m)


def test_each_price_belongs_to_the_words_after_it_and_the_lead_is_shared() -> None:
    text = "Tickets cost £5 for children and £9 for adults."
    assert value_owners(text, _spans(text, "£5", "£9")) == (frozenset({"child"}), frozenset({"adult"}))


def test_a_gapped_list_gives_the_first_conjunct_its_own_lead() -> None:
    text = "The southern route takes 25 minutes and the northern route 40 minutes."
    owners = value_owners(text, _spans(text, "25 minutes", "40 minutes"), frozenset({"minute"}))
    assert owners is not None
    assert "southern" in owners[0] and "southern" not in owners[1]
    assert "northern" in owners[1] and "northern" not in owners[0]


def test_a_counted_noun_of_the_list_ties_no_value() -> None:
    text = "The plant employs 200 people in Leeds and 150 in York."
    owners = value_owners(text, _spans(text, "200 people", "150"), frozenset({"people", "person"}))
    assert owners is not None
    assert "york" in owners[1] and "people" not in owners[0] | owners[1]


def test_a_range_and_values_in_two_sentences_are_no_list() -> None:
    text = "Prices are between £5 and £9."
    assert value_owners(text, _spans(text, "£5", "£9")) is None
    text = "Children pay £5. Adults pay £9."
    assert value_owners(text, _spans(text, "£5", "£9")) is None
    assert value_owners("It costs £5.", ((9, 11),)) is None


def test_attributes_are_read_before_the_noun_and_said_of_it() -> None:
    from graphcite.language.owners import attributes

    assert {("pink", "shirt"), ("yellow", "board")} <= attributes("A woman in a pink shirt rides a yellow board.")
    assert ("red", "door") in attributes("The door is red.")
