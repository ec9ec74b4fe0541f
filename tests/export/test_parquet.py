"""Parquet export: one file per table, holding exactly the selection's rows, readable by pyarrow and DuckDB."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from graphcite.export.parquet import PARQUET_TABLES
from graphcite.store import TABLES, Store


def tables(folder: Path) -> dict[str, Any]:
    return {name: pq.read_table(folder / f"{name}.parquet") for name in PARQUET_TABLES}


def test_one_file_per_table_with_the_store_columns(exported: Callable[..., Path]) -> None:
    folder = exported("parquet")
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{t}.parquet" for t in PARQUET_TABLES)
    for name, table in tables(folder).items():
        assert table.column_names == list(TABLES[name].model_fields), name


def test_answer_selection_rows(exported: Callable[..., Path], export_store: Store,
                               export_report: dict[str, Any]) -> None:
    got = tables(exported("parquet"))
    parents = {c["claim_id"] for c in export_report["claims"]}
    claims = got["claim"].to_pylist()
    assert {c["claim_id"] for c in claims if c["part"] is None} == parents
    assert len(claims) == export_store.scalar("SELECT count(*) FROM claim WHERE answer_rev = ?",
                                              [export_report["answer_rev"]])
    assert set(got["verification"].column("claim_id").to_pylist()) == parents
    assert got["answer"].column("answer_rev").to_pylist() == [export_report["answer_rev"]]
    cited_units = {cit["unit_id"] for c in export_report["claims"] for cit in c["citations"]}
    assert cited_units <= set(got["evidence_unit"].column("unit_id").to_pylist())
    relations = {(r["from_key"], r["to_key"], r["relation"]) for r in got["source_link"].to_pylist()}
    assert ("posts/p3.md", "posts/p1.md", "derived_from") in relations
    assert ("decisions/dr-100.md", "notes/old-note.md", "supersedes") in relations
    keys = set(got["source"].column("key").to_pylist())
    assert "posts/public-keys.md" not in keys  # not cited and not upstream of anything cited
    assert {"decisions/dr-100.md", "manuals/secret.md"} <= keys


def test_claim_selection_is_a_subset(exported: Callable[..., Path], export_report: dict[str, Any]) -> None:
    cid = export_report["claims"][1]["claim_id"]
    got = tables(exported("parquet", claim=cid))
    assert set(got["citation"].column("claim_id").to_pylist()) == {cid}
    assert set(got["verification"].column("claim_id").to_pylist()) == {cid}
    assert {r["key"] for r in got["source"].to_pylist()} == {"decisions/dr-100.md", "manuals/ops.md",
                                                             "notes/old-note.md"}


def test_duckdb_reads_the_folder(exported: Callable[..., Path], export_report: dict[str, Any]) -> None:
    folder = exported("parquet")
    con = duckdb.connect()
    rows = con.execute(f"""
        SELECT v.claim_id, v.status FROM '{folder / 'verification.parquet'}' v
        JOIN '{folder / 'claim.parquet'}' c USING (claim_id) WHERE c.part IS NULL ORDER BY c.ordinal""").fetchall()
    assert [s for _, s in rows] == [c["status"] for c in export_report["claims"]]


def test_public_reports_are_scrubbed(exported: Callable[..., Path], export_report: dict[str, Any]) -> None:
    got = tables(exported("parquet", "public"))
    secret = export_report["claims"][3]["claim_id"]
    report = json.loads(next(r["result_json"] for r in got["verification"].to_pylist() if r["claim_id"] == secret))
    assert report["relies_on_restricted"] is True and report["withheld"] is True  # it states the restricted 45 days
    assert "quote" not in report["citations"][0] and report["citations"][0]["source"] == "restricted-source-1"
    units = {r["unit_id"]: r for r in got["evidence_unit"].to_pylist()}
    # public records never name a restricted unit (issue 23 items 4, 10); any that is listed is scrubbed
    assert all(r["text"] is None for u, r in units.items() if u.startswith("restricted-unit-"))
