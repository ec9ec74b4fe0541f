"""Staleness: which claims rest on a source revision that is no longer the one to read, and recheck.

A claim is stale when its latest verification record (or a scoped acceptance of it) relied on a source
revision that has since been replaced by a newer revision, superseded by another source, or restricted.
Finding them is one set-based query over the append-only ``verification`` table
(:func:`graphcite.store.queries.lifecycle.stale_sql`);
explaining what changed (old and new unit text, whether the cited span survives verbatim) is done
afterwards for the stale claims only. Rechecking appends new records; the old ones stay.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Any

from graphcite.audience import audience_view, check_audience
from graphcite.store import Store, utcnow
from graphcite.store.queries import latest_verification
from graphcite.store.queries import lifecycle as queries
from graphcite.store.queries.answers import claims_by_id
from graphcite.verify.config import VerifierConfig
from graphcite.verify.records import RecordSummary, claim_records, record_rows

__all__ = ["find_stale", "recheck_stale", "stale"]

#: a new unit counts as "the same unit, changed" when its text is at least this similar to the old one
MATCH_RATIO = 0.5

def _has_acceptances(store: Store) -> bool:
    return "acceptance" in store.table_names()


def find_stale(store: Store) -> list[dict[str, Any]]:
    """One row per (stale claim, what it relied on, old revision): the set-based query, nothing more."""
    return queries.stale_rows(store, with_acceptances=_has_acceptances(store))


def _stale_for(store: Store, rows: list[dict[str, Any]], audience: str) -> list[dict[str, Any]]:
    """The stale rows an audience may act on: for the public, only changes it can see (a restricted source,
    or a supersession a restricted source declares, changes nothing publicly: they do not exist for it)."""
    view = audience_view(store, audience)
    if not view.public or not view.restricted.keys:
        return rows
    superseders = _superseders(store, {r["source_key"] for r in rows if r["superseded"]})
    kept = []
    for row in rows:
        if not view.sees_source(row["source_key"]):
            continue
        if row["revised"] or any(view.sees_source(s["by_key"]) and s["ingested_at"] > row["relied_at"]
                                 for s in superseders.get(row["source_key"], [])):
            kept.append(row)
    return kept


def stale(store: Store) -> list[dict[str, Any]]:
    """Every stale claim with what changed in each revision it relied on, claim by claim.

    Each entry: ``claim_id``, ``answer_rev``, ``text``, ``relied`` (verification and/or acceptance
    ids) and ``changes``: per old revision, the reason (a newer revision, superseded by X on DATE,
    restricted) and per cited unit its old and new text side by side or "the unit no longer exists",
    and whether the cited span still exists verbatim in the current revision.
    """
    rows = find_stale(store)
    if not rows:
        return []
    claims = claims_by_id(store, {r["claim_id"] for r in rows})
    cited = _cited_units(store, rows)
    texts = queries.revision_texts(store, {r["new_revision"] for r in rows})
    superseders = _superseders(store, {r["source_key"] for r in rows if r["superseded"]})
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        later = [s for s in superseders.get(row["source_key"], []) if s["ingested_at"] > row["relied_at"]]
        row = {**row, "superseded_by": later[0]["by_key"] if later else None,
               "superseded_on": later[0]["on_date"] if later else None}
        claim = claims.get(row["claim_id"], {})
        entry = out.setdefault(row["claim_id"], {
            "claim_id": row["claim_id"], "answer_rev": claim.get("answer_rev"), "text": claim.get("text"),
            "relied": [], "changes": []})
        relied = {"kind": row["relied"], "id": row["relied_id"], "at": str(row["relied_at"])}
        if relied not in entry["relied"]:
            entry["relied"].append(relied)
        if any(c["old_revision"] == row["old_revision"] for c in entry["changes"]):
            continue
        entry["changes"].append(_change(store, row, cited.get((row["claim_id"], row["old_revision"]), []), texts))
    return list(out.values())


def _superseders(store: Store, keys: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Source key -> the sources that supersede it, earliest declaration first, with the date."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in queries.superseders(store, keys):
        out.setdefault(row.pop("to_key"), []).append(row)
    return out


def _reason(row: dict[str, Any]) -> str:
    reasons = []
    if row["superseded_by"]:
        reasons.append(f"superseded by {row['superseded_by']} on {row['superseded_on']}")
    if row["revised"]:
        reasons.append(f"{row['source_key']} has a newer revision ({row['new_revision']})")
    if row["restricted"]:
        reasons.append(f"{row['source_key']} is now restricted")
    return "; ".join(reasons)


def _change(store: Store, row: dict[str, Any], units: list[dict[str, Any]],
            texts: dict[str, str]) -> dict[str, Any]:
    new_text = texts.get(row["new_revision"], "")
    new_units = queries.revision_units(store, row["new_revision"]) if row["revised"] else []
    shown = []
    for unit in units:
        span = unit["span"]
        entry: dict[str, Any] = {"unit_id": unit["unit_id"], "old_text": unit["text"], "span": span,
                                 "span_verbatim": bool(span) and span in new_text}
        if row["revised"]:
            match = _best_match(unit["text"], new_units)
            if match is None:
                entry.update(new_text=None, new_unit_id=None, note="the unit no longer exists")
            else:
                same = match["text"] == unit["text"]
                entry.update(new_text=match["text"], new_unit_id=match["unit_id"],
                             note="unit text unchanged" if same else "unit text changed")
        shown.append(entry)
    return {"source": row["source_key"], "old_revision": row["old_revision"], "new_revision": row["new_revision"],
            "reason": _reason(row), "revised": bool(row["revised"]), "restricted": bool(row["restricted"]),
            "superseded_by": row["superseded_by"],
            "superseded_on": None if row["superseded_on"] is None else str(row["superseded_on"]),
            "units": shown}


def _best_match(old: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    best, best_ratio = None, MATCH_RATIO
    for unit in candidates:
        if unit["text"] == old:
            return unit
        ratio = difflib.SequenceMatcher(None, old, unit["text"], autojunk=False).ratio()
        if ratio >= best_ratio:
            best, best_ratio = unit, ratio
    return best


def _cited_units(store: Store, rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(claim, old revision) -> the units its latest record cited in that revision, with the cited span."""
    record_ids = {r["relied_id"] for r in rows if r["relied"] == "verification"}
    wanted: dict[tuple[str, str], dict[str, str]] = {}
    for record in queries.verification_results(store, record_ids):
        for cit in json.loads(record["result_json"]).get("citations", []):
            spans = cit.get("located_spans") or [cit]
            for spot in spans:
                if spot.get("unit_id") and (spot.get("revision") or cit.get("revision")):
                    key = (record["claim_id"], spot.get("revision") or cit["revision"])
                    wanted.setdefault(key, {})[spot["unit_id"]] = spot.get("quote") or ""
    acceptance_ids = {r["relied_id"] for r in rows if r["relied"] == "acceptance"}
    if acceptance_ids:
        for acc in queries.acceptance_evidence(store, acceptance_ids):
            for item in json.loads(acc["evidence_json"]):
                wanted.setdefault((acc["claim_id"], item["revision_id"]), {}).setdefault(item["unit_id"], "")
    units = queries.unit_texts(store, {u for units in wanted.values() for u in units})
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for key, quotes in wanted.items():
        for unit_id, quote in sorted(quotes.items()):
            unit = units.get(unit_id)
            if unit is None or unit["revision_id"] != key[1]:
                continue
            out.setdefault(key, []).append({"unit_id": unit_id, "text": unit["text"], "span": quote or unit["text"]})
    return out


