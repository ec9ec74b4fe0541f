"""Conflicts in the store: pairs of current units that disagree about the same subject.

Verification attaches contradicting evidence to one claim at a time; this audit asks the corpus
itself where two current sources say different things (14 days here, 30 days there) so that the
disagreement is resolved in the sources rather than rediscovered in every answer. Candidate pairs
come from the term index in one grouped self-join (very common terms are left out, so the join stays
small); each candidate pair is then decided sentence by sentence with the same value and polarity
tests the verifier uses (:func:`graphcite.verify.contradictions.unit_conflicts`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from graphcite.graph.build import check_audience
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.store import Store
from graphcite.store.queries.graph_conflicts import conflict_candidates, conflict_rows, current_unit_count
from graphcite.verify.contradictions import unit_conflicts
from graphcite.verify.evidence import negation_of
from graphcite.verify.lexical import lexical_score

__all__ = ["conflicts", "sentences"]

MIN_SHARED_TERMS = 3
PAIRS_PER_UNIT = 8
MAX_TERM_SHARE = 0.05  # terms in more than this share of current units do not propose pairs
MIN_TERM_CAP = 50
MIN_REVERSE_OVERLAP = 0.5
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) code-point spans of the sentences of ``text`` (end exclusive, whitespace trimmed)."""
    cuts = [0, *(found.end() for found in _SENTENCE_END.finditer(text)), len(text)]
    spans = []
    for start, end in itertools.pairwise(cuts):
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        trail = len(piece) - len(piece.rstrip())
        if end - trail > start + lead:
            spans.append((start + lead, end - trail))
    return spans


def _value(row: dict[str, Any], offset: int) -> ExtractedValue:
    return ExtractedValue(start=row["start"] - offset, end=row["end"] - offset, surface=row["surface"],
                          magnitude=row["magnitude"], unit=row["unit"], dimensionality=row["dimensionality"],
                          kind=row["kind"], counted_noun=row["counted_noun"], bound=row["bound"], low=row["low"],
                          high=row["high"], role=row["role"], measured=row["measured"])


class _Sentence:
    __slots__ = ("end", "part", "start", "text", "values")

    def __init__(self, text: str, start: int, end: int, values: list[ExtractedValue]) -> None:
        self.text, self.start, self.end, self.values = text, start, end, values
        self.part = AtomicClaim(text=text, span=(0, len(text)), values=tuple(values),
                                negated=bool(negation_of(text)))


def _split(unit: dict[str, Any], value_rows: Sequence[dict[str, Any]]) -> list[_Sentence]:
    out = []
    text = unit["text"]
    for start, end in sentences(text):
        doc_start = unit["start"] + start
        doc_end = unit["start"] + end
        values = [_value(v, doc_start) for v in value_rows if doc_start <= v["start"] and v["end"] <= doc_end]
        out.append(_Sentence(text[start:end], start, end, values))
    return out


def _decide(a: list[_Sentence], b: list[_Sentence]) -> tuple[str, _Sentence, _Sentence] | None:
    for first, second in ((a, b), (b, a)):
        for sa in first:
            if not sa.values and not sa.part.negated:
                continue
            for sb in second:
                # same subject both ways: a short requirement is not contradicted by a long observation
                # that happens to contain its few words
                if lexical_score(sb.text, sa.text) < MIN_REVERSE_OVERLAP:
                    continue
                reason = unit_conflicts(sa.part, sb.text, sb.values)
                if reason:
                    return (reason, sa, sb) if first is a else (reason, sb, sa)
    return None


def _side(unit: dict[str, Any], sentence: _Sentence) -> dict[str, Any]:
    return {"unit_id": unit["unit_id"], "source": unit["source_key"], "revision": unit["revision_id"],
            "status": unit["status"], "doc_status": unit["doc_status"], "effective": unit["effective"],
            "kind": unit["kind"], "heading_path": json.loads(unit["heading_path_json"] or "[]"),
            "page": unit["page"], "sentence": sentence.text, "sentence_start": unit["start"] + sentence.start,
            "sentence_end": unit["start"] + sentence.end, "text": unit["text"]}


def conflicts(store: Store, *, audience: str = "internal", same_source: bool = False) -> list[dict[str, Any]]:
    """Pairs of current units that contradict each other on the same subject, with sources and statuses.

    Each pair names the two sentences, the reason (the value or polarity that differs) and how many
    index terms the units share. Restricted units are left out for the public audience.
    """
    check_audience(audience)
    public = audience == "public"
    total = current_unit_count(store, public=public)
    pairs = conflict_candidates(store, public=public, same_source=same_source,
                                max_units_per_term=max(MIN_TERM_CAP, int(total * MAX_TERM_SHARE)),
                                min_shared=MIN_SHARED_TERMS, per_unit=PAIRS_PER_UNIT)
    if not pairs:
        return []
    unit_ids = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    units, value_rows = conflict_rows(store, unit_ids)
    split = {u: _split(units[u], value_rows.get(u, [])) for u in unit_ids}
    found = []
    for pair in pairs:
        decided = _decide(split[pair["a"]], split[pair["b"]])
        if decided is None:
            continue
        reason, sa, sb = decided
        ua, ub = (units[pair["a"]], units[pair["b"]]) if sa in split[pair["a"]] else (units[pair["b"]], units[pair["a"]])
        first, second = _side(ua, sa), _side(ub, sb)
        # unit_conflicts speaks of "the claim": name both sources instead
        reason = f"{second['source']} {reason.replace('the claim', first['source'])}"
        found.append({"a": first, "b": second, "reason": reason, "shared_terms": pair["shared"]})
    found.sort(key=lambda c: (c["a"]["source"], c["b"]["source"], c["a"]["unit_id"], c["b"]["unit_id"]))
    return found
