"""check-summary: every summary sentence verified against one source revision; key sections covered."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphcite.errors import NotFoundError
from graphcite.lifecycle.summary import check_summary, high_consequence_sections
from graphcite.store import Store
from graphcite.verify.config import VerifierConfig, load_config

EXAMPLES = Path(__file__).resolve().parents[2] / "graphcite" / "examples"
DR = "decisions/dr-017-webhook-retries.md"


@pytest.fixture
def config() -> VerifierConfig:
    """The corpus's own configuration (its domain lexicon)."""
    return load_config(EXAMPLES / "verifier.yaml")


def test_sentences_are_verified_and_omitted_sections_listed(any_corpus_store: Store, config: VerifierConfig) -> None:
    summary = ("The relay makes at most five delivery attempts for each event. "
               "After the fifth failed attempt the event is parked for 72 hours.")
    result = check_summary(any_corpus_store, summary, DR, config=config)
    assert [c["status"] for c in result["sentences"]] == ["supported", "supported"]
    assert all(c["citations"][0]["located"] for c in result["sentences"])
    by_section = {c["section"].split(" > ")[-1]: c for c in result["coverage"]}
    assert by_section["Current decision"]["outcome"] == "covered"
    assert by_section["Do not implement"]["outcome"] == "omitted"
    assert not result["faithful"] and any("Do not implement" in s for s in result["omitted"])
    selective = check_summary(any_corpus_store, summary, DR, config=config, selective=True)
    assert selective["faithful"] and not selective["omitted"]


def test_a_sentence_that_turns_history_into_the_present_is_not_supported(any_corpus_store: Store, config: VerifierConfig) -> None:
    result = check_summary(any_corpus_store, "Delivery logs are kept for 30 days.", DR, config=config, selective=True)
    assert result["sentences"][0]["status"] != "supported" and not result["faithful"]


def test_sections_come_from_headings_and_status_cues(any_corpus_store: Store) -> None:
    revision = any_corpus_store.scalar("SELECT current_revision FROM source WHERE key = ?", [DR])
    sections = {s["heading"].split(" > ")[-1]: s["why"] for s in high_consequence_sections(any_corpus_store, revision)}
    assert sections["Current decision"] == "decision"
    assert sections["Rejected alternatives"].startswith("status") or "reject" in sections["Rejected alternatives"]
    assert "Context" not in sections


def test_bad_source_and_empty_summary_are_one_line(corpus_store: Store, corpus_db: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        check_summary(corpus_store, "Anything.", "decisions/nope.md")
    with pytest.raises(NotFoundError):
        check_summary(corpus_store, "Anything.", f"{DR}@99")
    from graphcite.cli import app

    empty = tmp_path / "empty.md"
    empty.write_text("   \n", encoding="utf-8")
    result = CliRunner().invoke(app, ["check-summary", str(empty), "--source", DR, "--db", str(corpus_db)])
    assert result.exit_code == 2 and result.output.count("error:") == 1 and "Traceback" not in result.output
    good = tmp_path / "good.md"
    good.write_text("The relay makes at most five delivery attempts for each event.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["check-summary", str(good), "--source", DR, "--db", str(corpus_db),
                                      "--selective", "--config", str(EXAMPLES / "verifier.yaml")])
    assert result.exit_code == 0, result.output
    assert "faithful summary" in result.output
