"""Our own multi-domain suite: documents from eight domains outside the bundled corpus, labelled claims.

The documents (``docs/<domain>/*.md``: a medication leaflet, a coworking space's rules, a retailer's
returns and warranty policy, a SaaS service-level agreement, a league's season review, a city's transit
fares, a library's borrowing rules, a council's supplier payments) are written to hold what trips a
reader of statements: tables of comparable values, lists, footnotes, conditions, percentiles,
selectors ("the greater of", "per dose" against "in 24 hours"), dates without a year, adjectival years,
pronoun subjects and implicit negatives. ``claims.jsonl`` holds about half paraphrased true claims and
half subtly false ones, each with its ``kind`` and a ``why``; ``suite.json`` gives each document's
domain and part. The split is by document (dev about 60%); ``heldout`` is scored once per session.

Each run ingests the documents with the real ingest into a temporary DuckDB store, checks every claim
with the real verifier in the default configuration and with the lexical baseline, and prints recall,
false-support rate, precision and accuracy, then per kind the false claims that pass and the true
claims that fail.

    python -m benchmarks.suites.run [--part dev|heldout|fresh|all] [--json] [--by-rule] [--show]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
CLAIMS = HERE / "claims.jsonl"
MANIFEST = HERE / "suite.json"

__all__ = ["load_claims", "load_manifest", "run"]


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    """The suite's manifest: documents with their domain and part, and the claim kinds."""
    return json.loads(path.read_text(encoding="utf-8"))


def load_claims(path: Path = CLAIMS) -> list[dict[str, Any]]:
    """Every labelled claim of the suite, in file order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _item(claim: dict[str, Any]) -> dict[str, Any]:
    """A suite claim as a labelled item of ``graphcite.evaluate`` (its kind is the category)."""
    return {"id": claim["id"], "claim": claim["claim"], "citations": claim["citations"],
            "gold_supported": claim["gold_supported"], "category": claim["kind"], "review": "adjudicated"}


def _by_kind(scored: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per kind: how many claims, and how many the verifier got wrong (a false one passed, a true one failed)."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"claims": 0, "wrong": 0})
    for s in scored:
        row = out[s["category"]]
        row["claims"] += 1
        row["wrong"] += int(s["supported"] != s["gold_supported"])
    return dict(sorted(out.items()))


def run(part: str = "dev", by_rule: bool = False) -> dict[str, Any]:
    """Score the suite's ``part`` (dev, heldout or all) with the default verifier and the lexical baseline."""
    from graphcite.evaluate import metrics, rule_table, score_items
    from graphcite.ingest import ingest
    from graphcite.store import open_store
    from graphcite.verify.config import VerifierConfig

    claims = [c for c in load_claims() if part == "all" or c["part"] == part]
    items = [_item(c) for c in claims]
    out: dict[str, Any] = {"data": "suite", "part": part, "items": len(items),
                           "true": sum(c["gold_supported"] for c in claims), "runs": {}}
    with tempfile.TemporaryDirectory(prefix="graphcite-suite-") as tmp:
        store = open_store(Path(tmp) / "suite.duckdb")
        try:
            ingest(store, [DOCS])
            for name, config in (("default", VerifierConfig()), ("lexical", VerifierConfig.lexical_baseline())):
                scored = score_items(store, items, config)
                m = metrics(scored)
                run_ = {"support_recall": m["support_recall"], "false_support_rate": m["false_support_rate"],
                        "support_precision": m["support_precision"], "accuracy": m["agreement"],
                        "integrity": m["citation_integrity"]}
                run_["false_passing_by_kind"] = {k: f"{v['wrong']}/{v['claims']}" for k, v in
                                                 _by_kind([s for s in scored if not s["gold_supported"]]).items()}
                run_["true_failing_by_kind"] = {k: f"{v['wrong']}/{v['claims']}" for k, v in
                                                _by_kind([s for s in scored if s["gold_supported"]]).items()}
                run_["wrong"] = [{"id": s["id"], "kind": s["category"], "gold": s["gold_supported"],
                                  "status": s["status"], "vetoes": s["vetoes"]}
                                 for s in scored if s["supported"] != s["gold_supported"]]
                out["runs"][name] = run_
                if by_rule and name == "default":
                    out["by_rule"] = rule_table(scored)
        finally:
            store.close()
    return out


def _print(result: dict[str, Any], show: bool) -> None:
    print(f"suite {result['part']}: {result['items']} claims ({result['true']} true)")
    for name, r in result["runs"].items():
        print(f"  {name:8} recall={r['support_recall']}  false_support={r['false_support_rate']}  "
              f"precision={r['support_precision']}  accuracy={r['accuracy']}  integrity={r['integrity']}")
        print("    false claims passing, by kind: " + ", ".join(f"{k} {v}" for k, v in r["false_passing_by_kind"].items()))
        print("    true claims failing, by kind:  " + ", ".join(f"{k} {v}" for k, v in r["true_failing_by_kind"].items()))
        if show:
            for w in r["wrong"]:
                print(f"      {w['id']:10} {w['kind']:22} gold={'T' if w['gold'] else 'F'} {w['status']} {','.join(w['vetoes'])}")
    for row in result.get("by_rule", []):
        print("  " + "  ".join(f"{k}={v}" for k, v in row.items()))


def main(argv: list[str]) -> None:
    part = argv[argv.index("--part") + 1] if "--part" in argv else "dev"
    parts = sorted({c["part"] for c in load_claims()})
    if part not in (*parts, "all"):
        print(f"unknown --part {part}: expected {', '.join(parts)} or all")
        raise SystemExit(2)
    result = run(part, by_rule="--by-rule" in argv)
    if "--json" in argv:
        print(json.dumps(result, sort_keys=True))
        return
    _print(result, show="--show" in argv)


if __name__ == "__main__":
    main(sys.argv[1:])
