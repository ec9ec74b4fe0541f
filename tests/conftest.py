"""Shared fixtures: the bundled corpus, a store ingested from it once per session, a fresh store per test.

Both engines: ``db_url`` (and ``any_store``, ``any_corpus_store``) run a test once on a DuckDB file
and once on a fresh database of a PostgreSQL server the session starts itself (``initdb`` into a
temporary folder, 127.0.0.1 and a free port, stopped at the end). Without the server binaries the
PostgreSQL cases skip, saying so.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
LABELLED = ROOT / "graphcite" / "examples" / "labelled" / "set.jsonl"
SHARED = ROOT.parent / "shared"
BACKENDS = ["duckdb", "postgresql"]

#: a restricted runbook and a public post that launders nothing: the documents the audience tests share
KEYSTORE_RUNBOOK = """---
title: Keystore runbook
kind: manual
visibility: restricted
---
# Keystore runbook

Signing keys are rotated every 45 days.
"""
ROTATION_POST = """---
title: Rotation post
kind: post
---
# Rotation post

Signing keys are rotated on a fixed schedule.
"""

# a second DuckDB writer waits this long for the lock before "store is locked" (30 s outside tests)
os.environ.setdefault("GRAPHCITE_LOCK_WAIT", "2")
_databases = itertools.count()


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


# ----------------------------------------------------------------------------------------------
# PostgreSQL
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """A PostgreSQL server for this test session, with two templates: an empty store and the corpus."""
    from graphcite.store.pgserver import find_pg_bin, temporary_server

    if find_pg_bin() is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
                    "/usr/lib/postgresql/*/bin; install the `postgresql` package (.ci/server-deps.sh)")
    with temporary_server() as server:
        from graphcite.ingest import ingest

        with Store(server.create_database("gc_empty")):
            pass
        with Store(server.create_database("gc_corpus")) as opened:
            ingest(opened, [CORPUS])
        yield server


def fresh_pg_database(server: object, template: str = "gc_empty") -> str:
    """A new database on the session's server, copied from ``template``; its URL."""
    return server.create_database(f"t{next(_databases)}_{os.getpid()}", template=template)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def new_pg_database(pg_server: object) -> Callable[..., str]:
    """A function that makes a new database on the session's server (``template``: gc_empty or gc_corpus)."""
    return lambda template="gc_empty": fresh_pg_database(pg_server, template)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty store on each engine: a DuckDB file path, or a PostgreSQL URL of a fresh database."""
    if request.param == "duckdb":
        return str(tmp_path / "t.duckdb")
    return fresh_pg_database(request.getfixturevalue("pg_server"))


@pytest.fixture
def any_store(db_url: str) -> Iterator[Store]:
    """An open empty store on each engine."""
    with Store(db_url) as opened:
        yield opened


@pytest.fixture(params=BACKENDS)
def corpus_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A private store holding the ingested example corpus, on each engine (path or URL)."""
    if request.param == "duckdb":
        import shutil

        copy = tmp_path / "corpus.duckdb"
        shutil.copy(request.getfixturevalue("corpus_db"), copy)
        return str(copy)
    return fresh_pg_database(request.getfixturevalue("pg_server"), "gc_corpus")


@pytest.fixture
def any_corpus_store(corpus_url: str) -> Iterator[Store]:
    """An open store holding the ingested example corpus, on each engine."""
    with Store(corpus_url) as opened:
        yield opened
