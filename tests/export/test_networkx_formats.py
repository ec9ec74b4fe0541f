"""GraphML, GEXF, Cytoscape.js and node-link JSON read back with networkx; GEXF validates against the XSD."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from lxml import etree

from graphcite.export.networkx_formats import GEXF_RESERVED, flat_graph
from graphcite.graph import build_graph
from graphcite.store import Store

GEXF_XSD = Path(__file__).parent / "data" / "gexf-1.2draft" / "gexf.xsd"


@pytest.fixture(scope="module")
def graph(export_store: Store) -> nx.MultiDiGraph:
    return build_graph(export_store, answer="lineage-demo")


def read_back(fmt: str, path: Path) -> nx.MultiDiGraph:
    if fmt == "graphml":
        return nx.read_graphml(path, force_multigraph=True)
    if fmt == "gexf":
        return nx.read_gexf(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if fmt == "cytoscape":
        return nx.cytoscape_graph(data)
    return nx.node_link_graph(data, edges="edges")


@pytest.mark.parametrize("fmt", ["graphml", "gexf", "cytoscape", "json"])
def test_round_trip_keeps_nodes_edges_and_key_attributes(fmt: str, graph: nx.MultiDiGraph,
                                                         exported: Callable[..., Path]) -> None:
    H = read_back(fmt, exported(fmt))
    assert H.number_of_nodes() == graph.number_of_nodes()
    assert H.number_of_edges() == graph.number_of_edges()
    assert set(H.nodes) == set(graph.nodes)
    for node, data in graph.nodes(data=True):
        back = H.nodes[node]
        assert back["kind"] == data["kind"]
        for key in ("status", "relation", "text", "key", "supported", "valid", "seq"):
            if data.get(key) is not None:
                name = GEXF_RESERVED.get(key, key) if fmt == "gexf" else key
                assert back[name] == data[key], (node, key)
    kinds = sorted(d["kind"] for *_, d in graph.edges(keys=True, data=True))
    assert sorted(d["kind"] for *_, d in H.edges(keys=True, data=True)) == kinds
    claim = next(n for n, d in graph.nodes(data=True) if d["kind"] == "claim" and d["status"] == "conflict")
    reasons = [d.get("reason") for _, _, d in H.out_edges(claim, data=True) if d["kind"] == "contradicted_by"]
    assert any(r and "14 days" in r for r in reasons)


def test_offsets_survive_under_their_gexf_names(graph: nx.MultiDiGraph, exported: Callable[..., Path]) -> None:
    H = nx.read_gexf(exported("gexf"))
    unit, data = next((n, d) for n, d in graph.nodes(data=True) if d["kind"] == "unit" and d["start"] is not None)
    assert (H.nodes[unit]["span_start"], H.nodes[unit]["span_end"]) == (data["start"], data["end"])
    assert "start" not in H.nodes[unit]


def test_gexf_validates_against_the_schema(exported: Callable[..., Path]) -> None:
    schema = etree.XMLSchema(etree.parse(str(GEXF_XSD)))
    for audience in ("internal", "public"):
        document = etree.parse(str(exported("gexf", audience)))
        assert schema.validate(document), schema.error_log
        assert document.getroot().get("version") == "1.2"


def test_schema_rejects_networkx_unfixed_output(graph: nx.MultiDiGraph, tmp_path: Path) -> None:
    """The schema check has teeth: networkx's own writer output (with graph/@name) is rejected."""
    schema = etree.XMLSchema(etree.parse(str(GEXF_XSD)))
    H = flat_graph(graph, rename={"start": "span_start", "end": "span_end"})
    nx.write_gexf(H, tmp_path / "raw.gexf")
    assert not schema.validate(etree.parse(str(tmp_path / "raw.gexf")))
    assert "name" in str(schema.error_log)


def test_cytoscape_elements_have_unique_ids(exported: Callable[..., Path]) -> None:
    data = json.loads(exported("cytoscape").read_text())
    ids = [e["data"]["id"] for group in ("nodes", "edges") for e in data["elements"][group]]
    assert len(ids) == len(set(ids))
    assert all({"source", "target"} <= set(e["data"]) for e in data["elements"]["edges"])


def test_flat_graph_has_only_scalars(graph: nx.MultiDiGraph) -> None:
    H = flat_graph(graph)
    values: list[Any] = [v for _, d in H.nodes(data=True) for v in d.values()]
    values += [v for *_, d in H.edges(keys=True, data=True) for v in d.values()]
    values += list(H.graph.values())
    assert values and all(isinstance(v, str | int | float | bool) for v in values)
    claim = next(d for _, d in H.nodes(data=True) if d["kind"] == "citation" and d.get("findings_list"))
    assert isinstance(json.loads(claim["findings_list"]), list)


def test_single_claim_export(export_store: Store, export_report: dict[str, Any],
                             exported: Callable[..., Path]) -> None:
    cid = export_report["claims"][1]["claim_id"]
    H = read_back("json", exported("json", claim=cid))
    assert [n for n, d in H.nodes(data=True) if d["kind"] == "claim"] == [f"claim:{cid}"]
