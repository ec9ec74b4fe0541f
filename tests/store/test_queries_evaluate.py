"""The evaluation query functions (store/queries/evaluate.py) on both engines, on a store written row by
row (:mod:`lifecycle_world`) and on an empty one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lifecycle_world import build

from graphcite.store import Store
from graphcite.store.queries import evaluate as q


@pytest.fixture
def world(any_store: Store) -> Store:
    build(any_store)
    return any_store


def test_claims_and_citations(world: Store) -> None:
    assert q.input_claim(world, "c2") == {"claim_id": "c2", "answer_rev": "rev1"}
    assert q.input_claim(world, "c2p0") is None  # an atomic part is not judged
    cit = q.citation(world, "c2", 1)
    assert cit is not None and cit["citation_id"] == "c2-1" and cit["source_key"] == "b.md" and cit["quote"] is None
    assert q.citation(world, "c2", 2) is None
    assert [c["citation_id"] for c in q.citations_of(world, "c2")] == ["c2-0", "c2-1"]
    assert q.citations_of(world, "zz") == []


def test_annotations(world: Store) -> None:
    assert q.annotation_count(world, "c1", 0) == 2
    assert q.annotation_count(world, "c1", 1) == 0
    rows = q.annotation_rows(world)
    # by claim, citation, time, then id: n1 and n2 were made in the same second
    assert [(r["annotation_id"], r["claim_text"]) for r in rows] == [
        ("n1", "Retries happen three times."), ("n2", "Retries happen three times."),
        ("n3", "The gateway offers a status lookup.")]
    assert rows[2]["created"] == "2026-03-01 09:00:00" and rows[2]["adjudication"] is True


def test_an_empty_store(any_store: Store) -> None:
    assert q.annotation_rows(any_store) == [] and q.annotation_count(any_store, "c1", 0) == 0
    assert q.input_claim(any_store, "c1") is None and q.citations_of(any_store, "c1") == []


def test_annotate_appends_and_the_labelled_set_reads_back(world: Store, tmp_path: Path) -> None:
    from graphcite.errors import NotFoundError
    from graphcite.evaluate import annotate, annotations, export_set

    record = annotate(world, "c2", citation=1, label="contradicts", rationale="b.md says otherwise", reviewer="cy")
    assert record["source_revision"] == "rb2" and record["claim_revision"] == "rev1"  # unpinned: b.md's current
    assert annotate(world, "c1", citation=0, label="supports", rationale="x", reviewer="cy")["source_revision"] == "ra1"
    with pytest.raises(NotFoundError, match="no citation 5"):
        annotate(world, "c1", citation=5, label="supports", rationale="x", reviewer="cy")
    with pytest.raises(NotFoundError, match="no claim"):
        annotate(world, "c1p0", citation=0, label="supports", rationale="x", reviewer="cy")
    grouped = {(g["claim_id"], g["citation"]): g for g in annotations(world)}
    assert grouped[("c1", 0)]["contested"] and grouped[("c1", 0)]["labels"] == ["insufficient", "supports"]
    assert grouped[("c2", 1)]["adjudicated"] == "supports" and not grouped[("c2", 1)]["contested"]
    assert [g["claim_id"] for g in annotations(world, contested=True)] == ["c1"]
    path = tmp_path / "set.jsonl"
    assert export_set(world, path) == 2
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[1])
    assert first["id"] == "c2" and [c["gold_relation"] for c in first["citations"]] == ["insufficient", "supports"]
