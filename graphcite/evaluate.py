"""Measure the verifier: human annotations, labelled sets, metrics, and a gate between verifier generations.

The number that matters most is the false-support rate: items the verifier calls supported whose gold
label is not. Every report also runs on the plain lexical verifier when asked, so a configuration is
always read against the floor.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from graphcite.claims.formats import load_answer
from graphcite.errors import InputError, NotFoundError
from graphcite.models import RELATIONS
from graphcite.store import Store, utcnow
from graphcite.store.queries import evaluate as queries
from graphcite.store.queries.lifecycle import current_revision
from graphcite.verify.check import verify_answer
from graphcite.verify.config import VerifierConfig

__all__ = [
    "METRIC_MEANINGS",
    "LabelledItem",
    "annotate",
    "annotations",
    "evaluate_set",
    "export_set",
    "gate_verifier",
    "load_set",
    "rule_table",
    "score_items",
]

LabelledItem = dict[str, Any]
_REVIEWS = ("adjudicated", "contested")
#: what each metric of an evaluation counts, in the words ``graphcite eval`` prints beside it
METRIC_MEANINGS = {
    "false_support_rate": "of the items gold does not support, the share called supported (lower is better)",
    "support_recall": "of the items gold supports, the share called supported",
    "support_precision": "of the items called supported, the share gold supports",
    "agreement": "share of items whose supported-or-not verdict matches gold",
    "citation_integrity": "share of citations that point at text that exists",
    "citation_validity": "share of items whose citations support their claim",
    "contradiction_recall": "of the citations gold marks as contradicting, the share found contradicting",
    "useful_insufficiency": "of the citations gold marks as insufficient, the share found insufficient",
    "relation_accuracy": "share of citations whose relation matches gold",
    "coverage": "share of items with at least one valid citation",
}


# --------------------------------------------------------------------------------------------
# Annotations
# --------------------------------------------------------------------------------------------


def annotate(store: Store, claim_id: str, *, citation: int, label: str, rationale: str, reviewer: str,
             adjudication: bool = False) -> dict[str, Any]:
    """Record one reviewer's judgement of one citation of a stored claim (appended, never edited)."""
    if label not in RELATIONS:
        raise InputError(f"unknown label {label!r}", where="--label", fix=f"use one of {', '.join(RELATIONS)}")
    if not rationale.strip() or not reviewer.strip():
        raise InputError("a judgement needs a rationale and a reviewer", where="--rationale/--reviewer",
                             fix="say why, and who you are")
    row = queries.input_claim(store, claim_id)
    if row is None:
        raise NotFoundError(f"no claim {claim_id!r}", where="CLAIM", fix="take a claim_id from `graphcite check --json`")
    cit = queries.citation(store, claim_id, citation)
    if cit is None:
        raise NotFoundError(f"claim {claim_id} has no citation {citation}", where="--citation",
                            fix="citations are numbered from 0 in input order")
    revision = cit["revision"] or current_revision(store, cit["source_key"])
    now = utcnow()
    previous = queries.annotation_count(store, claim_id, citation)  # appended: two in one second stay two
    record = {
        "annotation_id": hashlib.sha256(f"{claim_id}:{citation}:{reviewer}:{label}:{now}:{previous}".encode()
                                        ).hexdigest()[:16],
        "claim_id": claim_id, "citation_index": citation, "label": label, "rationale": rationale.strip(),
        "reviewer": reviewer.strip(), "created_at": now, "source_revision": revision,
        "claim_revision": row["answer_rev"], "adjudication": adjudication,
    }
    with store.transaction():
        store.bulk_insert("annotation", [record])
    return record


def annotations(store: Store, *, contested: bool = False) -> list[dict[str, Any]]:
    """Judgements grouped per (claim, citation); contested = reviewers disagree and nobody adjudicated."""
    rows = queries.annotation_rows(store)
    grouped: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[(row["claim_id"], row["citation_index"])].append(row)
    out = []
    for (claim_id, index), items in grouped.items():
        labels = sorted({i["label"] for i in items if not i["adjudication"]})
        adjudicated = [i for i in items if i["adjudication"]]
        is_contested = len(labels) > 1 and not adjudicated
        if contested and not is_contested:
            continue
        out.append({
            "claim_id": claim_id, "citation": index, "claim": items[0]["claim_text"],
            "labels": labels, "contested": is_contested,
            "adjudicated": adjudicated[-1]["label"] if adjudicated else None,
            "judgements": [{"reviewer": i["reviewer"], "label": i["label"], "rationale": i["rationale"],
                            "date": i["created"], "adjudication": i["adjudication"],
                            "source_revision": i["source_revision"], "claim_revision": i["claim_revision"]}
                           for i in items],
        })
    return out


