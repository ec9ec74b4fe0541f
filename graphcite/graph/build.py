"""Build the evidence graph of a claim, an answer, a source or the whole store with a few bulk queries.

The graph is a :class:`networkx.MultiDiGraph` whose nodes carry ``kind`` (claim, citation, unit,
revision, source) and whose edges carry ``kind`` (cites, points_to, in, of, revision_of,
contradicted_by and the lineage relations derived_from, quotes, implements, supersedes); the edge
kind is also the multigraph key. Claim verdicts come from the latest verification record of each
claim. The rows come from :mod:`graphcite.graph.fetch` (a few bulk queries, lineage walked upward with
a visited set), so a cycle in the declared lineage is reported (``G.graph["cycles"]``), never looped
on; links to keys that were never ingested become ``missing`` source nodes, listed in
``G.graph["dangling"]``.

With ``audience="public"`` restricted sources keep their place in the graph under a placeholder
name, but their text, titles, kinds, dates, identifiers and the lineage they declare are removed
everywhere (see :mod:`graphcite.graph.redact`); the claims that cited them are marked
``relies_on_restricted``, and a claim that states what only a restricted source says has its text
withheld (``withheld``, ``withheld_reason``; ``G.graph["withheld_claims"]`` counts them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

from graphcite.audience import AUDIENCES, check_audience
from graphcite.graph.fetch import (
    LINEAGE_RELATIONS,
    MAX_LINEAGE_LEVELS,
    SOURCE_RELATIONS,
    Fetched,
    Selection,
    fetch,
    ids_filter,
    latest_verifications,
    resolve_claims,
    resolve_ref,
    rows_for_ids,
    select,
)
from graphcite.graph.redact import WITHHELD_TEXT, Redactor, as_written, redactor_for, withheld_claims
from graphcite.store import Store

__all__ = [  # fetch names are re-exported: the graph package's one entry point for them
    "AUDIENCES",
    "EDGE_KINDS",
    "LINEAGE_RELATIONS",
    "MAX_LINEAGE_LEVELS",
    "NODE_KINDS",
    "SOURCE_RELATIONS",
    "Fetched",
    "Redactor",
    "Selection",
    "build_graph",
    "check_audience",
    "claim_node",
    "edges_in",
    "edges_out",
    "fetch",
    "ids_filter",
    "latest_verifications",
    "node_id",
    "redactor_for",
    "resolve_claims",
    "resolve_ref",
    "rows_for_ids",
    "select",
]

NODE_KINDS = ("claim", "citation", "unit", "revision", "source")
EDGE_KINDS = ("cites", "points_to", "in", "of", "revision_of", "contradicted_by", *SOURCE_RELATIONS)


def node_id(kind: str, ref: str) -> str:
    """The graph node id of a record: ``kind:ref`` (unit and revision ids could otherwise collide)."""
    return f"{kind}:{ref}"


def claim_node(claim_id: str) -> str:
    """Node id of a claim, accepting either the raw claim id or the node id."""
    return claim_id if claim_id.startswith("claim:") else node_id("claim", claim_id)


def edges_out(G: nx.MultiDiGraph, node: str, *, data: bool = False) -> list[tuple[Any, ...]]:
    """``G.out_edges(node, keys=True[, data=True])`` for one node, read straight from the adjacency.

    networkx's edge views cost tens of microseconds per call; a support chain makes hundreds of them.
    """
    if data:
        return [(node, v, k, d) for v, kd in G.succ[node].items() for k, d in kd.items()]
    return [(node, v, k) for v, kd in G.succ[node].items() for k in kd]


def edges_in(G: nx.MultiDiGraph, node: str) -> list[tuple[str, str, str]]:
    """``G.in_edges(node, keys=True)`` for one node, read straight from the adjacency."""
    return [(u, node, k) for u, kd in G.pred[node].items() for k in kd]


# ----------------------------------------------------------------------------------------------
# graph
# ----------------------------------------------------------------------------------------------


def _short_findings(findings: Sequence[Mapping[str, Any]]) -> str:
    failed = [f for f in findings if f.get("outcome") == "fail"]
    return "; ".join(f"{f['code']} {f['rule']}" + (f": {f['detail']}" if f.get("detail") else "")
                     for f in failed)


def _heading(path: Any) -> str:
    if isinstance(path, str):
        path = json.loads(path or "[]")
    return " > ".join(path or [])


def build_graph(store: Store, *, claims: Iterable[str] | None = None, answer: str | None = None,
                source: str | None = None, all: bool = False, audience: str = "internal",
                selection: Selection | None = None) -> nx.MultiDiGraph:
    """The evidence graph of some claims, an answer, a source's neighbourhood, or every claim (``all``)."""
    check_audience(audience)
    if selection is None:
        if claims is not None:
            selection = Selection("claims", resolve_claims(store, claims))
        else:
            selection = select(store, answer=answer, source=source, all=all)
    got = fetch(store, selection, audience=audience)
    red = redactor_for(got, audience)
    withheld = withheld_claims(store, got, red) if audience == "public" else {}
    return _assemble(got, selection, red, audience, withheld)


