"""Independence: how many independent authorities stand behind a claim's supporting citations.

Three posts that each derive from one decision record are three attestations of one authority, not
three confirmations. Sources collapse into one authority when derived_from, quotes or implements
links lead them to a common root (a source with no outgoing lineage link: its primary authority);
revisions of one source are one source. A lineage cycle with no way out counts as one authority.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import networkx as nx

from graphcite.errors import InputError, NotFoundError
from graphcite.graph.build import (
    LINEAGE_RELATIONS,
    Selection,
    build_graph,
    check_audience,
    claim_node,
    edges_out,
    select,
)
from graphcite.store import Store

__all__ = ["audit_independence", "cited_source", "independence", "independence_rows", "lineage_view",
           "primary_authorities"]

AUDIT_BATCH = 2000


def lineage_view(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A read-only view of ``G`` keeping only the derived_from / quotes / implements edges."""
    return nx.subgraph_view(G, filter_edge=lambda u, v, k: k in LINEAGE_RELATIONS)


def _parents(G: nx.MultiDiGraph, node: str) -> list[str]:
    """Sources ``node`` derives from, quotes or implements (straight from the adjacency, no view)."""
    return [parent for parent, keys in G._succ[node].items() if any(k in LINEAGE_RELATIONS for k in keys)]


def _acyclic(parents: dict[str, list[str]]) -> bool:
    """Kahn's algorithm on a small adjacency: True when peeling leaves nothing behind."""
    indegree = dict.fromkeys(parents, 0)
    for ps in parents.values():
        for p in ps:
            indegree[p] += 1
    ready = [n for n, d in indegree.items() if d == 0]
    seen = 0
    while ready:
        node = ready.pop()
        seen += 1
        for p in parents[node]:
            indegree[p] -= 1
            if indegree[p] == 0:
                ready.append(p)
    return seen == len(parents)


def primary_authorities(G: nx.MultiDiGraph, source: str, *,
                        cache: dict[str, frozenset[tuple[str, ...]]] | None = None) -> frozenset[tuple[str, ...]]:
    """The roots reached from a source node by lineage, each as a tuple of source nodes.

    A plain root is a 1-tuple; a lineage cycle nothing leads out of is one authority, given as the
    sorted tuple of its members. A source with no lineage is its own authority. ``cache`` (a dict
    shared across calls on one graph) saves walking the same lineage twice.
    """
    if cache is not None and source in cache:
        return cache[source]
    parents = {source: _parents(G, source)}
    stack = list(parents[source])
    while stack:
        node = stack.pop()
        if node not in parents:
            parents[node] = _parents(G, node)
            stack.extend(parents[node])
    clean = {n: [p for p in ps if p != n] for n, ps in parents.items()}  # a self-derivation is no lineage
    if _acyclic(clean):
        roots = {(n,) for n, ps in clean.items() if not ps}  # the common case: a short chain or tree
    else:
        sub = nx.DiGraph()
        sub.add_nodes_from(clean)
        sub.add_edges_from((n, p) for n, ps in clean.items() for p in ps)
        condensed = nx.condensation(sub)
        roots = {tuple(sorted(condensed.nodes[c]["members"])) for c in condensed if condensed.out_degree(c) == 0}
    result = frozenset(roots)
    if cache is not None:
        cache[source] = result
    return result


def cited_source(G: nx.MultiDiGraph, citation: str) -> str | None:
    """The source node a citation node leads to (through its unit and revision), or None."""
    for _, target, key in edges_out(G, citation):
        if key != "points_to":
            continue
        node = target
        for _ in range(3):
            if G.nodes[node]["kind"] == "source":
                return node
            node = next((v for _, v, k in edges_out(G, node) if k in {"in", "of"}), None)
            if node is None:
                return None
    return None


def _key(G: nx.MultiDiGraph, node: str) -> str:
    data = G.nodes[node]
    return data["key"] + (" (not ingested)" if data.get("missing") else "")


def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _authority_name(G: nx.MultiDiGraph, authority: tuple[str, ...]) -> str:
    if len(authority) == 1:
        return _key(G, authority[0])
    return "the lineage cycle " + " ↔ ".join(_key(G, n) for n in authority)


