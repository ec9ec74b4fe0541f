"""Invariant probe: a claim that is word for word its own quote is supported.

Every paragraph and list item of the current sections of the current sources of a corpus becomes a
claim citing its own unit with its whole text as the quote; the probe counts the verdicts and lists the
units that do not come back supported, with the rules that decided.

    python -m benchmarks.selfquote [--corpus graphcite/examples/corpus] [--limit N] [--show 10]
"""

from __future__ import annotations

import argparse
import collections
import json
import tempfile
from pathlib import Path

from graphcite.claims.formats import load_answer
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify.check import verify_answer

CORPUS = Path(__file__).resolve().parents[1] / "graphcite" / "examples" / "corpus"


def units(store: Store, limit: int | None) -> list[tuple[str, str, str]]:
    rows = store.tuples(
        "SELECT u.unit_id, u.source_key, u.text FROM evidence_unit u JOIN source s ON s.key = u.source_key "
        "AND s.current_revision = u.revision_id WHERE u.block_type IN ('paragraph', 'list_item') "
        "AND u.status = 'current' ORDER BY u.source_key, u.ordinal")
    rows = [r for r in rows if len(r[2].split()) >= 4 and len(r[2]) <= 1500]
    return rows[:limit] if limit else rows


def run(corpus: Path, limit: int | None, show: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "probe.duckdb"))
        with store:
            ingest(store, [corpus], quiet=True) if "quiet" in ingest.__code__.co_varnames else ingest(store, [corpus])
            chosen = units(store, limit)
            claims = [{"text": text, "citations": [{"chunk_id": unit, "quote": text}]} for unit, _key, text in chosen]
            counts: collections.Counter[str] = collections.Counter()
            failures = []
            for start in range(0, len(claims), 50):
                answer = load_answer({"answer_id": f"selfquote-{start}", "claims": claims[start:start + 50]})
                report = verify_answer(store, answer)
                for offset, verdict in enumerate(report["claims"]):
                    status = verdict["status"]
                    counts[status] += 1
                    if status != "supported":
                        codes = sorted({f["code"] for part in verdict.get("parts", [])
                                        for cit in part.get("citations", []) for f in cit.get("findings", [])
                                        if f.get("outcome") in {"fail", None}})
                        failures.append((chosen[start + offset][1], chosen[start + offset][2][:120], status, codes))
    total = sum(counts.values())
    by_rule: collections.Counter[str] = collections.Counter(code for *_rest, codes in failures for code in codes)
    return {"units": total, "statuses": dict(sorted(counts.items())),
            "supported_share": round(counts["supported"] / total, 4) if total else None,
            "failing_rules": dict(by_rule.most_common()), "examples": failures[:show]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(run(args.corpus, args.limit, args.show), indent=2))


if __name__ == "__main__":
    main()
