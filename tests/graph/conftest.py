"""Fixtures for the graph tests: one store with the lineage corpus and a checked answer, built once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from lineage_corpus import build_store

from graphcite.store import Store, copy_store


@pytest.fixture(scope="session")
def lineage_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """(DuckDB file, check report) for the lineage corpus; built once per session."""
    root = tmp_path_factory.mktemp("lineage")
    report = build_store(root / "lineage.duckdb", root / "corpus")
    return root / "lineage.duckdb", report


@pytest.fixture(scope="session")
def lineage_store(lineage_db: tuple[Path, dict[str, Any]]) -> Iterator[Store]:
    """The lineage store opened read-only (shared by the read tests)."""
    with Store(lineage_db[0], read_only=True) as store:
        yield store


@pytest.fixture(scope="session")
def report(lineage_db: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    return lineage_db[1]


@pytest.fixture
def writable_store(lineage_db: tuple[Path, dict[str, Any]], tmp_path: Path) -> Iterator[Store]:
    """A private copy of the lineage store, safe to write to."""
    import shutil

    copy = tmp_path / "copy.duckdb"
    shutil.copy(lineage_db[0], copy)
    with Store(copy) as store:
        yield store


@pytest.fixture(scope="session")
def pg_lineage(lineage_db: tuple[Path, dict[str, Any]], new_pg_database: Callable[..., str]) -> str:
    """The lineage store copied row for row into a PostgreSQL database; its URL."""
    url = new_pg_database()
    with Store(lineage_db[0], read_only=True) as source, Store(url) as target:
        copied = copy_store(source, target)
        assert copied == source.counts() == target.counts()
    return url
