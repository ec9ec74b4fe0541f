"""Cohere chat v2 citations: code point spans checked against their text, other units tried, fuzzing."""

from __future__ import annotations

import pytest
from format_fuzz import example, mutated, read_or_refuse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import load_answer
from graphcite.errors import AnswerFormatError

DOC = {"type": "document", "id": "doc:0", "document": {"id": "doc:0", "title": "Signing", "source": "manuals/keys.md"}}


def _response(text: str, citations: list[dict]) -> dict:
    return {"id": "c-1", "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "citations": citations}}


def _cite(text: str, piece: str, unit: str = "codepoint", sources: list | None = None, at: int | None = None) -> dict:
    at = text.index(piece) if at is None else at
    head, body = text[:at], piece
    if unit == "utf8":
        start, end = len(head.encode()), len((head + body).encode())
    elif unit == "utf16":
        start, end = len(head.encode("utf-16-le")) // 2, len((head + body).encode("utf-16-le")) // 2
    else:
        start, end = at, at + len(piece)
    return {"start": start, "end": end, "text": piece, "type": "TEXT_CONTENT", "sources": sources or [DOC]}


def test_example_reads_sentences_and_document_sources() -> None:
    answer = load_answer(example("cohere"))
    assert answer.format == "cohere"
    assert answer.claims[0].text.startswith("Larkspur signs every webhook event with HMAC-SHA256 —")
    assert {r.source for c in answer.claims for r in c.citations} == {"manuals/signing-keys.md"}


WORDS = st.sampled_from(["Zoë", "中文", "😀", "e\u0301", "keys", "rotate", "Ørsted", "👩🏽‍💻", "naïve"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=2, max_size=5), min_size=2, max_size=4), st.data(),
       st.sampled_from(["codepoint", "utf8", "utf16"]))
def test_spans_in_any_unit_over_non_ascii_text_cite_their_sentence(sentences: list[list[str]],
                                                                    data: st.DataObject, unit: str) -> None:
    texts = [f"Part {i} says " + " ".join(words) + "." for i, words in enumerate(sentences)]
    text = " ".join(texts)
    k = data.draw(st.integers(0, len(texts) - 1))
    piece = texts[k][len(f"Part {k} says "):-1]
    at = sum(len(t) + 1 for t in texts[:k]) + len(f"Part {k} says ")
    answer = load_answer(_response(text, [_cite(text, piece, unit, at=at)]))
    assert [c.text for c in answer.claims if c.citations] == [texts[k]]
    assert not any(r.defect for c in answer.claims for r in c.citations)


def test_plan_citations_are_skipped_and_tool_sources_named() -> None:
    text = "The relay parks events for 72 hours."
    tool = {"type": "tool", "id": "call_9", "tool_output": {"url": "https://docs.example/dr-017.md"}}
    answer = load_answer(_response(text, [
        dict(_cite(text, "72 hours", sources=[tool])),
        {"start": 0, "end": 3, "text": "The", "type": "PLAN", "sources": [DOC]}]))
    assert [r.source for r in answer.claims[0].citations] == ["https://docs.example/dr-017.md"]


def test_a_span_that_fits_nowhere_becomes_its_own_invalid_claim() -> None:
    text = "Secrets rotate every 45 days."
    answer = load_answer(_response(text, [{"start": 50, "end": 60, "text": "every 90 days", "sources": [DOC]}]))
    assert answer.claims[-1].text == "every 90 days"
    assert "not at 50-60" in answer.claims[-1].citations[0].defect
    assert answer.claims[0].citations == ()


@pytest.mark.parametrize(("citation", "where", "cause"), [
    ({"start": 0, "end": 3, "text": "Sec"}, "message.citations[0].sources", "expected an array"),
    ({"start": 0, "end": 3, "sources": [{"type": "document", "document": {}}]}, "message.citations[0].sources[0]",
     "no 'id'"),
    ({"start": 0, "end": 90, "sources": [DOC]}, "message.citations[0]", "no text to find it by"),
    ({"start": 0, "end": 3, "text": "Sec", "content_index": 4, "sources": [DOC]}, "message.citations[0].content_index",
     "names no content item"),
])
def test_malformed_citations_name_their_path(citation: dict, where: str, cause: str) -> None:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(_response("Secrets rotate every 45 days.", [citation]))
    assert info.value.where == where and cause in info.value.cause


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("cohere")))
def test_fuzzed_responses_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(data, "cohere")
