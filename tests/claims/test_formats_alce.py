"""ALCE outputs: [n] markers into docs, titles as sources, run files, fuzzing."""

from __future__ import annotations

import pytest
from format_fuzz import example, mutated, read_or_refuse
from hypothesis import HealthCheck, given, settings

from graphcite.claims.formats import load_answer
from graphcite.errors import AnswerFormatError


def test_example_cites_documents_by_title() -> None:
    answer = load_answer(example("alce"))
    assert answer.format == "alce" and answer.answer_id == "asqa-demo-1"
    assert [c.text for c in answer.claims] == ["The relay makes at most five delivery attempts for each event.",
                                               "Under the 2022 note it retried a failed delivery 3 times."]
    assert [[r.source for r in c.citations] for c in answer.claims] == [
        ["DR-017: Webhook relay retries and parking"], ["Webhook relay retry behaviour"]]


def test_unmarked_sentences_cite_nothing_and_ids_can_be_mapped() -> None:
    item = {"sample_id": 42, "question": "Wer?", "output": "Zoë führt das Team [1][2]. Das ist alles, was bekannt ist.",
            "docs": [{"id": "w1", "title": "Team page", "text": "…"}, {"id": 7, "text": "…"}]}
    answer = load_answer(item, source_map={"7": "notes/team.md"})
    assert answer.answer_id == "42"
    assert [r.source for r in answer.claims[0].citations] == ["Team page", "notes/team.md"]
    assert answer.claims[1].citations == ()


@pytest.mark.parametrize(("data", "where", "cause"), [
    ({"output": "A [1].", "docs": [{"text": "  "}]}, "docs[0].title", "needs a 'title'"),
    ({"output": "A [1].", "docs": [{"title": "  "}]}, "docs[0].title", "non-empty"),
    ({"output": 3, "docs": []}, "output", "expected a string"),
    ({"data": [{"output": "A.", "docs": []}, {"output": "B."}]}, "data", "2 items"),
    ({"data": [{"output": "A."}]}, "data[0].docs", "'docs' is missing"),
])
def test_malformed_items_name_their_path(data: dict, where: str, cause: str) -> None:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(data)
    assert info.value.where == where and cause in info.value.cause


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("alce")))
def test_fuzzed_items_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(data, "alce")
