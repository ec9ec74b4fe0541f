"""Support chains: claim -> citations -> unit -> revision -> source -> lineage up to the primary authorities.

A chain answers "what does this sentence rest on?" in one tree: each citation with its relation, role
and failed findings; the unit it points to (quote, heading path, status, page or symbol); the pinned
revision (and whether it is still current); the source; and the lineage above it. Contradicting and
superseded evidence stays attached with the supersession spelled out ("superseded by X, effective
DATE") instead of being dropped from view.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from graphcite.graph.build import (
    LINEAGE_RELATIONS,
    MAX_LINEAGE_LEVELS,
    build_graph,
    check_audience,
    claim_node,
    edges_in,
    edges_out,
    resolve_ref,
)
from graphcite.graph.independence import primary_authorities
from graphcite.store import Store

__all__ = ["chain", "claim_tree", "source_tree"]


def _superseders(G: nx.MultiDiGraph, source: str) -> list[dict[str, Any]]:
    out = []
    for newer, _, key in edges_in(G, source):
        if key == "supersedes":
            data = G.nodes[newer]
            note = f"superseded by {data['key']}" + (f", effective {data['effective']}" if data.get("effective") else "")
            out.append({"key": data["key"], "effective": data.get("effective"), "note": note})
    return sorted(out, key=lambda s: s["key"])


def source_tree(G: nx.MultiDiGraph, source: str, *, _path: tuple[str, ...] = ()) -> dict[str, Any]:
    """A source node with its supersession and its lineage, recursively, stopping at repeated sources."""
    data = G.nodes[source]
    tree: dict[str, Any] = {
        "key": data["key"], "title": data.get("title"), "kind": data.get("source_kind"),
        "visibility": data.get("visibility"), "status": data.get("status"), "effective": data.get("effective"),
        "primary": bool(data.get("primary")), "missing": bool(data.get("missing")),
        "restricted": bool(data.get("restricted")),
        "superseded_by": _superseders(G, source),
        "supersedes": sorted(G.nodes[v]["key"] for _, v, k in edges_out(G, source) if k == "supersedes"),
        "lineage": [],
    }
    path = (*_path, source)
    if len(path) > MAX_LINEAGE_LEVELS:
        tree["truncated"] = True
        return tree
    for _, parent, key in sorted(edges_out(G, source), key=lambda e: (e[2], e[1])):
        if key not in LINEAGE_RELATIONS:
            continue
        if parent in path:
            tree["lineage"].append({"relation": key, "source": {"key": G.nodes[parent]["key"], "cycle": True}})
        else:
            tree["lineage"].append({"relation": key, "source": source_tree(G, parent, _path=path)})
    return tree


def _revision_tree(G: nx.MultiDiGraph, revision: str) -> dict[str, Any]:
    data = G.nodes[revision]
    source = next(v for _, v, k in edges_out(G, revision) if k == "of")
    tree = {"revision_id": data["revision_id"], "seq": data["seq"], "status": data["status"],
            "effective": data["effective"], "current": bool(data["current"])}
    if not data["current"]:
        tree["current_revision"] = G.nodes[source].get("current_revision")
    tree["source"] = source_tree(G, source)
    return tree


def _unit_tree(G: nx.MultiDiGraph, unit: str) -> dict[str, Any]:
    data = G.nodes[unit]
    revision = next(v for _, v, k in edges_out(G, unit) if k == "in")
    return {"unit_id": data["unit_id"], "text": data["text"], "heading_path": data["heading_path"],
            "status": data["status"], "page": data["page"], "symbol": data["symbol"], "start": data["start"],
            "end": data["end"], "block_type": data["block_type"], "restricted": bool(data["restricted"]),
            "revision": _revision_tree(G, revision)}


def _target_tree(G: nx.MultiDiGraph, target: str) -> dict[str, Any]:
    kind = G.nodes[target]["kind"]
    if kind == "unit":
        return {"unit": _unit_tree(G, target)}
    if kind == "revision":
        return {"unit": None, "revision": _revision_tree(G, target)}
    return {"unit": None, "source": source_tree(G, target)}


def _supersession(tree: dict[str, Any]) -> str | None:
    """The "superseded by X, effective DATE" note of the evidence a tree points to, if any."""
    unit = tree.get("unit")
    revision = unit["revision"] if unit else tree.get("revision")
    source = revision["source"] if revision else tree.get("source")
    notes = [s["note"] for s in (source or {}).get("superseded_by", [])]
    if notes:
        return "; ".join(notes)
    if unit and unit["status"] == "superseded":
        return "in a section marked superseded"
    return None


def _roots(G: nx.MultiDiGraph, target: str, cache: dict[str, Any]) -> list[str]:
    node = target
    for _ in range(3):
        if G.nodes[node]["kind"] == "source":
            roots = primary_authorities(G, node, cache=cache)
            return sorted(" ↔ ".join(G.nodes[n]["key"] for n in root) for root in roots)
        node = next(v for _, v, k in edges_out(G, node) if k in {"in", "of"})
    return []


def claim_tree(G: nx.MultiDiGraph, claim_id: str) -> dict[str, Any]:
    """The support chain of one claim in a graph built by :func:`graphcite.graph.build_graph`."""
    cnode = claim_node(claim_id)
    data = G.nodes[cnode]
    cache: dict[str, Any] = {}
    citations = []
    for _, cit, key in edges_out(G, cnode):
        if key != "cites":
            continue
        c = G.nodes[cit]
        item: dict[str, Any] = {
            "index": c["index"], "relation": c["relation"], "role": c["role"], "valid": c["valid"],
            "support_score": c["support_score"], "quote": c["quote"], "source": c["source"],
            "revision": c["revision"], "restricted": bool(c["restricted"]),
            "findings": [f for f in c["findings_list"] if f.get("outcome") == "fail"],
        }
        target = next((v for _, v, k in edges_out(G, cit) if k == "points_to"), None)
        if target is None:
            item["unit"] = None
            item["primary_authorities"] = []
        else:
            item.update(_target_tree(G, target))
            item["primary_authorities"] = _roots(G, target, cache)
            note = _supersession(item)
            if note:
                item["superseded"] = note
        citations.append(item)
    citations.sort(key=lambda c: c["index"])
    against = []
    for _, unit, key, edge in edges_out(G, cnode, data=True):
        if key != "contradicted_by":
            continue
        entry = {"status": edge.get("status"), "reason": edge.get("reason"), "unit": _unit_tree(G, unit)}
        note = _supersession(entry)
        if edge.get("superseded_by") and not note:
            note = f"superseded by {edge['superseded_by']}"
        if note:
            entry["superseded"] = note
        against.append(entry)
    against.sort(key=lambda e: (e["unit"]["revision"]["source"]["key"], e["unit"]["unit_id"]))
    return {
        "kind": "claim", "claim_id": data["claim_id"], "text": data["text"], "status": data["status"],
        "supported": data["supported"], "claim_type": data["claim_type"], "answer_rev": data["answer_rev"],
        "verified_at": data["verified_at"], "parts": data.get("parts") or [], "note": data.get("note"),
        "relies_on_restricted": bool(data["relies_on_restricted"]), "withheld": bool(data.get("withheld")),
        "withheld_reason": data.get("withheld_reason"), "citations": citations,
        "contradicting_evidence": against,
        "cycles": G.graph.get("cycles", []),
        "dangling": G.graph.get("dangling", []),
    }


def chain(store: Store, ref: str, *, audience: str = "internal") -> dict[str, Any]:
    """The support chain of a claim, or of every claim of an answer (``kind`` says which)."""
    check_audience(audience)
    selection = resolve_ref(store, ref, answer_ids=False)  # a claim's chain does not show its answer id
    G = build_graph(store, selection=selection, audience=audience)
    if selection.kind == "claim":
        return claim_tree(G, selection.claim_ids[0])
    return {"kind": "answer", "answer_id": selection.answer_id, "answer_rev": selection.answer_rev,
            "audience": audience, "claims": [claim_tree(G, c) for c in G.graph["claim_order"]],
            "cycles": G.graph["cycles"], "dangling": G.graph["dangling"]}
