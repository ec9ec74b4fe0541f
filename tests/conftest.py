"""Shared fixtures: the bundled corpus, a store ingested from it once per session, a fresh store per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
LABELLED = ROOT / "graphcite" / "examples" / "labelled" / "set.jsonl"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An empty store in a temporary DuckDB file."""
    with Store(tmp_path / "t.duckdb") as opened:
        yield opened


@pytest.fixture(scope="session")
def corpus_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file holding the ingested example corpus (ingested once per session)."""
    from graphcite.ingest import ingest

    path = tmp_path_factory.mktemp("corpus") / "corpus.duckdb"
    with Store(path) as opened:
        ingest(opened, [CORPUS])
    return path


@pytest.fixture
def corpus_store(corpus_db: Path, tmp_path: Path) -> Iterator[Store]:
    """A private copy of the ingested corpus store, safe to write to."""
    import shutil

    copy = tmp_path / "corpus.duckdb"
    shutil.copy(corpus_db, copy)
    with Store(copy) as opened:
        yield opened
