"""What a summary did to its source, named in the words a reviewer uses.

The rules already find each fault on one sentence (GC504 an example stated of a whole class, GC601 /
GC402 a proposal or a tentative plan stated as done); a summary report lists them again as *shifts*
of the summary as a whole, next to what it left out: a warning, limitation or exception section that
no sentence covers is a dropped warning, however faithful the other sentences are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SHIFT_KINDS", "summary_shifts"]

#: kind -> what the report says about it
SHIFT_KINDS = {
    "generalises-example": "states an example of the source as true of a whole class",
    "proposal-as-decision": "states a proposal, draft or plan of the source as decided or done",
    "drops-warning": "leaves out a warning, limitation or exception section of the source",
}
_WARNING_WORDS = ("warning", "caveat", "limitation", "limit", "exception", "risk", "known issue", "caution")
_TENTATIVE = ("proposal", "draft", "proposed", "considered", "planned")


def _failures(sentence: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    out = []
    for citation in sentence.get("citations") or []:
        for finding in citation.get("findings") or []:
            if finding.get("outcome") in {"fail", "note"}:  # a note in the general configuration still shifts
                out.append((citation.get("index", 0), finding))
    return out


def _kind(finding: Mapping[str, Any]) -> str | None:
    code, detail = finding.get("code"), str(finding.get("detail") or "").lower()
    if code == "GC504":
        return "generalises-example"
    if code == "GC601" and any(word in detail for word in ("proposal", "draft")):
        return "proposal-as-decision"
    if code == "GC402" and any(word in detail for word in _TENTATIVE):
        return "proposal-as-decision"
    return None


def summary_shifts(sentences: Sequence[Mapping[str, Any]], coverage: Sequence[Mapping[str, Any]]
                   ) -> list[dict[str, Any]]:
    """Shifts in sentence order, then dropped warnings in section order; each names its evidence."""
    shifts: list[dict[str, Any]] = []
    for index, sentence in enumerate(sentences):
        seen: set[str] = set()
        for citation, finding in _failures(sentence):
            kind = _kind(finding)
            if kind is None or kind in seen:
                continue
            seen.add(kind)
            shifts.append({"kind": kind, "what": SHIFT_KINDS[kind], "sentence": index,
                           "text": sentence.get("text"), "citation": citation, "code": finding.get("code"),
                           "detail": finding.get("detail")})
    for section in coverage:
        why = str(section.get("why") or "").lower()
        if section.get("covered") or not any(word in why for word in _WARNING_WORDS):
            continue
        shifts.append({"kind": "drops-warning", "what": SHIFT_KINDS["drops-warning"], "sentence": None,
                       "text": None, "section": section.get("section"), "outcome": section.get("outcome")})
    return shifts
