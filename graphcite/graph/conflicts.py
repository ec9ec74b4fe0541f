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
from graphcite.store.queries import RESTRICTED_KEYS_SQL
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


_CURRENT_UNITS = """
    SELECT u.unit_id
    FROM evidence_unit u
    JOIN source s ON s.current_revision = u.revision_id
    JOIN source_revision r ON r.revision_id = u.revision_id
    WHERE u.status = 'current' AND r.status = 'current' AND u.block_type <> 'heading'
      AND s.key NOT IN (
          SELECT l.to_key FROM source_link l
          JOIN source_revision dr ON dr.revision_id = l.declared_in
          JOIN source ds ON ds.key = dr.source_key AND ds.current_revision = dr.revision_id
          WHERE l.relation = 'supersedes')
      {visibility}
"""


def _candidate_pairs(store: Store, audience: str, same_source: bool) -> list[dict[str, Any]]:
    # the same reading of "restricted" as every other public output: any restricted revision counts
    visibility = f"AND s.key NOT IN ({RESTRICTED_KEYS_SQL})" if audience == "public" else ""
    current = _CURRENT_UNITS.replace("{visibility}", visibility)
    total = int(store.scalar(f"SELECT count(*) FROM ({current}) cur") or 0)
    cap = max(MIN_TERM_CAP, int(total * MAX_TERM_SHARE))
    source_filter = "" if same_source else "AND ua.source_key <> ub.source_key"
    return store.rows(f"""
        WITH cur AS ({current}),
        post AS (SELECT p.term, p.unit_id FROM term_posting p JOIN cur ON cur.unit_id = p.unit_id),
        useful AS (SELECT term FROM post GROUP BY term HAVING count(*) BETWEEN 2 AND ?),
        pairs AS (
            SELECT a.unit_id AS a, b.unit_id AS b, count(*) AS shared
            FROM post a JOIN useful t ON t.term = a.term
            JOIN post b ON b.term = a.term AND a.unit_id < b.unit_id
            GROUP BY a.unit_id, b.unit_id HAVING count(*) >= ?)
        SELECT a, b, shared FROM (
            SELECT p.a, p.b, p.shared, row_number() OVER (PARTITION BY p.a ORDER BY p.shared DESC, p.b) AS rank
            FROM pairs p
            JOIN evidence_unit ua ON ua.unit_id = p.a
            JOIN evidence_unit ub ON ub.unit_id = p.b
            WHERE TRUE {source_filter}) ranked
        WHERE rank <= ?
        ORDER BY a, b""", [cap, MIN_SHARED_TERMS, PAIRS_PER_UNIT])


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
    pairs = _candidate_pairs(store, audience, same_source)
    if not pairs:
        return []
    unit_ids = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    with store.temporary("_gc_conflict_units", unit_ids) as view:
        units = {r["unit_id"]: r for r in store.rows(f"""
            SELECT u.unit_id, u.source_key, u.revision_id, u.start, u."end", u.text, u.status, u.heading_path_json,
                   u.page, r.status AS doc_status, CAST(r.effective AS VARCHAR) AS effective, r.kind
            FROM evidence_unit u JOIN {view} i ON i.id = u.unit_id
            JOIN source_revision r ON r.revision_id = u.revision_id""")}
        value_rows: dict[str, list[dict[str, Any]]] = {}
        for row in store.rows(f"""SELECT t.* FROM typed_value t JOIN {view} i ON i.id = t.unit_id
                                  ORDER BY t.unit_id, t.start"""):
            value_rows.setdefault(row["unit_id"], []).append(row)
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
