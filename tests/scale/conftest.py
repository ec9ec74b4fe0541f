"""Fixtures of the scale tests: one local Ray runtime per session, a generated corpus, table dumps."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphcite.distributed.runtime import LOCAL_SYSTEM_CONFIG
from graphcite.store import Store

#: Tables an ingest writes, and the columns that hold the time of the run rather than its content.
INGEST_TABLES = ("source", "source_revision", "evidence_unit", "typed_value", "source_link", "term_posting")
CLOCK_COLUMNS = {"ingested_at", "first_ingested_at"}

_WORDS = ("relay", "adapter", "queue", "carrier", "budget", "label", "shipment", "scheduler", "worker",
          "region", "backlog", "webhook", "timeout", "review")
_UNITS = ("ms", "seconds", "minutes", "MB", "%", "retries")


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """One local Ray runtime (2 CPUs) for the whole session; graphcite uses it instead of starting its own."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 * 1024 * 1024,
             logging_level=logging.ERROR, configure_logging=True,
             _system_config=LOCAL_SYSTEM_CONFIG)
    yield
    ray.shutdown()


def write_corpus(folder: Path, files: int, paragraphs: int, seed: int = 11) -> Path:
    """``files`` Markdown files with headings, front matter, values and a table; same bytes per seed."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        parts = [f"---\ntitle: Note {index}\nstatus: current\n---\n", f"# Note {index}\n"]
        for section in range(paragraphs):
            parts.append(f"## Section {section}\n")
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 16))]
            words.insert(3, f"{rng.randint(1, 900)} {rng.choice(_UNITS)}")
            parts.append(" ".join(words).capitalize() + ". " + " ".join(rng.sample(_WORDS, 6)).capitalize() + ".\n")
        parts.append("| Setting | Timeout (ms) |\n| --- | --- |\n| relay | 250 |\n")
        (folder / f"note-{index:04}.md").write_text("\n".join(parts), encoding="utf-8")
    return folder


def table_contents(path: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row an ingest wrote, clock columns left out, sorted: equal for equal ingests (either engine)."""
    from graphcite.store.schema import TABLES

    with Store(path, read_only=True) as store:
        dump = {}
        for table in INGEST_TABLES:
            select = ", ".join(f'"{c}"' for c in TABLES[table].model_fields if c not in CLOCK_COLUMNS)
            dump[table] = sorted((tuple(r.values()) for r in store.rows(f"SELECT {select} FROM {table}")), key=repr)
        return dump


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


def busy_ray_workers(task: str) -> list[int]:
    """Ray workers started by this test session that are running ``task`` right now (Ray titles a
    worker process ``ray::TASK`` while it runs one)."""
    found = []
    title_prefix = f"ray::{task}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                title = handle.read().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(title_prefix) and _descends_from(int(entry), os.getpid()):
            found.append(int(entry))
    return found


@contextlib.contextmanager
def kill_one_ray_worker(task: str) -> Iterator[list[int]]:
    """While the block runs, SIGKILL the first worker seen running ``task``; yields the killed pids."""
    killed: list[int] = []
    done = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + 60
        while not done.is_set() and time.monotonic() < deadline:
            for pid in busy_ray_workers(task):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=watch, daemon=True)
    killer.start()
    try:
        yield killed
    finally:
        done.set()
        killer.join()
