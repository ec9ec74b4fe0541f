"""Answers that carry their passages, and `graphcite eval-rag` / :func:`graphcite.evaluate_rag`.

Real DuckDB stores, real files, the real verifier; the bundled corpus for passages whose document
is stored.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from graphcite.claims.formats import answer_to_dict, load_answer
from graphcite.claims.formats.passages import passage_key
from graphcite.cli import app
from graphcite.cli.render import render_rag
from graphcite.errors import AnswerFormatError, InputError
from graphcite.rag import EVIDENCE_KIND, claim_reasons, evaluate_rag, load_samples, store_passages
from graphcite.store import Store
from graphcite.verify.check import check_answer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "graphcite" / "examples" / "rag" / "samples.jsonl"
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
DR017 = "decisions/dr-017-webhook-retries.md"
PARKED = ("After the fifth failed attempt the event is parked for 72 hours. Operators may replay a parked event "
          "from the relay console during that time; a replay starts a fresh delivery.")
runner = CliRunner()


def _langchain(source: str = "/srv/larkspur/corpus/decisions/dr-017-webhook-retries.md",
               start_index: int | None = None) -> dict:
    metadata: dict = {"source": source}
    if start_index is not None:
        metadata["start_index"] = start_index
    return {"input": "How long is a parked event kept?",
            "answer": "Operators may replay a parked event from the relay console during that time.",
            "context": [{"page_content": PARKED, "metadata": metadata}]}


def _stored_passage_rows(store: Store) -> list[dict]:
    return store.rows("SELECT s.key, r.text, r.metadata_json FROM source s JOIN source_revision r "
                      "ON r.revision_id = s.current_revision WHERE s.key LIKE 'passages/%' ORDER BY s.key")


# --------------------------------------------------------------------------------------------
# Passages that came with the answer
# --------------------------------------------------------------------------------------------


def test_a_langchain_answer_is_verified_against_its_passages_in_an_empty_store(store: Store) -> None:
    answer = store_passages(store, load_answer(_langchain()))
    report = check_answer(store, answer)
    claim = report["claims"][0]
    assert claim["status"] == "supported", claim
    cit = claim["citations"][0]
    assert cit["valid"] and cit["source"] == passage_key(PARKED)
    rows = _stored_passage_rows(store)
    assert [r["text"] for r in rows] == [PARKED]  # stored as given, never normalised
    meta = json.loads(rows[0]["metadata_json"])
    assert meta["evidence_kind"] == EVIDENCE_KIND
    assert meta["source_name"].endswith("dr-017-webhook-retries.md")


def test_the_same_passage_text_is_stored_once(store: Store) -> None:
    first = load_answer(_langchain())
    second = load_answer({"user_input": "q", "response": "Operators may replay a parked event.",
                          "retrieved_contexts": [PARKED]})
    store_passages(store, [first, second])
    store_passages(store, first)
    assert [r["key"] for r in _stored_passage_rows(store)] == [passage_key(PARKED)]


def test_a_passage_whose_document_is_stored_is_verified_at_its_span(corpus_store: Store) -> None:
    text = (CORPUS / DR017).read_text(encoding="utf-8")
    at = text.index(PARKED)
    for start_index, how in ((at, "exact"), (at + 7, "located"), (None, "located")):
        answer = store_passages(corpus_store, load_answer(_langchain(start_index=start_index)))
        ref = answer.claims[0].citations[0]
        assert (ref.source, ref.start, ref.end) == (DR017, at, at + len(PARKED)), how
        assert ref.revision is not None and ref.passage == 0
        report = check_answer(corpus_store, answer)
        assert report["claims"][0]["citations"][0]["source"] == DR017
        assert report["claims"][0]["status"] == "supported"
    assert _stored_passage_rows(corpus_store) == []  # nothing stored twice: the document holds the text


def test_a_passage_its_document_does_not_hold_is_a_source_of_its_own(corpus_store: Store) -> None:
    data = _langchain(source=DR017)
    data["context"][0]["page_content"] = "Parked events are kept for 72 hours in the overflow queue."
    answer = store_passages(corpus_store, load_answer(data))
    assert answer.claims[0].citations[0].source == passage_key("Parked events are kept for 72 hours in the "
                                                               "overflow queue.")


@pytest.mark.parametrize("data", [
    {"question": "q", "output": "Operators may replay a parked event from the relay console [1].",
     "docs": [{"title": "DR-017 excerpt", "text": PARKED}]},
    {"claims": [{"text": "Operators may replay a parked event from the relay console.",
                 "citations": [{"passage": PARKED}]}]},
    {"question": "q", "answer": "Operators may replay a parked event from the relay console.", "contexts": [PARKED]},
    {"input": "q", "actual_output": "Operators may replay a parked event from the relay console.",
     "retrieval_context": [PARKED]},
    {"response": "Operators may replay a parked event from the relay console.",
     "source_nodes": [{"node": {"text": PARKED, "metadata": {"file_name": "unknown.md"}}}]},
], ids=["alce", "native-inline", "ragas", "deepeval", "llamaindex"])
def test_every_format_with_passage_text_is_verified_against_it(store: Store, data: dict) -> None:
    answer = load_answer(data)
    assert [p.text for p in answer.passages] == [PARKED]
    report = check_answer(store, store_passages(store, answer))
    assert report["claims"][0]["status"] == "supported", report["claims"][0]


def test_passages_survive_the_canonical_form_and_a_stored_answer(store: Store) -> None:
    answer = load_answer(_langchain())
    again = load_answer(answer_to_dict(answer), format="native")
    assert again.passages == answer.passages and again.claims == answer.claims
    with pytest.raises(AnswerFormatError, match="not one of the answer's 1 passages"):
        load_answer({"claims": [{"text": "A claim.", "citations": [{"passage": 3}]}],
                     "passages": [{"text": PARKED}]})
    with pytest.raises(AnswerFormatError, match="does not match its text"):
        load_answer({"claims": [], "passages": [{"text": PARKED, "key": "passages/0000.txt"}]})


def test_sentences_that_assert_nothing_are_kept_out_of_the_claims(store: Store) -> None:
    answer = load_answer({"user_input": "q", "response": "Here is what I found. Operators may replay a parked "
                          "event from the relay console. I hope this helps. Shall I list the wait table?",
                          "retrieved_contexts": [PARKED]})
    assert [c.text for c in answer.claims] == ["Operators may replay a parked event from the relay console."]
    assert answer.not_claims == ("Here is what I found.", "I hope this helps.", "Shall I list the wait table?")
    assert load_answer(answer_to_dict(answer), format="native").not_claims == answer.not_claims
    report = check_answer(store, store_passages(store, answer))
    assert report["metrics"]["claims"] == 1 and report["metrics"]["faithfulness"] == 1.0


# --------------------------------------------------------------------------------------------
# evaluate_rag
# --------------------------------------------------------------------------------------------


def test_evaluate_rag_on_the_bundled_samples() -> None:
    result = evaluate_rag(SAMPLES)
    summary = result.summary
    assert summary["samples"] == 10 and summary["claims"] == 14
    assert 0 < summary["citation_validity"] < 1 and summary["citation_integrity"] == 1.0
    rows = {(r["sample"], r["claim"]): r for r in result.claim_rows()}
    assert rows[("rag-02", 1)]["status"] == "contradicted"
    assert any("72 hours" in reason for reason in rows[("rag-02", 1)]["reasons"])
    reasons = [reason for r in rows.values() for reason in r["reasons"]]
    assert reasons
    assert all(reason.startswith("[") and reason.endswith(")") and " (GC" in reason for reason in reasons
               if reason != "no citation supports it" and not reason.startswith("against it: "))
    cited = [reason.split("] ", 1)[1] for reason in reasons if reason.startswith("[")]
    assert all((text[:1].isupper() or text[:1].isdigit()) and ". (GC" in text for text in cited)  # the reports' sentences, not raw details
    assert rows[("rag-07", 1)]["reference"].startswith("14 days")  # kept, not used
    assert result.samples[2].answer.not_claims == ("Here is what I found.", "I hope this helps.")
    assert result.verifier["config_hash"]


def test_supported_elsewhere_counts_a_claim_another_passage_supports() -> None:
    sample = {"id": "s1", "question": "q", "answer": "Parked events are kept for 3 days and then deleted [2].",
              "contexts": ["Parked events are kept for 3 days and then deleted.",
                           "Bulk replay is allowed only after the merchant confirms the endpoint is healthy."]}
    result = evaluate_rag([sample])
    row = result.claim_rows()[0]
    assert row["supported"] is False and row["supported_elsewhere"] is True
    assert result.summary["citation_validity"] == 0.0 and result.summary["supported_elsewhere"] == 1.0


def test_evaluate_rag_with_the_corpus_verifies_against_stored_documents(corpus_store: Store) -> None:
    result = evaluate_rag(SAMPLES, store=corpus_store)
    rows = {(r["sample"], r["claim"]): r for r in result.claim_rows()}
    assert rows[("rag-01", 1)]["evidence"][0].startswith(DR017 + ":")
    assert rows[("rag-06", 1)]["evidence"][0].startswith("manuals/webhook-relay-runbook.md:")


def test_a_claim_its_passage_supports_but_the_store_contradicts_says_why(corpus_store: Store) -> None:
    result = evaluate_rag(SAMPLES, store=corpus_store)
    conflicts = [r for r in result.claim_rows() if r["status"] == "conflict"]
    assert [(r["sample"], r["claim"]) for r in conflicts] == [("rag-10", 1)]  # the case the samples' README names
    for row in conflicts:
        against = [reason for reason in row["reasons"] if reason.startswith("against it: ")]
        assert against and row["reasons"] == against, row["reasons"]  # not "no citation supports it"
        assert row["supported_elsewhere"] is True  # its own passage supports it; the stored documents disagree
    text = io.StringIO()
    render_rag(result, Console(file=text, width=200))
    line = next(line for line in text.getvalue().splitlines() if "rag-10 claim 1" in line)
    assert "(conflict)" in line and "another passage" not in line
    assert "Against it: decisions/" in text.getvalue()


def test_a_samples_verdict_does_not_depend_on_the_other_samples_passages() -> None:
    alone = {"id": "a", "question": "q", "answer": "A parked event is kept for 48 hours.",
             "contexts": ["A parked event is kept for 48 hours."]}
    other = {"id": "b", "question": "q", "answer": "Parked events are kept for 3 days and then deleted.",
             "contexts": ["Delivery logs are kept for 2 weeks. Parked events are kept for 3 days and then deleted."]}
    by_itself = evaluate_rag([alone]).claim_rows()[0]
    beside = evaluate_rag([alone, other]).claim_rows()[0]
    assert by_itself["status"] == "supported"
    assert (beside["status"], beside["reasons"]) == (by_itself["status"], by_itself["reasons"])


def test_the_usual_chatter_of_an_answer_is_not_a_claim() -> None:
    chatter = ["Sure!", "Certainly.", "Great question!", "Thanks for asking.", "Let me know if you have other questions.",
               "Feel free to ask more."]
    for text in chatter:
        answer = load_answer({"question": "q", "answer": f"{text} The relay makes at most five delivery attempts.",
                              "contexts": ["The relay makes at most five delivery attempts."]})
        assert answer.not_claims == (text,), text


def test_claim_reasons_name_the_stored_evidence_against_a_claim() -> None:
    claim = {"supported": False, "citations": [{"index": 0, "relation": "supports", "findings": [
        {"code": "GC201", "outcome": "pass", "detail": ""}]}], "contradicting_evidence": [
        {"source": "decisions/keep.md", "status": "current", "superseded_by": None,
         "reason": "says '72 hours' where the claim says '3 days'"},
        {"source": "notes/old.md", "status": "superseded", "superseded_by": "decisions/keep.md",
         "reason": "states the opposite polarity"}]}
    assert claim_reasons(claim) == [
        "against it: decisions/keep.md (current) says '72 hours' where the claim says '3 days'",
        "against it: notes/old.md (superseded, superseded by decisions/keep.md) states the opposite polarity"]
    assert claim_reasons({"supported": False, "citations": [{"index": 0, "findings": []}]}) == [
        "no citation supports it"]
    assert claim_reasons({"supported": False, "citations": []}) == ["it cites nothing"]


def test_two_samples_with_one_id_are_told_apart_by_their_row() -> None:
    sample = {"question": "How long is a parked event kept?", "answer": "A parked event is kept for 72 hours.",
              "contexts": ["A parked event is kept for 72 hours."]}
    result = evaluate_rag([sample, dict(sample), {**sample, "id": "other"}])
    ids = [row["sample"] for row in result.sample_rows()]
    assert len(set(ids)) == 3 and ids[2] == "other"
    assert ids[0].endswith("#1") and ids[1].endswith("#2") and ids[0][:-2] == ids[1][:-2]  # one content, two rows
    for sample_dict in result.as_dict()["samples"]:  # each sample lists its own claims only
        assert [c["sample"] for c in sample_dict["claims"]] == [sample_dict["sample"]]


def test_load_samples_reads_lines_lists_and_columns(tmp_path: Path) -> None:
    rows = [{"question": "a", "answer": "b", "contexts": ["c"]}, {"question": "d", "answer": "e", "contexts": ["f"]}]
    lines, listed, columns = tmp_path / "a.jsonl", tmp_path / "b.json", tmp_path / "c.json"
    lines.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    listed.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    columns.write_text(json.dumps({k: [r[k] for r in rows] for k in rows[0]}, indent=2), encoding="utf-8")
    for path in (lines, listed, columns):
        assert load_samples(path) == rows, path.name
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_samples(bad)
    assert info.value.where.endswith("bad.jsonl:2")


def test_to_dataframe_has_one_row_per_claim() -> None:
    pd = pytest.importorskip("pandas")
    result = evaluate_rag([{"question": "q", "answer": "Parked events are kept for 3 days and then deleted.",
                            "contexts": ["Parked events are kept for 3 days and then deleted."]}])
    frame = result.to_dataframe()
    assert isinstance(frame, pd.DataFrame) and list(frame["status"]) == ["supported"]


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def test_eval_rag_command_json_parquet_and_text(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "claims.parquet"
    result = runner.invoke(app, ["eval-rag", str(SAMPLES), "--json", "--parquet", str(out)])
    assert result.exit_code == 0, result.output[-2000:]
    data = json.loads(result.output)
    assert data["summary"]["samples"] == 10 and set(data["metrics_explained"]) >= {"supported_elsewhere"}
    assert [s["sample"] for s in data["samples"]][:2] == ["rag-01", "rag-02"]
    table = pq.read_table(out)
    assert table.num_rows == 14 and "reasons" in table.column_names
    text = runner.invoke(app, ["eval-rag", str(SAMPLES)])
    assert text.exit_code == 0
    assert "How long are parked events kept according to the runbook?" in text.output  # never cut to 80 columns
    assert "…" not in text.output
    assert "supported_elsewhere" in text.output and "configuration hash" in text.output
    assert "not a claim (asserts nothing" in text.output


def test_check_command_verifies_a_langchain_file_against_its_passages(tmp_path: Path) -> None:
    path = tmp_path / "lc.json"
    path.write_text(json.dumps(_langchain()), encoding="utf-8")
    db = tmp_path / "s.duckdb"
    result = runner.invoke(app, ["check", str(path), "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output[-2000:]
    report = json.loads(result.output)
    assert report["claims"][0]["status"] == "supported"
    text = runner.invoke(app, ["check", str(path), "--db", str(db)])
    assert "a passage that came with the answer" in text.output
    assert "decided by the default configuration; configuration hash" in text.output
    assert "audience internal" in text.output


def test_evaluate_set_and_evaluate_rag_report_progress(corpus_store: Store) -> None:
    from graphcite.evaluate import evaluate_set

    seen: list[tuple[int, int]] = []
    evaluate_rag(SAMPLES, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(i, 10) for i in range(1, 11)]
    labelled = ROOT / "graphcite" / "examples" / "labelled" / "heldout.jsonl"
    ticks: list[tuple[int, int]] = []
    result = evaluate_set(corpus_store, labelled, baseline="lexical", progress=lambda d, t: ticks.append((d, t)))
    assert ticks[-1] == (2 * result["items"], 2 * result["items"]) and len(ticks) == 2 * result["items"]
