"""Would weighting the claim's words by how informative they are make the support share discriminate?

GC201 passes a pair when the weighted share of the claim's slots found in its evidence reaches the
threshold (0.65); every content word weighs 1, a name 2, a light verb 0.25. This probe re-weighs each
word slot by its rarity (spaCy's English unigram log-probabilities, shipped in spacy-lookups-data, the
same package the lemmas come from): a word as common as "make" weighs ``low``, one at or past
``centre`` nats about 1 and rarer ones up to ``high``. It scores the development parts of both real-text
sets (``benchmarks/realtext.py``) under each weighting and threshold, the other rules' vetoes kept as
they are, beside the plain share at the same thresholds, so a weighting is worth adopting only if it
beats moving the threshold.

    python -m benchmarks.coverage_weights [--limit N] [--json]

Session 5 result (2026-12-01): no weighting beat the plain share on both sets (CLIMATE-FEVER gains
a little recall at equal false support, SICK loses more than a threshold change would), so the
verifier keeps the plain share.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable
from importlib.resources import files
from typing import Any

from benchmarks.realtext import DATASETS, build

Slots = list[tuple[str, str, str, float]]
WEIGHTINGS = ((11.0, 0.25, 2.0, 3.0), (12.0, 0.2, 2.5, 3.0), (10.0, 0.25, 1.0, 2.0), (12.0, 0.5, 1.0, 2.0))
THRESHOLDS = (0.55, 0.6, 0.65, 0.7, 0.75)


def _log_prob() -> dict[str, float]:
    path = files("spacy_lookups_data").joinpath("data/en_lexeme_prob.json.gz")
    return json.loads(gzip.decompress(path.read_bytes()))


def pairs_of(data: str, limit: int | None) -> list[tuple[bool, list[tuple[Slots, bool]]]]:
    """Per dev item: gold support, and per claim part its alignment slots and whether another rule vetoed."""
    import graphcite.verify.engine as engine
    from graphcite.evaluate import load_set, score_items
    from graphcite.store import open_store
    from graphcite.verify.config import VerifierConfig
    from graphcite.verify.rules.slots import alignment_for

    db, sets = build(*DATASETS[data])
    items = load_set(sets["dev"])
    if limit:
        items = items[::max(1, len(items) // limit)][:limit]
    seen: list[tuple[Slots, bool]] = []
    plain = engine.evaluate_pair

    def recording(claim: Any, evidence: Any, config: Any, index: int = 0) -> Any:
        verdict = plain(claim, evidence, config, index)
        slots = [(s.text, s.kind, s.status, s.weight) for s in alignment_for(claim, evidence).slots]
        seen.append((slots, any(f.outcome == "fail" for f in verdict.findings[1:])))
        return verdict

    out = []
    engine.evaluate_pair = recording  # the benchmark's own process: record what each part was judged on
    try:
        with open_store(db, read_only=True) as store:
            for item in items:
                seen.clear()
                score_items(store, [item], VerifierConfig())
                out.append((bool(item["gold_supported"]), list(seen)))
    finally:
        engine.evaluate_pair = plain
    return out


def _rates(rows: list[tuple[bool, list[tuple[Slots, bool]]]], weight: Callable[[tuple[str, str, str, float]], float],
           threshold: float) -> tuple[float, float]:
    tp = fp = pos = neg = 0
    for gold, parts in rows:
        supported = bool(parts)
        for slots, vetoed in parts:
            total = sum(weight(s) for s in slots)
            share = sum(weight(s) for s in slots if s[2] in {"found", "paraphrase"}) / total if total else 1.0
            supported &= share >= threshold and not vetoed
        pos, neg = pos + gold, neg + (not gold)
        tp, fp = tp + (supported and gold), fp + (supported and not gold)
    return round(tp / max(pos, 1), 4), round(fp / max(neg, 1), 4)


def run(limit: int | None = None) -> list[dict[str, Any]]:
    prob = _log_prob()

    def rarity(centre: float, low: float, high: float, scale: float) -> Callable[[tuple[str, str, str, float]], float]:
        def weight(slot: tuple[str, str, str, float]) -> float:
            text, kind, _status, base = slot
            if kind == "name":
                return base
            info = -max((prob[w] for w in (text, text.split()[-1]) if w in prob), default=-20.0)
            return base * min(high, max(low, (info - centre) / scale + 1))
        return weight

    rows = {data: pairs_of(data, limit) for data in ("sick", "climate-fever") if DATASETS[data][0].exists()}
    table = []
    for name, weight in [("plain", lambda s: s[3]), *((f"rarity{w}", rarity(*w)) for w in WEIGHTINGS)]:
        for threshold in THRESHOLDS:
            table.append({"weighting": name, "threshold": threshold,
                          **{data: _rates(r, weight, threshold) for data, r in rows.items()}})
    return table


def main(argv: list[str]) -> None:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    table = run(limit)
    if "--json" in argv:
        print(json.dumps(table, sort_keys=True))
        return
    for row in table:
        print(f"{row['weighting']:28} {row['threshold']:.2f}  " + "  ".join(
            f"{k} recall={v[0]} false_support={v[1]}" for k, v in row.items() if isinstance(v, tuple)))


if __name__ == "__main__":
    main(sys.argv[1:])
