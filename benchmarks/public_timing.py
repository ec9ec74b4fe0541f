"""Does a public answer take longer when the restricted content is larger, or when a probe hits a
restricted figure? (issue 23 item 1: no status, finding, score *or timing* of a public answer may
depend on restricted content.)

Two stores hold the same public manual and differ only in restricted content: ``small`` has one
restricted runbook, ``large`` adds many restricted runbooks whose paragraphs share the probe's words.
Each public path is timed on both, with probes that state the restricted figure and probes that do
not; medians of interleaved runs, in one process (the machine is shared, so compare ratios, not
absolute times). A path is fine when ``large / small`` and ``hit / miss`` stay near 1.

    OMP_NUM_THREADS=1 python -m benchmarks.public_timing --runs 15 --restricted-docs 150
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import emit

__all__ = ["build", "main", "run"]

FIGURE = 45
MANUAL = """---
title: Operations manual
kind: manual
---
# Secrets

Signing secrets are rotated on a schedule that operations sets.

Audit logs are kept for a year.
"""
RUNBOOK = """---
title: Keystore runbook {n}
kind: manual
visibility: restricted
---
# Keystore runbook {n}

{paragraphs}
"""


def _runbook(n: int, figure: int, paragraphs: int) -> str:
    lines = [f"Signing secrets are rotated every {figure} days." if n == 0 else
             f"Signing secrets of vault {n} are rotated by the keeper job, batch {n}."]
    lines += [f"Secrets rotated in batch {n}-{i} are signed again after rotation, every cycle." for i in range(paragraphs)]
    return RUNBOOK.format(n=n, paragraphs="\n\n".join(lines))


def build(root: Path, restricted_docs: int, paragraphs: int = 20) -> Path:
    """A store with the public manual and ``restricted_docs`` restricted runbooks (the first states the figure)."""
    from graphcite.ingest import ingest
    from graphcite.store import Store

    corpus = root / "corpus"
    (corpus / "ops").mkdir(parents=True)
    (corpus / "manual.md").write_text(MANUAL, encoding="utf-8")
    for n in range(restricted_docs):
        (corpus / "ops" / f"runbook-{n:04d}.md").write_text(_runbook(n, FIGURE, paragraphs if n else 2),
                                                             encoding="utf-8")
    db = root / "store.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
        from graphcite.verify import check_answer

        check_answer(store, _answer(FIGURE, "stored"), audience="internal")  # a stored launderer, for chain/export
    return db


def _answer(figure: int, answer_id: str = "probe") -> dict[str, Any]:
    return {"answer_id": answer_id, "claims": [
        {"text": f"Signing secrets are rotated every {figure} days.", "citations": [{"source": "manual.md"}]}]}


def _paths(store: Any) -> dict[str, Callable[[int], Any]]:
    from graphcite.graph import chain
    from graphcite.graph.build import build_graph
    from graphcite.lifecycle.answerable import answerable
    from graphcite.verify.check import scratch_check

    stored = next(r["claim_id"] for r in store.rows("SELECT claim_id FROM claim WHERE part IS NULL"))

    return {
        "check (new answer)": lambda figure: scratch_check(store, _answer(figure), audience="public"),
        "answerable": lambda figure: answerable(store, {"needs": [{"id": "n", "query": f"signing secrets rotated every {figure} days"}]},
                                                audience="public"),
        "chain (stored claim)": lambda figure: chain(store, stored, audience="public"),
        "graph (stored answer)": lambda figure: build_graph(store, answer="stored", audience="public"),
    }


def run(runs: int, restricted_docs: int, paragraphs: int) -> list[dict[str, Any]]:
    from graphcite.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        dbs = {"small": build(Path(tmp) / "small", 1, paragraphs),
               "large": build(Path(tmp) / "large", restricted_docs, paragraphs)}
        stores = {name: Store(db, read_only=True) for name, db in dbs.items()}
        try:
            units = {name: s.scalar("SELECT count(*) FROM evidence_unit") for name, s in stores.items()}
            paths = {name: _paths(s) for name, s in stores.items()}
            times: dict[tuple[str, str, str], list[float]] = {}
            probes = {"hit": FIGURE, "miss": FIGURE + 1}
            for path in paths["small"]:
                for name in stores:  # warm caches and pipelines
                    paths[name][path](FIGURE + 2)
                for _ in range(runs):
                    for name in stores:
                        for probe, figure in probes.items():
                            start = time.perf_counter()
                            paths[name][path](figure)
                            times.setdefault((path, name, probe), []).append(time.perf_counter() - start)
        finally:
            for s in stores.values():
                s.close()
    rows = []
    for path in dict.fromkeys(p for p, _, _ in times):
        med = {(n, p): statistics.median(times[(path, n, p)]) * 1000 for n in stores for p in probes}
        rows.append({"path": path, "small_hit_ms": med[("small", "hit")], "small_miss_ms": med[("small", "miss")],
                     "large_hit_ms": med[("large", "hit")], "large_miss_ms": med[("large", "miss")],
                     "large/small": (med[("large", "hit")] + med[("large", "miss")])
                     / (med[("small", "hit")] + med[("small", "miss")]),
                     "hit/miss": (med[("small", "hit")] + med[("large", "hit")])
                     / (med[("small", "miss")] + med[("large", "miss")])})
    rows.append({"path": f"units: small {units['small']}, large {units['large']}; {runs} runs"})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--restricted-docs", type=int, default=150)
    parser.add_argument("--paragraphs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    emit(run(args.runs, args.restricted_docs, args.paragraphs), args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
