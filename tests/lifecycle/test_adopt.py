"""Adoption: an accepted claim written into a maintained document is a new revision of that document,
with the document's own authority and none of the answer's verification; bad input writes nothing."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphcite.cli import app
from graphcite.errors import InputError
from graphcite.ingest import ingest
from graphcite.lifecycle import accept
from graphcite.lifecycle.adopt import adopt, adoptions
from graphcite.store import Store
from graphcite.verify.check import check_answer

TODAY = dt.date(2026, 6, 1)
SPEC = "# Relay contract\n\n## Retries\n\nThe relay retries a failed delivery three times, one minute apart.\n"
RUNBOOK = "# Relay runbook\n\n## Retries\n\nCheck the dead-letter queue first.\n\n## Escalation\n\nPage the on-call engineer.\n"
SENTENCE = "The relay retries a failed delivery three times."


@pytest.fixture()
def setup(db_url: str, tmp_path: Path) -> tuple[Store, Path, dict[str, Any]]:
    """On each engine: two documents ingested, a claim checked against one and accepted for the other."""
    docs = tmp_path / "docs"
    (docs / "runbooks").mkdir(parents=True)
    (docs / "spec.md").write_text(SPEC, encoding="utf-8")
    (docs / "runbooks" / "relay.md").write_text(RUNBOOK, encoding="utf-8")
    store = Store(db_url)
    ingest(store, [docs])
    report = check_answer(store, {"answer_id": "a1", "claims": [
        {"text": SENTENCE, "citations": [{"source": "spec.md", "quote": "retries a failed delivery three times"}]}]})
    claim = report["claims"][0]
    assert claim["status"] == "supported"
    accept(store, claim["claim_id"], task="runbook-update", destination="runbooks/relay.md", reviewer="ines",
           today=TODAY)
    yield store, docs, claim
    store.close()


def test_the_claim_becomes_a_unit_of_a_new_revision_and_inherits_nothing(setup: tuple[Store, Path, dict[str, Any]]
                                                                          ) -> None:
    store, docs, claim = setup
    before = store.scalar("SELECT current_revision FROM source WHERE key = 'runbooks/relay.md'")
    records_before = store.scalar("SELECT count(*) FROM verification")
    record = adopt(store, claim["claim_id"], destination="runbooks/relay.md", file=docs / "runbooks" / "relay.md",
                   heading="Retries", reviewer="ines", today=TODAY)
    assert record["previous_revision"] == before != record["revision_id"]
    assert store.scalar("SELECT current_revision FROM source WHERE key = 'runbooks/relay.md'") == record["revision_id"]
    unit = store.row("SELECT text, heading_path_json FROM evidence_unit WHERE unit_id = ?", [record["unit_id"]])
    assert unit is not None and unit["text"] == SENTENCE and "Retries" in unit["heading_path_json"]
    on_disk = (docs / "runbooks" / "relay.md").read_text(encoding="utf-8")
    assert on_disk.index(SENTENCE) < on_disk.index("## Escalation")  # at the end of its section
    assert record["inherits"] == [] and store.scalar("SELECT count(*) FROM verification") == records_before
    assert [e["source_key"] for e in record["evidence"]] == ["spec.md"]
    assert [a["unit_id"] for a in adoptions(store, unit_ids=[record["unit_id"]])] == [record["unit_id"]]
    assert adoptions(store, claim_id=claim["claim_id"])[0]["acceptance_id"] == record["acceptance_id"]


def test_without_an_active_acceptance_for_that_destination_nothing_is_written(
        setup: tuple[Store, Path, dict[str, Any]]) -> None:
    store, docs, claim = setup
    path = docs / "runbooks" / "relay.md"
    with pytest.raises(InputError, match="no active acceptance"):
        adopt(store, claim["claim_id"], destination="spec.md", file=docs / "spec.md", today=TODAY)
    with pytest.raises(InputError, match="no heading"):
        adopt(store, claim["claim_id"], destination="runbooks/relay.md", file=path, heading="Nowhere", today=TODAY)
    assert path.read_text(encoding="utf-8") == RUNBOOK
    assert store.scalar("SELECT count(*) FROM source_revision WHERE source_key = 'runbooks/relay.md'") == 1
    assert adoptions(store) == []


def test_a_file_edited_since_its_ingest_is_refused(setup: tuple[Store, Path, dict[str, Any]]) -> None:
    store, docs, claim = setup
    path = docs / "runbooks" / "relay.md"
    path.write_text(RUNBOOK + "\nAn unsaved edit.\n", encoding="utf-8")
    with pytest.raises(InputError, match="differs from the stored current revision"):
        adopt(store, claim["claim_id"], destination="runbooks/relay.md", file=path, today=TODAY)
    assert path.read_text(encoding="utf-8").endswith("An unsaved edit.\n")


def test_cli_bad_input_is_one_line_and_exit_2(setup: tuple[Store, Path, dict[str, Any]]) -> None:
    store, docs, claim = setup
    db = store.path
    store.close()
    result = CliRunner().invoke(app, ["adopt", claim["claim_id"], "--destination", "spec.md", "--file",
                                      str(docs / "spec.md"), "--db", db])
    assert result.exit_code == 2
    assert "no active acceptance" in result.output and "Traceback" not in result.output


def test_a_claim_of_the_same_answer_citing_the_adopted_sentence_is_a_circular_citation(
        setup: tuple[Store, Path, dict[str, Any]]) -> None:
    from graphcite.lifecycle import circular_citations

    store, docs, claim = setup
    path = docs / "runbooks" / "relay.md"
    record = adopt(store, claim["claim_id"], destination="runbooks/relay.md", file=path, heading="Retries",
                   today=TODAY)
    assert circular_citations(store) == []  # adopted, but nobody cites the sentence yet
    assert adoptions(store)[0]["cited_back_by"] == []
    quote = "retries a failed delivery three times"
    again = check_answer(store, {"answer_id": "a1", "claims": [
        {"text": SENTENCE, "citations": [{"source": "runbooks/relay.md", "quote": quote}]},
        {"text": "Page the on-call engineer.",
         "citations": [{"source": "runbooks/relay.md", "quote": "Page the on-call engineer"}]}]})
    named = check_answer(store, {"answer_id": "a1", "question": "by unit id", "claims": [
        {"text": SENTENCE, "citations": [{"chunk_id": record["unit_id"]}]}]})
    check_answer(store, {"answer_id": "another answer", "claims": [
        {"text": SENTENCE, "citations": [{"source": "runbooks/relay.md", "quote": quote}]}]})
    found = circular_citations(store)
    assert {(f["claim_id"], f["citation"], f["how"]) for f in found} == {
        (again["claims"][0]["claim_id"], 0, "was located in the adopted unit by its verification"),
        (named["claims"][0]["claim_id"], 0, "names the adopted unit")}
    assert all(f["finding"] == "circular-citation" and f["unit_id"] == record["unit_id"]
               and f["adoption_id"] == record["adoption_id"] and f["adopted_claim_id"] == claim["claim_id"]
               for f in found)
    assert found == sorted(found, key=lambda f: (f["claim_id"], f["citation"]))
    (adoption,) = adoptions(store, claim_id=claim["claim_id"])
    assert adoption["cited_back_by"] == found
    db = store.path if store.engine == "postgresql" else str(store.path)
    store.close()
    shown = CliRunner().invoke(app, ["circular", "--db", db])
    assert shown.exit_code == 0 and "2 circular citation(s)" in shown.output
    assert all(f["detail"] in " ".join(shown.output.split()) for f in found)
    listed = CliRunner().invoke(app, ["circular", "--json", "--db", db])
    assert json.loads(listed.output) == json.loads(json.dumps(found, default=str))
