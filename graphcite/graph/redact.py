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

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphcite.graph.fetch import Fetched, RestrictedSet
from graphcite.store import Store

__all__ = ["WITHHELD_REASON", "WITHHELD_TEXT", "Redactor", "redactor_for", "scrub_answer", "scrub_report",
           "withheld_claims", "withheld_report"]

WITHHELD_TEXT = "[claim text withheld for the public audience]"
WITHHELD_REASON = ("restricted-origin: the claim states a value or term found only in a restricted source, "
                   "not in the public evidence it cites")
ORIGIN_RULE = "restricted-origin"
# unit and revision ids are 16 lowercase hex digits
_HEX_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])")
# citation fields that may stay on a restricted citation (identifiers are replaced, the rest is verdict)
_CITATION_KEEP = ("index", "relation", "valid", "role", "support_score", "unit_status")
_CITATION_IDS = {"source": "key", "revision": "revision", "unit_id": "unit", "chunk_id": "unit"}


def _names_pattern(keys: Sequence[str], titles: Sequence[str]) -> re.Pattern[str] | None:
    """One pattern for whole keys and titles inside text: ``a.md`` is not found inside ``data.md``."""
    alternatives = []
    if keys:
        listed = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
        alternatives.append(rf"(?<![\w.\-])(?:{listed})(?![\w\-])")
    if titles:
        listed = "|".join(re.escape(t) for t in sorted(titles, key=len, reverse=True))
        alternatives.append(rf"(?<!\w)(?:{listed})(?!\w)")
    return re.compile("|".join(alternatives)) if alternatives else None


class Redactor:
    """Placeholders for restricted sources, revisions and units (public audience); identity otherwise.

    Placeholders are numbered in sorted order of the store's restricted ids, so the same store gives
    the same names; :meth:`scrub` replaces any restricted key, title, revision or unit id inside a
    free-text string.
    """

    def __init__(self, restricted_keys: Iterable[str] = (), restricted_revisions: Iterable[str] = (),
                 restricted_units: Iterable[str] = (), titles: Iterable[str | None] = ()) -> None:
        self.keys = {k: f"restricted-source-{i}" for i, k in enumerate(sorted(set(restricted_keys)), 1)}
        self.revisions = {r: f"restricted-revision-{i}" for i, r in enumerate(sorted(set(restricted_revisions)), 1)}
        self.units = {u: f"restricted-unit-{i}" for i, u in enumerate(sorted(set(restricted_units)), 1)}
        self.titles = sorted({t for t in titles if t and len(t) > 3}, key=len, reverse=True)
        names = {**{k: v for k, v in self.keys.items() if not _HEX_ID.fullmatch(k)},
                 **{t: "[restricted]" for t in self.titles}}
        self._names = names
        self._ids = {**self.revisions, **self.units, **{k: v for k, v in self.keys.items() if _HEX_ID.fullmatch(k)}}
        self._pattern = _names_pattern([k for k in self.keys if k in names], self.titles)

    @classmethod
    def from_set(cls, restricted: RestrictedSet) -> Redactor:
        return cls(restricted.keys, restricted.revisions, restricted.units,
                   [*restricted.keys.values(), *restricted.revisions.values()])

    @property
    def active(self) -> bool:
        return bool(self.keys or self.revisions or self.units)

    def key(self, key: str | None) -> str | None:
        return self.keys.get(key, key) if key else key

    def revision(self, revision: str | None) -> str | None:
        return self.revisions.get(revision, revision) if revision else revision

    def unit(self, unit_id: str | None) -> str | None:
        return self.units.get(unit_id, unit_id) if unit_id else unit_id

    def is_restricted(self, *, key: str | None = None, revision: str | None = None, unit: str | None = None) -> bool:
        return bool((key and key in self.keys) or (revision and revision in self.revisions)
                    or (unit and unit in self.units))

    def scrub(self, text: Any) -> Any:
        """Replace restricted identifiers and titles inside a string; other values unchanged."""
        if not isinstance(text, str) or not self.active:
            return text
        if self._pattern is not None:
            text = self._pattern.sub(lambda m: self._names[m.group(0)], text)
        if self._ids:
            text = _HEX_ID.sub(lambda m: self._ids.get(m.group(0), m.group(0)), text)
        return text

    def scrub_json(self, value: Any) -> Any:
        """:meth:`scrub` applied to every string (keys too) of a JSON value."""
        if isinstance(value, dict):
            return {self.scrub(k): self.scrub_json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub_json(v) for v in value]
        return self.scrub(value)