def export_set(store: Store, path: Path) -> int:
    """Write annotated claims as a labelled set (JSONL); gold = adjudication, else the majority label."""
    lines = []
    by_claim: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in annotations(store):
        by_claim[item["claim_id"]].append(item)
    for claim_id, items in sorted(by_claim.items()):
        citations = queries.citations_of(store, claim_id)
        gold = {}
        for item in items:
            counts = Counter(j["label"] for j in item["judgements"] if not j["adjudication"])
            gold[item["citation"]] = item["adjudicated"] or counts.most_common(1)[0][0]
        cits = []
        for c in citations:
            entry = {k: c[k] for k in ("source", "chunk_id", "start", "end", "quote", "role") if c.get(k) is not None}
            if c.get("source_key"):
                entry["source"] = c["source_key"]
            entry["gold_relation"] = gold.get(c["ordinal"], "insufficient")
            cits.append(entry)
        lines.append(json.dumps({
            "id": claim_id, "claim": items[0]["claim"], "citations": cits,
            "gold_supported": any(v == "supports" for v in gold.values()), "category": "annotated",
            "review": "contested" if any(i["contested"] for i in items) else "adjudicated",
            "rationale": "; ".join(j["rationale"] for i in items for j in i["judgements"])[:1000],
        }, ensure_ascii=False, sort_keys=True))
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return len(lines)


# --------------------------------------------------------------------------------------------
# Labelled sets
# --------------------------------------------------------------------------------------------


def load_set(path: Path) -> list[LabelledItem]:
    """Read and check a labelled set (JSONL); errors name the line and field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read labelled set: {exc.strerror}", where=str(path), fix="check the path") from exc
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", where=where, fix="one JSON object per line") from exc
        if not isinstance(item, dict):
            raise InputError("expected an object", where=where, fix="one JSON object per line")
        for key, kind in (("id", str), ("claim", str), ("citations", list), ("gold_supported", bool)):
            if not isinstance(item.get(key), kind):
                raise InputError(f"{key}: expected {kind.__name__}", where=where, fix="see schema/labelled-set.schema.json")
        for i, cit in enumerate(item["citations"]):
            if not isinstance(cit, dict) or cit.get("gold_relation") not in RELATIONS:
                raise InputError(f"citations[{i}].gold_relation: expected one of {', '.join(RELATIONS)}",
                                     where=where, fix="label every citation")
        if item.get("review", "adjudicated") not in _REVIEWS:
            raise InputError("review: expected adjudicated or contested", where=where, fix="fix the label")
        items.append(item)
    if not items:
        raise InputError("the labelled set is empty", where=str(path), fix="add items, one JSON object per line")
    return items


def _answer_for(item: LabelledItem) -> Any:
    cits = [{k: v for k, v in c.items() if k != "gold_relation"} for c in item["citations"]]
    claim = {"text": item["claim"], "citations": cits}
    if item.get("claim_type"):
        claim["type"] = item["claim_type"]
    return load_answer({"answer_id": str(item["id"]), "claims": [claim]}, format="native")


def score_items(store: Store, items: Sequence[LabelledItem], config: VerifierConfig, *,
                progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Run the verifier on every item; returns per-item predictions next to the gold labels.
    ``progress(done, total)`` is called after each item."""
    out = []
    for item in items:
        report = verify_answer(store, _answer_for(item), config=config, audience=item.get("audience", "internal"))
        claim = report["claims"][0]
        out.append({
            "id": item["id"], "category": item.get("category", "uncategorised"),
            "review": item.get("review", "adjudicated"), "gold_supported": item["gold_supported"],
            "supported": claim["supported"], "status": claim["status"],
            "gold_relations": [c["gold_relation"] for c in item["citations"]],
            "relations": [c["relation"] for c in claim["citations"]],
            "valid": [c["valid"] for c in claim["citations"]],
            "vetoes": sorted({f["code"] for c in claim["citations"] for f in c["findings"]
                              if f["outcome"] == "fail"}),
        })
        if progress is not None:
            progress(len(out), len(items))
    return out


