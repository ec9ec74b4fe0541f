"""Fixtures for the lifecycle tests: the corpus with the example answer checked, and the same store after a
changed decision record and a new superseding decision were ingested."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
DR017 = "decisions/dr-017-webhook-retries.md"
CHANGED = ("The relay makes at most five delivery attempts for each event: the first delivery and up to four retries.",
           "The relay makes at most six delivery attempts for each event: the first delivery and up to five retries.")
REMOVED = "Webhook delivery logs are retained for 14 days.\n"
SUPERSEDER = "decisions/dr-040-northpass-labels.md"
SUPERSEDER_TEXT = """---
title: "DR-040: Northpass label requests"
status: current
effective: 2026-01-15
supersedes: contracts/northpass-adapter.md
kind: decision
---

# DR-040: Northpass label requests

Northpass label requests go through the new booking gateway, which offers a status lookup.
"""


@pytest.fixture(scope="session")
def changed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the corpus with DR-017 edited (one unit changed, one removed) and DR-040 added."""
    folder = tmp_path_factory.mktemp("changed") / "corpus"
    shutil.copytree(CORPUS, folder)
    path = folder / DR017
    text = path.read_text(encoding="utf-8")
    assert CHANGED[0] in text and REMOVED in text
    path.write_text(text.replace(CHANGED[0], CHANGED[1]).replace(REMOVED, ""), encoding="utf-8")
    (folder / SUPERSEDER).write_text(SUPERSEDER_TEXT, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def checked_db(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The corpus store with the clean example answer checked once (one verification record per claim)."""
    from graphcite.verify.check import check_answer

    path = tmp_path_factory.mktemp("checked") / "checked.duckdb"
    shutil.copy(corpus_db, path)
    with Store(path) as store:
        report = check_answer(store, ANSWERS / "clean.json")
    return path, report


@pytest.fixture(scope="session")
def changed_db(checked_db: tuple[Path, dict[str, Any]], changed_corpus: Path,
               tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """``checked_db`` after the changed corpus was ingested (a second later, so the supersession is newer)."""
    from graphcite.ingest import ingest

    path = tmp_path_factory.mktemp("changed_db") / "changed.duckdb"
    shutil.copy(checked_db[0], path)
    time.sleep(1.1)  # the store keeps second precision; the superseding decision must come after the check
    with Store(path) as store:
        report = ingest(store, [changed_corpus])
    assert report.updated == [DR017] and report.added == [SUPERSEDER]
    return path, checked_db[1]


@pytest.fixture
def copy_db(tmp_path: Path) -> Callable[[Path], Path]:
    """A private, writable copy of a session store file."""

    def copy(path: Path) -> Path:
        target = tmp_path / path.name
        shutil.copy(path, target)
        return target

    return copy


@pytest.fixture
def open_copy(copy_db: Callable[[Path], Path]) -> Iterator[Callable[[Path], Store]]:
    """Open private copies of session stores; closed after the test."""
    opened: list[Store] = []

    def open_(path: Path) -> Store:
        store = Store(copy_db(path))
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture(scope="session")
def app() -> typer.Typer:
    """A fresh typer app with only the lifecycle commands registered (as graphcite.cli will register them)."""
    from graphcite.cli.common import OneLineErrors
    from graphcite.cli.lifecycle import register

    app = typer.Typer(cls=OneLineErrors, add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (lifecycle test app)"""

    register(app)
    return app
