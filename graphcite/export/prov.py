"""W3C PROV-JSON: sources, revisions, evidence units and claims as PROV entities.

Lineage maps onto the PROV derivation family: ``derived_from`` -> wasDerivedFrom, ``quotes`` ->
wasQuotedFrom, ``implements`` -> a derivation typed ``gc:implements``, revision chains ->
wasRevisionOf, and every source that derives from a primary authority -> hadPrimarySource.
Supersession is an invalidation of the old source by a supersession activity at the new source's
effective date, and the new source carries ``dcterms:replaces``. A citation is a derivation of the
claim from the evidence unit, typed ``gc:Citation`` with its relation; contradicting evidence is an
influence typed ``gc:ContradictedBy``. The document is built with the ``prov`` package, so it reads
back with ``ProvDocument.deserialize(format="json")``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import quote

import networkx as nx
from prov.model import Namespace, ProvDocument

from graphcite.export.output import OutputTarget, open_output
from graphcite.graph.build import LINEAGE_RELATIONS, edges_in, edges_out
from graphcite.graph.independence import primary_authorities
from graphcite.store import Store

__all__ = ["NAMESPACES", "prov_document", "write_prov"]

NAMESPACES = {
    "gc": "https://graphcite.invalid/ns#",
    "src": "graphcite://source/",
    "rev": "graphcite://revision/",
    "unit": "graphcite://unit/",
    "claim": "graphcite://claim/",
    "act": "graphcite://activity/",
    "dcterms": "http://purl.org/dc/terms/",
}


GC = Namespace("gc", NAMESPACES["gc"])


def _local(text: str) -> str:
    return quote(str(text), safe="-._~/")


def _attrs(pairs: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in pairs.items() if v is not None and v != ""]


def _date(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        return dt.datetime.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def prov_document(G: nx.MultiDiGraph) -> ProvDocument:
    """The PROV document of an evidence graph (see the module doc for the mapping)."""
    doc = ProvDocument()
    for prefix, uri in NAMESPACES.items():
        doc.add_namespace(prefix, uri)
    names: dict[str, str] = {}
    for n, data in sorted(G.nodes(data=True)):
        kind = data["kind"]
        if kind == "source":
            names[n] = f"src:{_local(data['key'])}"
            doc.entity(names[n], _attrs({
                "prov:type": GC["Source"], "prov:label": data.get("title") or data["key"],
                "gc:kind": data.get("source_kind"), "gc:visibility": data.get("visibility"),
                "gc:status": data.get("status"), "gc:effective": data.get("effective"),
                "gc:primary": bool(data.get("primary")), "gc:missing": bool(data.get("missing"))}))
        elif kind == "revision":
            names[n] = f"rev:{_local(data['revision_id'])}"
            doc.entity(names[n], _attrs({
                "prov:type": GC["SourceRevision"], "prov:label": data.get("label"), "gc:seq": data["seq"],
                "gc:status": data["status"], "gc:effective": data.get("effective"),
                "gc:current": bool(data["current"])}))
        elif kind == "unit":
            names[n] = f"unit:{_local(data['unit_id'])}"
            doc.entity(names[n], _attrs({
                "prov:type": GC["EvidenceUnit"], "prov:value": data.get("text"),
                "gc:headingPath": data.get("heading_path"), "gc:status": data["status"], "gc:page": data.get("page"),
                "gc:symbol": data.get("symbol"), "gc:start": data.get("start"), "gc:end": data.get("end")}))
        elif kind == "claim":
            names[n] = f"claim:{_local(data['claim_id'])}"
            doc.entity(names[n], _attrs({
                "prov:type": GC["Claim"], "prov:value": data["text"], "gc:status": data["status"],
                "gc:supported": bool(data["supported"]), "gc:answerRevision": data.get("answer_rev"),
                "gc:reliesOnRestricted": bool(data.get("relies_on_restricted")),
                "gc:withheld": bool(data.get("withheld")), "gc:withheldReason": data.get("withheld_reason")}))
    for u, v, key, data in sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[1], e[2])):
        if u not in names and G.nodes[u]["kind"] != "citation":
            continue
        if key == "derived_from":
            doc.wasDerivedFrom(names[u], names[v])
        elif key == "quotes":
            doc.wasQuotedFrom(names[u], names[v])
        elif key == "implements":
            doc.wasDerivedFrom(names[u], names[v], other_attributes={"prov:type": GC["implements"]})
        elif key == "revision_of":
            doc.wasRevisionOf(names[u], names[v])
        elif key == "of":
            doc.specializationOf(names[u], names[v])
        elif key == "in":
            doc.wasDerivedFrom(names[u], names[v], other_attributes={"prov:type": GC["ExcerptOf"]})
        elif key == "supersedes":
            newer, older = G.nodes[u], G.nodes[v]
            activity = f"act:supersession/{_local(newer['key'])}"
            doc.activity(activity, other_attributes=_attrs({
                "prov:type": GC["Supersession"], "prov:label": f"{newer['key']} supersedes {older['key']}"}))
            doc.wasInvalidatedBy(names[v], activity, time=_date(newer.get("effective")))
            doc.get_record(names[u])[0].add_attributes([("dcterms:replaces", doc.valid_qualified_name(names[v]))])
        elif key == "contradicted_by":
            doc.wasInfluencedBy(names[u], names[v], other_attributes=_attrs({
                "prov:type": GC["ContradictedBy"], "gc:status": data.get("status"), "gc:reason": data.get("reason")}))
    for cit, data in sorted(G.nodes(data=True)):
        if data["kind"] != "citation":
            continue
        claim = next(u for u, _, k in edges_in(G, cit) if k == "cites")
        target = next((v for _, v, k in edges_out(G, cit) if k == "points_to"), None)
        if target is None:
            continue
        doc.wasDerivedFrom(names[claim], names[target], identifier=f"claim:{_local(data['claim_id'])}-{data['index']}",
                           other_attributes=_attrs({
                               "prov:type": GC["Citation"], "gc:relation": data.get("relation"),
                               "gc:role": data.get("role"), "gc:index": data["index"],
                               "gc:valid": data.get("valid"), "gc:supportScore": data.get("support_score"),
                               "gc:findings": data.get("findings")}))
    cache: dict[str, Any] = {}
    for n, data in sorted(G.nodes(data=True)):
        if data["kind"] != "source" or not any(k in LINEAGE_RELATIONS for _, _, k in edges_out(G, n)):
            continue
        for root in sorted(primary_authorities(G, n, cache=cache)):
            if len(root) == 1 and root[0] != n:
                doc.hadPrimarySource(names[n], names[root[0]])
    return doc


def write_prov(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    doc = prov_document(G)
    text = doc.serialize(format="json", indent=1)
    with open_output(target) as handle:
        handle.write(text or "")
    return {"records": len(doc.get_records())}
