"""Independence: attestations collapse into authorities through derived_from, quotes and implements."""

from __future__ import annotations

from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import GraphciteError, NotFoundError
from graphcite.graph import audit_independence, build_graph, independence, primary_authorities
from graphcite.store import Store


def test_three_posts_one_decision(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    result = independence(G, report["claims"][0]["claim_id"])
    assert result["summary"] == ("3 attestations, 1 authority: posts/p1.md, posts/p2.md and posts/p3.md "
                                 "derive from decisions/dr-100.md")
    assert (result["attestations"], result["authorities"]) == (3, 1)
    assert result["rests_on_one_authority"] and result["collapsed"]


def test_two_primaries_are_independent(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    result = independence(G, report["claims"][1]["claim_id"])
    assert (result["attestations"], result["authorities"]) == (2, 2)
    assert not result["rests_on_one_authority"] and not result["collapsed"]
    assert result["summary"] == "2 attestations, 2 authorities: decisions/dr-100.md is primary; manuals/ops.md is primary"


def test_revisions_of_one_source_are_one_attestation(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    result = independence(G, report["claims"][9]["claim_id"])
    assert result["sources"] == ["posts/p2.md"]
    assert result["groups"][0]["citations"] == [1, 2]
    assert result["summary"] == "1 attestation, 1 authority: posts/p2.md derives from decisions/dr-100.md"


def test_cycle_and_dangling_roots(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    cycle = independence(G, report["claims"][4]["claim_id"])
    assert cycle["summary"].endswith("posts/p4.md derives from the lineage cycle notes/a.md ↔ notes/b.md")
    dangling = independence(G, report["claims"][5]["claim_id"])
    assert dangling["summary"].endswith("derives from decisions/never-ingested.md (not ingested)")


def test_audit_covers_supported_claims_only(lineage_store: Store, report: dict[str, Any]) -> None:
    results = audit_independence(lineage_store, "lineage-demo")
    supported = [c["claim_id"] for c in report["claims"] if c["supported"]]
    assert [r["claim_id"] for r in results] == supported
    assert audit_independence(lineage_store, all=True) == results
    one = audit_independence(lineage_store, report["claims"][0]["claim_id"])
    assert len(one) == 1 and one[0]["collapsed"]
    with pytest.raises(GraphciteError, match="or --all"):
        audit_independence(lineage_store)
    with pytest.raises(NotFoundError):
        audit_independence(lineage_store, "missing")


def test_public_audit_names_no_restricted_source(lineage_store: Store, report: dict[str, Any]) -> None:
    results = audit_independence(lineage_store, "lineage-demo", audience="public")
    assert "manuals/secret.md" not in str(results)
    # the public verdict of the claim citing the restricted source is not supported (the source does not exist
    # for the public), so it has no attestation to audit; with unsupported claims it is listed without sources
    listed = audit_independence(lineage_store, "lineage-demo", audience="public", include_unsupported=True)
    restricted = next(r for r in listed if r["claim_id"] == report["claims"][3]["claim_id"])
    assert restricted["relies_on_restricted"] and "manuals/secret.md" not in str(listed)
    assert report["claims"][3]["claim_id"] not in {r["claim_id"] for r in results}


def test_unknown_claim_in_graph() -> None:
    with pytest.raises(NotFoundError):
        independence(nx.MultiDiGraph(), "c123")


# ----------------------------------------------------------------------------------------------
# independence on random lineage graphs, against a bipartite-components oracle
# ----------------------------------------------------------------------------------------------

N = 8


def synthetic(edges: list[tuple[int, int, str]], cited: list[int]) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for i in range(N):
        G.add_node(f"source:s{i}", kind="source", key=f"s{i}", missing=False)
        G.add_node(f"revision:r{i}", kind="revision")
        G.add_edge(f"revision:r{i}", f"source:s{i}", key="of")
        G.add_node(f"unit:u{i}", kind="unit")
        G.add_edge(f"unit:u{i}", f"revision:r{i}", key="in")
    for a, b, rel in edges:
        G.add_edge(f"source:s{a}", f"source:s{b}", key=rel, kind=rel)
    G.add_node("claim:c", kind="claim", claim_id="c", text="t", status="supported", supported=True)
    for index, i in enumerate(cited):
        G.add_node(f"citation:c-{index}", kind="citation", index=index, relation="supports", valid=True)
        G.add_edge("claim:c", f"citation:c-{index}", key="cites")
        G.add_edge(f"citation:c-{index}", f"unit:u{i}", key="points_to")
    return G


def oracle(edges: list[tuple[int, int, str]], cited: list[int]) -> int:
    """Independent authorities: components of the graph joining each cited source to its roots."""
    lineage = nx.DiGraph()
    lineage.add_nodes_from(range(N))
    lineage.add_edges_from((a, b) for a, b, rel in edges if rel != "supersedes")
    condensed = nx.condensation(lineage)
    joined = nx.Graph()
    for s in set(cited):
        joined.add_node(("s", s))
        start = condensed.graph["mapping"][s]
        for comp in {start} | nx.descendants(condensed, start):
            if condensed.out_degree(comp) == 0:
                joined.add_edge(("s", s), ("root", comp))
    return nx.number_connected_components(joined) if cited else 0


@settings(max_examples=150, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, N - 1), st.integers(0, N - 1),
                                st.sampled_from(["derived_from", "quotes", "implements", "supersedes"])),
                      max_size=12, unique=True),
       cited=st.lists(st.integers(0, N - 1), max_size=5))
def test_independence_matches_oracle(edges: list[tuple[int, int, str]], cited: list[int]) -> None:
    G = synthetic(edges, cited)
    result = independence(G, "c")
    assert result["attestations"] == len(set(cited))
    assert result["authorities"] == oracle(edges, cited)
    assert result["authorities"] <= result["attestations"]
    for i in set(cited):  # every cited source has at least one root, and roots are never left via lineage
        roots = primary_authorities(G, f"source:s{i}")
        assert roots
        for root in roots:
            exits = {v for n in root for _, v, k in G.out_edges(n, keys=True) if k != "supersedes"}
            assert exits <= set(root)
