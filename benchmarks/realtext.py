"""The verifier on text other people wrote: CLIMATE-FEVER and SICK claim/evidence sentence pairs.

Each evidence sentence becomes a Markdown document titled with its Wikipedia article (the title is
part of the evidence envelope, as it is for a real page); each pair becomes one labelled item citing
that sentence by quote. Gold: SUPPORTS -> supported; REFUTES -> contradicts; NOT_ENOUGH_INFO ->
insufficient. The split is by claim (a hash of the claim id), so no claim is in both parts:
``dev`` is for development, ``heldout`` is scored once per session.

    python -m benchmarks.realtext [--data climate-fever|sick] [--part dev|heldout] [--limit N] [--threshold X]
                                  [--json] [--by-rule] [--dump FILE] [--no-baseline] [--disable GC207,...]

``benchmarks/contrast.py`` edits the claims of the supported pairs minimally (an entity, a number, an
antonym, a negation, the roles) and counts how many edited claims the verifier still supports.

``--no-baseline`` skips the lexical baseline (for quick development runs; report figures with it);
``--disable`` turns rules off, to compare a change with a baseline measured before a rule existed.

CLIMATE-FEVER is read from ``../shared/data/climate-fever/`` (not shipped: it has no stated licence).
SICK (Marelli et al. 2014, CC BY-NC-SA 3.0: image and video captions rewritten by people, with
entailment, contradiction and neutral pairs; many pairs differ in one word, a negation or an antonym,
so it doubles as a contrastive set) is read from ``$GRAPHCITE_SICK`` or ``.cache/sick/SICK.txt``
(the tab-separated release, e.g. from the public praguna/sick_dataset repository); its sentence A is
the evidence, sentence B the claim. Neither is copied into the project; each part skips when absent. The default configuration is scored beside the lexical
baseline in the same run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT

DATA_FILE = ROOT.parent / "shared" / "data" / "climate-fever" / "climate-fever.jsonl"
SICK_FILE = Path(os.environ.get("GRAPHCITE_SICK", ROOT / ".cache" / "sick" / "SICK.txt"))
CACHE = ROOT / ".cache" / "realtext"
GOLD = {"SUPPORTS": "supports", "REFUTES": "contradicts", "NOT_ENOUGH_INFO": "insufficient",
        "ENTAILMENT": "supports", "CONTRADICTION": "contradicts", "NEUTRAL": "insufficient"}


def part_of(claim_id: str) -> str:
    """A fixed split by claim: about one claim in five is held out."""
    return "heldout" if int(hashlib.sha256(claim_id.encode()).hexdigest()[-2:], 16) < 52 else "dev"


def _doc_name(evidence_id: str) -> str:
    return "e" + hashlib.sha256(evidence_id.encode()).hexdigest()[:16] + ".md"


def _sick_records(path: Path) -> list[dict[str, Any]]:
    """SICK rows as CLIMATE-FEVER-shaped records: one claim (sentence B) with one evidence (sentence A)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) < 5:
            continue
        out.append({"claim_id": f"sick{cols[0]}", "claim": cols[2], "evidences": [{
            "evidence_id": f"sick{cols[0]}", "evidence": cols[1], "article": "",
            "evidence_label": cols[4].strip(), "entropy": 0.0}]})
    return out


def _records(data_file: Path) -> list[dict[str, Any]]:
    if data_file.suffix == ".txt":
        return _sick_records(data_file)
    return [json.loads(raw) for raw in data_file.read_text(encoding="utf-8").splitlines()]


def build(data_file: Path = DATA_FILE, cache: Path = CACHE) -> tuple[Path, dict[str, Path]]:
    """Write one document per evidence sentence and the labelled sets; ingest into a cached store."""
    from graphcite.ingest import ingest
    from graphcite.store import open_store

    docs = cache / "docs"
    stamp = cache / "stamp"
    digest = hashlib.sha256(data_file.read_bytes()).hexdigest()[:16] + "-v2"
    sets = {p: cache / f"{p}.jsonl" for p in ("dev", "heldout")}
    db = cache / "store.duckdb"
    if stamp.exists() and stamp.read_text() == digest and db.exists():
        _upgrade(db)
        return db, sets
    docs.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[str]] = {"dev": [], "heldout": []}
    seen: set[str] = set()
    for item in _records(data_file):
        part = part_of(item["claim_id"])
        for ev in item["evidences"]:
            name = _doc_name(ev["evidence_id"])
            sentence = " ".join(ev["evidence"].split())
            if name not in seen:
                seen.add(name)
                title = ev["article"].replace("\n", " ").strip()
                head = f"# {title}\n\n" if title else ""
                (docs / name).write_text(f"{head}{sentence}\n", encoding="utf-8")
            gold = GOLD[ev["evidence_label"]]
            lines[part].append(json.dumps({
                "id": f"cf{item['claim_id']}-{ev['evidence_id']}", "claim": item["claim"].strip(),
                "citations": [{"source": name, "quote": sentence, "gold_relation": gold}],
                "gold_supported": gold == "supports", "category": ev["evidence_label"].lower(),
                "review": "adjudicated" if ev.get("entropy", 0) < 0.5 else "contested",
            }, ensure_ascii=False, sort_keys=True))
    for part, path in sets.items():
        path.write_text("\n".join(lines[part]) + "\n", encoding="utf-8")
    if db.exists():
        db.unlink()
    with open_store(db) as store:
        ingest(store, [docs], jobs=2)
    stamp.write_text(digest)
    return db, sets


