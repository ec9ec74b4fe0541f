"""Answerability before generation: does the store hold current, visible evidence for every relation a
planned answer will need?

A plan (JSON) lists the needs, each a short claim or query with an optional required source ``kind``
(decision, contract, ...) or evidence ``role`` (policy, capability, definition, event, entity)::

    {"plan": "why adapter X is not retried", "audience": "public",
     "needs": [{"id": "policy", "query": "adapters without a status lookup are not retried", "role": "policy"},
               {"id": "contract", "query": "Northpass adapter status lookup", "kind": "contract"}]}

Each need is searched in every ingested unit (term index, BM25), the best candidates are aligned with
the query (every number of the query must be in the unit), and the need is reported ``present`` (a current unit of a current revision, visible to the
audience, of an admissible kind), ``superseded_only``, ``restricted_only``, ``not_current_only``
(proposals, drafts) or ``missing``, so a generator can decline before writing. For the public audience
a restricted source does not exist (:mod:`graphcite.audience`): it is never found, counted or ranked,
so a need it alone could carry is ``missing``, whatever figure it holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphcite.audience import check_audience, verdict_may_use_restricted
from graphcite.claims.formats import parse_json
from graphcite.errors import make_error
from graphcite.ingest.terms import content_terms
from graphcite.language.align import align
from graphcite.models import KINDS
from graphcite.store import Store
from graphcite.store.queries.lifecycle import search_units

__all__ = ["MIN_ALIGN", "ROLE_KINDS", "STATES", "answerable", "load_plan"]

#: the source kinds that can carry each evidence role (a policy rests on a decision, not on a blog post)
ROLE_KINDS: dict[str, tuple[str, ...]] = {
    "policy": ("decision", "contract", "manual"),
    "capability": ("contract", "code", "registry", "manifest", "manual"),
    "definition": ("manual", "contract", "decision", "registry", "note"),
    "event": ("incident", "observation"),
    "entity": ("registry", "contract", "manifest", "manual", "decision"),
    "implementation": ("code", "test", "registry", "manifest"),
}
STATES = ("present", "superseded_only", "restricted_only", "not_current_only", "missing")
MIN_ALIGN = 0.6  # share of the query's slots a unit must hold to count as evidence for the need
CANDIDATES = 25  # units per need aligned after the term ranking
MAX_NEEDS = 200
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

def load_plan(plan: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A plan from a JSON file or a dict, checked: every need has a query; kinds and roles are known.

    Bad input is one error naming the place (``needs[2].kind``) and the fix; nothing is searched.
    """
    where = "PLAN"
    if not isinstance(plan, Mapping):
        path = Path(plan)
        where = str(path)
        try:
            data = parse_json(path.read_bytes())
        except OSError as exc:
            raise make_error("E101", where=where, detail=f"cannot read the plan ({type(exc).__name__})",
                             fix="pass a readable JSON file") from None
    else:
        data = plan
    if not isinstance(data, Mapping):
        raise make_error("E101", where=where, detail="a plan is a JSON object with a \"needs\" list",
                         fix='write {"needs": [{"query": "...", "kind": "decision"}]}')
    needs = data.get("needs")
    if not isinstance(needs, list) or not needs:
        raise make_error("E101", where=f"{where}: needs", detail="the plan names no needs",
                         fix='give "needs": a non-empty list of {"query": "...", "kind"/"role": ...}')
    if len(needs) > MAX_NEEDS:
        raise make_error("E101", where=f"{where}: needs", detail=f"{len(needs):,} needs, over the limit of {MAX_NEEDS}",
                         fix="split the plan")
    checked = []
    for i, need in enumerate(needs):
        at = f"{where}: needs[{i}]"
        if not isinstance(need, Mapping):
            raise make_error("E101", where=at, detail="a need is an object", fix='write {"query": "..."}')
        query = need.get("query", need.get("claim"))
        if not isinstance(query, str) or not query.strip():
            raise make_error("E101", where=f"{at}.query", detail="missing or empty",
                             fix="give the relation the answer needs as a short claim or query")
        kind, role = need.get("kind"), need.get("role")
        if kind is not None and kind not in KINDS:
            raise make_error("E105", where=f"{at}.kind", what="kind", value=kind, choices=", ".join(KINDS))
        if role is not None and role not in ROLE_KINDS:
            raise make_error("E105", where=f"{at}.role", what="role", value=role, choices=", ".join(ROLE_KINDS))
        checked.append({"id": str(need.get("id", i)), "query": query.strip(), "kind": kind, "role": role})
    audience = data.get("audience")
    if audience is not None:
        check_audience(audience)
    return {"plan": data.get("plan"), "audience": audience, "needs": checked}


