"""Marker answers: every malformed keyed marker is a marker with a defect (GC105), and marker text that
opens with "[" is told apart from JSON (issue 23 item 16)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import load_answer_text
from graphcite.claims.markers import looks_like_markers, parse_markers


@pytest.mark.parametrize("marker", ["[policy.md:a-b]", "[policy.md:-5-10]", "[policy.md:start-end]",
                                    "[policy.md@r1:x-y]", "[<my notes.md>:one-two]", "[docs/a.md:5-b]"])
def test_every_malformed_keyed_marker_carries_a_defect(marker: str) -> None:
    answer = parse_markers(f"The relay keeps logs for seven days {marker}.")
    (claim,) = answer.claims
    assert claim.text == "The relay keeps logs for seven days."
    (ref,) = claim.citations
    assert ref.defect and "offsets" in ref.defect and ref.start is None and ref.end is None


@pytest.mark.parametrize("prose", ["The relay [Note: well-known] keeps logs.", "It is [see: A-B] done.",
                                   "Odd [x:y] text here."])
def test_bracketed_prose_is_not_a_marker(prose: str) -> None:
    (claim,) = parse_markers(prose).claims
    assert claim.citations == ()


def test_a_malformed_passage_span_carries_a_defect() -> None:
    answer = parse_markers("The relay keeps logs [1].\n\nPassages:\n[1] policy.md:a-b: keeps logs\n")
    (ref,) = answer.claims[0].citations
    assert ref.defect and "passage [1]" in ref.defect


@pytest.mark.parametrize("text", [
    "[1] The relay keeps logs for seven days.\n\nPassages:\n[1] policy.md\n",
    "[policy.md:0-10] The relay keeps logs.",
    "[Draft] The relay keeps logs [1].\n\nSources:\n[1] policy.md\n",
    "[2][1] Logs are kept.\n\nReferences:\n[1] a.md\n[2] b.md\n",
])
def test_marker_text_opening_with_a_bracket_is_markers(text: str) -> None:
    assert looks_like_markers(text)


@pytest.mark.parametrize("text", ['[{"answer_id": "a", "claims": []}]', "[1, 2, 3]", "[]", '  [\n {"a": 1}\n]',
                                  '[{"answer_id": "a", "claims": [}]', '["unterminated'])
def test_json_opening_with_a_bracket_is_json(text: str) -> None:
    assert not looks_like_markers(text)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=8).filter(lambda value: isinstance(value, list)))
def test_property_json_arrays_are_never_markers(value: list[object]) -> None:
    import json

    assert not looks_like_markers(json.dumps(value))


def test_marker_text_opening_with_a_bracket_is_read_without_format_markers() -> None:
    answer = load_answer_text("[1] The relay keeps logs for seven days.\n\nPassages:\n[1] policy.md\n")
    assert [c.text for c in answer.claims] == ["The relay keeps logs for seven days."]


@pytest.mark.parametrize("text", ['[{"answer_id": "a", "claims": [}]', "[not json, no marker"])
def test_broken_json_opening_with_a_bracket_is_still_a_json_error(text: str) -> None:
    from graphcite.errors import AnswerFormatError

    with pytest.raises(AnswerFormatError) as info:
        load_answer_text(text)
    assert info.value.code == "E206"


def test_a_json_answer_opening_with_a_bracket_is_still_read_as_json() -> None:
    from graphcite.errors import AnswerFormatError

    with pytest.raises(AnswerFormatError) as info:  # a JSON list is not an answer object: the JSON reader says so
        load_answer_text('[{"answer_id": "a", "claims": []}]')
    assert "JSON object" in str(info.value)
