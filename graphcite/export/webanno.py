"""W3C Web Annotation (JSON-LD): one ``assessing`` annotation per citation, in an AnnotationCollection.

Each annotation's body states the verdict (the citation's relation and the claim's status) and the
claim, as TextualBodies; its target is the cited span of the exact revision: a SpecificResource whose
source is a revision-pinned IRI (``graphcite://source/KEY?rev=REVISION``), with a TextQuoteSelector
(exact text plus up to 32 code points of prefix and suffix) and a TextPositionSelector (code-point
offsets into the revision text, the same offsets graphcite stores), and a TimeState with the date the
revision was read. A reader can therefore re-anchor the annotation even if the document moves on.
Citations of restricted sources (public audience) keep an annotation whose target is a placeholder
and whose body says the evidence is withheld.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import networkx as nx

from graphcite.export.output import OutputTarget, open_output
from graphcite.store import Store
from graphcite.store.queries.export import revision_texts

__all__ = ["CONTEXT", "annotations", "revision_iri", "write_webanno"]

CONTEXT = "http://www.w3.org/ns/anno.jsonld"
CONTEXT_CHARS = 32
STATUS_WORDS = {"supported": "supported", "contradicted": "contradicted", "conflict": "in conflict",
                "insufficient": "insufficiently supported", "unsupported": "unsupported", "invalid": "invalid",
                "unverified": "not verified"}


def revision_iri(key: str, revision: str | None = None) -> str:
    """``graphcite://source/KEY?rev=REVISION``: an IRI naming one immutable revision of a source."""
    iri = "graphcite://source/" + quote(key, safe="-._~/")
    return iri + (f"?rev={quote(revision, safe='')}" if revision else "")


def _datetime(value: str | None) -> str | None:
    if not value:
        return None
    text = str(value).replace(" ", "T")
    if len(text) == 10:
        text += "T00:00:00"
    return text.split(".")[0] + "Z"


def _selectors(text: str, start: int, end: int) -> list[dict[str, Any]]:
    return [
        {"type": "TextQuoteSelector", "exact": text[start:end],
         "prefix": text[max(0, start - CONTEXT_CHARS):start], "suffix": text[end:end + CONTEXT_CHARS]},
        {"type": "TextPositionSelector", "start": start, "end": end},
    ]


def annotations(store: Store, G: nx.MultiDiGraph) -> list[dict[str, Any]]:
    """One Web Annotation per citation node of ``G``, in claim order then citation order."""
    order = {c: i for i, c in enumerate(G.graph.get("claim_order", []))}
    citations = sorted((d for _, d in G.nodes(data=True) if d["kind"] == "citation"),
                       key=lambda d: (order.get(d["claim_id"], len(order)), d["index"]))
    texts = revision_texts(store, {c["revision"] for c in citations
                                    if c.get("revision") and not c.get("restricted")})
    out = []
    for cit in citations:
        claim = G.nodes[f"claim:{cit['claim_id']}"]
        status = STATUS_WORDS.get(claim["status"], claim["status"])
        anno_id = f"urn:graphcite:annotation:{cit['claim_id']}-{cit['index']}"
        if cit.get("restricted"):
            verdict = (f"Citation [{cit['index'] + 1}] points to a restricted source; the evidence is withheld "
                       f"for the public audience. The claim is {status}.")
            target: dict[str, Any] | str = {"type": "SpecificResource",
                                            "source": f"urn:graphcite:{cit.get('source') or 'restricted-source'}"}
        else:
            verdict = (f"Citation [{cit['index'] + 1}] {cit.get('relation') or 'unchecked'} the claim"
                       + ("" if cit.get("valid") is not False else " (the citation itself is invalid)")
                       + f"; the claim is {status}.")
            if cit.get("findings"):
                verdict += f" Findings: {cit['findings']}"
            target = {"type": "SpecificResource",
                      "source": revision_iri(cit.get("source") or "unknown", cit.get("revision"))}
            revision = texts.get(cit.get("revision") or "")
            start, end = cit.get("start"), cit.get("end")
            if revision and isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(revision["text"]):
                target["selector"] = _selectors(revision["text"], start, end)
            if revision and revision.get("ingested_at"):
                target["state"] = {"type": "TimeState", "sourceDate": _datetime(revision["ingested_at"])}
        anno: dict[str, Any] = {
            "@context": CONTEXT, "id": anno_id, "type": "Annotation", "motivation": "assessing",
            "body": [
                {"type": "TextualBody", "purpose": "assessing", "value": verdict, "format": "text/plain",
                 "language": "en"},
                {"type": "TextualBody", "purpose": "describing", "format": "text/plain",
                 "value": claim["text"] + (f" ({claim['withheld_reason']})" if claim.get("withheld") else "")},
            ],
            "target": target,
        }
        created = _datetime(claim.get("verified_at"))
        if created:
            anno["created"] = created
        anno["generator"] = {"id": "urn:graphcite:verifier" + (f":{claim['config_hash']}" if claim.get("config_hash")
                                                                 else ""),
                             "type": "Software", "name": "graphcite"}
        out.append(anno)
    return out


def write_webanno(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
    items = annotations(store, G)
    name = G.graph.get("answer_rev") or G.graph.get("selection") or "selection"
    collection = {
        "@context": CONTEXT, "id": f"urn:graphcite:collection:{name}", "type": "AnnotationCollection",
        "label": f"graphcite verdicts ({G.graph.get('audience')} audience)", "total": len(items),
        "first": {"id": f"urn:graphcite:collection:{name}:page1", "type": "AnnotationPage", "startIndex": 0,
                  "items": items},
    }
    with open_output(target) as handle:
        json.dump(collection, handle, ensure_ascii=False, indent=1)
    return {"annotations": len(items)}