def redactor_for(got: Fetched, audience: str) -> Redactor:
    """The redactor for an audience: every restricted source of the store for ``public``, nothing otherwise."""
    if audience != "public":
        return Redactor()
    if got.restricted is None:
        raise ValueError("fetch(..., audience='public') reads the restricted sources the redactor needs")
    return Redactor.from_set(got.restricted)


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
    its latest report already carries a ``restricted-origin`` finding.
    """
    if not red.active or not got.claims:
        return {}
    from graphcite.language.values import extract_values
    from graphcite.verify.origin import OriginQuery, restricted_origins

    out: dict[str, str] = {}
    queries = []
    for claim in got.claims:
        claim_id = claim["claim_id"]
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


def _restricted_citation(cit: Mapping[str, Any], red: Redactor) -> dict[str, Any]:
    """A restricted citation reduced to its verdict and placeholder ids (a whitelist, not a blacklist)."""
    out: dict[str, Any] = {k: cit[k] for k in _CITATION_KEEP if k in cit}
    for name, kind in _CITATION_IDS.items():
        if name in cit:
            out[name] = getattr(red, kind)(cit[name]) if isinstance(cit[name], str) else None
    out["findings"] = [{"code": f.get("code"), "rule": f.get("rule"), "outcome": f.get("outcome"), "detail": ""}
                       for f in cit.get("findings") or [] if isinstance(f, Mapping)]
    out["restricted"] = True
    return out


def _is_restricted_citation(cit: Mapping[str, Any], red: Redactor) -> bool:
    return red.is_restricted(key=cit.get("source") or cit.get("source_key"), revision=cit.get("revision"),
                             unit=cit.get("unit_id") or cit.get("chunk_id"))


def withheld_report(report: Mapping[str, Any], red: Redactor, reason: str) -> dict[str, Any]:
    """A claim report whose claim text must not be shown: verdicts and ids only, plus why."""
    citations = []
    for cit in report.get("citations") or []:
        if not isinstance(cit, Mapping):
            continue
        item = _restricted_citation(cit, red)
        item["restricted"] = _is_restricted_citation(cit, red)
        citations.append(item)
    out = {k: report[k] for k in ("claim_id", "index", "status", "supported", "type") if k in report}
    out.update(text=WITHHELD_TEXT, withheld=True, withheld_reason=reason, citations=citations,
               parts=[{"text": WITHHELD_TEXT, "status": p.get("status")} for p in report.get("parts") or []
                      if isinstance(p, Mapping)],
               contradicting_evidence=[{"unit_id": red.unit(c.get("unit_id")), "status": c.get("status")}
                                       for c in report.get("contradicting_evidence") or [] if isinstance(c, Mapping)])
    if any(c["restricted"] for c in citations):
        out["relies_on_restricted"] = True
    return red.scrub_json(out)


def scrub_report(report: dict[str, Any], red: Redactor, *, withheld: str | None = None) -> dict[str, Any]:
    """A claim report for the public audience (see the module doc); ``withheld`` is the reason, if any."""
    if withheld:
        return withheld_report(report, red, withheld)
    report = dict(report)
    restricted_idx = set()
    citations = []
    for cit in report.get("citations") or []:
        if isinstance(cit, Mapping) and _is_restricted_citation(cit, red):
            restricted_idx.add(cit.get("index"))
            cit = _restricted_citation(cit, red)
        citations.append(cit)
    if "citations" in report:
        report["citations"] = citations
    parts = []
    for part in report.get("parts") or []:
        if isinstance(part, Mapping):
            part = dict(part)
            part["citations"] = [_restricted_citation(v, red) if v.get("index") in restricted_idx else v
                                 for v in part.get("citations") or [] if isinstance(v, Mapping)]
        parts.append(part)
    if "parts" in report:
        report["parts"] = parts
    kept = []
    for item in report.get("contradicting_evidence") or []:
        if isinstance(item, Mapping) and red.is_restricted(key=item.get("source"), unit=item.get("unit_id")):
            item = {"unit_id": red.unit(item.get("unit_id")), "source": red.key(item.get("source")),
                    "status": item.get("status"), "restricted": True}
        kept.append(item)
    if "contradicting_evidence" in report:
        report["contradicting_evidence"] = kept
    if restricted_idx:
        report["relies_on_restricted"] = True
    return red.scrub_json(_blank_origin_details(report))


def _blank_origin_details(value: Any) -> Any:
    """Findings of the ``restricted-origin`` rule keep their verdict but say only "withheld"."""
    if isinstance(value, dict):
        if value.get("rule") == ORIGIN_RULE:
            return {**value, "detail": "withheld"}
        return {k: _blank_origin_details(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_origin_details(v) for v in value]
    return value


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
            if isinstance(cit, Mapping) and (_is_restricted_citation(cit, red) or (i < len(withheld) and withheld[i])):
                keep = {k: cit[k] for k in ("role",) if k in cit}
                for name, kind in _CITATION_IDS.items():
                    if isinstance(cit.get(name), str):
                        keep[name] = getattr(red, kind)(cit[name])
                if _is_restricted_citation(cit, red):
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

