"""Frames read from the trained parse: clauses, polarity, modality, conditions, scope and measurements."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.language.frames import (
    aligned_frames,
    asserts_something,
    cells_of,
    frames_of,
    main_frame,
    measurement_at,
    table_measurement,
)
from graphcite.language.parse import layout, pipeline_accuracy


def _measure(text: str, surface: str) -> object:
    start = text.index(surface)
    return measurement_at(text, start, start + len(surface))


def test_the_pipeline_ships_with_its_accuracy() -> None:
    accuracy = pipeline_accuracy()
    assert accuracy.get("treebank_commit")


@pytest.mark.parametrize(("text", "negated", "modality"), [
    ("Staff must not share passwords.", True, "must-not"),
    ("Workers may retry after a timeout.", False, "may"),
    ("You need to renew the badge every year.", False, "must"),
    ("The relay signs every payload.", False, "asserted"),
    ("The clinic never sends reminders by post.", True, "asserted"),
])
def test_polarity_and_modality_of_the_main_clause(text: str, negated: bool, modality: str) -> None:
    frame = main_frame(text)
    assert frame is not None
    assert frame.negated is negated
    assert frame.modality == modality


def test_an_implicit_negative_negates_the_verb_it_governs() -> None:
    frames = {f.predicate: f for f in frames_of("The vendor declined to sign the contract.")}
    assert frames["sign"].negated


def test_a_negation_belongs_to_its_own_clause() -> None:
    text = "Refunds are not issued after 30 days, but store credit may be offered."
    claim, evidence = aligned_frames("Store credit may be offered.", text)
    assert claim is not None and evidence is not None
    assert not evidence.negated and evidence.modality == "may"
    claim, evidence = aligned_frames("Refunds are issued after 30 days.", text)
    assert evidence is not None and evidence.negated


def test_conditions_and_scope_attach_to_the_predicate_and_subject() -> None:
    frame = main_frame("Refunds are issued only if the item is unused.")
    assert frame is not None and any("unused" in c for c in frame.conditions)
    assert main_frame("Refunds are issued quickly.").conditions == ()
    scoped = main_frame("Vendors with a signed contract are paid within 30 days.")
    assert scoped is not None and any("contract" in s for s in scoped.scope)
    every = main_frame("Every vendor is paid within 30 days.")
    assert every is not None and every.quantifier == "every"


def test_a_measurement_knows_its_statistic_period_and_thing() -> None:
    assert _measure("The p99 latency of the search API is 40 ms.", "40 ms").statistic == "p99"
    assert _measure("The 95th percentile latency is 120 ms.", "120 ms").statistic == "p95"
    assert _measure("The fee is the greater of £20 or 3% of the order.", "£20").statistic == "max"
    assert _measure("The fee is the lower of £20 or 3% of the order.", "£20").statistic == "min"
    dose = "Adults may take up to 400 mg a day (200 mg per dose)."
    assert _measure(dose, "400 mg").per == "day"
    assert _measure(dose, "200 mg").per == "dose"
    assert "downtime" in _measure("The outage caused 43 minutes of downtime.", "43 minutes").measured
    assert "keep" in _measure("Logs are kept for 72 hours.", "72 hours").measured


def test_a_table_cell_is_read_with_its_row_and_column() -> None:
    row = "| Search API | 40 ms | 85 ms |"
    headers = ("Service", "p95 latency", "p99 latency")
    cells = cells_of(row, headers)
    assert [c.text for c in cells] == ["Search API", "40 ms", "85 ms"]
    assert all(row[c.start:c.end] == c.text for c in cells)
    start = row.index("85 ms")
    found = table_measurement(row, headers, start, start + 5)
    assert found is not None and found.statistic == "p99" and found.row == "Search API"
    assert "latency" in found.measured


@pytest.mark.parametrize("text", ["x", "OK.", "It is so.", "{}", "%s", "I hope this helps.",
                                  "Here is what I found.", "Would you like more detail?"])
def test_a_sentence_that_asserts_nothing(text: str) -> None:
    assert not asserts_something(text)


@pytest.mark.parametrize("text", ["Logs are kept for 72 hours.", "We found that 40% of users churn.",
                                  "The ferry leaves at 9."])
def test_a_sentence_that_asserts_something(text: str) -> None:
    assert asserts_something(text)


_SENTENCES = ["Members can book rooms for at most 8 hours on weekdays.",
              "Staff must not share passwords with contractors.",
              "Vendors with a signed contract are paid within 30 days."]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_SENTENCES), st.lists(st.sampled_from([" ", "  ", "\n", "\t", " \n "]), min_size=12,
                                             max_size=12))
def test_reading_does_not_depend_on_layout(sentence: str, gaps: list[str]) -> None:
    words = sentence.split(" ")
    text = "".join(w + (gaps[i % len(gaps)] if i < len(words) - 1 else "") for i, w in enumerate(words))
    plain, moved = frames_of(sentence), frames_of(text)
    keys = ("predicate", "negated", "modality", "conditions", "scope", "quantifier", "words", "voice", "tense")
    assert [[getattr(f, k) for k in keys] for f in plain] == [[getattr(f, k) for k in keys] for f in moved]
    for frame in moved:
        assert text[frame.start:frame.end].split() == text[frame.start:frame.end].split()
        assert 0 <= frame.start < frame.end <= len(text)
    flat = layout(text)
    assert flat.flat == sentence
