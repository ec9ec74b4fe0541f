"""The lifecycle query functions (store/queries/lifecycle.py, lifecycle_accept.py) on both engines.

Each runs against a small store written row by row (:mod:`lifecycle_world`), where every answer is
known in advance, and against an empty store (no rows, no acceptance or adoption table).
"""

from __future__ import annotations

import datetime as dt
import math

import pytest
from lifecycle_world import ACCEPTANCES, ADOPTION, T1, T2, TEXT_A2, build

from graphcite.store import Store
from graphcite.store.dialect import DUCKDB, POSTGRES
from graphcite.store.queries import lifecycle as lq
from graphcite.store.queries import lifecycle_accept as aq

COLUMNS = aq.ACCEPTANCE_COLUMNS


@pytest.fixture
def world(any_store: Store) -> Store:
    build(any_store)
    return any_store


def _stale(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(r["claim_id"], r["relied"], r["relied_id"], r["old_revision"], r["source_key"], r["new_revision"],
             bool(r["revised"]), bool(r["restricted"]), bool(r["superseded"])) for r in rows]


# -- staleness --------------------------------------------------------------------------------
def test_stale_rows_are_the_latest_records_on_replaced_superseded_or_restricted_revisions(world: Store) -> None:
    expected = [
        ("c1", "verification", "v2", "ra1", "a.md", "ra2", True, False, False),  # v1 is older: not listed
        ("c2", "verification", "v3", "rb1", "b.md", "rb2", True, False, False),
        ("c2", "verification", "v3", "rc1", "c.md", "rc1", False, False, True),  # b.md supersedes it since T2
        ("c4", "verification", "v5", "rr1", "r.md", "rr1", False, True, False),
    ]
    assert _stale(lq.stale_rows(world, with_acceptances=False)) == expected
    # the latest unexpired acceptance per scope joins in; acc3 expired, c3's evidence is current
    with_acceptances = lq.stale_rows(world, with_acceptances=True)
    assert _stale(with_acceptances) == [
        ("c1", "acceptance", "acc1", "ra1", "a.md", "ra2", True, False, False),
        ("c1", "acceptance", "acc2", "ra1", "a.md", "ra2", True, False, False), *expected]
    assert with_acceptances[0]["relied_at"] == dt.datetime(2026, 3, 1, 9)


def test_a_newer_record_ends_staleness_and_ties_go_by_insertion_order(world: Store) -> None:
    from lifecycle_world import _record, _result

    world.bulk_insert("verification", [_record("v9", "c4", "rev3", T1, "supported", ["rr1"], _result("ur1", "rr1", ""))])
    assert [r["relied_id"] for r in lq.stale_rows(world, with_acceptances=False) if r["claim_id"] == "c4"] == ["v9"]
    world.bulk_insert("verification", [_record("v8", "c4", "rev3", T2, "supported", [], _result("ur1", "rr1", ""))])
    assert [r["claim_id"] for r in lq.stale_rows(world, with_acceptances=False)] == ["c1", "c2", "c2"]


def test_stale_sql_is_written_for_each_engine() -> None:
    duck, pg = lq.stale_sql(True, DUCKDB), lq.stale_sql(True, POSTGRES)
    assert "from_json(evidence_revisions_json" in duck and "json_array_elements_text" in pg
    assert "FROM acceptance" in duck and "FROM acceptance" not in lq.stale_sql(False, DUCKDB)
    assert lq.stale_sql(False, DUCKDB) == lq.STALE_SQL


def test_the_explaining_reads(world: Store) -> None:
    assert [(r["to_key"], r["by_key"], r["on_date"]) for r in lq.superseders(world, ["c.md", "a.md", "x.md"])] == [
        ("c.md", "b.md", "2026-02-20")]
    assert lq.superseders(world, []) == []
    units = lq.revision_units(world, "ra2")
    assert [(u["unit_id"], u["text"], u["status"], u["block_type"]) for u in units] == [
        ("ua2", "Retries happen four times.", "current", "paragraph"),
        ("ua3", "Logs are kept for a week.", "historical", "paragraph")]
    assert units[1]["heading_path_json"] == '["A", "Limits"]' and units[1]["status_cue"] == "Limits"
    assert lq.revision_units(world, "no-such-revision") == []
    assert lq.revision_texts(world, ["ra2", "zz"]) == {"ra2": TEXT_A2}
    assert lq.revision_texts(world, []) == {}
    assert [(r["record_id"], r["claim_id"]) for r in lq.verification_results(world, ["v4", "v1", "zz"])] == [
        ("v1", "c1"), ("v4", "c3")]
    assert '"ua1"' in lq.verification_results(world, ["v1"])[0]["result_json"]
    assert lq.verification_results(world, []) == []
    assert [(r["acceptance_id"], r["claim_id"]) for r in lq.acceptance_evidence(world, ["acc3", "acc1"])] == [
        ("acc1", "c1"), ("acc3", "c2")]
    assert lq.acceptance_evidence(world, []) == []
    assert lq.unit_texts(world, ["ub2", "zz"]) == {
        "ub2": {"unit_id": "ub2", "revision_id": "rb2", "text": "Retries happen three times."}}
    assert lq.unit_texts(world, []) == {}


def test_recheck_reads(world: Store) -> None:
    # an atomic part is verified as its input claim
    assert lq.verified_claims(world, ["c1p0", "c4", "zz"]) == [
        {"verified_id": "c1", "answer_rev": "rev1"}, {"verified_id": "c4", "answer_rev": "rev3"}]
    assert lq.verified_claims(world, []) == []
    assert lq.verification_count(world, "c1") == 2
    assert lq.verification_count(world, "zz") == 0