def rule_table(scored: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per rule: how often it failed on gold-supported and on gold-unsupported items.

    A veto earns its place only when it fires clearly more often on unsupported items than on
    supported ones; ``lift`` is that ratio of rates (above 1 means the rule separates the two)."""
    pos = [s for s in scored if s["gold_supported"]]
    neg = [s for s in scored if not s["gold_supported"]]
    codes = sorted({code for s in scored for code in s.get("vetoes", [])})
    rows = []
    for code in codes:
        on_pos = sum(1 for s in pos if code in s["vetoes"])
        on_neg = sum(1 for s in neg if code in s["vetoes"])
        rate_pos = on_pos / len(pos) if pos else 0.0
        rate_neg = on_neg / len(neg) if neg else 0.0
        rows.append({"code": code, "on_supported": on_pos, "on_unsupported": on_neg,
                     "rate_supported": round(rate_pos, 4), "rate_unsupported": round(rate_neg, 4),
                     "lift": round(rate_neg / rate_pos, 2) if rate_pos else None})
    return rows


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def metrics(scored: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The verifier metrics over scored items."""
    n = len(scored)
    tp = sum(1 for s in scored if s["supported"] and s["gold_supported"])
    fp = sum(1 for s in scored if s["supported"] and not s["gold_supported"])
    gold_pos = sum(1 for s in scored if s["gold_supported"])
    gold_neg = n - gold_pos
    pairs = [(g, p) for s in scored for g, p in zip(s["gold_relations"], s["relations"], strict=False)]
    valid = [v for s in scored for v in s["valid"]]
    confusion = {g: {p: 0 for p in RELATIONS} for g in RELATIONS}
    for g, p in pairs:
        confusion[g][p] += 1
    gold_contra = sum(1 for g, _ in pairs if g == "contradicts")
    gold_insuf = sum(1 for g, _ in pairs if g == "insufficient")
    return {
        "items": n,
        "citation_integrity": _ratio(sum(valid), len(valid)),
        "citation_validity": _ratio(sum(1 for s in scored if s["supported"]), n),
        "faithfulness": _ratio(sum(1 for s in scored if s["supported"]), n),
        "agreement": _ratio(sum(1 for s in scored if s["supported"] == s["gold_supported"]), n),
        "support_precision": _ratio(tp, tp + fp),
        "support_recall": _ratio(tp, gold_pos),
        "false_support_rate": _ratio(fp, gold_neg),
        "false_supports": fp,
        "contradiction_recall": _ratio(sum(1 for g, p in pairs if g == p == "contradicts"), gold_contra),
        "coverage": _ratio(sum(1 for s in scored if any(s["valid"])), n),
        "useful_insufficiency": _ratio(sum(1 for g, p in pairs if g == p == "insufficient"), gold_insuf),
        "relation_accuracy": _ratio(sum(1 for g, p in pairs if g == p), len(pairs)),
        "confusion": confusion,
    }


def _split(scored: Sequence[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in scored:
        groups[s[key]].append(s)
    return {name: {k: v for k, v in metrics(items).items() if k != "confusion"} for name, items in sorted(groups.items())}


def evaluate_set(store: Store, path: Path, *, config: VerifierConfig | None = None,
                 baseline: str | None = None, by_rule: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Evaluate a configuration (and optionally the lexical baseline) on a labelled set; with
    ``by_rule``, also how often each rule vetoed gold-supported and gold-unsupported items.
    ``progress(done, total)`` counts items over every run."""
    items = load_set(path)
    config = config or VerifierConfig()
    runs = {"default" if config == VerifierConfig() else f"config {config.hash}": config}
    if baseline == "lexical":
        runs["lexical baseline"] = VerifierConfig.lexical_baseline()
    elif baseline is not None:
        raise InputError(f"unknown baseline {baseline!r}", where="--baseline", fix="use lexical")
    out: dict[str, Any] = {"set": str(Path(path).name), "items": len(items), "runs": {}}
    for number, (name, cfg) in enumerate(runs.items()):
        offset = number * len(items)
        tick = (lambda done, _n, at=offset: progress(at + done, len(items) * len(runs))) if progress else None
        scored = score_items(store, items, cfg, progress=tick)
        out["runs"][name] = {"config_hash": cfg.hash, "metrics": metrics(scored),
                             "by_category": _split(scored, "category"), "by_review": _split(scored, "review"),
                             "false_supports": [s["id"] for s in scored if s["supported"] and not s["gold_supported"]],
                             "missed_supports": [s["id"] for s in scored if s["gold_supported"] and not s["supported"]]}
        if by_rule:
            out["runs"][name]["by_rule"] = rule_table(scored)
    out["summary"] = {name: {k: run["metrics"][k] for k in ("false_support_rate", "support_recall",
                                                             "support_precision", "agreement")}
                      for name, run in out["runs"].items()}
    return out


def gate_verifier(store: Store, path: Path, baseline: VerifierConfig, candidate: VerifierConfig) -> dict[str, Any]:
    """Compare two verifier generations on the same items; refuse a candidate that supports falsely more
    often or agrees less with the gold citation-validity labels."""
    items = load_set(path)
    before = score_items(store, items, baseline)
    after = score_items(store, items, candidate)
    m_before, m_after = metrics(before), metrics(after)
    reasons = []
    if (m_after["false_support_rate"] or 0) > (m_before["false_support_rate"] or 0):
        reasons.append(f"false-support rises from {m_before['false_support_rate']} to {m_after['false_support_rate']}")
    if (m_after["agreement"] or 0) < (m_before["agreement"] or 0):
        reasons.append(f"citation-validity agreement falls from {m_before['agreement']} to {m_after['agreement']}")
    changed = [{"id": b["id"], "category": b["category"], "gold_supported": b["gold_supported"],
                "baseline": b["status"], "candidate": a["status"]}
               for b, a in zip(before, after, strict=True) if b["status"] != a["status"]]
    return {"accepted": not reasons, "reasons": reasons, "baseline": {"config_hash": baseline.hash, **{
        k: m_before[k] for k in ("false_support_rate", "agreement", "support_recall")}},
            "candidate": {"config_hash": candidate.hash, **{
                k: m_after[k] for k in ("false_support_rate", "agreement", "support_recall")}},
            "changed": changed}
