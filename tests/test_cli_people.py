"""What a person sees: whole lines when piped, configuration and audience named, sentences for
findings, one citation numbering, id prefixes, gate's decline exit code, the format registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphcite.claims.formats import FORMATS, detect_format, load_answer
from graphcite.claims.formats.registry import _REGISTRY, FormatInfo, answer_format, formats
from graphcite.cli import app
from graphcite.cli.graph import finding_lines
from graphcite.store import Store
from graphcite.verify.check import check_answer

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
runner = CliRunner()


@pytest.fixture
def checked(corpus_store: Store, tmp_path: Path) -> tuple[Path, dict]:
    """The corpus store with the clean demo answer checked; (db path, report)."""
    report = check_answer(corpus_store, ANSWERS / "clean.json")
    path = Path(corpus_store.path) if hasattr(corpus_store, "path") else tmp_path / "corpus.duckdb"
    corpus_store.close()
    return path, report


def test_piped_tables_are_never_cut_to_80_columns() -> None:
    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0
    assert "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) > 120
    assert "a citation without offsets or quote is located" in result.output


def test_check_report_names_configuration_hash_and_audience(corpus_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    db.write_bytes(corpus_db.read_bytes())
    config = ROOT / "graphcite" / "examples" / "verifier.yaml"
    default = runner.invoke(app, ["check", str(ANSWERS / "traps.json"), "--db", str(db), "--audience", "public"])
    tuned = runner.invoke(app, ["check", str(ANSWERS / "traps.json"), "--db", str(db), "--config", str(config)])
    assert default.exit_code == 0 and tuned.exit_code == 0, default.output[-500:]
    assert "decided by the default configuration; configuration hash " in default.output
    assert "audience public" in default.output
    assert f"decided by the configuration in {config}" in tuned.output and "audience internal" in tuned.output
    first = next(line for line in default.output.splitlines() if "configuration hash" in line)
    second = next(line for line in tuned.output.splitlines() if "configuration hash" in line)
    assert first.split("configuration hash ")[1][:16] != second.split("configuration hash ")[1][:16]
    assert "every setting that can change a verdict" in first
    assert "faithfulness 1" not in default.output and "faithful: " in default.output


def test_one_rule_is_one_line_per_citation_and_reads_as_a_sentence() -> None:
    lines = finding_lines([
        {"code": "GC201", "rule": "lexical-support", "outcome": "fail", "detail": "0.40 of the claim's slots found"},
        {"code": "GC201", "rule": "lexical-support", "outcome": "fail", "detail": "0.40 of the claim's slots found"},
        {"code": "GC201", "rule": "lexical-support", "outcome": "fail", "detail": "0.20 of the claim's slots found"},
        {"code": "GC202", "rule": "predicate-not-in-evidence", "outcome": "fail", "detail": "the evidence does not "
         "say 'rate'"},
        {"code": "GC301", "rule": "value-mismatch", "outcome": "pass", "detail": ""},
    ])
    assert lines == ["GC201 lexical-support: 0.40 of the claim's slots found. 0.20 of the claim's slots found.",
                     "GC202 predicate-not-in-evidence: The evidence does not say 'rate'."]


def test_ids_accept_a_unique_prefix_and_refuse_an_ambiguous_one(checked: tuple[Path, dict]) -> None:
    db, report = checked
    claim_id = report["claims"][0]["claim_id"]
    whole = runner.invoke(app, ["chain", claim_id, "--db", str(db), "--json"])
    short = runner.invoke(app, ["chain", claim_id[:7], "--db", str(db), "--json"])
    assert short.exit_code == 0, short.output[-500:]
    assert json.loads(short.output)["claim_id"] == json.loads(whole.output)["claim_id"] == claim_id
    history = runner.invoke(app, ["history", claim_id[:8], "--db", str(db), "--json"])
    assert history.exit_code == 0 and json.loads(history.output)
    answer = runner.invoke(app, ["chain", report["answer_rev"][:6], "--db", str(db), "--json"])
    assert answer.exit_code == 0 and json.loads(answer.output)["kind"] == "answer"
    ambiguous = runner.invoke(app, ["chain", "c", "--db", str(db)])
    assert ambiguous.exit_code == 2


def test_annotate_counts_citations_from_one_as_reports_do(checked: tuple[Path, dict]) -> None:
    db, report = checked
    claim_id = report["claims"][0]["claim_id"]
    done = runner.invoke(app, ["annotate", claim_id[:8], "--citation", "1", "--label", "supports",
                               "--rationale", "says it", "--reviewer", "ana", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert f"citation [1] of claim {claim_id}" in done.output
    listed = json.loads(runner.invoke(app, ["annotations", "--db", str(db), "--json"]).output)
    assert [(r["claim_id"], r["citation"]) for r in listed] == [(claim_id, 0)]  # the JSON index stays 0-based
    refused = runner.invoke(app, ["annotate", claim_id, "--citation", "0", "--label", "supports",
                                  "--rationale", "x", "--reviewer", "ana", "--db", str(db)])
    assert refused.exit_code == 2


def test_audit_independence_shows_the_claim_and_explains_no_attestations(checked: tuple[Path, dict]) -> None:
    db, report = checked
    result = runner.invoke(app, ["audit", "independence", report["answer_rev"], "--db", str(db)])
    assert result.exit_code == 0, result.output[-500:]
    assert report["claims"][0]["text"] in result.output
    for line in result.output.splitlines():
        if "│ 0 attestations, 0 authorities" in line:
            assert "no single citation supports the whole claim" in line
    assert "An attestation is a source" in result.output


def test_gate_exits_1_when_it_declines(corpus_db: Path, tmp_path: Path) -> None:
    answer = tmp_path / "a.json"
    answer.write_text(json.dumps({"claims": [{"text": "The relay encrypts every event with AES-256.",
                                              "citations": [{"source": "decisions/dr-017-webhook-retries.md"}]}]}),
                      encoding="utf-8")
    declined = runner.invoke(app, ["gate", str(answer), "--db", str(corpus_db)])
    assert declined.exit_code == 1 and declined.output.startswith("declined:")
    assert "1 declined" in runner.invoke(app, ["gate", "--help"]).output


def test_located_citations_say_so_in_the_text_report(corpus_db: Path, tmp_path: Path) -> None:
    answer = tmp_path / "a.json"
    answer.write_text(json.dumps({"claims": [{"text": "Webhook delivery logs are retained for 14 days.",
                                              "citations": [{"source": "decisions/dr-017-webhook-retries.md"}]}]}),
                      encoding="utf-8")
    db = tmp_path / "c.duckdb"
    db.write_bytes(corpus_db.read_bytes())
    result = runner.invoke(app, ["check", str(answer), "--db", str(db)])
    assert "evidence located by graphcite (the answer gave no span)" in result.output


def test_a_new_answer_format_is_one_registration() -> None:
    info = FormatInfo("yaml-notes", "test notes", "notes[] strings", "-", "none.json", "")

    @answer_format(info, order=999, detect=lambda data: "notes" in data, detect_order=1)
    def read(data: object, options: object) -> object:
        return load_answer({"claims": [{"text": t} for t in data["notes"]]}, format="native")  # type: ignore[index]

    try:
        assert detect_format({"notes": ["The relay retries."]}) == "yaml-notes"
        assert formats()[-1].info == info
        assert [c.text for c in load_answer({"notes": ["The relay retries."]}).claims] == ["The relay retries."]
    finally:
        _REGISTRY.pop("yaml-notes")
    assert "yaml-notes" not in FORMATS and detect_format({"claims": []}) == "native"


def test_claims_command_numbers_from_one_and_lists_what_is_not_a_claim() -> None:
    text = "Here is what I found. The relay parks an event for 72 hours [1].\n\nPassages:\n[1] dr-017.md\n"
    result = runner.invoke(app, ["claims", "--text", text])
    assert result.exit_code == 0, result.output[-500:]
    assert "│ 1.1 " in result.output and "│ 0.0 " not in result.output
    assert "not a claim (asserts nothing; not checked): Here is what I found." in result.output
    data = json.loads(runner.invoke(app, ["claims", "--text", text, "--json"]).output)
    assert data["claims"][0]["claim"] == 0 and data["not_claims"] == ["Here is what I found."]
