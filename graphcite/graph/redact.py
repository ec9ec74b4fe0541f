"""Redaction for the public audience: nothing of a restricted source, and no claim that launders one.

Two kinds of removal, applied by every graph question and every export:

* **Restricted sources** keep their place under placeholder names (``restricted-source-1``,
  ``restricted-revision-1``, ``restricted-unit-1``) but lose their text, title, kind, dates, the
  lineage they declare and every identifier, in the records of this run and in records made earlier
  for the internal audience alike. The :class:`Redactor` knows every restricted source of the store
  (not just those a question touches), so an old verification record that names a restricted unit
  is scrubbed too. Report and answer JSON is rebuilt from a whitelist of fields where it concerns a
  restricted citation, so a field added to reports later cannot carry restricted text out.
* **Restricted origin**: a claim that states a value or term found only in a restricted unit (and in
  none of the public units it cites) has its text withheld (:func:`withheld_claims`, built on
  :func:`graphcite.verify.origin.restricted_origins`); pages and exports say that it was withheld
  and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphcite.audience import (
    CITATION_IDS,
    ORIGIN_RULE,
    WITHHELD_REASON,
    WITHHELD_TEXT,
    Redactor,
    as_written,
    is_restricted_citation,
    scrub_report,
    withheld_report,
)
from graphcite.graph.fetch import Fetched
from graphcite.store import Store

__all__ = ["WITHHELD_REASON", "WITHHELD_TEXT", "Redactor", "as_written", "number_in_public_order", "redactor_for", "scrub_answer",
           "scrub_report", "withheld_claims", "withheld_report"]


def redactor_for(got: Fetched, audience: str) -> Redactor:
    """The redactor for an audience: every restricted source of the store for ``public``, nothing otherwise."""
    if audience != "public":
        return Redactor()
    if got.restricted is None:
        raise ValueError("fetch(..., audience='public') reads the restricted sources the redactor needs")
    return number_in_public_order(got, Redactor.from_set(got.restricted))


def number_in_public_order(got: Fetched, red: Redactor) -> Redactor:
    """Give restricted things their placeholder numbers in an order only public structure decides.

    Placeholders are numbered as an output first names them; the graph's own dicts may be in key
    order, so the claims (in answer order, citations by index), their contradicting units, the
    lineage links and then each source's revisions (by sequence) are named first. The claims of a public
    asker's own words name nothing (:func:`graphcite.audience.as_written`).
    """
    for claim in got.claims:
        if claim["answer_rev"] in got.own_words:  # shown as written: it names nothing under a placeholder
            continue
        verdict = got.verdicts.get(claim["claim_id"])
        report = verdict["report"] if verdict else {}
        citations = report.get("citations") if verdict else None
        if citations is None:
            citations = [{"source": c["source_key"], "revision": c["revision"], "unit_id": c["chunk_id"]}
                         for c in got.given_citations.get(claim["claim_id"], [])]
        for cit in citations:
            unit_id = cit.get("unit_id")
            red.key(cit.get("source") or (got.units[unit_id]["source_key"] if unit_id in got.units else None))
            red.revision(cit.get("revision"))
            red.unit(unit_id)
        for item in report.get("contradicting_evidence", []):
            row = got.units.get(item.get("unit_id"))
            red.key(row["source_key"] if row else item.get("source"))
            red.unit(item.get("unit_id"))
    for link in got.links:
        red.key(link["from_key"])
        red.key(link["to_key"])
    for key in got.sources:
        red.key(key)
    named = {key: i for i, key in enumerate(red.keys.names)}
    for rev_id, _ in sorted(got.revisions.items(), key=lambda item: (named.get(item[1]["source_key"], len(named)),
                                                                      item[1]["seq"])):
        red.revision(rev_id)
    return red


# ----------------------------------------------------------------------------------------------
# restricted origin
# ----------------------------------------------------------------------------------------------


def _has_origin_finding(report: Mapping[str, Any]) -> bool:
    """True when a stored report already carries a failed ``restricted-origin`` finding anywhere."""
    stack: list[Any] = [report]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("rule") == ORIGIN_RULE and item.get("outcome", "fail") == "fail":
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def withheld_claims(store: Store, got: Fetched, red: Redactor) -> dict[str, str]:
    """Claims whose text must be withheld from the public audience, with the reason, by claim id.

    A claim is withheld when :func:`graphcite.verify.origin.restricted_origins` finds a restricted
    unit holding its decisive values or terms, counting only the public units it cites, or when
    its latest report already carries a ``restricted-origin`` finding. Claims of an answer a public
    check stored are the asker's words and never withheld (:func:`graphcite.audience.asked_publicly`).
    """
    if not red.active or not got.claims:
        return {}
    from graphcite.language.values import extract_values
    from graphcite.verify.origin import OriginQuery, restricted_origins

    out: dict[str, str] = {}
    queries = []
    for claim in got.claims:
        claim_id = claim["claim_id"]
        if claim["answer_rev"] in got.own_words:  # a public asker's own words: never withheld (no oracle)
            continue
        report = (got.verdicts.get(claim_id) or {}).get("report") or {}
        if _has_origin_finding(report):
            out[claim_id] = WITHHELD_REASON
            continue
        cited = [c.get("unit_id") for c in report.get("citations", [])]
        cited += [c.get("chunk_id") for c in got.given_citations.get(claim_id, [])]
        public = [u for u in cited if u and not red.is_restricted(unit=u)]
        queries.append(OriginQuery(claim_id, claim["text"], extract_values(claim["text"]), public))
    out.update(dict.fromkeys(restricted_origins(store, queries), WITHHELD_REASON))
    return out


# ----------------------------------------------------------------------------------------------
# reports and answers
# ----------------------------------------------------------------------------------------------


def scrub_answer(content: dict[str, Any], red: Redactor, withheld: Sequence[bool] = ()) -> dict[str, Any]:
    """An answer's stored JSON for the public audience: restricted citations reduced, withheld claims blanked.

    ``withheld[i]`` says whether claim ``i`` (in answer order) has its text withheld.
    """
    content = dict(content)
    claims = []
    for i, claim in enumerate(content.get("claims") or []):
        if not isinstance(claim, Mapping):
            claims.append(claim)
            continue
        citations = []
        for cit in claim.get("citations") or []:
            if isinstance(cit, Mapping) and (is_restricted_citation(cit, red) or (i < len(withheld) and withheld[i])):
                keep = {k: cit[k] for k in ("role",) if k in cit}
                for name, kind in CITATION_IDS.items():
                    if isinstance(cit.get(name), str):
                        keep[name] = getattr(red, kind)(cit[name])
                if is_restricted_citation(cit, red):
                    keep["restricted"] = True
                cit = keep
            citations.append(cit)
        if i < len(withheld) and withheld[i]:
            claim = {"text": WITHHELD_TEXT, "withheld": True, "citations": citations}
        else:
            claim = {**claim, "citations": citations}
        claims.append(claim)
    if "claims" in content:
        content["claims"] = claims
    return red.scrub_json(content)

