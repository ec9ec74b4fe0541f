"""A store opened read-only reads everything and writes nothing, on both engines.

On PostgreSQL the server refuses the write (the session's transactions are read-only), so a code
path that forgot to ask for a writable store cannot change a shared store; the store's own
temporary tables (id lists and Arrow views joined in reads) are the one exception.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from graphcite.errors import StoreError
from graphcite.store import Store

INTRUDER = {"key": "intruder.md", "title": "Intruder", "kind": "note", "visibility": "public",
            "current_revision": "r-none", "first_ingested_at": dt.datetime(2026, 1, 1)}


def _counts(url: str) -> dict[str, int]:
    with Store(url, read_only=True) as store:
        return {table: store.scalar(f"SELECT count(*) FROM {table}")
                for table in ("source", "source_revision", "evidence_unit", "verification")}


def test_read_only_store_reads_and_joins_temporary_tables(corpus_url: str) -> None:
    with Store(corpus_url, read_only=True) as store:
        units = [row["unit_id"] for row in store.rows("SELECT unit_id FROM evidence_unit ORDER BY unit_id")]
        assert units
        # few ids and many (PostgreSQL analyses a temporary table of more than 1,000 rows)
        for ids in (units[:3], units + [f"missing-{n:05d}" for n in range(1500)]):
            with store.temporary("wanted", ids):
                found = store.scalar("SELECT count(*) FROM evidence_unit u JOIN wanted w ON w.id = u.unit_id")
            assert found == min(len(ids), len(units))
        view = store.cursor_view()
        try:
            assert view.scalar("SELECT count(*) FROM evidence_unit") == len(units)
        finally:
            view.close()


@pytest.mark.parametrize("how", ["statement", "bulk", "other connection"])
def test_read_only_store_refuses_writes(corpus_url: str, how: str) -> None:
    before = _counts(corpus_url)
    with Store(corpus_url, read_only=True) as store, pytest.raises(StoreError, match="opened read-only"):
        if how == "statement":
            store.execute("INSERT INTO source (key, title, kind, visibility, current_revision, first_ingested_at) "
                          "VALUES (?, ?, ?, ?, ?, ?)", [*INTRUDER.values()])
        elif how == "bulk":
            store.bulk_insert("source", [INTRUDER])
        else:
            view = store.cursor_view()
            try:
                view.execute("DELETE FROM verification")
            finally:
                view.close()
    assert _counts(corpus_url) == before


def test_threads_option_caps_duckdb_workers(tmp_path: Path) -> None:
    """``threads=1`` sets DuckDB's worker pool for that connection only; below 1 is one clear error."""
    from graphcite.store import open_store

    db = tmp_path / "t.duckdb"
    with open_store(db) as store:
        default = store.con.execute("SELECT current_setting('threads')").fetchone()[0]
    with open_store(db, read_only=True, threads=1) as store:
        assert store.con.execute("SELECT current_setting('threads')").fetchone()[0] == 1
    assert int(default) >= 1
    with pytest.raises(StoreError, match="threads must be at least 1"):
        open_store(db, read_only=True, threads=0)
