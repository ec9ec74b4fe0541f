"""Ingest on both engines: the same rows, idempotent reruns, and two processes ingesting at once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphcite.ingest import ingest
from graphcite.store import TABLES, Store

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
CONTENT = ("source", "source_revision", "evidence_unit", "typed_value", "source_link", "term_posting")
WHEN = {"ingested_at", "first_ingested_at"}


def content(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Every row of ``table`` without its ingest timestamps, sorted (the engines may store rows in any order)."""
    names = [n for n in TABLES[table].model_fields if n not in WHEN]
    columns = ", ".join(f'"{n}"' for n in names)
    return sorted(store.tuples(f"SELECT {columns} FROM {table}"), key=repr)


def test_the_corpus_gives_the_same_rows_on_both_engines(corpus_db: Path,
                                                        new_pg_database: Callable[..., str]) -> None:
    with Store(corpus_db, read_only=True) as duck, Store(new_pg_database("gc_corpus")) as pg:
        for table in CONTENT:
            assert content(pg, table) == content(duck, table), table
        assert pg.counts() == duck.counts()


def test_a_second_ingest_changes_nothing(db_url: str) -> None:
    with Store(db_url) as store:
        first = ingest(store, [CORPUS])
        counts = store.counts()
        again = ingest(store, [CORPUS])
        assert len(first.added) > 5 and not again.added and not again.updated
        assert store.counts() == counts


def test_two_processes_ingesting_the_same_folder_at_once_store_it_once(db_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "GRAPHCITE_LOCK_WAIT": "300", "GRAPHCITE_DB": db_url}
    command = [sys.executable, "-m", "graphcite", "ingest", str(CORPUS)]
    runs = [subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    with Store(db_url, read_only=True) as store:
        sources = store.scalar("SELECT count(*) FROM source")
        assert store.scalar("SELECT count(*) FROM source_revision") == sources > 5
        assert store.scalar("SELECT count(DISTINCT unit_id) FROM evidence_unit") == \
            store.scalar("SELECT count(*) FROM evidence_unit")
        once = store.counts()
    with Store(tmp_path / "once.duckdb") as single:
        ingest(single, [CORPUS])
        assert {t: n for t, n in single.counts().items() if t in CONTENT} == \
            {t: n for t, n in once.items() if t in CONTENT}


def test_a_failed_ingest_leaves_the_store_as_it_was(db_url: str, tmp_path: Path) -> None:
    from graphcite.errors import IngestError

    (tmp_path / "good.md").write_text("# Retries\n\nThe client retries 3 times.\n", encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\x00\x01binary")
    with Store(db_url) as store:
        ingest(store, [CORPUS])
        before = store.counts()
        with pytest.raises(IngestError):
            ingest(store, [tmp_path])
        assert store.counts() == before
