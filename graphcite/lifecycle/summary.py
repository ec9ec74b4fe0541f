"""Summaries inherit every source boundary: each sentence of a summary is a claim against one source
revision, located inside that source, and the source's high-consequence sections (decisions,
limitations, exceptions, warnings, status; recognised from headings and status cues) are each marked
covered or omitted.

A citation to the whole document does not excuse a sentence that reverses one section: every sentence
is verified on its own, with every rule, against the span that best matches it.
"""

from __future__ import annotations

import json
from typing import Any

from graphcite.audience import audience_view
from graphcite.claims.formats import load_answer
from graphcite.claims.markers import sentence_spans
from graphcite.errors import make_error
from graphcite.language.align import align
from graphcite.language.words import word_list
from graphcite.lifecycle.shifts import summary_shifts
from graphcite.store import Store
from graphcite.store.queries.lifecycle import current_revision, revision_of_source, revision_units
from graphcite.verify.check import verify_answer
from graphcite.verify.config import VerifierConfig

__all__ = ["check_summary", "high_consequence_sections"]

COVERED_SHARE = 0.5  # share of a section sentence's slots a summary sentence must hold to cover it


def _source_revision(store: Store, source: str, audience: str) -> tuple[str, str]:
    """The key and revision ``source`` names; E501 for one the audience may not see, in a missing one's words."""
    key, _, revision = source.partition("@")
    view = audience_view(store, audience)
    current = current_revision(store, key) if view.sees_source(key) else None
    if current is None:
        raise make_error("E501", where="--source", detail=f"no source {key!r}",
                         fix="take a key from `graphcite sources`")
    if not revision:
        return key, current
    found = revision_of_source(store, key, revision)
    if found is None or not view.sees_revision(found, key):
        raise make_error("E501", where="--source", detail=f"source {key!r} has no revision {revision!r}",
                         fix="give a revision id or number from `graphcite sources --json`")
    return key, found


def high_consequence_sections(store: Store, revision_id: str) -> list[dict[str, Any]]:
    """Sections whose heading names a decision, limitation, exception, warning or status, or whose
    units carry a non-current status cue, with their units' text."""
    cues = word_list("high_consequence_headings")
    sections: dict[str, dict[str, Any]] = {}
    for unit in revision_units(store, revision_id):
        path = json.loads(unit["heading_path_json"] or "[]")
        if not path or unit["block_type"] == "heading":
            continue
        heading = path[-1]
        lowered = heading.lower()
        why = next((c for c in sorted(cues) if f" {c} " in f" {lowered} "), None)
        if why is None and unit["status"] != "current":
            why = f"status {unit['status']}"
        if why is None:
            continue
        section = sections.setdefault(" > ".join(path), {"heading": " > ".join(path), "why": why, "units": []})
        section["units"].append({"unit_id": unit["unit_id"], "text": unit["text"]})
    return list(sections.values())


def _covers(sentences: list[str], units: list[dict[str, Any]]) -> str | None:
    """The first summary sentence that holds enough of some sentence of the section."""
    for unit in units:
        for a, b in sentence_spans(unit["text"]):
            piece = unit["text"][a:b].strip()
            if not piece:
                continue
            for sentence in sentences:
                if align(piece, sentence).score >= COVERED_SHARE:
                    return sentence
    return None


def check_summary(store: Store, summary: str, source: str, *, config: VerifierConfig | None = None,
                  audience: str = "internal", selective: bool = False) -> dict[str, Any]:
    """Verify each sentence of ``summary`` against one source revision and report section coverage.

    ``source`` is ``KEY`` or ``KEY@REVISION`` (a revision id or number). With ``selective`` the task
    allows omissions: an omitted section becomes a note instead of a finding. For the public audience a
    restricted source (or any revision of one) is a missing one: E501, in the same words."""
    if not summary.strip():
        raise make_error("E208", where="SUMMARY")
    key, revision = _source_revision(store, source, audience)
    spans = [(a, b) for a, b in sentence_spans(summary) if summary[a:b].strip()]
    sentences = [summary[a:b].strip() for a, b in spans]
    answer = load_answer({"answer_id": f"summary-of-{key}", "claims": [
        {"text": text, "citations": [{"source": key, "revision": revision}]} for text in sentences]})
    report = verify_answer(store, answer, config=config, audience=audience)
    coverage = []
    for section in high_consequence_sections(store, revision):
        by = _covers(sentences, section["units"])
        coverage.append({"section": section["heading"], "why": section["why"], "covered": by is not None,
                         "by": by, "outcome": "covered" if by else ("note" if selective else "omitted")})
    omitted = [c["section"] for c in coverage if c["outcome"] == "omitted"]
    return {"source": key, "revision": revision, "audience": audience, "selective": selective,
            "sentences": report["claims"], "coverage": coverage, "omitted": omitted,
            "shifts": summary_shifts(report["claims"], coverage),
            "faithful": all(c["supported"] for c in report["claims"]) and not omitted}
