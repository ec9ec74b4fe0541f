"""A Ray runtime that fails under `graphcite ingest --engine ray` (a worker that dies on every try, the
raylet or the GCS killed) is one E010 line with exit 2, writes nothing, and leaves no Ray process behind.

Each test runs the real command in a subprocess, which starts its own local Ray runtime, and kills one
of that runtime's processes with SIGKILL while files are being prepared.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graphcite.distributed.runtime import ray_failure
from graphcite.distributed.tasks import MAX_RETRIES
from graphcite.store import Store
from tests.conftest import ANSWERS
from tests.scale.conftest import write_corpus

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the runtime's processes through /proc")

FILES = 40
GRAPHCITE = Path(sys.executable).with_name("graphcite")


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _running(pid: int, started: str) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in {"Z", "X"} and fields[19] == started


@dataclass
class Run:
    """One `graphcite ingest --engine ray` in a subprocess and every process it started, by (pid, start time)."""

    returncode: int
    stdout: str
    stderr: str
    killed: list[str] = field(default_factory=list)
    seen: dict[tuple[int, str], str] = field(default_factory=dict)

    def survivors(self) -> list[str]:
        deadline = time.monotonic() + 5  # what is still exiting gets a moment
        while True:
            alive = [title for (pid, started), title in self.seen.items() if _running(pid, started)]
            if not alive or time.monotonic() > deadline:
                return alive
            time.sleep(0.1)


def _descendants(root: int) -> dict[tuple[int, str], str]:
    parents = {}
    for entry in os.listdir("/proc"):
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields is not None:
            parents[int(entry)] = (int(fields[1]), fields[19])
    found = {}
    for pid, (_, started) in parents.items():
        ancestor = pid
        while ancestor > 1 and ancestor != root:
            ancestor = parents.get(ancestor, (0, ""))[0]
        if ancestor == root and pid != root:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    found[(pid, started)] = handle.read(200).replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
    return found


def _ingest_while_killing(tmp_path: Path, victim: str, *, every: bool = False) -> Run:
    """Ingest a generated corpus on Ray; once a worker runs prepare_group, SIGKILL the process whose
    program or title starts with ``victim`` (``every``: each one seen, for the whole run)."""
    corpus = write_corpus(tmp_path / "corpus", files=FILES, paragraphs=60)
    return _run_while_killing(["ingest", str(corpus), "--db", str(tmp_path / "s.duckdb")], "prepare_group", victim,
                              every=every)


def _run_while_killing(args: list[str], task: str, victim: str, *, every: bool = False) -> Run:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("GRAPHCITE_DEBUG", None)
    process = subprocess.Popen([str(GRAPHCITE), *args, "--engine", "ray", "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen: dict[tuple[int, str], str] = {}
    killed: list[str] = []
    preparing = False
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        now = _descendants(process.pid)
        seen.update(now)
        preparing = preparing or any(t.startswith(f"ray::{task}") for t in now.values())
        if preparing and (every or not killed):
            for (pid, _), title in now.items():
                program = title.split(" ")[0]
                if title.startswith(victim) or program.endswith(f"/{victim}"):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(title.split(" ")[0])
                    if not every:
                        break
        time.sleep(0.01)
    if process.poll() is None:
        process.kill()
    stdout, stderr = process.communicate()
    return Run(process.returncode, stdout, stderr, killed, seen)


def _revisions(db: Path) -> int:
    with Store(db, read_only=True) as store:
        return int(store.scalar("SELECT count(*) FROM source_revision"))


def _error_lines(run: Run) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.startswith("error:")]


def test_a_dead_raylet_is_one_line_exit_2_and_nothing_written(tmp_path: Path) -> None:
    run = _ingest_while_killing(tmp_path, "raylet")
    assert run.killed, "the raylet was never seen while files were prepared"
    (line,) = _error_lines(run)
    assert run.returncode == 2, run.stderr
    assert line.startswith("error: E010 --engine ray: the local Ray raylet died preparing note-")
    assert "nothing was written" in line and "omit --engine ray" in line and "E009" not in run.stderr
    assert "(raylet)" not in run.stdout and run.stdout.strip() == ""  # Ray's own messages stay off stdout
    assert _revisions(tmp_path / "s.duckdb") == 0
    assert run.survivors() == []


def test_a_worker_that_dies_on_every_try_is_one_line_exit_2_and_nothing_written(tmp_path: Path) -> None:
    run = _ingest_while_killing(tmp_path, "ray::prepare_group", every=True)
    assert len(run.killed) > MAX_RETRIES
    (line,) = _error_lines(run)
    assert run.returncode == 2, run.stderr
    assert f"a Ray worker process died {MAX_RETRIES + 1} times preparing note-" in line
    assert "(WorkerCrashedError); nothing was written" in line
    assert "retries remaining" not in run.stdout  # the raylet's notes on each retry go to the log
    assert _revisions(tmp_path / "s.duckdb") == 0
    assert run.survivors() == []


def test_a_dead_gcs_leaves_no_ray_process_behind(tmp_path: Path) -> None:
    run = _ingest_while_killing(tmp_path, "gcs_server")
    assert run.killed, "the GCS was never seen while files were prepared"
    if run.returncode == 0:  # the work can finish without the GCS: then every file is written
        assert _revisions(tmp_path / "s.duckdb") == FILES and not _error_lines(run)
    else:
        (line,) = _error_lines(run)
        assert run.returncode == 2 and line.startswith("error: E010 --engine ray: "), run.stderr
        assert _revisions(tmp_path / "s.duckdb") == 0
    assert run.survivors() == []  # its agents outlived the driver before


def test_a_dead_raylet_during_check_batch_records_nothing(corpus_db: Path, tmp_path: Path) -> None:
    claims = [c for name in ("traps.json", "clean.json")
              for c in json.loads((ANSWERS / name).read_text(encoding="utf-8"))["claims"]]
    paths = []
    for i in range(80):
        path = tmp_path / f"answer-{i:03}.json"
        path.write_text(json.dumps({"answer_id": f"many-{i:03}", "claims": [claims[i % len(claims)],
                                                                              claims[(i * 7 + 3) % len(claims)]]}))
        paths.append(str(path))
    db = tmp_path / "batch.duckdb"
    shutil.copy(corpus_db, db)
    run = _run_while_killing(["check-batch", *paths, "--db", str(db)], "_verify_chunk", "raylet")
    assert run.killed, "the raylet was never seen while answers were verified"
    (line,) = _error_lines(run)
    assert run.returncode == 2, run.stderr
    assert line.startswith("error: E010 --engine ray: the local Ray raylet died verifying answer many-")
    with Store(db, read_only=True) as store:
        assert store.scalar("SELECT count(*) FROM verification") == 0
        assert store.scalar("SELECT count(*) FROM answer") == 0
    assert run.survivors() == []


def test_the_line_names_what_died_and_the_fix() -> None:
    from ray.exceptions import LocalRayletDiedError, NodeDiedError, ObjectLostError, WorkerCrashedError

    worker = ray_failure(WorkerCrashedError(), "preparing a.md (and 3 more files)")
    assert worker.code == "E010" and worker.where == "--engine ray"
    assert worker.cause == (f"a Ray worker process died {MAX_RETRIES + 1} times preparing a.md (and 3 more files) "
                            "(WorkerCrashedError); nothing was written")
    assert "rerun the command" in str(worker) and "omit --engine ray" in str(worker)
    assert ray_failure(LocalRayletDiedError()).cause.startswith("the local Ray raylet died (")
    assert ray_failure(NodeDiedError("n1")).cause.startswith("a Ray node died (")
    lost = ray_failure(ObjectLostError("0" * 56, "owner", "call site"), "verifying answer a1")
    assert lost.cause.startswith("a result was lost with the Ray worker or node that held it verifying answer a1")