def _assemble(got: Fetched, selection: Selection, red: Redactor, audience: str,
              withheld: Mapping[str, str] | None = None) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph(audience=audience, selection=selection.kind, answer_rev=selection.answer_rev or "",
                        answer_id=selection.answer_id or "", source_key=red.key(selection.source_key) or "")
    G.graph["claim_order"] = [c["claim_id"] for c in got.claims]
    # Sources and revisions in the order of the names the audience sees (a restricted key by its placeholder,
    # so a node's place never tells where the restricted key sorts among public ones).
    for key, row in sorted(got.sources.items(), key=lambda item: red.key(item[0]) or item[0]):
        restricted = red.is_restricted(key=key)
        G.add_node(node_id("source", red.key(key) or key), kind="source", key=red.key(key),
                   title=None if restricted else row["title"], source_kind=None if restricted else row["kind"],
                   visibility=row["visibility"] if not restricted else "restricted", status=row["status"],
                   effective=None if restricted else row["effective"],
                   current_revision=red.revision(row["current_revision"]),
                   missing=False, restricted=restricted, label=red.key(key))
    for link in got.links:
        for end in (link["from_key"], link["to_key"]):
            if end not in got.sources:
                G.add_node(node_id("source", end), kind="source", key=end, title=None, source_kind=None,
                           visibility=None, status=None, effective=None, current_revision=None, missing=True,
                           restricted=False, label=end)
        G.add_edge(node_id("source", red.key(link["from_key"]) or ""), node_id("source", red.key(link["to_key"]) or ""),
                   key=link["relation"], kind=link["relation"])
    current = {row["current_revision"] for row in got.sources.values()}
    revisions = sorted(got.revisions.items(), key=lambda item: (red.key(item[1]["source_key"]) or "", item[1]["seq"]))
    for rev_id, row in revisions:
        rid = red.revision(rev_id) or rev_id
        hidden = red.is_restricted(revision=rev_id)  # an old public revision of a restricted source is restricted
        G.add_node(node_id("revision", rid), kind="revision", revision_id=rid, source_key=red.key(row["source_key"]),
                   seq=row["seq"], status=row["status"],
                   effective=None if hidden else row["effective"], current=rev_id in current,
                   visibility="restricted" if hidden else row["visibility"], restricted=hidden,
                   label=f"{red.key(row['source_key'])}@{row['seq']}")
        G.add_edge(node_id("revision", rid), node_id("source", red.key(row["source_key"]) or ""), key="of", kind="of")
    for rev_id, row in revisions:
        previous = row["previous_revision"]
        if previous and previous in got.revisions:
            G.add_edge(node_id("revision", red.revision(rev_id) or rev_id),
                       node_id("revision", red.revision(previous) or previous), key="revision_of", kind="revision_of")
    for unit_id, row in got.units.items():
        restricted = red.is_restricted(unit=unit_id)
        uid = red.unit(unit_id) or unit_id
        G.add_node(node_id("unit", uid), kind="unit", unit_id=uid, source_key=red.key(row["source_key"]),
                   revision_id=red.revision(row["revision_id"]), text=None if restricted else row["text"],
                   heading_path=None if restricted else _heading(row["heading_path_json"]), status=row["status"],
                   page=None if restricted else row["page"], symbol=None if restricted else row["symbol"],
                   start=None if restricted else row["start"], end=None if restricted else row["end"],
                   block_type=row["block_type"], ordinal=row["ordinal"], restricted=restricted,
                   label=f"{red.key(row['source_key'])}#{row['ordinal']}")
        G.add_edge(node_id("unit", uid), node_id("revision", red.revision(row["revision_id"]) or ""), key="in",
                   kind="in")
    for claim in got.claims:
        _add_claim(G, claim, got, red, (withheld or {}).get(claim["claim_id"]))
    G.graph["withheld_claims"] = len(withheld or {})
    G.graph["dangling"] = [{k: red.key(v) if k != "relation" else v for k, v in link.items()}
                           for link in got.dangling]
    G.graph["cycles"] = lineage_cycles(G)
    G.graph["truncated"] = got.truncated
    for n, data in G.nodes(data=True):
        if data["kind"] == "source":
            data["primary"] = not data["missing"] and not any(
                k in LINEAGE_RELATIONS for _, _, k in edges_out(G, n))
    return G