def _upgrade(db: Path) -> None:
    """Bring a store cached by an older graphcite up to this one's schema (tables added since are
    created by a writable open), so a read-only run does not stop on it."""
    from graphcite.errors import StoreError
    from graphcite.store import open_store

    try:
        with open_store(db, read_only=True):
            return
    except StoreError:
        with open_store(db):
            return


DATASETS = {"climate-fever": (DATA_FILE, CACHE), "sick": (SICK_FILE, CACHE.parent / "realtext-sick")}


def run(part: str = "dev", limit: int | None = None, by_rule: bool = False,
        data: str = "climate-fever", threshold: float | None = None, baseline: bool = True,
        disabled: tuple[str, ...] = ()) -> dict[str, Any]:
    from graphcite.evaluate import load_set, metrics, rule_table, score_items
    from graphcite.store import open_store
    from graphcite.verify.config import VerifierConfig

    db, sets = build(*DATASETS[data])
    items = load_set(sets[part])
    if limit:
        step = max(1, len(items) // limit)
        items = items[::step][:limit]
    out: dict[str, Any] = {"data": data, "part": part, "items": len(items), "runs": {}}
    with open_store(db, read_only=True) as store:
        default = VerifierConfig(disabled_rules=disabled).with_overrides(threshold=threshold)
        configs = [("default", default), ("lexical", VerifierConfig.lexical_baseline())][:2 if baseline else 1]
        for name, config in configs:
            start = time.perf_counter()
            scored = score_items(store, items, config)
            elapsed = time.perf_counter() - start
            m = metrics(scored)
            out["runs"][name] = {k: m[k] for k in ("support_recall", "false_support_rate", "support_precision",
                                                   "agreement", "contradiction_recall")}
            out["runs"][name]["items_per_s"] = round(len(items) / elapsed, 1)
            by_cat: dict[str, list[int]] = {}
            for s in scored:
                cat = by_cat.setdefault(s["category"], [0, 0])
                cat[0] += 1
                cat[1] += int(s["supported"])
            out["runs"][name]["supported_share_by_gold"] = {k: round(v[1] / v[0], 3) for k, v in sorted(by_cat.items())}
            if by_rule and name == "default":
                out["by_rule"] = rule_table(scored)
                out["scored"] = scored
    return out


def main(argv: list[str]) -> None:
    part = argv[argv.index("--part") + 1] if "--part" in argv else "dev"
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    data = argv[argv.index("--data") + 1] if "--data" in argv else "climate-fever"
    if not DATASETS[data][0].exists():
        print(f"skipped: {DATASETS[data][0]} is absent")
        return
    threshold = float(argv[argv.index("--threshold") + 1]) if "--threshold" in argv else None
    result = run(part, limit, by_rule="--by-rule" in argv, data=data, threshold=threshold,
                 baseline="--no-baseline" not in argv,
                 disabled=tuple(argv[argv.index("--disable") + 1].split(",")) if "--disable" in argv else ())
    scored = result.pop("scored", None)
    if "--dump" in argv and scored is not None:
        Path(argv[argv.index("--dump") + 1]).write_text(
            "\n".join(json.dumps(s, sort_keys=True) for s in scored) + "\n", encoding="utf-8")
    if "--json" in argv:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"{result['data']} {result['part']}: {result['items']} pairs")
    for name, run_ in result["runs"].items():
        print(f"  {name:8} " + "  ".join(f"{k}={v}" for k, v in run_.items()))
    for row in result.get("by_rule", []):
        print("  " + "  ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