def recheck_stale(store: Store, *, config: VerifierConfig | None = None, audience: str = "internal",
                  progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Verify every stale claim again and append one new record each; earlier records stay untouched.

    Claims are re-verified answer by answer with :func:`graphcite.verify.check.check_answer` (nothing
    recorded by it), then a record is appended for the stale claims only, in one transaction. The new
    records carry ``audience`` (a public recheck never becomes the internal verdict) and ``old_status``
    is that audience's previous verdict (None when it had none).
    Returns ``{claim_id, answer_rev, old_status, status, supported, record_id}`` per claim;
    ``progress(done, total)`` is called after each answer is verified again.
    """
    from graphcite.verify.check import check_answer

    check_audience(audience)
    config = config or VerifierConfig()
    rows = _stale_for(store, find_stale(store), audience)
    by_answer: dict[str, set[str]] = {}
    if not rows:
        return []
    # an acceptance may name an atomic part; its verification record is its input claim's
    for claim in queries.verified_claims(store, {r["claim_id"] for r in rows}):
        by_answer.setdefault(claim["answer_rev"], set()).add(claim["verified_id"])
    results: list[dict[str, Any]] = []
    with store.transaction():
        now = utcnow()
        config_json = json.dumps(config.as_dict(), sort_keys=True, default=str)
        records = []
        for done, answer_rev in enumerate(sorted(by_answer), start=1):
            report = check_answer(store, answer_rev, config=config, audience=audience, record=False)
            claims = [c for c in claim_records(report) if c.claim_id in by_answer[answer_rev]]
            # record ids count the answer's earlier records as check does, so a check and a recheck in the
            # same second never make the same id
            appended = record_rows(answer_rev, claims, config, config_json,
                                   RecordSummary.load(store, answer_rev).records, now)
            for claim, row in zip(claims, appended, strict=True):
                old = latest_verification(store, claim.claim_id, "status", audience=audience)
                records.append(row)
                results.append({"claim_id": claim.claim_id, "answer_rev": answer_rev,
                                "old_status": old["status"] if old else None, "status": str(claim.status),
                                "supported": claim.supported, "record_id": row["record_id"]})
            if progress is not None:
                progress(done, len(by_answer))
        store.bulk_insert("verification", records)
    return results