def _add_claim(G: nx.MultiDiGraph, claim: Mapping[str, Any], got: Fetched, red: Redactor,
               withheld: str | None = None) -> None:
    """The claim node, its citation nodes and edges; ``withheld`` (a reason) blanks every text of the claim.

    A public asker's own words are shown as written (:func:`graphcite.audience.as_written`): a citation of
    a restricted source in them is one of a missing source, pointing nowhere.
    """
    claim_id = claim["claim_id"]
    store_red, red = red, as_written(red, claim["answer_rev"] in got.own_words)
    verdict = got.verdicts.get(claim_id)
    report = verdict["report"] if verdict else {}
    cnode = node_id("claim", claim_id)
    parts = [{"text": WITHHELD_TEXT if withheld else red.scrub(p["text"]), "status": p["status"]}
             for p in report.get("parts", [])]
    text = WITHHELD_TEXT if withheld else red.scrub(claim["text"])  # a restricted key or title named in it
    G.add_node(cnode, kind="claim", claim_id=claim_id, text=text, answer_rev=claim["answer_rev"],
               answer_id=claim["answer_id"], ordinal=claim["ordinal"], claim_type=claim["claim_type"],
               status=verdict["status"] if verdict else "unverified",
               supported=bool(verdict["supported"]) if verdict else False,
               verified_at=verdict["verified_at"] if verdict else None,
               config_hash=verdict["config_hash"] if verdict else None,
               note=None if withheld else red.scrub(report.get("note")), parts=parts, relies_on_restricted=False,
               restricted_citations=0, withheld=bool(withheld), withheld_reason=withheld, label=text[:60])
    citations = report.get("citations") if verdict else None
    if citations is None:
        citations = [{"index": c["ordinal"], "source": c["source_key"], "revision": c["revision"],
                      "unit_id": c["chunk_id"] if c["chunk_id"] in got.units else None, "start": c["start"],
                      "end": c["end"], "quote": c["quote"], "page": c["page"], "role": c["role"], "valid": None,
                      "relation": "unchecked", "support_score": None, "findings": [], "symbol": None,
                      "heading_path": [], "unit_status": None}
                     for c in got.given_citations.get(claim_id, [])]
    restricted_count = 0
    for cit in citations:
        unit_id = cit.get("unit_id")
        key = cit.get("source") or (got.units[unit_id]["source_key"] if unit_id in got.units else None)
        restricted = red.is_restricted(key=key, revision=cit.get("revision"), unit=unit_id)
        restricted_count += restricted
        findings = cit.get("findings") or []
        if restricted or withheld:
            findings = [{"code": f["code"], "rule": f["rule"], "outcome": f["outcome"], "detail": ""} for f in findings]
        else:
            findings = [{**f, "detail": red.scrub(f.get("detail") or "")} for f in findings]
        nid = node_id("citation", f"{claim_id}-{cit['index']}")
        G.add_node(nid, kind="citation", claim_id=claim_id, index=cit["index"], relation=cit.get("relation"),
                   role=cit.get("role"), valid=cit.get("valid"), support_score=cit.get("support_score"),
                   findings=_short_findings(findings), findings_list=findings, source=red.key(key),
                   revision=red.revision(cit.get("revision")), unit_id=red.unit(unit_id),
                   quote=None if restricted or withheld else red.scrub(cit.get("quote")),
                   start=None if restricted else cit.get("start"), end=None if restricted else cit.get("end"),
                   page=None if restricted else cit.get("page"), symbol=None if restricted else cit.get("symbol"),
                   heading_path=None if restricted else _heading(cit.get("heading_path") or []),
                   unit_status=cit.get("unit_status"), restricted=restricted,
                   label=f"[{cit['index'] + 1}] {cit.get('relation')}")
        G.add_edge(cnode, nid, key="cites", kind="cites")
        target = None
        if red is not store_red and store_red.is_restricted(key=key, revision=cit.get("revision"), unit=unit_id):
            pass  # as a missing source's: no node stands for it
        elif unit_id and unit_id in got.units:
            target = node_id("unit", red.unit(unit_id) or unit_id)
        elif cit.get("revision") and cit["revision"] in got.revisions:
            target = node_id("revision", red.revision(cit["revision"]) or cit["revision"])
        elif key and key in got.sources:
            target = node_id("source", red.key(key) or key)
        if target:
            G.add_edge(nid, target, key="points_to", kind="points_to", relation=cit.get("relation"),
                       valid=cit.get("valid"))
    for item in report.get("contradicting_evidence", []):
        unit_id = item["unit_id"]
        if unit_id not in got.units:
            continue
        restricted = red.is_restricted(unit=unit_id)
        restricted_count += restricted
        G.add_edge(cnode, node_id("unit", red.unit(unit_id) or unit_id), key="contradicted_by",
                   kind="contradicted_by", status=item.get("status"),
                   reason=None if restricted or withheld else red.scrub(item.get("reason")),
                   superseded_by=red.key(item.get("superseded_by")))
    G.nodes[cnode]["restricted_citations"] = restricted_count
    G.nodes[cnode]["relies_on_restricted"] = restricted_count > 0


def lineage_cycles(G: nx.MultiDiGraph) -> list[list[str]]:
    """Source keys of every cycle in the lineage (derived_from, quotes, implements), sorted."""
    sub = nx.DiGraph()
    for u, v, k in G.edges(keys=True):
        if k in LINEAGE_RELATIONS:
            sub.add_edge(u, v)
    cycles = []
    for component in nx.strongly_connected_components(sub):
        if len(component) > 1 or any(sub.has_edge(n, n) for n in component):
            cycles.append(sorted(G.nodes[n]["key"] for n in component))
    return sorted(cycles)
