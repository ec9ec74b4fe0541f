"""LangChain and LlamaIndex results: marked documents, all documents when unmarked, pages, fuzzing."""

from __future__ import annotations

import pytest
from format_fuzz import example, mutated, read_or_refuse
from hypothesis import HealthCheck, given, settings

from graphcite.claims.formats import load_answer
from graphcite.errors import AnswerFormatError


def _doc(source: str, **meta: object) -> dict:
    return {"page_content": "…", "metadata": {"source": source, **meta}, "type": "Document"}


def test_langchain_example_marks_and_paths() -> None:
    answer = load_answer(example("langchain"))
    assert answer.format == "langchain" and answer.question == "How long are parked webhook events kept?"
    assert [c.text for c in answer.claims] == [
        "After the fifth failed attempt the relay parks the event for 72 hours.",
        "Operators may replay a parked event from the relay console during that time."]
    assert all([r.source for r in c.citations] == ["/srv/larkspur/corpus/decisions/dr-017-webhook-retries.md"]
               for c in answer.claims)


def test_langchain_unmarked_answers_cite_every_document_and_pages_are_one_based() -> None:
    data = {"query": "q?", "result": "Zoë's team owns the relay. Parcels wait — at most — 20 minutes.",
            "source_documents": [_doc("/docs/a.pdf", page=0, start_index=12), _doc("b.md", page_label="7"),
                                 {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
                                  "kwargs": {"page_content": "x", "metadata": {"source": "c.md"}}}]}
    answer = load_answer(data)
    assert answer.format == "langchain" and len(answer.claims) == 2
    for claim in answer.claims:
        assert [(r.source, r.page) for r in claim.citations] == [("/docs/a.pdf", 1), ("b.md", 7), ("c.md", None)]


def test_langchain_marker_beyond_the_documents_is_a_defect_for_that_sentence_only() -> None:
    data = {"input": "q", "answer": "One holds [1]. Two holds [4].", "context": [_doc("a.md")]}
    answer = load_answer(data)
    assert answer.claims[0].citations[0].source == "a.md"
    assert "marker [4] has no retrieved document (1 given)" in answer.claims[1].citations[0].defect


def test_llamaindex_example_and_flat_nodes() -> None:
    answer = load_answer(example("llamaindex"))
    assert answer.format == "llamaindex"
    assert answer.claims[1].text.endswith("with the reason “timeout, no lookup”.")
    assert {r.source for c in answer.claims for r in c.citations} == {"/data/corpus/contracts/northpass-adapter.md"}
    flat = {"response": "Held parcels go to the desk [1]. Scaling is safe [2].", "source_nodes": [
        {"id_": "n1", "text": "t", "metadata": {"file_name": "dispatcher.md", "page_label": "3"}, "score": 0.5},
        {"node_id": "n2", "text": "t", "metadata": {"url": "https://docs.example/ops.md"}}]}
    answer = load_answer(flat)
    assert [(r.source, r.page) for r in answer.claims[0].citations] == [("dispatcher.md", 3)]
    assert [r.source for r in answer.claims[1].citations] == ["https://docs.example/ops.md"]
    for name in ("n2", "https://docs.example/ops.md"):  # the map is asked about every name the node goes by
        mapped = load_answer(flat, source_map={name: "manuals/ops.md"})
        assert mapped.claims[1].citations[0].source == "manuals/ops.md"


@pytest.mark.parametrize(("data", "where", "cause"), [
    ({"answer": "x", "context": [{"metadata": {}}]}, "context[0].metadata", "no 'source'"),
    ({"answer": "x", "context": [{"other": 1}]}, "context[0]", "needs 'page_content' and 'metadata'"),
    ({"answer": "x", "context": "docs"}, "context", "expected an array"),
    ({"response": "x", "source_nodes": [{"node": {"text": "t", "metadata": 3}}]}, "source_nodes[0].node.metadata",
     "expected an object"),
    ({"response": 5, "source_nodes": []}, "response", "expected a string"),
])
def test_malformed_results_name_their_path(data: dict, where: str, cause: str) -> None:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(data)
    assert info.value.where == where and cause in info.value.cause


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("langchain")))
def test_fuzzed_langchain_results_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(data, "langchain")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(example("llamaindex")))
def test_fuzzed_llamaindex_results_read_or_refuse_in_one_line(data: dict) -> None:
    read_or_refuse(data)
    read_or_refuse(data, "llamaindex")


def test_huge_unmarked_answers_load() -> None:
    answer = load_answer({"answer": "The relay retries a failed delivery. " * 3000,
                          "context": [_doc(f"d{i}.md") for i in range(5)]})
    assert len(answer.claims) == 3000 and all(len(c.citations) == 5 for c in answer.claims)
