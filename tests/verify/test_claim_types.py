"""Declared claim types through the real pipeline: an inference lists its premises, their statuses and
its review state; declared background may not borrow archive citations (GC954)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphcite.ingest import ingest
from graphcite.lifecycle import accept
from graphcite.store import Store
from graphcite.verify.check import check_answer

DOC = ("# Ferry timetable\n\nThe first ferry leaves the harbour at 06:10.\n\n"
       "The crossing takes forty minutes.\n")


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.md").write_text(DOC, encoding="utf-8")
    opened = Store(tmp_path / "types.duckdb")
    ingest(opened, [docs])
    yield opened
    opened.close()


def _answer(third: dict[str, object]) -> dict[str, object]:
    return {"answer_id": "ferry", "claims": [
        {"text": "The first ferry leaves the harbour at 06:10.",
         "citations": [{"source": "ferry.md", "quote": "The first ferry leaves the harbour at 06:10."}]},
        {"text": "The crossing takes forty minutes.",
         "citations": [{"source": "ferry.md", "quote": "The crossing takes forty minutes."}]},
        third]}


def test_an_inference_lists_its_premises_their_statuses_and_its_review_state(store: Store) -> None:
    report = check_answer(store, _answer({"text": "The first ferry arrives at 06:50.", "type": "inference",
                                          "premises": [0, 1]}))
    claims = report["claims"]
    inference = claims[2]["inference"]
    assert inference["premises"] == [0, 1] and inference["premise_status"] == ["supported", "supported"]
    assert inference["premises_supported"] is True and inference["review_state"] == "unreviewed"
    assert inference["premise_ids"] == [claims[0]["claim_id"], claims[1]["claim_id"]]
    assert claims[2]["status"] != "supported"  # no source states it: an inference is never shown as quoted
    assert "inference" not in claims[0]

    accept(store, claims[2]["claim_id"], task="timetable-note", destination="ferry guide", reviewer="ines")
    again = check_answer(store, _answer({"text": "The first ferry arrives at 06:50.", "type": "inference",
                                         "premises": [0, 1]}))
    assert again["claims"][2]["inference"]["review_state"] == "accepted"


def test_an_inference_on_an_unsupported_premise_says_so(store: Store) -> None:
    answer = _answer({"text": "The first ferry arrives at 06:50.", "type": "inference", "premises": [0, 1]})
    answer["claims"][1] = {"text": "The crossing takes forty minutes.", "citations": []}
    inference = check_answer(store, answer)["claims"][2]["inference"]
    assert inference["premise_status"] == ["supported", "unsupported"] and inference["premises_supported"] is False


def test_declared_background_may_not_borrow_an_archive_citation(store: Store) -> None:
    cited = {"text": "The crossing takes forty minutes.", "type": "background",
             "citations": [{"source": "ferry.md", "quote": "The crossing takes forty minutes."}]}
    claim = check_answer(store, _answer(cited))["claims"][2]
    codes = [(f["code"], f["outcome"]) for c in claim["citations"] for f in c["findings"] if f["code"] == "GC954"]
    assert codes == [("GC954", "fail")]
    assert claim["status"] == "insufficient" and claim["citations"][0]["relation"] == "insufficient"
    plain = check_answer(store, _answer({"text": "Ferries are boats.", "type": "background"}))["claims"][2]
    assert not [f for c in plain["citations"] for f in c["findings"] if f["code"] == "GC954"]
