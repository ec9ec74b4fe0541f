"""Fit the calibrated support decision (graphcite/verify/decision.yaml) on the labelled development parts.

The verifier's precise rules veto; what decides the rest is one logistic model over the soft signals
(:mod:`graphcite.verify.decision`). This script reads every development set it finds, runs the real
verifier on each item once, keeps the items no rule vetoes, and fits the model's weights by
Newton's method (iteratively reweighted least squares, L2 penalty, deterministic) with each set
weighted equally, so a large set does not drown a small one. The decision threshold is then chosen
on the pooled development data: the one that maximises the mean over sets of F-beta of the final
verdicts, vetoes included (beta 0.25: precision weighs four times recall, since a false support is
the failure a citation checker exists to catch; at beta 0.5 the threshold fell to 0.34 and false
support rose on every real-text set). Held-out parts are never read.

    python scripts/fit_decision.py [--limit N] [--l2 X] [--beta B] [--features FILE] [--write]

Sets (each skipped when its data is absent): the bundled tuning set (graphcite/examples/labelled/
set.jsonl, under graphcite/examples/verifier.yaml), SICK, CLIMATE-FEVER, RTE, HealthVer and
COVID-Fact dev (benchmarks/realtext.py), and the multi-domain suite's dev documents
(benchmarks/suites/). ``--features FILE`` keeps the collected features (JSON lines) and reuses them
when the file exists; ``--write`` writes the fitted model into the package (decision.yaml, and the
same model as decision.json, which a check reads without PyYAML).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphcite.verify.decision import DECISION_FILE, DECISION_JSON, FEATURES  # noqa: E402

EXAMPLES = ROOT / "graphcite" / "examples"
REALTEXT = ("sick", "climate-fever", "rte", "healthver", "covidfact")


def _probe_model(folder: Path) -> Path:
    """A model that supports everything: the features are collected under it (they do not depend on
    the weights) and no pair is left out of the decision by the model itself."""
    path = folder / "probe.yaml"
    path.write_text("bias: 10.0\nthreshold: 0.5\nweights: {}\n", encoding="utf-8")
    return path


def _subsample(items: list[Any], limit: int | None) -> list[Any]:
    if not limit or len(items) <= limit:
        return items
    step = max(1, len(items) // limit)
    return items[::step][:limit]


def _rows(store: Any, items: list[Any], config: Any, name: str) -> Iterator[dict[str, Any]]:
    """One row per single-citation item: its features, whether a rule vetoed it, its gold label, and
    the share threshold the configuration had before the model (to report before beside after)."""
    from graphcite.evaluate import _answer_for
    from graphcite.verify.check import verify_answer

    for item in items:
        if len(item["citations"]) != 1:
            continue  # joint support of several citations is decided after the pairs: not a pair's label
        report = verify_answer(store, _answer_for(item), config=config, audience=item.get("audience", "internal"))
        claim = report["claims"][0]
        cit = claim["citations"][0]
        decision = cit.get("decision")
        # under the probe every pair the rules leave alone is supported: what is not was vetoed (a rule,
        # an invalid citation, a conflict with another current source, a restricted origin)
        vetoed = decision is None or not claim["supported"]
        features = {t["feature"]: t["value"] for t in decision["terms"]} if decision else {}
        features.pop("bias", None)
        yield {"set": name, "id": str(item["id"]), "gold": bool(item["gold_supported"]), "vetoed": vetoed,
               "share_threshold": config.threshold, "features": features}


def collect(limit: int | None) -> list[dict[str, Any]]:
    """Features of every development set present (dev parts only)."""
    from benchmarks.realtext import DATASETS, build
    from graphcite.evaluate import load_set
    from graphcite.ingest import ingest
    from graphcite.store import Store, open_store
    from graphcite.verify.config import load_config

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graphcite-fit-") as tmp:
        folder = Path(tmp)
        probe = str(_probe_model(folder))
        with Store(folder / "bundled.duckdb") as store:
            ingest(store, [EXAMPLES / "corpus"])
            config = load_config(EXAMPLES / "verifier.yaml").with_overrides(decision=probe)
            items = _subsample(load_set(EXAMPLES / "labelled" / "set.jsonl"), limit)
            rows += list(_rows(store, items, config, "bundled"))
            _progress("bundled", rows)
        from graphcite.verify.config import VerifierConfig

        general = VerifierConfig(decision=probe)
        for name in REALTEXT:
            source = DATASETS[name][0]
            if not source.exists():
                print(f"  {name}: skipped ({source} is absent)", file=sys.stderr)
                continue
            db, sets = build(*DATASETS[name])
            items = _subsample(load_set(sets["dev"]), limit)
            with open_store(db, read_only=True) as store:
                rows += list(_rows(store, items, general, name))
            _progress(name, rows)
        suite = ROOT / "benchmarks" / "suites"
        if (suite / "claims.jsonl").exists():
            from benchmarks.suites.run import _item, load_claims

            items = _subsample([_item(c) for c in load_claims() if c.get("part") == "dev"], limit)
            with Store(folder / "suite.duckdb") as store:
                ingest(store, [suite / "docs"])
                rows += list(_rows(store, items, general, "suite"))
            _progress("suite", rows)
    return rows


def _progress(name: str, rows: list[dict[str, Any]]) -> None:
    mine = [r for r in rows if r["set"] == name]
    print(f"  {name}: {len(mine)} items, {sum(not r['vetoed'] for r in mine)} not vetoed", file=sys.stderr)


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float, iterations: int = 50) -> np.ndarray:
    """Weighted L2-penalised logistic regression by Newton's method (IRLS); the bias (column 0) is
    not penalised. Deterministic: no random start, a fixed number of steps at most."""
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (w * (p - y)) + penalty * beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta


def _scores(rows: list[dict[str, Any]], supported: list[bool]) -> dict[str, float]:
    pos = [s for r, s in zip(rows, supported, strict=True) if r["gold"]]
    neg = [s for r, s in zip(rows, supported, strict=True) if not r["gold"]]
    recall = sum(pos) / len(pos) if pos else 0.0
    false_support = sum(neg) / len(neg) if neg else 0.0
    chosen = sum(supported)
    precision = sum(pos) / chosen if chosen else 0.0
    return {"items": len(rows), "recall": round(recall, 4), "false_support": round(false_support, 4),
            "precision": round(precision, 4)}


def _f_beta(score: dict[str, float], beta: float) -> float:
    p, r = score["precision"], score["recall"]
    return (1 + beta ** 2) * p * r / (beta ** 2 * p + r) if p + r else 0.0


def main(argv: list[str]) -> int:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    l2 = float(argv[argv.index("--l2") + 1]) if "--l2" in argv else 1.0
    beta = float(argv[argv.index("--beta") + 1]) if "--beta" in argv else 0.25
    cache = Path(argv[argv.index("--features") + 1]) if "--features" in argv else None
    if cache is not None and cache.exists():
        rows = [json.loads(line) for line in cache.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        rows = collect(limit)
        if cache is not None:
            cache.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    sets = sorted({r["set"] for r in rows})
    kept = [r for r in rows if not r["vetoed"]]
    x = np.array([[1.0] + [r["features"].get(f, 0.0) for f in FEATURES] for r in kept])
    y = np.array([1.0 if r["gold"] else 0.0 for r in kept])
    per_set = {s: sum(1 for r in kept if r["set"] == s) for s in sets}
    # each set weighs the same in total; the weights sum to the number of kept items
    w = np.array([len(kept) / (len(sets) * per_set[r["set"]]) for r in kept])
    beta_ = fit(x, y, w, l2)
    probability = {id(r): 1.0 / (1.0 + math.exp(-float(np.clip(row @ beta_, -30, 30))))
                   for r, row in zip(kept, x, strict=True)}

    def verdicts(threshold: float) -> dict[str, dict[str, float]]:
        out = {}
        for s in sets:
            mine = [r for r in rows if r["set"] == s]
            out[s] = _scores(mine, [not r["vetoed"] and probability[id(r)] >= threshold for r in mine])
        return out

    best = max((round(t, 2) for t in np.arange(0.05, 0.96, 0.01)),
               key=lambda t: (round(sum(_f_beta(v, beta) for v in verdicts(t).values()) / len(sets), 6), t))
    weights = {name: round(float(v), 4) for name, v in zip(FEATURES, beta_[1:], strict=True)}
    model = {"bias": round(float(beta_[0]), 4), "threshold": float(best), "weights": weights,
             "fitted_on": [f"{s} dev ({sum(1 for r in rows if r['set'] == s)} items, {per_set[s]} not vetoed)"
                           for s in sets],
             "note": f"scripts/fit_decision.py --limit {limit} --l2 {l2} --beta {beta}: IRLS, each set weighted "
                     f"equally; threshold maximises the mean F{beta} over sets"}
    before = {s: _scores([r for r in rows if r["set"] == s],
                         [not r["vetoed"] and r["features"].get("share_found", 0.0) >= r["share_threshold"]
                          for r in rows if r["set"] == s]) for s in sets}
    report = {"model": model, "dev_before": before, "dev_after": verdicts(best)}
    print(json.dumps(report, indent=1, sort_keys=True))
    if "--write" in argv:
        import yaml

        header = ("# The calibrated support decision, fitted by scripts/fit_decision.py on the development parts\n"
                  "# (never a held-out part). Features: graphcite/verify/decision.py. Do not edit by hand.\n"
                  "# decision.json beside it is the same model, written with it: what a check reads.\n")
        text = yaml.safe_dump(model, sort_keys=False, width=110)
        DECISION_FILE.write_text(header + text, encoding="utf-8")
        DECISION_JSON.write_text(json.dumps(yaml.safe_load(text), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DECISION_FILE} and {DECISION_JSON.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
