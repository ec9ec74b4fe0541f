"""What a report says beyond its verdicts (issue 25): the sentences that assert nothing (kept, shown, never
counted, also for a stored answer checked again by id), passages named as passages, and the configuration
that decided, in the text report and in eval-rag's JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphcite.claims.answers import get_answer
from graphcite.claims.formats import load_answer, load_answer_text
from graphcite.claims.formats.passages import EVIDENCE_KIND, evidence_kind, passage_key
from graphcite.cli import app
from graphcite.cli.render import config_line
from graphcite.store import Store
from graphcite.verify.check import check_answer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "graphcite" / "examples" / "rag" / "samples.jsonl"
runner = CliRunner()
TEXT = ("Here is what I found. The relay parks an event for 72 hours after the fifth failed attempt [1]. "
        "I hope this helps.\n\nPassages:\n[1] decisions/dr-017-webhook-retries.md\n")


def test_a_stored_answer_keeps_its_sentences_that_assert_nothing(corpus_store: Store) -> None:
    answer = load_answer_text(TEXT)
    assert answer.not_claims == ("Here is what I found.", "I hope this helps.")
    report = check_answer(corpus_store, answer)
    assert report["metrics"]["claims"] == 1  # outside the metrics
    _, stored = get_answer(corpus_store, answer.answer_id)
    assert stored.not_claims == answer.not_claims and len(stored.claims) == 1


def test_check_by_id_lists_what_is_not_a_claim(corpus_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    db.write_bytes(corpus_db.read_bytes())
    first = runner.invoke(app, ["check", "--text", TEXT, "--db", str(db)])
    assert first.exit_code == 0, first.output[-800:]
    answer_id = load_answer_text(TEXT).answer_id
    again = runner.invoke(app, ["check", answer_id, "--db", str(db)])
    assert again.exit_code == 0, again.output[-800:]
    for output in (first.output, again.output):
        assert "not a claim (asserts nothing; not checked, not counted): Here is what I found." in output
        assert "not a claim (asserts nothing; not checked, not counted): I hope this helps." in output
        assert "0/1 claims" in output or "1/1 claims" in output


def test_the_header_names_the_configuration_a_report_carries() -> None:
    named = {"verifier": {"name": "verifier.yaml", "config_hash": "0123abcd"}, "audience": "public"}
    assert config_line(named).startswith("decided by the configuration verifier.yaml; configuration hash 0123abcd (")
    assert config_line(named).endswith("; audience public")
    assert config_line({"verifier": {"name": "default"}}).startswith("decided by the default configuration")
    assert config_line(named, "the configuration in x.yaml").startswith("decided by the configuration in x.yaml")


def test_a_passage_citation_is_an_answer_passage() -> None:
    key = passage_key("The relay parks an event for 72 hours.")
    assert evidence_kind(key) == EVIDENCE_KIND == "answer-passage"
    assert evidence_kind("decisions/dr-017-webhook-retries.md") is None and evidence_kind(None) is None


def test_eval_rag_json_keeps_not_claims_and_names_the_evidence_kind() -> None:
    result = runner.invoke(app, ["eval-rag", str(SAMPLES), "--json"])
    assert result.exit_code == 0, result.output[-800:]
    data = json.loads(result.output)
    by_id = {s["sample"]: s for s in data["samples"]}
    assert data["samples"][2]["not_claims"] == ["Here is what I found.", "I hope this helps."]
    assert data["samples"][0]["not_claims"] == []
    assert sum(len(s["claims"]) for s in by_id.values()) == data["summary"]["claims"]
    kinds = {k for s in data["samples"] for c in s["claims"] for k in c["evidence_kinds"]}
    assert kinds == {"answer-passage"}  # no store: every passage is verified alone
    for sample in data["samples"]:
        for claim in sample["claims"]:
            assert len(claim["evidence_kinds"]) == len(claim["evidence"])


def test_the_report_json_carries_not_claims_the_configuration_name_and_passage_kinds(corpus_store: Store,
                                                                                      tmp_path: Path) -> None:
    from graphcite.verify.config import VerifierConfig, load_config

    report = check_answer(corpus_store, load_answer_text(TEXT))
    assert report["not_claims"] == ["Here is what I found.", "I hope this helps."]
    assert report["verifier"]["name"] == "default"
    assert all("evidence_kind" not in c for claim in report["claims"] for c in claim["citations"])  # a stored document
    named = tmp_path / "strict.yaml"
    named.write_text("threshold: 0.65\n", encoding="utf-8")
    config = load_config(named)
    assert config.name == "strict.yaml" and config.hash == VerifierConfig().hash  # the name is not a setting
    assert check_answer(corpus_store, load_answer_text(TEXT), config=config)["verifier"]["name"] == "strict.yaml"
    passage = "The relay parks an event for 72 hours after the fifth failed attempt."
    carried = check_answer(corpus_store, load_answer({"answer_id": "p", "question": "q", "answer": passage,
                                                      "contexts": [passage]}))
    kinds = {c.get("evidence_kind") for claim in carried["claims"] for c in claim["citations"]}
    assert kinds == {EVIDENCE_KIND}, kinds
