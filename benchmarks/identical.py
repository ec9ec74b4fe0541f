"""Speed never changes a verdict: the bundled corpus's reports from this tree and another, byte for byte.

Each tree ingests the bundled example corpus into a fresh store in its own process, then writes the JSON
report (keys sorted) of: both bundled answers (``check`` with records written, then again to read the
earlier-checks block without its times, each audience), every labelled item of ``set.jsonl`` and ``heldout.jsonl`` with its
audience under the default and the lexical-baseline configurations, each labelled claim through the gate's
status path, and every clean claim cited by source alone (located). The digests of both trees are
compared report by report; nothing here is timed.

    python -m benchmarks.identical --baseline DIR [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, emit

CHILD = r"""
import hashlib, json, sys, tempfile
from pathlib import Path
from graphcite.claims import load_answer, parts_for
from graphcite.evaluate import load_set
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify import VerifierConfig
from graphcite.verify.check import check_answer, verify_answer
from graphcite.verify.statuses import claim_statuses

examples = Path("graphcite/examples")
out = {}
def untimed(data):  # the times an earlier check ran differ from one run to the next
    if isinstance(data, dict):
        return {k: untimed(v) for k, v in data.items() if not k.endswith("_at")}
    return [untimed(v) for v in data] if isinstance(data, list) else data
def put(name, data):
    out[name] = hashlib.sha256(json.dumps(untimed(data), sort_keys=True, default=str).encode()).hexdigest()

with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "corpus.duckdb") as store:
    ingest(store, [examples / "corpus"])
    configs = {"default": VerifierConfig(), "lexical": VerifierConfig.lexical_baseline()}
    for path in sorted((examples / "answers").glob("*.json")):
        for audience in ("internal", "public"):
            for round_ in ("first", "again"):
                report = check_answer(store, path, audience=audience)
                report.pop("earlier", None) if round_ == "first" else None
                put(f"check {path.name} {audience} {round_}", report)
        data = json.loads(path.read_text())
        located = {**data, "answer_id": data["answer_id"] + "-located",
                   "claims": [{**c, "citations": [{"source": x["source"]} for x in c["citations"] if "source" in x]}
                              for c in data["claims"]]}
        put(f"located {path.name}", verify_answer(store, load_answer(located)))
    for set_name in ("set.jsonl", "heldout.jsonl"):
        for item in load_set(examples / "labelled" / set_name):
            cits = [{k: v for k, v in c.items() if k != "gold_relation"} for c in item["citations"]]
            claim = {"text": item["claim"], "citations": cits}
            if item.get("claim_type"):
                claim["type"] = item["claim_type"]
            answer = load_answer({"answer_id": str(item["id"]), "claims": [claim]}, format="native")
            audience = item.get("audience", "internal")
            for name, config in configs.items():
                put(f"{set_name} {item['id']} {name}", verify_answer(store, answer, config=config, audience=audience))
            put(f"{set_name} {item['id']} gate", claim_statuses(store, answer, parts_for(answer), configs["default"],
                                                                audience=audience))
Path(sys.argv[1]).write_text(json.dumps(out))
"""


def _digests(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "digests.json"
        done = subprocess.run([sys.executable, "-c", CHILD, str(result)], capture_output=True, text=True, cwd=tree,
                              env=env)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        return json.loads(result.read_text())


def run(baseline: Path) -> list[dict[str, Any]]:
    """One row: how many reports both trees wrote, how many are byte-identical, and the first that differ."""
    old, new = _digests(baseline.resolve()), _digests(ROOT)
    shared = sorted(set(old) & set(new))
    differing = [name for name in shared if old[name] != new[name]]
    return [{"benchmark": "bundled reports, new vs baseline", "reports": len(shared),
             "identical": len(shared) - len(differing), "missing": len(set(old) ^ set(new)),
             "differ": ", ".join(differing[:5]) or "-"}]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.identical")
    parser.add_argument("--baseline", type=Path, required=True, help="another graphcite tree")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.baseline)
    emit(rows, args.json)
    return 0 if rows[0]["identical"] == rows[0]["reports"] and not rows[0]["missing"] else 1


if __name__ == "__main__":
    sys.exit(main())
