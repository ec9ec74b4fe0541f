"""OpenAI Responses and Chat Completions output: annotations pinned to sentences, defects, fuzzing."""

from __future__ import annotations

import copy
import time

import pytest
from format_fuzz import example, mutated, read_or_refuse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import AnswerLimits, load_answer
from graphcite.errors import AnswerFormatError


def _response(text: str, annotations: list[dict]) -> dict:
    return {"id": "resp_1", "object": "response", "output": [
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": text, "annotations": annotations}]}]}


def test_example_claims_sources_and_dropped_links() -> None:
    answer = load_answer(example("openai"))
    assert answer.format == "openai" and answer.answer_id == "resp_68a1c0ffee0042"
    assert [c.text for c in answer.claims] == [
        "The webhook relay makes at most five delivery attempts for each event.",
        "DR-017 is owned by the relay team (Ines Okafor, Zoë Lindqvist).",
        "Merchants should reject events whose timestamp is more than five minutes old.",
    ]
    assert [[r.source for r in c.citations] for c in answer.claims] == [
        ["dr-017-webhook-retries.md"], ["dr-017-webhook-retries.md"],
        ["https://docs.larkspur.example/manuals/signing-keys.md"]]
    assert answer.question.startswith("How does")


WORDS = st.sampled_from(["Zoë", "naïve", "中文", "😀", "cafe\u0301", "relay", "retries", "parcels", "Ø", "👩🏽"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=2, max_size=5), min_size=1, max_size=4), st.data())
def test_ranges_and_indexes_over_non_ascii_text_cite_their_sentence(sentences: list[list[str]],
                                                                     data: st.DataObject) -> None:
    texts = [f"Part {i} says " + " ".join(words) + " holds." for i, words in enumerate(sentences)]
    text = " ".join(texts)
    k = data.draw(st.integers(0, len(texts) - 1))
    start = sum(len(t) + 1 for t in texts[:k])
    annotations = [
        {"type": "url_citation", "url": "https://example.org/x.md", "title": "x", "start_index": start,
         "end_index": start + len(texts[k]) - 1},
        {"type": "file_citation", "file_id": "file-1", "filename": "notes/y.md", "index": start + len(texts[k])},
    ]
    answer = load_answer(_response(text, annotations))
    claim = next(c for c in answer.claims if c.text == texts[k])
    assert [r.source for r in claim.citations] == ["https://example.org/x.md", "notes/y.md"]
    assert all(c.citations == () for c in answer.claims if c is not claim)


@pytest.mark.parametrize(("annotation", "defect"), [
    ({"type": "file_citation", "filename": "a.md", "index": 999}, "index 999 is beyond the text"),
    ({"type": "file_citation", "filename": "a.md", "index": -3}, "index -3 is negative"),
    ({"type": "file_citation", "filename": "a.md", "index": "7"}, 'index a string is not an integer'),
    ({"type": "url_citation", "url": "https://x.org", "start_index": 40, "end_index": 999}, "beyond the text"),
    ({"type": "url_citation", "url": "https://x.org", "start_index": 9, "end_index": 2}, "start_index 9 is after"),
])
def test_unusable_positions_make_only_that_citation_defective(annotation: dict, defect: str) -> None:
    text = "The relay retries five times. Parked events last three days."
    good = {"type": "file_citation", "filename": "b.md", "index": 29}
    answer = load_answer(_response(text, [good, annotation]))
    assert answer.claims[0].citations[0].source == "b.md" and not answer.claims[0].citations[0].defect
    defective = [r for c in answer.claims for r in c.citations if r.defect]
    assert len(defective) == 1 and defect in defective[0].defect
    assert defective[0] in answer.claims[-1].citations  # pinned to the last sentence, read as invalid there


@pytest.mark.parametrize(("annotation", "where", "cause"), [
    ({"type": "url_citation", "start_index": 0, "end_index": 5}, "url", "has no 'url'"),
    ({"type": "file_citation", "index": 3}, "annotations[0]", "no 'filename' or 'file_id'"),
    ({"type": "quote_citation", "index": 3}, "type", "unknown annotation type"),
    ({"index": 3}, "type", "string 'type'"),
])
def test_malformed_annotations_name_their_path(annotation: dict, where: str, cause: str) -> None:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(_response("The relay retries five times.", [annotation]))
    assert info.value.where.endswith(where) and cause in info.value.cause


def test_file_path_annotations_and_other_items_are_skipped() -> None:
    answer = load_answer(_response("The export is ready to download now.",
                                   [{"type": "file_path", "file_id": "f", "index": 3}]))
    assert answer.claims[0].citations == ()


def test_chat_completions_url_citations() -> None:
    text = "Signing secrets rotate every 45 days ([larkspur](https://docs.example/keys))."
    a = text.index(" ([")
    data = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": text, "annotations": [{"type": "url_citation", "url_citation": {
            "url": "https://docs.example/keys", "title": "keys", "start_index": a, "end_index": len(text) - 1}}]}}]}
    answer = load_answer(data)
    assert answer.format == "openai"
    assert answer.claims[0].text == "Signing secrets rotate every 45 days."
    assert answer.claims[0].citations[0].source == "https://docs.example/keys"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("openai")))
def test_fuzzed_responses_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(copy.deepcopy(data), "openai")


def test_huge_responses_are_bounded_and_fast() -> None:
    sentence = "The relay retries a failed delivery with a growing wait. "
    text = sentence * 4000
    annotations = [{"type": "file_citation", "filename": "a.md", "index": (i + 1) * len(sentence) - 1}
                   for i in range(4000)]
    start = time.perf_counter()
    answer = load_answer(_response(text, annotations))
    assert len(answer.claims) == 4000 and all(c.citations for c in answer.claims)
    assert time.perf_counter() - start < 5
    with pytest.raises(AnswerFormatError) as info:
        load_answer(_response(text, annotations), limits=AnswerLimits(max_claims=1000))
    assert info.value.code == "E204"
