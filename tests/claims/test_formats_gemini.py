"""Gemini groundingMetadata: UTF-8 byte segments, chunks to sources, wrong units, fuzzing."""

from __future__ import annotations

import pytest
from format_fuzz import example, mutated, read_or_refuse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import load_answer
from graphcite.errors import AnswerFormatError


def _response(text: str, supports: list[dict], chunks: list[dict] | None = None, snake: bool = False) -> dict:
    chunks = chunks if chunks is not None else [{"web": {"uri": "https://docs.example/a.md", "title": "A"}}]
    meta = {"groundingChunks": chunks, "groundingSupports": supports}
    if snake:
        meta = {"grounding_chunks": chunks, "grounding_supports": [
            {"segment": {k.replace("Index", "_index"): v for k, v in s["segment"].items()},
             "grounding_chunk_indices": s["groundingChunkIndices"]} for s in supports]}
        return {"candidates": [{"content": {"parts": [{"text": text}]}, "grounding_metadata": meta}]}
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": meta}]}


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def test_example_reads_byte_offsets_and_page_spans() -> None:
    answer = load_answer(example("gemini"))
    assert answer.format == "gemini" and answer.answer_id == "gem-4f1c9e"
    assert answer.claims[0].text == "DR-017 is owned by the relay team (Ines Okafor, Zoë Lindqvist)."
    assert [r.source for r in answer.claims[1].citations] == [
        "gs://larkspur-docs/decisions/dr-017-webhook-retries.md",
        "https://docs.larkspur.example/decisions/dr-017-webhook-retries.md"]
    chunks = [{"retrievedContext": {"uri": "gs://b/manual.pdf", "title": "Manual",
                                    "ragChunk": {"pageSpan": {"firstPage": 3, "lastPage": 4}}}}]
    paged = load_answer(_response("The manual covers the hold state.", [
        {"segment": {"endIndex": 10}, "groundingChunkIndices": [0]}], chunks))
    ref = paged.claims[0].citations[0]
    assert (ref.source, ref.page, ref.page_end) == ("gs://b/manual.pdf", 3, 4)


SENTENCE = st.lists(st.sampled_from(["Zoë", "naïve", "中文", "😀", "e\u0301", "relay", "parcels", "Åse", "👩🏽‍💻"]),
                    min_size=2, max_size=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(SENTENCE, min_size=2, max_size=4), st.data(), st.booleans())
def test_byte_segments_over_non_ascii_text_cite_their_sentence(sentences: list[list[str]], data: st.DataObject,
                                                                snake: bool) -> None:
    texts = [f"Part {i} says " + " ".join(words) + "." for i, words in enumerate(sentences)]
    text = " ".join(texts)
    k = data.draw(st.integers(0, len(texts) - 1))
    start = _bytes(" ".join(texts[:k]) + (" " if k else ""))
    segment = {"endIndex": start + _bytes(texts[k]), "text": texts[k]}
    if start:
        segment["startIndex"] = start
    answer = load_answer(_response(text, [{"segment": segment, "groundingChunkIndices": [0]}], snake=snake))
    cited = [c for c in answer.claims if c.citations]
    assert [c.text for c in cited] == [texts[k]]
    assert cited[0].citations[0].source == "https://docs.example/a.md" and not cited[0].citations[0].defect


def test_code_point_offsets_given_by_mistake_are_recovered_from_the_segment_text() -> None:
    text = "Zoë owns the relay. Parcels wait 20 minutes."
    second = text.index("Parcels")
    wrong_unit = {"startIndex": second, "endIndex": len(text), "text": text[second:]}  # code points, not bytes
    answer = load_answer(_response(text, [{"segment": wrong_unit, "groundingChunkIndices": [0]}]))
    assert [c.text for c in answer.claims if c.citations] == ["Parcels wait 20 minutes."]


@pytest.mark.parametrize(("segment", "defect"), [
    ({"startIndex": 2, "endIndex": 999, "text": "not in the answer"}, "beyond the text"),
    ({"startIndex": 1, "endIndex": 3, "text": "absent words"}, "falls inside a character"),
    ({"startIndex": -4, "endIndex": 3, "text": "absent words"}, "negative"),
])
def test_a_segment_that_fits_nowhere_is_its_own_claim_with_invalid_citations(segment: dict, defect: str) -> None:
    text = "ëë owns the relay."
    answer = load_answer(_response(text, [{"segment": segment, "groundingChunkIndices": [0]}]))
    loose = answer.claims[-1]
    assert loose.text == segment["text"] and defect in loose.citations[0].defect
    assert answer.claims[0].text == "ëë owns the relay."


def test_bad_chunk_indices_are_defects_and_missing_fields_are_named() -> None:
    answer = load_answer(_response("The relay parks events for 72 hours.", [
        {"segment": {"endIndex": 10}, "groundingChunkIndices": [0, 7, "x"]}]))
    refs = answer.claims[0].citations
    assert refs[0].source and "names no chunk" in refs[1].defect and "not an integer" in refs[2].defect
    with pytest.raises(AnswerFormatError) as info:
        load_answer(_response("Text here is fine.", [{"segment": {"endIndex": 3}, "groundingChunkIndices": [0]}],
                              chunks=[{"maps": {}}]))
    assert "needs 'web' or 'retrievedContext'" in info.value.cause
    assert info.value.where == "candidates[0].groundingMetadata.groundingChunks[0]"
    with pytest.raises(AnswerFormatError) as info:
        load_answer(_response("Text.", [{"segment": {"endIndex": 999}, "groundingChunkIndices": [0]}]))
    assert "no text to find it by" in info.value.cause


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("gemini")))
def test_fuzzed_responses_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(data, "gemini")


def test_huge_responses_load() -> None:
    sentence = "Zoë parks the event for 72 hours. "
    text = sentence * 3000
    width = _bytes(sentence)
    supports = [{"segment": {"startIndex": i * width, "endIndex": (i + 1) * width - 1}, "groundingChunkIndices": [0]}
                for i in range(3000)]
    answer = load_answer(_response(text, supports))
    assert len(answer.claims) == 3000 and all(len(c.citations) == 1 for c in answer.claims)
