"""build_graph on a real store: node and edge kinds, latest verdicts, neighbourhoods, lineage, audiences."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lineage_corpus import RESTRICTED_PHRASE, RESTRICTED_TITLE

import graphcite.graph.fetch as fetchmod
from graphcite.errors import GraphciteError, NotFoundError
from graphcite.graph.build import EDGE_KINDS, NODE_KINDS, build_graph, resolve_ref, select
from graphcite.ingest.lineage import rebuild_lineage
from graphcite.store import Store


def claim_id(report: dict[str, Any], index: int) -> str:
    return report["claims"][index]["claim_id"]


def kinds(G: nx.MultiDiGraph) -> set[str]:
    return {d["kind"] for _, d in G.nodes(data=True)}


def test_answer_graph_has_every_node_and_edge_kind(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    assert kinds(G) == set(NODE_KINDS)
    edge_kinds = {k for _, _, k in G.edges(keys=True)}
    assert edge_kinds <= set(EDGE_KINDS)
    assert {"cites", "points_to", "in", "of", "revision_of", "contradicted_by", "derived_from", "quotes",
            "implements", "supersedes"} <= edge_kinds
    assert G.graph["claim_order"] == [c["claim_id"] for c in report["claims"]]
    for _, _, data in G.edges(data=True):
        assert data["kind"] in EDGE_KINDS


def test_one_claim_loads_only_its_neighbourhood(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, claims=[claim_id(report, 1)])
    claims = [d for _, d in G.nodes(data=True) if d["kind"] == "claim"]
    assert [c["claim_id"] for c in claims] == [claim_id(report, 1)]
    keys = {d["key"] for _, d in G.nodes(data=True) if d["kind"] == "source"}
    # dr-100 and ops.md are cited; old-note is superseded by dr-100; nothing else is reachable
    assert keys == {"decisions/dr-100.md", "manuals/ops.md", "notes/old-note.md"}
    assert not any(d["kind"] == "unit" and d["source_key"] == "posts/p1.md" for _, d in G.nodes(data=True))


def test_claim_attributes_come_from_the_verification(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    for claim in report["claims"]:
        data = G.nodes[f"claim:{claim['claim_id']}"]
        assert data["status"] == claim["status"] and data["supported"] == claim["supported"]
        assert data["text"] == claim["text"]
        for cit in claim["citations"]:
            node = G.nodes[f"citation:{claim['claim_id']}-{cit['index']}"]
            assert node["relation"] == cit["relation"] and node["valid"] == cit["valid"]
            assert node["quote"] == cit["quote"]


def test_latest_verification_record_wins(writable_store: Store, report: dict[str, Any]) -> None:
    cid = claim_id(report, 0)
    row = writable_store.row("SELECT * FROM verification WHERE claim_id = ?", [cid])
    assert row is not None
    result = json.loads(row["result_json"])
    result["status"], result["supported"] = "contradicted", False
    row.update(record_id="later-record", status="contradicted", supported=False, result_json=json.dumps(result),
               verified_at=row["verified_at"] + dt.timedelta(days=1))
    writable_store.bulk_insert("verification", [row])
    G = build_graph(writable_store, claims=[cid])
    assert G.nodes[f"claim:{cid}"]["status"] == "contradicted"
    assert G.nodes[f"claim:{cid}"]["supported"] is False


def test_unverified_claim_keeps_its_citations(writable_store: Store, report: dict[str, Any]) -> None:
    cid = claim_id(report, 1)
    writable_store.execute("DELETE FROM verification WHERE claim_id = ?", [cid])
    G = build_graph(writable_store, claims=[cid])
    assert G.nodes[f"claim:{cid}"]["status"] == "unverified"
    citations = [d for _, d in G.nodes(data=True) if d["kind"] == "citation"]
    assert {c["source"] for c in citations} == {"decisions/dr-100.md", "manuals/ops.md"}
    assert all(c["relation"] == "unchecked" for c in citations)


def test_revisions_of_a_source_are_chained(lineage_store: Store) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    revisions = sorted((d["seq"], n) for n, d in G.nodes(data=True)
                       if d["kind"] == "revision" and d["source_key"] == "posts/p2.md")
    assert [seq for seq, _ in revisions] == [1, 2]
    assert G.has_edge(revisions[1][1], revisions[0][1], key="revision_of")
    assert G.nodes[revisions[1][1]]["current"] and not G.nodes[revisions[0][1]]["current"]


def test_cycle_is_reported_and_dangling_key_is_a_missing_source(lineage_store: Store) -> None:
    G = build_graph(lineage_store, answer="lineage-demo")
    assert G.graph["cycles"] == [["notes/a.md", "notes/b.md"]]
    assert G.graph["dangling"] == [{"from_key": "posts/p5.md", "to_key": "decisions/never-ingested.md",
                                    "relation": "derived_from"}]
    missing = G.nodes["source:decisions/never-ingested.md"]
    assert missing["missing"] is True and missing["primary"] is False


def test_both_lineage_queries_give_the_same_graph(lineage_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetchmod, "LINEAGE_QUERY", "table")
    G = build_graph(lineage_store, answer="lineage-demo")
    monkeypatch.setattr(fetchmod, "LINEAGE_QUERY", "levels")
    H = build_graph(lineage_store, answer="lineage-demo")
    assert sorted(G.edges(keys=True)) == sorted(H.edges(keys=True))
    assert G.graph["cycles"] == H.graph["cycles"]


def test_source_neighbourhood(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, source="decisions/dr-100.md")
    claim_ids = set(G.graph["claim_order"])
    assert {claim_id(report, 1), claim_id(report, 7)} <= claim_ids
    assert claim_id(report, 3) not in claim_ids  # the restricted-source claim does not cite dr-100
    derived = {G.nodes[u]["key"] for u, _, k in G.in_edges("source:decisions/dr-100.md", keys=True)
               if k in {"derived_from", "quotes", "implements"}}
    assert {"posts/p1.md", "posts/p2.md", "contracts/relay-contract.md"} <= derived


def test_public_audience_removes_restricted_text_and_ids(lineage_store: Store, report: dict[str, Any]) -> None:
    G = build_graph(lineage_store, answer="lineage-demo", audience="public")
    dumped = json.dumps([list(G.nodes(data=True)), list(G.edges(data=True)), G.graph], default=str)
    for secret in (RESTRICTED_PHRASE, RESTRICTED_TITLE, "manuals/secret.md"):
        assert secret not in dumped
    assert G.nodes[f"claim:{claim_id(report, 3)}"]["relies_on_restricted"] is True
    # the public verdict never reads restricted evidence, so a restricted contradiction is no part of it (item 1)
    assert G.nodes[f"claim:{claim_id(report, 7)}"]["relies_on_restricted"] is False
    assert G.nodes[f"claim:{claim_id(report, 0)}"]["relies_on_restricted"] is False
    internal = json.dumps([list(build_graph(lineage_store, answer="lineage-demo").nodes(data=True))], default=str)
    assert RESTRICTED_PHRASE in internal


def test_bad_selections(lineage_store: Store) -> None:
    with pytest.raises(NotFoundError, match="no claim or answer 'nope'"):
        resolve_ref(lineage_store, "nope")
    with pytest.raises(NotFoundError, match="no claim 'c000'"):
        build_graph(lineage_store, claims=["c000"])
    with pytest.raises(NotFoundError, match="no source"):
        build_graph(lineage_store, source="missing.md")
    with pytest.raises(GraphciteError, match="exactly one"):
        select(lineage_store)
    with pytest.raises(GraphciteError, match="cannot be combined"):
        select(lineage_store, answer="lineage-demo", all=True)
    with pytest.raises(GraphciteError, match="unknown audience"):
        build_graph(lineage_store, answer="lineage-demo", audience="everyone")
    with pytest.raises(NotFoundError, match="no answer"):
        select(lineage_store, answer=lineage_store.scalar("SELECT claim_id FROM claim LIMIT 1"))


def test_atomic_part_id_maps_to_its_parent(lineage_store: Store, report: dict[str, Any]) -> None:
    part = lineage_store.scalar("SELECT claim_id FROM claim WHERE parent_id = ?", [claim_id(report, 0)])
    assert resolve_ref(lineage_store, part).claim_ids == [claim_id(report, 0)]


# ----------------------------------------------------------------------------------------------
# lineage closure against a networkx oracle, on random link sets (cycles included)
# ----------------------------------------------------------------------------------------------

KEYS = [f"k{i}.md" for i in range(7)]
link_sets = st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(KEYS),
                               st.sampled_from(["derived_from", "quotes", "implements", "supersedes"])),
                     max_size=14, unique=True)


@pytest.fixture(scope="module")
def link_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("links") / "links.duckdb")
    now = dt.datetime(2024, 1, 1)
    store.bulk_insert("source", [{"key": k, "kind": "note", "current_revision": f"r-{k}", "first_ingested_at": now}
                                 for k in KEYS])
    store.bulk_insert("source_revision", [{"revision_id": f"r-{k}", "source_key": k, "seq": 1, "content_hash": "x",
                                           "text": "", "format": "text", "ingested_at": now} for k in KEYS])
    return store


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(links=link_sets, start=st.sets(st.sampled_from(KEYS), min_size=1, max_size=3))
def test_lineage_closure_matches_networkx(link_store: Store, links: list[tuple[str, str, str]],
                                         start: set[str]) -> None:
    link_store.execute("DELETE FROM source_link")
    link_store.bulk_insert("source_link", [{"link_id": f"l{i}", "from_key": f, "to_key": t, "relation": r,
                                            "declared_in": f"r-{f}"} for i, (f, t, r) in enumerate(links)])
    oracle = nx.DiGraph()
    oracle.add_nodes_from(start)
    oracle.add_edges_from((f, t) for f, t, r in links if r != "supersedes")
    closure = set(start)
    for key in start:
        closure |= nx.descendants(oracle, key)
    expected = {(f, t, r) for f, t, r in links
                if f in closure or (r == "supersedes" and t in closure)}
    rebuild_lineage(link_store)
    for method in ("table", "levels", "no rows"):
        if method == "no rows":  # the table read falls back to source_link for keys without a row
            link_store.execute("DELETE FROM source_lineage")
        got = fetchmod.Fetched()
        default, fetchmod.LINEAGE_QUERY = fetchmod.LINEAGE_QUERY, "levels" if method == "levels" else "table"
        try:
            fetchmod._fetch_lineage(link_store, got, set(start))
        finally:
            fetchmod.LINEAGE_QUERY = default
        assert {(x["from_key"], x["to_key"], x["relation"]) for x in got.links} == expected, method
        assert set(got.sources) == closure | {k for link in expected for k in link[:2]}


def test_links_of_an_old_revision_are_not_in_force(writable_store: Store, report: dict[str, Any],
                                                   tmp_path: Path) -> None:
    from graphcite.ingest import ingest

    (tmp_path / "posts").mkdir()
    (tmp_path / "posts" / "p1.md").write_text("---\ntitle: Five attempts, revised\nstatus: current\nkind: post\n---\n"
                                               "# Five attempts, revised\n\nNo lineage any more.\n", encoding="utf-8")
    ingest(writable_store, [tmp_path])
    G = build_graph(writable_store, claims=[claim_id(report, 0)])
    assert not G.has_edge("source:posts/p1.md", "source:decisions/dr-100.md")
    assert G.nodes["source:posts/p1.md"]["primary"] is True
    # p3 still derives from p1 (declared by p3's current revision)
    assert G.has_edge("source:posts/p3.md", "source:posts/p1.md", key="derived_from")
