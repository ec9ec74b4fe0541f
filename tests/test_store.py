"""The store: schema from the models, bulk writes, transactions, locking, schema snapshots in sync."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from graphcite.errors import StoreError, StoreLockedError
from graphcite.schemas import ddl_snapshot, model_schemas
from graphcite.store import TABLES, Store, resolve_db_path

ROOT = Path(__file__).resolve().parents[1]


def test_every_model_has_a_table(store: Store) -> None:
    names = {r["table_name"] for r in store.rows("SELECT table_name FROM information_schema.tables")}
    assert set(TABLES) <= names


def test_bulk_insert_from_dicts_fills_defaults(store: Store) -> None:
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    assert store.bulk_insert("source", [{"key": "a.md", "current_revision": "r1", "first_ingested_at": now}]) == 1
    row = store.row("SELECT * FROM source")
    assert row == {"key": "a.md", "title": None, "kind": "note", "visibility": "public",
                   "current_revision": "r1", "first_ingested_at": now}


def test_bulk_insert_from_arrow_is_fast_path(store: Store) -> None:
    n = 50_000
    table = pa.table({"term": [f"t{i}" for i in range(n)], "unit_id": ["u"] * n})
    assert store.bulk_insert("term_posting", table) == n
    assert store.scalar("SELECT count(*) FROM term_posting") == n


def test_transaction_rolls_back_everything(store: Store) -> None:
    now = dt.datetime(2026, 1, 1)
    with pytest.raises(RuntimeError), store.transaction():
        store.bulk_insert("source", [{"key": "x", "current_revision": "r", "first_ingested_at": now}])
        raise RuntimeError("boom")
    assert store.scalar("SELECT count(*) FROM source") == 0


def test_db_path_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHCITE_DB", raising=False)
    assert resolve_db_path(None) == "graphcite.duckdb"
    monkeypatch.setenv("GRAPHCITE_DB", "/tmp/x.duckdb")
    assert resolve_db_path(None) == "/tmp/x.duckdb"
    assert resolve_db_path("y.duckdb") == "y.duckdb"


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="folder does not exist"):
        Store(tmp_path / "nope" / "x.duckdb")


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_text("hello, not a database" * 100)
    with pytest.raises(StoreError):
        Store(bogus)


def test_second_writer_gets_locked_message(tmp_path: Path) -> None:
    db = tmp_path / "locked.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from graphcite.store import Store; s = Store(sys.argv[1]); "
        "print('ready', flush=True); time.sleep(30)"), str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match="locked by another process"):
            Store(db)
    finally:
        holder.kill()
        holder.wait()


def test_schema_snapshots_match_models() -> None:
    folder = ROOT / "schema"
    for name, text in model_schemas().items():
        assert (folder / name).read_text(encoding="utf-8") == text, (
            f"schema/{name} is stale: run `python -m graphcite.schemas`")
    assert (folder / "ddl.sql").read_text(encoding="utf-8") == ddl_snapshot(), (
        "schema/ddl.sql is stale: run `python -m graphcite.schemas`")
