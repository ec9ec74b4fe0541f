"""kill -9 during an export: the target is the old complete file or folder or the new one, never partial.

A writer process exports in a loop (public and internal in turn, so old and new differ) and is
killed with SIGKILL, either as soon as its temporary file or folder appears (mid-write) or after a
random delay. After each kill the target must equal one of the two complete reference exports
(GraphML: the same bytes and well-formed XML; parquet: every table equal to the same reference), and
the next export must leave no temporary file behind. ``GRAPHCITE_KILL_ITERATIONS`` (default 3 per
format) raises the count for a longer run.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from lxml import etree

from graphcite.export import export
from graphcite.export.parquet import PARQUET_TABLES
from graphcite.store import Store

HERE = Path(__file__).resolve().parent
ITERATIONS = int(os.environ.get("GRAPHCITE_KILL_ITERATIONS", "3"))


class Driver:
    """tests/export/kill_driver.py as a subprocess: forks writers and kills them on request."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, str(HERE / "kill_driver.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        assert json.loads(self.proc.stdout.readline()) == {"ready": True}  # type: ignore[union-attr]

    def kill_during(self, **request: Any) -> dict[str, Any]:
        self.proc.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return json.loads(self.proc.stdout.readline())  # type: ignore[union-attr]

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def driver() -> Iterator[Driver]:
    d = Driver()
    yield d
    d.close()


def references(store: Store, fmt: str, folder: Path) -> dict[str, Path]:
    out = {}
    for audience in ("internal", "public"):
        out[audience] = folder / f"ref-{audience}"
        export(store, fmt, out[audience], answer="lineage-demo", audience=audience)
    return out


def tables(folder: Path) -> dict[str, Any]:
    return {name: pq.read_table(folder / f"{name}.parquet") for name in PARQUET_TABLES}


def matches(fmt: str, target: Path, refs: dict[str, Path]) -> str | None:
    """Which complete reference export ``target`` is (internal or public), or None."""
    if fmt == "graphml":
        etree.parse(str(target))  # well-formed
        data = target.read_bytes()
        return next((a for a, ref in refs.items() if ref.read_bytes() == data), None)
    assert sorted(p.name for p in target.iterdir()) == sorted(f"{t}.parquet" for t in PARQUET_TABLES)
    got = tables(target)
    for audience, ref in refs.items():
        want = tables(ref)
        if all(got[t].equals(want[t]) for t in PARQUET_TABLES):
            return audience
    return None


@pytest.mark.parametrize("fmt", ["graphml", "parquet"])
def test_sigkill_leaves_old_or_new_complete_and_no_litter(fmt: str, driver: Driver, export_db: tuple[Path, Any],
                                                          export_store: Store, tmp_path: Path) -> None:
    refs = references(export_store, fmt, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    target = work / ("g.graphml" if fmt == "graphml" else "tables")
    export(export_store, fmt, target, answer="lineage-demo")  # the old complete export
    rng = random.Random(fmt)
    mid_write = 0
    for i in range(ITERATIONS):
        mode = "temp" if i % 3 != 1 else "time"
        result = driver.kill_during(db=str(export_db[0]), out=str(target), fmt=fmt, answer="lineage-demo",
                                    mode=mode, delay=rng.uniform(0.2, 2.5), nth=1 + i % 2)
        assert result["signal"] == 9, result  # killed, not failed
        mid_write += result["saw_temp"]
        assert matches(fmt, target, refs) is not None, f"iteration {i}: {target} is neither complete export"
    assert mid_write >= 1  # at least one kill landed while the temporary output was being written
    leftovers = [p.name for p in work.iterdir() if p.name != target.name]
    export(export_store, fmt, target, answer="lineage-demo", audience="public")  # the next run cleans up
    assert [p.name for p in work.iterdir()] == [target.name], leftovers
    assert matches(fmt, target, refs) == "public"
