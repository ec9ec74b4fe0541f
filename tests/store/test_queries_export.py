"""The export query functions (store/queries/export.py) on both engines, on a store written row by row
(:mod:`lifecycle_world`) and on an empty one: whole rows in the table's column order and a fixed row
order, so the Parquet files are the same bytes on both."""

from __future__ import annotations

import pyarrow as pa
import pytest
from lifecycle_world import TEXT_A2, build

from graphcite.store import TABLES, Store, arrow_schema
from graphcite.store.queries import export as q


@pytest.fixture
def world(any_store: Store) -> Store:
    build(any_store)
    return any_store


@pytest.mark.parametrize(("table", "ids", "expected"), [
    ("source", ["r.md", "a.md", "zz"], ["a.md", "r.md"]),
    ("source_revision", ["rb2", "ra2", "ra1"], ["ra1", "ra2", "rb2"]),
    ("evidence_unit", ["ub2", "ua3", "ub1"], ["ua3", "ub1", "ub2"]),
    ("typed_value", ["ua2", "ua1"], ["v1", "v2"]),
    ("source_link", ["b.md"], ["l0", "l1"]),
    ("answer", ["rev3", "rev1"], ["rev1", "rev3"]),
    ("claim", ["c2p1", "c2", "c2p0", "c1"], ["c1", "c2", "c2p0", "c2p1"]),
    ("citation", ["c2"], ["c2-0", "c2-1"]),
    ("verification", ["c1", "c3"], ["v1", "v2", "v4"]),
    ("annotation", ["c1"], ["n1", "n2"]),
])
def test_table_rows_in_export_order(world: Store, table: str, ids: list[str], expected: list[str]) -> None:
    found = q.table_rows(world, table, ids)
    assert found.schema == arrow_schema(table)
    assert found.column_names == list(TABLES[table].model_fields)
    key = found.column_names[0]
    assert found[key].to_pylist() == expected
    assert q.table_rows(world, table, []).num_rows == 0


def test_many_ids_are_one_array_parameter(world: Store) -> None:
    ids = [f"x{i:04d}" for i in range(1500)] + ["ua1"]
    assert q.table_rows(world, "evidence_unit", ids)["unit_id"].to_pylist() == ["ua1"]


def test_claim_family_and_revision_texts(world: Store) -> None:
    rows = q.claim_family(world, ["c2", "c4"])
    assert [(r["claim_id"], r["parent_id"], r["part"]) for r in rows] == [
        ("c2", None, None), ("c2p0", "c2", 0), ("c2p1", "c2", 1), ("c4", None, None)]
    assert q.claim_family(world, []) == [] and q.claim_family(world, ["zz"]) == []
    texts = q.revision_texts(world, ["ra2", "zz"])
    assert texts == {"ra2": {"revision_id": "ra2", "text": TEXT_A2, "ingested_at": "2026-03-03 09:00:00"}}
    assert q.revision_texts(world, []) == {}


def test_an_empty_store(any_store: Store) -> None:
    found = q.table_rows(any_store, "verification", ["c1"])
    assert isinstance(found, pa.Table) and found.num_rows == 0 and found.schema == arrow_schema("verification")
    assert q.claim_family(any_store, ["c1"]) == [] and q.revision_texts(any_store, ["ra1"]) == {}
