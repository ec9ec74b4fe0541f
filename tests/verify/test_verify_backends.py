"""Verification on both engines: the same answers get the same reports, records are append-only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphcite.store import Store
from graphcite.verify import check_answer

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
VOLATILE = {"verified_at", "checked_at", "record_id", "stored_at", "elapsed_ms", "timings"}


def stable(value: Any) -> Any:
    """The report without the fields that depend on the clock."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


@pytest.fixture(scope="module")
def duck_reports(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import shutil

    copy = tmp_path_factory.mktemp("verify") / "c.duckdb"
    shutil.copy(corpus_db, copy)
    with Store(copy) as store:
        return {p.name: stable(check_answer(store, str(p))) for p in sorted(ANSWERS.glob("*.json"))}


@pytest.mark.parametrize("name", ["clean.json", "traps.json"])
def test_reports_are_the_same_on_both_engines(any_corpus_store: Store, duck_reports: dict[str, Any],
                                              name: str) -> None:
    report = stable(check_answer(any_corpus_store, str(ANSWERS / name)))
    assert json.dumps(report, sort_keys=True, default=str) == json.dumps(duck_reports[name], sort_keys=True,
                                                                          default=str)
    assert any_corpus_store.scalar("SELECT count(*) FROM verification") >= len(report["claims"]) > 0


def test_checking_twice_appends_records_and_shows_earlier_checks(any_corpus_store: Store) -> None:
    first = check_answer(any_corpus_store, str(ANSWERS / "traps.json"))
    count = any_corpus_store.scalar("SELECT count(*) FROM verification")
    second = check_answer(any_corpus_store, str(ANSWERS / "traps.json"))
    assert any_corpus_store.scalar("SELECT count(*) FROM verification") == 2 * count
    assert [c["status"] for c in first["claims"]] == [c["status"] for c in second["claims"]]
