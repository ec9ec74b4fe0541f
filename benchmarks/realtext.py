"""The verifier on text other people wrote: CLIMATE-FEVER and SICK claim/evidence sentence pairs.

Each evidence sentence becomes a Markdown document titled with its Wikipedia article (the title is
part of the evidence envelope, as it is for a real page); each pair becomes one labelled item citing
that sentence by quote. Gold: SUPPORTS -> supported; REFUTES -> contradicts; NOT_ENOUGH_INFO ->
insufficient. The split is by claim (a hash of the claim id), so no claim is in both parts:
``dev`` is for development, ``heldout`` is scored once per session.

    python -m benchmarks.realtext [--data climate-fever|sick|rte|healthver|covidfact|factcheckbench|begin|suite]
                                  [--part dev|heldout] [--limit N] [--threshold X]
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

Five more sets of other domains and styles, each read from ``.cache/`` (git-ignored; copied there from
public GitHub repositories, never downloaded by graphcite) or from an environment variable:

- ``rte``: the PASCAL Recognising Textual Entailment pairs as GLUE distributes them (news and Wikipedia
  paragraphs; entailment / not_entailment -> supports / insufficient). ``$GRAPHCITE_RTE`` or
  ``.cache/rte/`` holding ``train.tsv`` and ``dev.tsv`` (e.g. from Ji-Yishan/MIEC-FYP, ``RTE/``).
- ``healthver``: HealthVer (Sarrouti et al. 2021), real health claims about COVID-19 against
  paragraphs of scientific abstracts, Supports / Refutes / Neutral. ``$GRAPHCITE_HEALTHVER`` or
  ``.cache/healthver/`` holding ``healthver_dev.csv`` and ``healthver_test.csv`` (sarrouti/HealthVer).
- ``covidfact``: COVID-Fact (Saakyan et al. 2021), claims from a COVID-19 forum and counter-claims made by
  changing one salient word, each with several evidence sentences from web pages; SUPPORTED / REFUTED is
  a label of the claim, so each item cites all its sentences and every citation carries the claim's
  label. ``$GRAPHCITE_COVIDFACT`` or ``.cache/covidfact/COVIDFACT_dataset.jsonl`` (asaakyan/covidfact).
  The split is by evidence group, so a claim and its counter-claim are in the same part.
- ``factcheckbench``: the stance pairs of Factcheck-Bench (Wang et al. 2023, Factcheck-GPT; Apache-2.0):
  atomic claims from ChatGPT answers, each against the passages of web pages a search returned for it,
  judged by people as completely-support / partially-support / refute / irrelevant -> supports /
  insufficient / contradicts / insufficient (a partial support does not support the whole claim).
  ``$GRAPHCITE_FACTCHECKBENCH`` or ``.cache/factcheckbench/subtask3_claim_evidence_stance.jsonl``
  (yuxiaw/Factcheck-GPT, ``subtasks/``). A pair listed twice is read once, a pair judged both ways is
  dropped, and so is a passage holding control characters (a few are binary files scraped as text);
  the split is by claim, so all the passages of one claim are in one part.
- ``begin``: BEGIN (Dziri et al. 2022), turns of four dialogue systems (GPT-2, T5, CTRL, DoHA) each
  grounded on a knowledge snippet (Wikipedia for Wizard of Wikipedia and CMU-DoG, Wikipedia, news and
  Reddit for Topical-Chat), judged by people as Fully attributable / Not fully attributable / Generic
  -> supports / insufficient / (dropped: a generic turn, "that sounds fun", states nothing to check).
  ``$GRAPHCITE_BEGIN`` or ``.cache/begin/`` holding the ``begin_*.tsv`` files (google/BEGIN-dataset:
  ``wow/begin_dev_wow.tsv``, ``wow/begin_test_wow.tsv``, ``cmu-dog/begin_dev_cmu.tsv``,
  ``topicalchat/begin_dev_tc.tsv``). The split is by snippet, so every system's answer to one turn is
  in one part.

``--data suite`` runs our own multi-domain suite (``benchmarks/suites/run.py``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT

DATA_FILE = ROOT.parent / "shared" / "data" / "climate-fever" / "climate-fever.jsonl"
SICK_FILE = Path(os.environ.get("GRAPHCITE_SICK", ROOT / ".cache" / "sick" / "SICK.txt"))
RTE_DIR = Path(os.environ.get("GRAPHCITE_RTE", ROOT / ".cache" / "rte"))
HEALTHVER_DIR = Path(os.environ.get("GRAPHCITE_HEALTHVER", ROOT / ".cache" / "healthver"))
COVIDFACT_FILE = Path(os.environ.get("GRAPHCITE_COVIDFACT", ROOT / ".cache" / "covidfact" / "COVIDFACT_dataset.jsonl"))
BEGIN_DIR = Path(os.environ.get("GRAPHCITE_BEGIN", ROOT / ".cache" / "begin"))
FACTCHECKBENCH_FILE = Path(os.environ.get(
    "GRAPHCITE_FACTCHECKBENCH", ROOT / ".cache" / "factcheckbench" / "subtask3_claim_evidence_stance.jsonl"))
CACHE = ROOT / ".cache" / "realtext"
GOLD = {"SUPPORTS": "supports", "REFUTES": "contradicts", "NOT_ENOUGH_INFO": "insufficient",
        "ENTAILMENT": "supports", "CONTRADICTION": "contradicts", "NEUTRAL": "insufficient",
        "Supports": "supports", "Refutes": "contradicts", "Neutral": "insufficient",
        "SUPPORTED": "supports", "REFUTED": "contradicts", "NOT_ENTAILMENT": "insufficient",
        "completely-support": "supports", "partially-support": "insufficient", "refute": "contradicts",
        "irrelevant": "insufficient", "Fully attributable": "supports", "Not fully attributable": "insufficient"}


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


def _pair(claim_id: str, claim: str, evidence: str, label: str, group: str = "") -> dict[str, Any]:
    """One claim with one evidence text, in the CLIMATE-FEVER record shape."""
    return {"claim_id": claim_id, "claim": claim, "group": group or claim_id, "evidences": [{
        "evidence_id": "x" + hashlib.sha256(evidence.encode()).hexdigest()[:20], "evidence": evidence,
        "article": "", "evidence_label": label, "entropy": 0.0}]}


def _rte_records(folder: Path) -> list[dict[str, Any]]:
    """GLUE RTE (sentence1 = evidence, sentence2 = claim; label 0 = entailment, 1 = not)."""
    out = []
    for name in ("train", "dev"):
        with (folder / f"{name}.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                label = {"0": "ENTAILMENT", "1": "NOT_ENTAILMENT"}.get(row.get("label", "").strip())
                if label and row.get("sentence1") and row.get("sentence2"):
                    out.append(_pair(f"rte-{name}-{row['idx']}", row["sentence2"], row["sentence1"], label))
    return out


def _healthver_records(folder: Path) -> list[dict[str, Any]]:
    """HealthVer rows (id, evidence, claim, label); split by claim text, so one claim is in one part."""
    out = []
    for name in ("dev", "test"):
        with (folder / f"healthver_{name}.csv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                claim, label = (row.get("claim") or "").strip(), (row.get("label") or "").strip()
                if claim and row.get("evidence") and label in GOLD:
                    out.append(_pair(f"hv-{name}-{row['id']}", claim, row["evidence"], label, group=claim.lower()))
    return out


def _covidfact_records(path: Path) -> list[dict[str, Any]]:
    """COVID-Fact claims, each with all its evidence sentences (one item, several citations)."""
    out = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(raw)
        sentences = [" ".join(e.split()) for e in row.get("evidence", []) if e.strip()]
        if not sentences or row.get("label") not in GOLD:
            continue
        group = hashlib.sha256("\n".join(sentences).encode()).hexdigest()
        out.append({"claim_id": f"covidfact-{number}", "claim": row["claim"], "group": group, "multi": True,
                    "evidences": [{"evidence_id": "x" + hashlib.sha256(e.encode()).hexdigest()[:20], "evidence": e,
                                   "article": "", "evidence_label": row["label"], "entropy": 0.0}
                                  for e in dict.fromkeys(sentences)]})
    return out


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _factcheckbench_records(path: Path) -> list[dict[str, Any]]:
    """Factcheck-Bench stance pairs (claim, web passage, stance), each pair once; split by claim text."""
    stances: dict[tuple[str, str], set[str]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        row = json.loads(raw)
        claim, evidence = (row.get("claim") or "").strip(), (row.get("evidence") or "").strip()
        if claim and evidence and row.get("stance") in GOLD and not _CONTROL.search(evidence):
            stances.setdefault((claim, evidence), set()).add(row["stance"])
    return [_pair(f"fcb-{number}", claim, evidence, next(iter(labels)), group=claim.lower())
            for number, ((claim, evidence), labels) in enumerate(stances.items()) if len(labels) == 1]


def _begin_records(folder: Path) -> list[dict[str, Any]]:
    """BEGIN turns (knowledge snippet = evidence, response = claim), each pair once; split by snippet."""
    labels: dict[tuple[str, str], str] = {}
    for path in sorted(folder.glob("begin_*.tsv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                knowledge, response = (row.get("knowledge") or "").strip(), (row.get("response") or "").strip()
                label = (row.get("begin_label") or "").strip()
                if knowledge and response and label in GOLD:
                    labels.setdefault((knowledge, response), label)
    return [_pair(f"begin-{number}", response, knowledge, label, group=knowledge.lower())
            for number, ((knowledge, response), label) in enumerate(labels.items())]


def _records(data_file: Path) -> list[dict[str, Any]]:
    if data_file.suffix == ".txt":
        return _sick_records(data_file)
    return [json.loads(raw) for raw in data_file.read_text(encoding="utf-8").splitlines()]


def _digest(data_file: Path) -> str:
    """A stamp of the data read (a single file's stamp is unchanged from earlier sessions' caches)."""
    if not data_file.is_dir():
        return hashlib.sha256(data_file.read_bytes()).hexdigest()[:16] + "-v2"
    files = sorted(p for p in data_file.iterdir() if p.is_file())
    sha = hashlib.sha256()
    for path in files:
        sha.update(path.name.encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()[:16] + "-v2"


def _item(item: dict[str, Any], evidences: list[dict[str, Any]], names: list[str], sentences: list[str]) -> str:
    gold = GOLD[evidences[0]["evidence_label"]]
    suffix = "" if item.get("multi") else f"-{evidences[0]['evidence_id']}"
    return json.dumps({
        "id": f"cf{item['claim_id']}{suffix}", "claim": item["claim"].strip(),
        "citations": [{"source": name, "quote": sentence, "gold_relation": GOLD[ev["evidence_label"]]}
                      for ev, name, sentence in zip(evidences, names, sentences, strict=True)],
        "gold_supported": gold == "supports", "category": evidences[0]["evidence_label"].lower(),
        "review": "adjudicated" if evidences[0].get("entropy", 0) < 0.5 else "contested",
    }, ensure_ascii=False, sort_keys=True)


def build(data_file: Path = DATA_FILE, cache: Path = CACHE,
          reader: Callable[[Path], list[dict[str, Any]]] | None = None) -> tuple[Path, dict[str, Path]]:
    """Write one document per evidence text and the labelled sets; ingest into a cached store."""
    from graphcite.ingest import ingest
    from graphcite.store import open_store

    docs = cache / "docs"
    stamp = cache / "stamp"
    digest = _digest(data_file)
    sets = {p: cache / f"{p}.jsonl" for p in ("dev", "heldout")}
    db = cache / "store.duckdb"
    if stamp.exists() and stamp.read_text() == digest and db.exists():
        _upgrade(db)
        return db, sets
    docs.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[str]] = {"dev": [], "heldout": []}
    seen: set[str] = set()
    for item in (reader or _records)(data_file):
        part = part_of(item.get("group", item["claim_id"]))
        names, sentences = [], []
        for ev in item["evidences"]:
            name = _doc_name(ev["evidence_id"])
            sentence = " ".join(ev["evidence"].split())
            if name not in seen:
                seen.add(name)
                title = ev["article"].replace("\n", " ").strip()
                head = f"# {title}\n\n" if title else ""
                (docs / name).write_text(f"{head}{sentence}\n", encoding="utf-8")
            if not item.get("multi"):
                lines[part].append(_item(item, [ev], [name], [sentence]))
            names.append(name)
            sentences.append(sentence)
        if item.get("multi"):
            lines[part].append(_item(item, item["evidences"], names, sentences))
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


DATASETS: dict[str, tuple[Any, ...]] = {
    "climate-fever": (DATA_FILE, CACHE), "sick": (SICK_FILE, CACHE.parent / "realtext-sick"),
    "rte": (RTE_DIR, CACHE.parent / "realtext-rte", _rte_records),
    "healthver": (HEALTHVER_DIR, CACHE.parent / "realtext-healthver", _healthver_records),
    "covidfact": (COVIDFACT_FILE, CACHE.parent / "realtext-covidfact", _covidfact_records),
    "factcheckbench": (FACTCHECKBENCH_FILE, CACHE.parent / "realtext-factcheckbench", _factcheckbench_records),
    "begin": (BEGIN_DIR, CACHE.parent / "realtext-begin", _begin_records),
}


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
    if data == "suite":
        from benchmarks.suites.run import main as suite_main

        suite_main([a for a in argv if a not in ("--data", "suite")])
        return
    if data not in DATASETS:
        print(f"unknown --data {data}: expected one of {', '.join([*DATASETS, 'suite'])}")
        raise SystemExit(2)
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
