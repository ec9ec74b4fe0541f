"""Plain-text parser and the shared line/span helpers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.ingest.text import line_number, line_starts, parse, strip_span
from graphcite.models import ParsedDocument


def assert_units_valid(doc: ParsedDocument) -> None:
    """Offsets in range, in order, not overlapping; each unit's text non-empty and stripped."""
    previous_end = 0
    starts = line_starts(doc.text)
    for unit in doc.units:
        assert 0 <= unit.start < unit.end <= len(doc.text)
        assert unit.start >= previous_end
        surface = doc.text[unit.start : unit.end]
        assert surface and surface == surface.strip()
        assert unit.line_start == line_number(starts, unit.start)
        assert unit.line_end == line_number(starts, unit.end - 1)
        previous_end = unit.end


def surfaces(doc: ParsedDocument) -> list[str]:
    return [doc.text[u.start : u.end] for u in doc.units]


def test_paragraphs_split_on_blank_lines() -> None:
    text = "First line\nstill first.\n\n  \t\nSecond paragraph.\n\n\nThird.\n"
    doc = parse(text, where="a.txt")
    assert surfaces(doc) == ["First line\nstill first.", "Second paragraph.", "Third."]
    assert [u.block_type for u in doc.units] == ["paragraph"] * 3
    assert [(u.line_start, u.line_end) for u in doc.units] == [(1, 2), (5, 5), (8, 8)]
    assert doc.text is text and doc.format == "text"


def test_crlf_and_lone_cr_are_line_breaks_and_survive() -> None:
    text = "Alpha one\r\nalpha two\r\n\r\nBeta\r\rGamma ☕\r\n"
    doc = parse(text, where="a.txt")
    assert surfaces(doc) == ["Alpha one\r\nalpha two", "Beta", "Gamma ☕"]
    assert [(u.line_start, u.line_end) for u in doc.units] == [(1, 2), (4, 4), (6, 6)]


def test_line_separator_characters_stay_inside_a_line() -> None:
    text = "one\u2028two\x85three\x0cfour\n\nfive"
    assert line_starts(text) == [0, len("one\u2028two\x85three\x0cfour\n"), len(text) - 4]
    doc = parse(text, where="a.txt")
    assert surfaces(doc) == ["one\u2028two\x85three\x0cfour", "five"]


def test_line_starts_agree_with_and_without_carriage_returns() -> None:
    assert line_starts("a\nbc\n") == [0, 2, 5]
    assert line_starts("a\r\nbc\r") == [0, 3, 6]
    assert line_starts("") == [0]


def test_strip_span_uses_python_whitespace() -> None:
    text = "\xa0 word\u3000\n"
    assert strip_span(text, 0, len(text)) == (2, 6)
    assert strip_span("   ", 0, 3) == (3, 3)


_PIECES = st.sampled_from(["word", "Ünïcödé", "e\u0301", "😀", "日本語", " ", "\t", "\xa0", "\u2028",
                           "\n", "\r\n", "\r", "\n\n", "\r\n \r\n", "30 ms", "-", "#"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_property_units_are_valid_for_built_text(text: str) -> None:
    assert_units_valid(parse(text, where="p.txt"))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_property_units_are_valid_for_any_text(text: str) -> None:
    doc = parse(text, where="p.txt")
    assert_units_valid(doc)
    # every non-blank line is inside some unit
    covered = sum(u.end - u.start for u in doc.units)
    assert covered >= len("".join(text.split()))
