"""Ingest on both engines: the same rows, idempotent reruns, and two processes ingesting at once."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="module")
def pinned_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The bundled corpus in a git repository of its own, and that repository's one commit.

    A Python source records the HEAD commit of the work tree it is read from (``git_commit``). The
    session's DuckDB and PostgreSQL corpus stores are ingested minutes apart from the project's own
    work tree, where commits land meanwhile: the same file then carries two commits and the engines
    seem to differ. Read from a repository whose HEAD never moves, both engines must agree exactly.
    """
    root = tmp_path_factory.mktemp("pinned") / "corpus"
    shutil.copytree(CORPUS, root)
    env = {**os.environ, "GIT_AUTHOR_NAME": "graphcite", "GIT_AUTHOR_EMAIL": "tests@graphcite.invalid",
           "GIT_COMMITTER_NAME": "graphcite", "GIT_COMMITTER_EMAIL": "tests@graphcite.invalid",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "corpus"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()
    return root, head


def test_the_corpus_gives_the_same_rows_on_both_engines(pinned_corpus: tuple[Path, str], tmp_path: Path,
                                                        new_pg_database: Callable[..., str]) -> None:
    corpus, head = pinned_corpus
    with Store(tmp_path / "duck.duckdb") as duck, Store(new_pg_database()) as pg:
        ingest(duck, [corpus])
        ingest(pg, [corpus])
        commits = duck.rows("SELECT source_key, git_commit FROM source_revision WHERE format = 'python' "
                            "ORDER BY source_key")
        assert [r["git_commit"] for r in commits] == [head] * len(commits) and commits  # still compared below
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
