"""Staleness after re-ingest: what changed per cited unit, supersession, recheck appending records, the CLI."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from conftest import CHANGED, DR017, ROOT, SUPERSEDER
from typer.testing import CliRunner

from graphcite.lifecycle import find_stale, recheck_stale, stale
from graphcite.store import Store


def _ids(report: dict[str, Any]) -> list[str]:
    return [c["claim_id"] for c in report["claims"]]


def test_nothing_is_stale_before_a_source_changes(checked_db: tuple[Path, dict[str, Any]]) -> None:
    with Store(checked_db[0], read_only=True) as store:
        assert stale(store) == []
        assert store.scalar("SELECT count(*) FROM verification") == len(checked_db[1]["claims"])


def test_stale_claims_show_what_changed(changed_db: tuple[Path, dict[str, Any]]) -> None:
    ids = _ids(changed_db[1])
    with Store(changed_db[0], read_only=True) as store:
        found = {c["claim_id"]: c for c in stale(store)}
    # claims 0-3 cite DR-017 (new revision), 4-5 the Northpass contract (superseded), 6 neither
    assert set(found) == set(ids[:6])

    five = found[ids[0]]["changes"][0]
    assert five["source"] == DR017 and five["revised"] and five["old_revision"] != five["new_revision"]
    [unit] = five["units"]
    assert unit["old_text"] == CHANGED[0] and unit["new_text"] == CHANGED[1]
    assert unit["note"] == "unit text changed" and unit["span_verbatim"] is False

    unchanged = found[ids[1]]["changes"][0]["units"]
    assert unchanged and all(u["span_verbatim"] and u["note"] == "unit text unchanged" for u in unchanged)

    [logs] = [c for c in found[ids[3]]["changes"] if c["source"] == DR017]
    [gone] = logs["units"]
    assert gone["new_text"] is None and gone["note"] == "the unit no longer exists"
    assert gone["span_verbatim"] is False
    assert all(c["source"] == DR017 for c in found[ids[3]]["changes"])  # the runbook citation is still current

    superseded = found[ids[4]]["changes"][0]
    assert superseded["superseded_by"] == SUPERSEDER and superseded["superseded_on"] == "2026-01-15"
    assert f"superseded by {SUPERSEDER} on 2026-01-15" in superseded["reason"]
    assert not superseded["revised"] and all(u["span_verbatim"] for u in superseded["units"])
    assert found[ids[4]]["relied"][0]["kind"] == "verification"


def test_recheck_appends_records_and_keeps_the_old_ones(changed_db: tuple[Path, dict[str, Any]],
                                                        open_copy: Callable[[Path], Store]) -> None:
    store = open_copy(changed_db[0])
    ids = _ids(changed_db[1])
    before = {r["record_id"]: r["status"] for r in store.rows("SELECT record_id, status FROM verification")}
    results = recheck_stale(store)
    assert sorted(r["claim_id"] for r in results) == sorted(ids[:6])
    after = {r["record_id"]: r["status"] for r in store.rows("SELECT record_id, status FROM verification")}
    assert len(after) == len(before) + 6
    assert {k: after[k] for k in before} == before  # old records untouched
    by_claim = {r["claim_id"]: r for r in results}
    assert by_claim[ids[0]]["old_status"] == "supported" and not by_claim[ids[0]]["supported"]
    assert by_claim[ids[1]]["supported"]
    assert find_stale(store) == []  # the new records rest on current revisions
    assert len(store.rows("SELECT * FROM verification WHERE claim_id = ?", [ids[0]])) == 2


def test_benchmark_store_finds_exactly_the_expected_claims(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_stale", ROOT / "benchmarks" / "stale.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    counts = bench.generate(tmp_path / "b.duckdb", 3_000, 200, 20)
    with Store(tmp_path / "b.duckdb", read_only=True) as store:
        rows = find_stale(store)
    # a fifth of the claims have an older record too: only the latest record decides
    assert len({r["claim_id"] for r in rows}) == counts["expected_stale"] > 0
    assert all(r["revised"] and r["relied"] == "verification" for r in rows)


def test_cli_stale_and_recheck(app: typer.Typer, changed_db: tuple[Path, dict[str, Any]],
                               copy_db: Callable[[Path], Path]) -> None:
    runner = CliRunner()
    db = str(copy_db(changed_db[0]))
    shown = runner.invoke(app, ["stale", "--db", db])
    assert shown.exit_code == 0, shown.output
    assert "6 stale claim(s)" in shown.output and "the unit no longer exists" in shown.output
    assert f"superseded by {SUPERSEDER} on 2026-01-15" in shown.output
    as_json = runner.invoke(app, ["stale", "--db", db, "--json"])
    assert as_json.exit_code == 0 and len(json.loads(as_json.output)) == 6

    refused = runner.invoke(app, ["recheck", "--db", db])
    assert refused.exit_code == 2 and "error: E106" in refused.output
    done = runner.invoke(app, ["recheck", "--stale", "--db", db, "--json"])
    assert done.exit_code == 0, done.output
    assert len(json.loads(done.output)) == 6
    again = runner.invoke(app, ["stale", "--db", db])
    assert again.exit_code == 0 and "no stale claims" in again.output


def test_every_lifecycle_command_has_help(app: typer.Typer) -> None:
    runner = CliRunner()
    for command in ("stale", "recheck", "accept", "acceptances", "answerable"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "--db" in result.output, command


def test_a_source_that_becomes_restricted_makes_its_claims_stale(checked_db: tuple[Path, dict[str, Any]],
                                                                 open_copy: Callable[[Path], Store]) -> None:
    store = open_copy(checked_db[0])
    ids = _ids(checked_db[1])
    # what ingest's pointer update does when a sidecar changes the visibility of a source
    store.execute("UPDATE source SET visibility = 'restricted' WHERE key = 'contracts/northpass-adapter.md'")
    found = {c["claim_id"]: c for c in stale(store)}
    assert set(found) == {ids[4], ids[5]}
    change = found[ids[5]]["changes"][0]
    assert change["restricted"] and not change["revised"]
    assert change["reason"] == "contracts/northpass-adapter.md is now restricted"
