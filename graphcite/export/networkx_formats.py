"""GraphML, GEXF 1.2, Cytoscape.js and node-link JSON: the evidence graph for graph tools.

Graph tools want scalar attributes, so :func:`flat_graph` flattens the graph first: lists and dicts
become JSON text, ``None`` is left out, and an attribute that mixes ints and floats becomes a float
(GraphML declares one type per key). networkx's GEXF writer needs two fixes to validate against the
GEXF 1.2draft schema: it writes a ``name`` attribute on ``<graph>`` that the schema does not allow,
and it turns node data named ``start``/``end`` (our code-point offsets) into GEXF time intervals;
offsets are written as ``span_start``/``span_end`` instead (other names the writer claims, such as
``id``, ``type`` or ``key``, are renamed the same way, see :data:`GEXF_RESERVED`).

XML 1.0 forbids most control characters (U+0001...U+0008, U+000B, U+000C, U+000E...U+001F), lone
surrogates and U+FFFE/U+FFFF, which corpus or answer text can hold. For GraphML and GEXF every such
character in an id or a value is written as the six visible characters ``\\uXXXX`` instead, the
graph attribute ``xml_replaced_characters`` says how many were replaced, and the export summary
carries a warning; the output always parses as well-formed XML 1.0.
"""

from __future__ import annotations

import json
import re
from typing import Any
from xml.etree import ElementTree

import networkx as nx
from networkx.readwrite.gexf import GEXFWriter

from graphcite.export.output import OutputTarget, open_output
from graphcite.store import Store

__all__ = ["GEXF_RESERVED", "XML_FORBIDDEN", "cytoscape_elements", "flat_graph", "write_cytoscape", "write_gexf",
           "write_graphml", "write_node_link", "xml_safe"]

SCALARS = (str, bool, int, float)
# Node and edge data names the GEXF writer interprets itself.
GEXF_RESERVED = {"id": "gc_id", "pid": "gc_pid", "start": "span_start", "end": "span_end", "viz": "gc_viz",
                 "weight": "gc_weight", "type": "gc_type", "startopen": "gc_startopen", "endopen": "gc_endopen",
                 "spells": "gc_spells", "slices": "gc_slices", "key": "source_key"}
# Characters XML 1.0 does not allow anywhere in a document (its Char production, negated).
XML_FORBIDDEN = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> tuple[str, int]:
    """``text`` with every character XML 1.0 forbids written as ``\\uXXXX``, and how many were replaced."""
    return XML_FORBIDDEN.subn(lambda m: f"\\u{ord(m.group()):04x}", text)


class _XmlCleaner:
    """Applies :func:`xml_safe` to ids and string values, counting the replacements."""

    def __init__(self) -> None:
        self.replaced = 0

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        clean, n = xml_safe(value)
        self.replaced += n
        return clean

    def attrs(self, data: dict[str, Any]) -> dict[str, Any]:
        return {self(k): self(v) for k, v in data.items()}


def _flat_value(value: Any) -> Any:
    if value is None or isinstance(value, SCALARS):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _flat_attrs(data: dict[str, Any], rename: dict[str, str] | None = None) -> dict[str, Any]:
    out = {}
    for key, value in data.items():
        if key.startswith("_"):
            continue
        value = _flat_value(value)
        if value is None:
            continue
        out[(rename or {}).get(key, key)] = value
    return out


def _unify_types(items: list[dict[str, Any]]) -> None:
    """One type per attribute name: int+float -> float, anything else mixed -> str."""
    types: dict[str, set[type]] = {}
    for data in items:
        for key, value in data.items():
            types.setdefault(key, set()).add(type(value))
    for key, seen in types.items():
        if len(seen) <= 1:
            continue
        target: type = float if seen <= {int, float} else str
        for data in items:
            if key in data and type(data[key]) is not target:
                value = data[key]
                data[key] = float(value) if target is float else (str(value).lower() if isinstance(value, bool)
                                                                   else str(value))


