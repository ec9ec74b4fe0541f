"""Ingest on Ray: the same rows as in-process, and the same rows again when a worker is killed mid-run."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from graphcite.errors import GraphciteError
from graphcite.ingest import ingest
from graphcite.store import Store
from tests.conftest import CORPUS
from tests.scale.conftest import table_contents, write_corpus

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


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def _busy_prepare_workers() -> list[int]:
    """Ray workers started by this test session that are running ``prepare_group`` right now."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                title = handle.read().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(b"ray::prepare_group") and _descends_from(int(entry), os.getpid()):
            found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds Ray's worker processes through /proc")
def test_a_worker_killed_mid_ingest_is_retried_and_the_rows_are_the_same(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", files=48, paragraphs=60)
    _ingest(tmp_path / "calm.duckdb", [corpus])
    killed: list[int] = []
    done = threading.Event()

    def kill_one_busy_worker() -> None:
        deadline = time.monotonic() + 60
        while not done.is_set() and not killed and time.monotonic() < deadline:
            for pid in _busy_prepare_workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one_busy_worker, daemon=True)
    killer.start()
    try:
        report = _ingest(tmp_path / "hurt.duckdb", [corpus], engine="ray", workers=2)
    finally:
        done.set()
        killer.join()
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