def test_sources_and_revisions_by_name(world: Store) -> None:
    assert lq.current_revision(world, "a.md") == "ra2"
    assert lq.current_revision(world, "zz.md") is None
    assert lq.revision_of_source(world, "a.md", "1") == "ra1"
    assert lq.revision_of_source(world, "a.md", "ra2") == "ra2"
    assert lq.revision_of_source(world, "a.md", "rb1") is None  # another source's revision
    assert lq.revision_of_source(world, "a.md", "3") is None


def test_search_units_ranks_by_term_weight_per_query(world: Store) -> None:
    rows = lq.search_units(world, [0, 0, 1, 1], ["retri", "three", "gateway", "status"], 2)
    assert [(r["qi"], r["unit_id"]) for r in rows] == [(0, "ua1"), (0, "ub2"), (1, "ub1"), (1, "uc1")]
    units, df = 8, {"retri": 3, "three": 2}
    assert math.isclose(rows[0]["weight"], sum(math.log(1 + (units - n + 0.5) / (n + 0.5)) for n in df.values()))
    by_unit = {r["unit_id"]: r for r in rows}
    assert not by_unit["ua1"]["latest"] and by_unit["ub2"]["latest"]  # ra1 is no longer a.md's current revision
    assert by_unit["uc1"]["superseded_by_link"] and not by_unit["ub1"]["superseded_by_link"]
    assert by_unit["uc1"]["kind"] == "contract" and by_unit["ub2"]["revision_status"] == "current"
    assert [r["unit_id"] for r in lq.search_units(world, [0], ["retri"], 5)] == ["ua1", "ua2", "ub2"]
    assert lq.search_units(world, [0], ["nothing"], 5) == lq.search_units(world, [], [], 5) == []


# -- acceptances and adoptions ------------------------------------------------------------------
def test_acceptance_reads_and_the_insert(world: Store) -> None:
    rows = aq.acceptance_rows(world, "c1")
    assert [r["acceptance_id"] for r in rows] == ["acc1", "acc2"]  # oldest first
    assert rows[1] == {c: ACCEPTANCES[0][c] for c in COLUMNS}
    assert [r["acceptance_id"] for r in aq.acceptance_rows(world, "c1", task="runbook")] == ["acc2"]
    assert aq.acceptance_rows(world, "c1", task="other") == []
    assert aq.acceptance_count(world, "c1") == 2 and aq.acceptance_count(world, "zz") == 0
    again = {**ACCEPTANCES[0], "acceptance_id": "acc4", "accepted_at": T1}  # the same second: insertion order
    aq.insert_acceptance(world, again)
    assert [r["acceptance_id"] for r in aq.acceptance_rows(world, "c1")] == ["acc1", "acc2", "acc4"]
    assert aq.not_current_revisions(world, ["rb1", "ra1", "ra2", "zz"]) == [
        {"revision_id": "ra1", "source_key": "a.md"}, {"revision_id": "rb1", "source_key": "b.md"}]
    assert aq.not_current_revisions(world, []) == []


def test_adoption_reads(world: Store) -> None:
    assert aq.source_with_hash(world, "b.md") == {"key": "b.md", "current_revision": "rb2", "content_hash": "hash-rb2"}
    assert aq.source_with_hash(world, "zz.md") is None
    assert aq.unit_with_text(world, "rb2", "Retries happen three times.") == "ub2"
    assert aq.unit_with_text(world, "rb1", "Retries happen three times.") is None
    (row,) = aq.adoption_rows(world)
    assert row == {c: ADOPTION[c] for c in aq.ADOPTION_COLUMNS}
    assert aq.adoption_rows(world, claim_id="c1") == [row] and aq.adoption_rows(world, claim_id="c2") == []
    assert aq.adoption_rows(world, unit_ids=["ub2", "zz"]) == [row]
    assert aq.adoption_rows(world, unit_ids=[]) == []


def test_adopted_citations_are_the_same_answers_citations_of_the_destination(world: Store) -> None:
    rows = aq.adopted_citations(world)
    # c2 (answer q1) cites b.md too; c3 cites it by source and by the adopted unit; c4 (answer q3) is not q1's
    assert [(r["claim_id"], r["citation_index"], r["chunk_id"], r["adoption_id"]) for r in rows] == [
        ("c2", 1, None, "ad1"), ("c3", 0, None, "ad1"), ("c3", 1, "ub2", "ad1")]
    assert rows[0]["adopted_claim_id"] == "c1" and rows[0]["unit_id"] == "ub2" and rows[0]["source_key"] == "b.md"
    assert aq.latest_results(world, ["c1", "c3", "zz"]).keys() == {"c1", "c3"}
    assert '"ua1"' in aq.latest_results(world, ["c1"])["c1"]
    assert aq.latest_results(world, []) == {}


def test_circular_citations_from_the_world(world: Store) -> None:
    from graphcite.lifecycle import circular_citations

    found = circular_citations(world)
    assert [(f["claim_id"], f["citation"], f["how"]) for f in found] == [
        ("c3", 0, "was located in the adopted unit by its verification"), ("c3", 1, "names the adopted unit")]


def test_an_empty_store(any_store: Store) -> None:
    store = any_store
    assert lq.stale_rows(store, with_acceptances=False) == []
    assert lq.revision_units(store, "ra1") == [] and lq.current_revision(store, "a.md") is None
    assert lq.search_units(store, [0], ["retri"], 5) == []
    assert lq.verification_count(store, "c1") == 0
    # with or without the acceptance and adoption tables (a store written before they existed has neither)
    assert aq.acceptance_count(store, "c1") == 0
    assert aq.adoption_rows(store) == [] and aq.adopted_citations(store) == []
