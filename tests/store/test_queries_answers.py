"""The stored-answer query functions (store/queries/answers.py) on both engines, on a store written row
by row (:mod:`lifecycle_world`) and on an empty one."""

from __future__ import annotations

import pytest
from lifecycle_world import build

from graphcite.store import Store
from graphcite.store.queries import answers as q


@pytest.fixture
def world(any_store: Store) -> Store:
    build(any_store)
    return any_store


def test_answers_by_revision_and_by_id(world: Store) -> None:
    assert q.answer_exists(world, "rev1") and not q.answer_exists(world, "q1")
    assert q.answer_by_rev(world, "rev3") == {"answer_rev": "rev3", "content_json": "{}", "format": "text"}
    assert q.answer_by_rev(world, "q1") is None
    assert q.answer_by_id(world, "q1")["answer_rev"] == "rev2"  # the latest revision of the id
    assert q.answer_by_id(world, "rev1") is None
    assert q.answer_names(world) == ["q1", "q3", "rev1", "rev2", "rev3"]


def test_answer_summaries_count_input_claims_only(world: Store) -> None:
    rows = q.answer_summaries(world)
    assert [(r["answer_id"], r["answer_rev"], r["claims"], r["corrects"]) for r in rows] == [
        ("q1", "rev1", 2, None), ("q1", "rev2", 1, "rev1"), ("q3", "rev3", 1, None)]
    assert rows[0]["stored_at"] == "2026-03-01 09:00:00" and rows[1]["correction_rationale"] == "adopted"


def test_atomic_parts_and_claims(world: Store) -> None:
    parts = q.atomic_parts(world, "rev1")
    assert [(p["ordinal"], p["atomic_json"]) for p in parts] == [
        (0, '{"text": "Retries happen three times."}'), (1, "{}"), (1, "{}")]
    assert q.atomic_parts(world, "rev3") == [] and q.atomic_parts(world, "zz") == []
    claims = q.claims_by_id(world, ["c2p1", "c1", "zz"])
    assert list(claims) == ["c1", "c2p1"]
    assert claims["c2p1"] == {"claim_id": "c2p1", "answer_rev": "rev1", "ordinal": 1, "part": 1, "parent_id": "c2",
                              "text": "b"}
    assert claims["c1"]["part"] is None and claims["c1"]["parent_id"] is None
    assert q.claims_by_id(world, []) == {}
    assert q.claim_by_id(world, "c2p1") == claims["c2p1"]
    assert q.claim_by_id(world, "zz") is None


def test_an_empty_store(any_store: Store) -> None:
    assert not q.answer_exists(any_store, "rev1")
    assert q.answer_names(any_store) == [] and q.answer_summaries(any_store) == []
    assert q.answer_by_id(any_store, "q1") is None and q.claims_by_id(any_store, ["c1"]) == {}
