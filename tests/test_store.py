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


def test_every_model_has_a_table(any_store: Store) -> None:
    names = {r["table_name"] for r in any_store.rows("SELECT table_name FROM information_schema.tables")}
    assert set(TABLES) <= names


def test_bulk_insert_from_dicts_fills_defaults(any_store: Store) -> None:
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    assert any_store.bulk_insert("source", [{"key": "a.md", "current_revision": "r1", "first_ingested_at": now}]) == 1
    row = any_store.row("SELECT * FROM source")
    assert row == {"key": "a.md", "title": None, "kind": "note", "visibility": "public",
                   "current_revision": "r1", "first_ingested_at": now}


def test_bulk_insert_from_arrow_is_fast_path(any_store: Store) -> None:
    n = 50_000
    table = pa.table({"term": [f"t{i}" for i in range(n)], "unit_id": ["u"] * n})
    assert any_store.bulk_insert("term_posting", table) == n
    assert any_store.scalar("SELECT count(*) FROM term_posting") == n


def test_transaction_rolls_back_everything(any_store: Store) -> None:
    now = dt.datetime(2026, 1, 1)
    with pytest.raises(RuntimeError), any_store.transaction():
        any_store.bulk_insert("source", [{"key": "x", "current_revision": "r", "first_ingested_at": now}])
        raise RuntimeError("boom")
    assert any_store.scalar("SELECT count(*) FROM source") == 0


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
            f"schema/{name} is stale: run `python scripts/build_schemas.py`")
    assert (folder / "ddl.sql").read_text(encoding="utf-8") == ddl_snapshot(), (
        "schema/ddl.sql is stale: run `python scripts/build_schemas.py`")


# -------------------------------------------------------------------------------------------
# Faults (issue 12): foreign files, 64-bit offsets, old and newer schemas
# -------------------------------------------------------------------------------------------


def foreign_duckdb(path: Path) -> Path:
    import duckdb

    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE sales (id INTEGER, amount DOUBLE)")
    con.execute("INSERT INTO sales VALUES (1, 9.5)")
    con.close()
    return path


def test_foreign_duckdb_file_is_not_a_graphcite_store(tmp_path: Path) -> None:
    foreign = foreign_duckdb(tmp_path / "other.duckdb")
    before = foreign.read_bytes()
    for read_only in (True, False):
        with pytest.raises(StoreError, match=r"not a graphcite store \(it holds other tables: sales\)") as caught:
            Store(foreign, read_only=read_only)
        assert caught.value.where == str(foreign) and "\n" not in str(caught.value)
    assert foreign.read_bytes() == before  # nothing was added to somebody else's database


def test_empty_duckdb_file_becomes_a_store_only_when_writing(tmp_path: Path) -> None:
    import duckdb

    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    with pytest.raises(StoreError, match="not a graphcite store"):
        Store(empty, read_only=True)
    with Store(empty) as opened:
        assert opened.counts()["source"] == 0
    with Store(empty, read_only=True) as opened:
        assert opened.counts()["source"] == 0


def test_read_only_command_on_a_foreign_file_is_one_line(tmp_path: Path) -> None:
    foreign = foreign_duckdb(tmp_path / "other.duckdb")
    done = subprocess.run([sys.executable, "-m", "graphcite", "sources", "--db", str(foreign)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "not a graphcite store" in lines[0]
    assert "Catalog" not in done.stderr and "Traceback" not in done.stderr


def test_offset_and_page_columns_are_64_bit(any_store: Store) -> None:
    big = 2**40
    any_store.bulk_insert("evidence_unit", [{
        "unit_id": "u", "revision_id": "r", "source_key": "k", "ordinal": 0, "start": big, "end": big + 5,
        "text": "x", "block_type": "paragraph", "page": 2**33, "line_start": 2**32, "line_end": 2**32}])
    assert any_store.row('SELECT start, "end", page FROM evidence_unit') == {"start": big, "end": big + 5, "page": 2**33}
    any_store.bulk_insert("citation", [{"citation_id": "c", "claim_id": "q", "ordinal": 0, "start": 2**31, "end": 2**62,
                                    "page": 2**31}])
    assert any_store.scalar('SELECT "end" FROM citation') == 2**62
    types = {r["column_name"]: r["data_type"] for r in any_store.rows(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'typed_value'")}
    assert types["start"].upper() == types["end"].upper() == "BIGINT"


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**5000], ids=["2^63", "-2^63-1", "10^5000"])
def test_integers_beyond_64_bits_are_a_store_error(any_store: Store, value: int) -> None:
    before = any_store.counts()
    with pytest.raises(StoreError, match=r"cannot store citation\.start") as caught:
        any_store.bulk_insert("citation", [{"citation_id": "c", "claim_id": "q", "ordinal": 0, "start": value}])
    assert "\n" not in str(caught.value)
    assert any_store.counts() == before


def test_schema_1_store_is_upgraded_in_place(tmp_path: Path) -> None:
    import duckdb

    from graphcite.store import SCHEMA_VERSION, ddl_statements

    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    for statement in ddl_statements():
        con.execute(statement.replace("BIGINT", "INTEGER"))
    con.execute("CREATE TABLE graphcite_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    con.execute("INSERT INTO graphcite_meta VALUES ('schema_version', '1')")
    con.execute("INSERT INTO typed_value (value_id, unit_id, revision_id, start, \"end\", surface, kind, bound) "
                "VALUES ('v', 'u', 'r', 7, 9, '3 s', 'duration', 'exact')")
    con.close()
    with Store(db, read_only=True) as opened:  # readable as it is
        assert opened.scalar("SELECT start FROM typed_value") == 7
    with Store(db) as opened:  # opening for writing upgrades it
        assert opened.scalar("SELECT value FROM graphcite_meta WHERE key = 'schema_version'") == str(SCHEMA_VERSION)
        assert opened.scalar("SELECT data_type FROM information_schema.columns "
                             "WHERE table_name = 'typed_value' AND column_name = 'start'") == "BIGINT"
        assert opened.scalar("SELECT count(*) FROM duckdb_indexes() WHERE table_name = 'typed_value'") >= 1
        opened.bulk_insert("typed_value", [{"value_id": "w", "unit_id": "u", "revision_id": "r", "start": 2**40,
                                            "end": 2**40 + 3, "surface": "4 s", "kind": "duration"}])
        assert opened.scalar("SELECT max(start) FROM typed_value") == 2**40


def test_store_from_a_newer_graphcite_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    with Store(db) as opened:
        opened.execute("UPDATE graphcite_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(db, read_only=True)


def test_opening_a_current_store_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "same.duckdb"
    Store(db).close()
    before = db.read_bytes()
    Store(db).close()
    Store(db, read_only=True).close()
    assert db.read_bytes() == before
