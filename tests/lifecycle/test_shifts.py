"""Summary shifts: an example stated of a whole class, a proposal stated as decided, a dropped warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphcite.ingest import ingest
from graphcite.lifecycle.shifts import summary_shifts
from graphcite.lifecycle.summary import check_summary
from graphcite.store import Store

NOTE = """# Courier adapters

## Behaviour

For example, the Pelican adapter retries twice after a timeout.

## Proposal

Automatic retry is proposed for the Heron adapter.

## Warnings

Adapters must not retry a label purchase, because a retry can buy a second label.
"""


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "adapters.md").write_text(NOTE, encoding="utf-8")
    opened = Store(tmp_path / "shifts.duckdb")
    ingest(opened, [docs])
    yield opened
    opened.close()


def test_an_example_stated_of_a_class_is_a_shift(store: Store) -> None:
    result = check_summary(store, "Courier adapters retry twice after a timeout.", "adapters.md")
    kinds = [s["kind"] for s in result["shifts"]]
    assert "generalises-example" in kinds
    # a note in the general configuration (GC504 did no better than chance on real text), a shift all the same
    assert {f["outcome"] for c in result["sentences"][0]["citations"] for f in c["findings"]
            if f["code"] == "GC504"} == {"note"}
    shift = next(s for s in result["shifts"] if s["kind"] == "generalises-example")
    assert shift["sentence"] == 0 and shift["code"] == "GC504"


def test_the_example_itself_is_no_shift(store: Store) -> None:
    result = check_summary(store, "The Pelican adapter retries twice after a timeout.", "adapters.md",
                           selective=True)
    assert result["sentences"][0]["status"] == "supported"
    # the task allows omissions: the dropped warning stays listed, as a note
    assert [(s["kind"], s["outcome"]) for s in result["shifts"]] == [("drops-warning", "note")]


def test_a_dropped_warning_section_is_a_shift_and_covering_it_removes_it(store: Store) -> None:
    dropped = check_summary(store, "The Pelican adapter retries twice after a timeout.", "adapters.md")
    assert [s["kind"] for s in dropped["shifts"]] == ["drops-warning"]
    assert dropped["shifts"][0]["section"].endswith("Warnings")
    kept = check_summary(store, "The Pelican adapter retries twice after a timeout. Adapters must not retry a "
                         "label purchase, because a retry can buy a second label.", "adapters.md")
    assert "drops-warning" not in [s["kind"] for s in kept["shifts"]]


def test_findings_map_to_shift_kinds() -> None:
    sentences = [{"text": "Retry is enabled for Heron.", "citations": [{"index": 0, "findings": [
        {"code": "GC601", "outcome": "fail", "detail": "evidence is proposal under 'Proposal'"},
        {"code": "GC201", "outcome": "pass", "detail": ""}]}]},
                 {"text": "Queues drain fast.", "citations": [{"index": 0, "findings": [
                     {"code": "GC504", "outcome": "pass", "detail": ""}]}]}]
    shifts = summary_shifts(sentences, [{"section": "A > Limits", "why": "limits", "covered": True}])
    assert [(s["kind"], s["sentence"]) for s in shifts] == [("proposal-as-decision", 0)]