def independence(G: nx.MultiDiGraph, claim_id: str, *,
                 cache: dict[str, frozenset[tuple[str, ...]]] | None = None) -> dict[str, Any]:
    """Attestations (distinct sources of the supporting citations) against independent authorities."""
    cnode = claim_node(claim_id)
    if cnode not in G:
        raise NotFoundError(f"claim {claim_id} is not in the graph", where="CLAIM",
                            fix="build the graph of this claim or its answer first")
    cache = cache if cache is not None else {}
    attested: dict[str, list[int]] = {}
    for _, cit, key in edges_out(G, cnode):
        data = G.nodes[cit]
        if key != "cites" or data.get("relation") != "supports" or data.get("valid") is not True:
            continue
        source = cited_source(G, cit)
        if source is not None:
            attested.setdefault(source, []).append(data["index"])
    # union-find over attestations that share an authority
    parent = {s: s for s in attested}

    def find(s: str) -> str:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    owner: dict[tuple[str, ...], str] = {}
    authorities_of = {s: primary_authorities(G, s, cache=cache) for s in sorted(attested)}
    for source, roots in authorities_of.items():
        for root in roots:
            if root in owner:
                parent[find(source)] = find(owner[root])
            else:
                owner[root] = source
    grouped: dict[str, list[str]] = {}
    for source in sorted(attested):
        grouped.setdefault(find(source), []).append(source)
    groups = []
    for members in grouped.values():
        roots = sorted({r for m in members for r in authorities_of[m]})
        root_nodes = {n for r in roots for n in r}
        derived = [m for m in members if m not in root_nodes]
        groups.append({
            "authorities": [_authority_name(G, r) for r in roots],
            "attestations": [_key(G, m) for m in members],
            "derived": [_key(G, m) for m in derived],
            "citations": sorted(i + 1 for m in members for i in attested[m]),
        })
    groups.sort(key=lambda g: g["attestations"])
    n_att = len(attested)
    n_roots = len({r for m in attested for r in authorities_of[m]})
    n_indep = len(groups)
    phrases = []
    for group in groups:
        if group["derived"]:
            verb = "derives" if len(group["derived"]) == 1 else "derive"
            phrase = f"{_names(group['derived'])} {verb} from {_names(group['authorities'])}"
            cited_roots = [a for a in group["attestations"] if a not in group["derived"]]
            if cited_roots:
                phrase += f" ({_names(cited_roots)} also cited)"
        else:
            phrase = f"{_names(group['authorities'])} is primary" if len(group["authorities"]) == 1 else \
                f"{_names(group['authorities'])} are primary"
        phrases.append(phrase)
    summary = f"{_plural(n_att, 'attestation', 'attestations')}, {_plural(n_indep, 'authority', 'authorities')}"
    if phrases:
        summary += ": " + "; ".join(phrases)
    data = G.nodes[cnode]
    return {
        "claim_id": data["claim_id"], "text": data["text"], "status": data["status"],
        "supported": data["supported"], "attestations": n_att, "authorities": n_indep,
        "roots": n_roots, "sources": [_key(G, s) for s in sorted(attested)], "groups": groups,
        "rests_on_one_authority": n_indep == 1, "collapsed": n_att > n_indep,
        "relies_on_restricted": bool(data.get("relies_on_restricted")), "summary": summary,
    }


def _batches(selection: Selection) -> Iterator[Selection]:
    ids = selection.claim_ids
    rows = selection.rows if len(ids) <= AUDIT_BATCH else None  # one batch: the rows read while resolving
    for start in range(0, max(len(ids), 1), AUDIT_BATCH):
        yield Selection(selection.kind, ids[start:start + AUDIT_BATCH], selection.answer_rev, selection.answer_id,
                        rows=rows)


def audit_independence(store: Store, ref: str | None = None, *, all: bool = False, audience: str = "internal",
                       include_unsupported: bool = False) -> list[dict[str, Any]]:
    """:func:`independence` for every supported claim of a claim, an answer or the whole store.

    ``all`` works in batches of claims so memory stays bounded on large stores.
    """
    check_audience(audience)
    if bool(ref) == bool(all):
        raise InputError("give a claim or answer id, or --all", where="audit independence", code="E106",
                             fix="e.g. `graphcite audit independence ANSWER_ID`")
    if ref:
        from graphcite.graph.build import resolve_ref

        selection = resolve_ref(store, ref, answer_ids=False)  # an audit does not show answer ids
    else:
        selection = select(store, all=True)
    results: list[dict[str, Any]] = []
    for batch in _batches(selection):
        if not batch.claim_ids:
            continue
        G = build_graph(store, selection=batch, audience=audience)
        cache: dict[str, frozenset[tuple[str, ...]]] = {}
        for claim_id in G.graph["claim_order"]:
            if include_unsupported or G.nodes[claim_node(claim_id)]["supported"]:
                results.append(independence(G, claim_id, cache=cache))
    return results


def independence_rows(results: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per claim for tables and exports."""
    return [{"claim_id": r["claim_id"], "attestations": r["attestations"], "authorities": r["authorities"],
             "one_authority": r["rests_on_one_authority"], "summary": r["summary"]} for r in results]