def flat_graph(G: nx.MultiDiGraph, *, rename: dict[str, str] | None = None, xml: bool = False) -> nx.MultiDiGraph:
    """A copy of ``G`` whose node, edge and graph attributes are all scalars (see the module doc).

    With ``xml`` every id and string is made XML 1.0 safe (:func:`xml_safe`) and the number of
    replaced characters is kept in the graph attribute ``xml_replaced_characters`` (when not 0).
    """
    H = nx.MultiDiGraph()
    clean = _XmlCleaner() if xml else None
    graph_attrs = _flat_attrs(G.graph)
    nodes = [(n, _flat_attrs(d, rename)) for n, d in G.nodes(data=True)]
    edges = [(u, v, k, _flat_attrs(d, rename)) for u, v, k, d in G.edges(keys=True, data=True)]
    _unify_types([d for _, d in nodes])
    _unify_types([d for *_, d in edges])
    if clean is not None:
        graph_attrs = clean.attrs(graph_attrs)
        nodes = [(clean(n), clean.attrs(d)) for n, d in nodes]
        edges = [(clean(u), clean(v), clean(k), clean.attrs(d)) for u, v, k, d in edges]
        if clean.replaced:
            graph_attrs["xml_replaced_characters"] = clean.replaced
    H.graph.update(graph_attrs)
    H.add_nodes_from(nodes)
    H.add_edges_from(edges)
    return H


def _summary(H: nx.MultiDiGraph) -> dict[str, Any]:
    summary: dict[str, Any] = {"written_nodes": H.number_of_nodes(), "written_edges": H.number_of_edges()}
    replaced = H.graph.get("xml_replaced_characters")
    if replaced:
        summary["xml_replaced_characters"] = replaced
        summary["warnings"] = [f"{replaced} character{'s' if replaced != 1 else ''} that XML 1.0 forbids "
                               "(control characters) written as \\uXXXX"]
    return summary


def write_graphml(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    """GraphML with typed keys; edge keys (the edge kind) become GraphML edge ids; always well-formed XML 1.0."""
    H = flat_graph(G, xml=True)
    with open_output(target, "wb") as handle:
        nx.write_graphml(H, handle, encoding="utf-8", prettyprint=True, named_key_ids=True)
    return _summary(H)


def write_gexf(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    """GEXF 1.2draft that validates against the published XSD (see the module doc for the two fixes)."""
    H = flat_graph(G, rename=GEXF_RESERVED, xml=True)
    for _, data in H.nodes(data=True):
        data.setdefault("label", "")
    writer = GEXFWriter(version="1.2draft", prettyprint=True)
    writer.add_graph(H)
    graph_element = writer.xml.find("graph")
    if graph_element is not None and "name" in graph_element.attrib:
        del graph_element.attrib["name"]
    meta = writer.xml.find("meta")
    if meta is not None and H.graph.get("xml_replaced_characters"):
        description = meta.find("description")
        if description is None:
            description = ElementTree.SubElement(meta, "description")
        description.text = f"xml_replaced_characters: {H.graph['xml_replaced_characters']}"
    with open_output(target, "wb") as handle:
        writer.write(handle)
    return _summary(H)


def cytoscape_elements(G: nx.MultiDiGraph) -> dict[str, Any]:
    """Cytoscape.js JSON: ``{"data": {...}, "elements": {"nodes": [...], "edges": [...]}}``.

    Every element's ``data`` has an ``id`` (Cytoscape.js requires unique ids across nodes and edges);
    edges also carry ``source``, ``target`` and ``key``. ``networkx.cytoscape_graph`` reads it back.
    """
    H = flat_graph(G)
    data = nx.cytoscape_data(H)
    for edge in data["elements"]["edges"]:
        d = edge["data"]
        d["id"] = f"{d['source']}->{d['target']}#{d['key']}"
    return data


def write_cytoscape(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    data = cytoscape_elements(G)
    with open_output(target) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
    return {"written_nodes": len(data["elements"]["nodes"]), "written_edges": len(data["elements"]["edges"])}


def write_node_link(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    """networkx node-link JSON (``edges`` key), readable with ``networkx.node_link_graph(d, edges="edges")``."""
    H = flat_graph(G)
    data = nx.node_link_data(H, edges="edges")
    with open_output(target) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
    return _summary(H)
