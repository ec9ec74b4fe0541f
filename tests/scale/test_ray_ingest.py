"""Ingest on Ray: the same rows as in-process, and the same rows again when a worker is killed mid-run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from graphcite.errors import GraphciteError
from graphcite.ingest import ingest
from graphcite.store import Store
from tests.conftest import CORPUS
from tests.scale.conftest import kill_one_ray_worker, table_contents, write_corpus

pytestmark = pytest.mark.usefixtures("ray_session")


def _ingest(db: Path, paths: list[Path], **options: object) -> dict[str, object]:
    with Store(db) as store:
        return ingest(store, paths, **options).as_dict()  # type: ignore[arg-type]


def test_ray_ingest_writes_the_rows_of_an_in_process_ingest(tmp_path: Path) -> None:
    local = _ingest(tmp_path / "local.duckdb", [CORPUS])
    on_ray = _ingest(tmp_path / "ray.duckdb", [CORPUS], engine="ray", workers=2)
    assert on_ray == local
    assert table_contents(tmp_path / "ray.duckdb") == table_contents(tmp_path / "local.duckdb")
    assert local["units"] > 400


def test_ray_ingest_into_postgresql_writes_the_rows_of_an_in_process_ingest(new_pg_database: Any) -> None:
    local, on_ray = new_pg_database(), new_pg_database()
    with Store(local) as store:
        ingest(store, [CORPUS])
    with Store(on_ray) as store:
        ingest(store, [CORPUS], engine="ray", workers=2)
    assert table_contents(on_ray) == table_contents(local)


def test_a_second_ray_ingest_of_the_same_folder_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    _ingest(db, [CORPUS], engine="ray", workers=2)
    before = table_contents(db)
    again = _ingest(db, [CORPUS], engine="ray", workers=2)
    assert again["added"] == [] and again["updated"] == [] and len(again["unchanged"]) == 28
    assert table_contents(db) == before


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds Ray's worker processes through /proc")
def test_a_worker_killed_mid_ingest_is_retried_and_the_rows_are_the_same(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", files=48, paragraphs=60)
    _ingest(tmp_path / "calm.duckdb", [corpus])
    with kill_one_ray_worker("prepare_group") as killed:
        report = _ingest(tmp_path / "hurt.duckdb", [corpus], engine="ray", workers=2)
    assert killed, "no Ray worker was seen running prepare_group, so none was killed"
    assert len(report["added"]) == 48  # type: ignore[arg-type]
    assert table_contents(tmp_path / "hurt.duckdb") == table_contents(tmp_path / "calm.duckdb")


def test_a_file_that_cannot_be_ingested_fails_the_same_on_ray_and_writes_nothing(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", files=6, paragraphs=3)
    (corpus / "note-0003.md").write_bytes(b"# Broken\n\nnot \xff\xfe UTF-8 text\n")
    failures = []
    for name, options in (("local", {}), ("ray", {"engine": "ray", "workers": 2})):
        db = tmp_path / f"{name}.duckdb"
        with Store(db) as store:
            with pytest.raises(GraphciteError) as caught:
                ingest(store, [corpus], **options)  # type: ignore[arg-type]
            assert store.scalar("SELECT count(*) FROM source_revision") == 0
        failures.append((type(caught.value), str(caught.value)))
    assert failures[0] == failures[1]
    assert "note-0003.md" in failures[0][1]