def _terms(text: str) -> list[str]:
    return content_terms(text)


def _numbers(text: str) -> set[str]:
    """The numbers of a text as the term index holds them: a unit must carry every number a need names."""
    return {t for t in _terms(text) if _NUMBER.fullmatch(t)}


def _admissible(need: dict[str, Any], kind: str) -> bool:
    if need["kind"] is not None and kind != need["kind"]:
        return False
    return need["role"] is None or kind in ROLE_KINDS[need["role"]]


def _why_unavailable(row: dict[str, Any], audience: str) -> str | None:
    """None for a usable unit; else why it cannot carry the need now (for the public audience the search
    never returns a restricted unit: it does not exist for it)."""
    if audience == "public" and row["visibility"] == "restricted":
        return "restricted"
    if not row["latest"]:
        return "superseded"
    if row["revision_status"] in ("superseded", "historical") or row["unit_status"] in ("superseded", "historical") \
            or row["superseded_by_link"]:
        return "superseded"
    if row["revision_status"] != "current" or row["unit_status"] != "current":
        return "not current"
    return None


def answerable(store: Store, plan: str | Path | Mapping[str, Any], *, audience: str | None = None) -> dict[str, Any]:
    """Which needs of a plan the store can answer now, and with which units; ``answerable`` when all can.

    ``audience`` (default: the plan's, else internal) decides whether restricted sources count; for
    the public audience a restricted match is reported only as a count, never by id or text.
    """
    loaded = load_plan(plan)
    audience = check_audience(audience or loaded["audience"] or "internal")
    needs = loaded["needs"]
    terms = {i: _terms(n["query"]) for i, n in enumerate(needs)}
    qi = [i for i in terms for _ in terms[i]]
    term = [t for i in terms for t in terms[i]]
    rows: dict[int, list[dict[str, Any]]] = {}
    for row in search_units(store, qi, term, CANDIDATES, public=not verdict_may_use_restricted(audience)):
        rows.setdefault(row["qi"], []).append(row)
    results = []
    for i, need in enumerate(needs):
        numbers = _numbers(need["query"])
        present: list[dict[str, Any]] = []
        unavailable: dict[str, list[dict[str, Any]]] = {}
        other_kinds: set[str] = set()
        for row in rows.get(i, []):
            context = " ".join([*json.loads(row["heading_path_json"] or "[]"), row["title"] or ""])
            score = align(need["query"], f"{row['text']} {context}").score
            if score < MIN_ALIGN or not numbers <= _numbers(row["text"]):
                continue
            if not _admissible(need, row["kind"]):
                other_kinds.add(row["kind"])
                continue
            unit = {"unit_id": row["unit_id"], "source": row["source_key"], "revision": row["revision_id"],
                    "kind": row["kind"], "start": row["start"], "end": row["end"], "score": round(score, 3),
                    "text": row["text"]}
            why = _why_unavailable(row, audience)
            if why is None:
                present.append(unit)
            else:
                unavailable.setdefault(why, []).append(unit)
        state = ("present" if present else "superseded_only" if "superseded" in unavailable
                 else "restricted_only" if "restricted" in unavailable
                 else "not_current_only" if "not current" in unavailable else "missing")
        best = sorted(present, key=lambda u: (-u["score"], u["source"], u["start"]))[:3]
        shown_unavailable = {}
        for why, units in sorted(unavailable.items()):
            if why == "restricted" and audience == "public":
                shown_unavailable[why] = {"count": len(units)}
            else:
                shown_unavailable[why] = {"count": len(units), "units": sorted(
                    units, key=lambda u: (-u["score"], u["source"], u["start"]))[:3]}
        note = ""
        if state == "missing" and other_kinds:
            note = f"found only in sources of kind {', '.join(sorted(other_kinds))}"
        results.append({**need, "state": state, "units": best, "unavailable": shown_unavailable, "note": note})
    return {"plan": loaded["plan"], "audience": audience,
            "answerable": all(r["state"] == "present" for r in results),
            "counts": {s: sum(r["state"] == s for r in results) for s in STATES if any(r["state"] == s for r in results)},
            "needs": results}


