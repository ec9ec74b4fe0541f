"""Locate the evidence for a citation that names a source (or a unit, or a document and pages) but no span.

Most RAG systems cite a file, a chunk or a URL, not a quote. Such a citation is checked like any other
(the source must exist, be visible, and have the cited revision) and then its evidence is located:
the units of the cited revision, and of that revision only, are ranked for the claim in two steps:

1. the term index (``term_posting``) gives every unit of the revision that shares a content term with
   the claim, scored BM25-style (rare terms in the document weigh more, long units are damped);
2. the best :data:`CANDIDATES` of them are aligned with the claim's slots (names and content words,
   found directly or by paraphrase; :func:`graphcite.language.align.align`).

The rank score mixes the slot share (``ALIGN_WEIGHT``) and the term coverage. The best unit is the
located span; when it misses slots that other candidates hold, up to :data:`MAX_JOINT` units are used
together (joint support inside the one cited source). The engine then verifies the claim against that
evidence like any quoted span.

:func:`find_elsewhere` looks for an uncited unit that holds the claim: every slot found or
paraphrased, every number present. It is reported next to a located citation that does not support
its claim (``supported_elsewhere``), and never turns the claim supported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphcite.claims.markers import sentence_spans
from graphcite.ingest.terms import content_terms
from graphcite.language.align import Alignment, align
from graphcite.store import Store

__all__ = [
    "ALIGN_WEIGHT",
    "CANDIDATE_UNITS",
    "MAX_JOINT",
    "Candidate",
    "ElsewhereQuery",
    "LocateQuery",
    "Ranking",
    "find_elsewhere",
    "rank_units",
]

CANDIDATE_UNITS = 6  # units whose sentences are aligned with the claim after the term ranking
MAX_JOINT = 3  # units a located claim may rest on together
ALIGN_WEIGHT = 0.7  # share of the rank score given to slot alignment (the rest: term coverage)
JOINT_MIN_ALIGN = 0.3  # a unit joins the best one only when it holds this share of the claim itself
ELSEWHERE_MIN_ALIGN = 0.8  # an uncited unit "holds" the claim from this slot share, with every number
ELSEWHERE_CANDIDATES = 12
_K1, _B = 1.2, 0.75  # BM25 constants


@dataclass(frozen=True, slots=True)
class LocateQuery:
    """One citation to locate: the claim it backs and the revision (and pages, or unit) it names."""

    index: int
    claim: str
    revision_id: str
    first_page: int | None = None
    last_page: int | None = None
    unit_id: str | None = None  # a chunk citation: the unit is given, only its fit is scored


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence (or table row) of a unit of the cited revision, ranked for the claim.

    ``start`` and ``end`` are document offsets; ``row`` is the evidence unit holding the span.
    """

    row: dict[str, Any]
    start: int
    end: int
    terms: float  # share of the claim's term weight the span holds (0-1)
    alignment: Alignment
    score: float

    @property
    def unit_id(self) -> str:
        return str(self.row["unit_id"])

    def found(self) -> frozenset[str]:
        return frozenset(s.text for s in self.alignment.slots if s.status in {"found", "paraphrase"})


@dataclass(slots=True)
class Ranking:
    """The outcome for one query: the chosen spans (best first) or the reason none could be chosen."""

    chosen: list[Candidate] = field(default_factory=list)
    considered: int = 0
    problem: str | None = None  # an integrity failure (no unit on the cited pages)

    @property
    def rank_score(self) -> float | None:
        return round(self.chosen[0].score, 4) if self.chosen else None


@dataclass(frozen=True, slots=True)
class ElsewhereQuery:
    """A located claim whose support may lie in a source it does not cite."""

    index: int
    claim: str
    cited_sources: frozenset[str]


def _weights(terms: Sequence[str], df: dict[str, int], total: int) -> dict[str, float]:
    """IDF of each claim term within the searched units; a term found nowhere weighs the most."""
    return {t: math.log(1 + (total - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}


def _context(row: dict[str, Any], title: str | None) -> str:
    """What a span of the unit is read with, as in the evidence envelope: headings, table headers, title."""
    headings = json.loads(row.get("heading_path_json") or "[]")
    headers = json.loads(row.get("table_headers_json") or "[]")
    return " ".join([*headings, *headers, title or ""])


_SCOPE = """q AS (SELECT unnest(?::INTEGER[]) AS qi, unnest(?::VARCHAR[]) AS rid, unnest(?::VARCHAR[]) AS term,
                     unnest(?::BIGINT[]) AS p1, unnest(?::BIGINT[]) AS p2, unnest(?::VARCHAR[]) AS uid),
         scoped AS (SELECT DISTINCT q.qi, u.unit_id, length(u.text) AS size FROM q
                    JOIN evidence_unit u ON u.revision_id = q.rid
                     AND (q.uid IS NULL OR u.unit_id = q.uid)
                     AND (q.p1 IS NULL OR u.page BETWEEN q.p1 AND q.p2))"""


def rank_units(store: Store, queries: Sequence[LocateQuery],
               titles: dict[str, str | None] | None = None) -> dict[int, Ranking]:
    """Rank the sentences of the best units of each query's revision for its claim (two bulk queries
    for the term ranking, one for the unit texts, whatever the number of queries).

    ``titles`` maps revision ids to titles, read with every unit as in the evidence envelope.
    Returns one :class:`Ranking` per query index.
    """
    titles = titles or {}
    out = {q.index: Ranking() for q in queries}
    if not queries:
        return out
    terms_of = {q.index: content_terms(q.claim) for q in queries}
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [])
    for q in queries:
        for t in terms_of[q.index] or [""]:
            for column, value in zip(columns, (q.index, q.revision_id, t, q.first_page, q.last_page, q.unit_id),
                                     strict=True):
                column.append(value)
    params = list(columns)
    stats = {r["qi"]: r for r in store.rows(
        f"WITH {_SCOPE} SELECT qi, count(*) AS n, avg(size) AS avg_size FROM scoped GROUP BY qi", params)}
    hits: dict[int, list[dict[str, Any]]] = {}
    for row in store.rows(f"""
            WITH {_SCOPE}
            SELECT q.qi, s.unit_id, s.size, list(q.term) AS terms FROM q
            JOIN scoped s ON s.qi = q.qi
            JOIN term_posting p ON p.unit_id = s.unit_id AND p.term = q.term
            GROUP BY q.qi, s.unit_id, s.size""", params):
        hits.setdefault(row["qi"], []).append(row)
    shortlist: dict[int, list[str]] = {}
    weights_of: dict[int, dict[str, float]] = {}
    for q in queries:
        stat = stats.get(q.index)
        if not stat or not stat["n"]:
            out[q.index].problem = "no unit"
            continue
        rows = hits.get(q.index, [])
        df: dict[str, int] = {}
        for row in rows:
            for t in row["terms"]:
                df[t] = df.get(t, 0) + 1
        weights_of[q.index] = weights = _weights(terms_of[q.index], df, int(stat["n"]))
        average = float(stat["avg_size"] or 1.0) or 1.0
        scored = sorted(((sum(weights[t] for t in row["terms"]) * (_K1 + 1)
                          / (1 + _K1 * (1 - _B + _B * row["size"] / average)), row["unit_id"]) for row in rows),
                        key=lambda x: (-x[0], x[1]))
        shortlist[q.index] = [uid for _, uid in scored[:CANDIDATE_UNITS]] or ([q.unit_id] if q.unit_id else [])
        out[q.index].considered = len(rows)
    wanted = {uid for items in shortlist.values() for uid in items}
    units: dict[str, dict[str, Any]] = {}
    if wanted:
        where, p = store.in_list("u.unit_id", wanted)
        units = {r["unit_id"]: r for r in store.rows(f"SELECT u.* FROM evidence_unit u WHERE {where}", p)}
    for q in queries:
        if not shortlist.get(q.index):
            continue
        candidates = [c for uid in shortlist[q.index]
                      for c in _spans(q.claim, units[uid], titles.get(q.revision_id), weights_of[q.index])]
        if candidates:
            candidates.sort(key=lambda c: (-c.score, c.start))
            out[q.index].chosen = _joint(candidates, q.claim, titles.get(q.revision_id), weights_of[q.index])
    return out


def _score(alignment: Alignment, cover: float, numbers: float | None) -> float:
    if numbers is None:
        return ALIGN_WEIGHT * alignment.score + (1 - ALIGN_WEIGHT) * cover
    return ALIGN_WEIGHT * alignment.score + (1 - ALIGN_WEIGHT) * (cover + numbers) / 2


def _candidate(claim: str, row: dict[str, Any], start: int, end: int, context: str,
               weights: dict[str, float]) -> Candidate:
    """One span of a unit (document offsets) scored for the claim."""
    text = row["text"][start - row["start"]:end - row["start"]]
    present = set(content_terms(text))
    total = sum(weights.values()) or 1.0
    cover = sum(w for t, w in weights.items() if t in present) / total
    numbers = _numbers(weights)
    alignment = align(claim, f"{text} {context}")
    share = len(numbers & present) / len(numbers) if numbers else None
    return Candidate(row, start, end, round(cover, 4), alignment, _score(alignment, cover, share))


def _spans(claim: str, row: dict[str, Any], title: str | None, weights: dict[str, float]) -> list[Candidate]:
    """Every sentence of the unit (a table row or code block is one span) as a candidate."""
    context = _context(row, title)
    text, base = row["text"], row["start"]
    if row.get("block_type") in {"table_row", "code", "heading"}:
        pieces = [(0, len(text))]
    else:
        pieces = sentence_spans(text)
    out = []
    for a, b in pieces:
        stripped = text[a:b]
        a += len(stripped) - len(stripped.lstrip())
        b -= len(stripped) - len(stripped.rstrip())
        if b > a and any(ch.isalnum() for ch in text[a:b]):
            out.append(_candidate(claim, row, base + a, base + b, context, weights))
    return out


def _joint(candidates: list[Candidate], claim: str, title: str | None,
           weights: dict[str, float]) -> list[Candidate]:
    """The best span, widened to a next or previous sentence of its unit that fills a slot it misses,
    plus other spans that fill missing slots (at most :data:`MAX_JOINT` spans in all)."""
    best = candidates[0]
    wanted = {s.text for s in best.alignment.slots}
    covered = best.found()
    for other in candidates[1:]:  # a neighbouring sentence: one contiguous span (pronouns, lists)
        if covered >= wanted:
            break
        if other.unit_id == best.unit_id and (other.start - best.end in range(0, 3)
                                              or best.start - other.end in range(0, 3)):
            new = other.found() - covered
            if new:
                best = _candidate(claim, best.row, min(best.start, other.start), max(best.end, other.end),
                                  _context(best.row, title), weights)
                covered = best.found() | covered | new
    chosen = [best]
    for other in candidates[1:]:
        if len(chosen) == MAX_JOINT or covered >= wanted:
            break
        if any(o.start < c.end and c.start < o.end for c in chosen for o in (other,)):
            continue
        new = other.found() - covered
        if new and other.alignment.score >= JOINT_MIN_ALIGN:
            chosen.append(other)
            covered |= new
    return chosen


def _numbers(terms: Iterable[str]) -> set[str]:
    return {t for t in terms if any(c.isdigit() for c in t)}


def find_elsewhere(store: Store, queries: Sequence[ElsewhereQuery], *,
                   audience: str = "internal") -> dict[int, dict[str, Any]]:
    """For each query, the best current unit outside its cited sources that holds the claim, if any.

    "Holds" is strict: at least :data:`ELSEWHERE_MIN_ALIGN` of the claim's slots found or paraphrased
    and every number of the claim present. Restricted sources are searched only for the internal
    audience. Returns ``{index: {"unit_id", "source", "start", "end", "score"}}``.
    """
    terms_of = {q.index: content_terms(q.claim) for q in queries}
    qi, term = [], []
    for q in queries:
        for t in terms_of[q.index]:
            qi.append(q.index)
            term.append(t)
    if not qi:
        return {}
    visible = "" if audience != "public" else "AND r.visibility <> 'restricted'"
    rows = store.rows(f"""
        WITH q AS (SELECT unnest(?::INTEGER[]) AS qi, unnest(?::VARCHAR[]) AS term),
        live AS (SELECT u.unit_id FROM evidence_unit u
                 JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id
                 JOIN source_revision r ON r.revision_id = u.revision_id
                 WHERE u.status = 'current' AND r.status = 'current' {visible}),
        df AS (SELECT p.term, count(*) AS n FROM term_posting p
               WHERE p.term IN (SELECT DISTINCT term FROM q) GROUP BY p.term),
        total AS (SELECT count(*) AS n FROM evidence_unit),
        hits AS (SELECT q.qi, p.unit_id,
                        sum(ln(1 + ((SELECT n FROM total) - df.n + 0.5) / (df.n + 0.5))) AS weight
                 FROM q JOIN df ON df.term = q.term
                 JOIN term_posting p ON p.term = q.term
                 JOIN live ON live.unit_id = p.unit_id
                 GROUP BY q.qi, p.unit_id),
        ranked AS (SELECT *, row_number() OVER (PARTITION BY qi ORDER BY weight DESC, unit_id) AS rk FROM hits)
        SELECT r.qi, r.weight, u.unit_id, u.source_key, u.start, u."end", u.text, u.heading_path_json,
               u.table_headers_json, rev.title
        FROM ranked r JOIN evidence_unit u ON u.unit_id = r.unit_id
        JOIN source_revision rev ON rev.revision_id = u.revision_id
        WHERE r.rk <= {ELSEWHERE_CANDIDATES}
        ORDER BY r.qi, r.weight DESC, u.unit_id""", [qi, term])
    found: dict[int, dict[str, Any]] = {}
    by_index = {q.index: q for q in queries}
    for row in rows:
        q = by_index[row["qi"]]
        if row["source_key"] in q.cited_sources:
            continue
        numbers = _numbers(terms_of[q.index])
        if numbers and not numbers <= set(content_terms(row["text"])):
            continue
        score = align(q.claim, f"{row['text']} {_context(row, row['title'])}").score
        if score < ELSEWHERE_MIN_ALIGN:
            continue
        best = found.get(q.index)
        if best is None or score > best["score"]:
            found[q.index] = {"unit_id": row["unit_id"], "source": row["source_key"], "start": row["start"],
                              "end": row["end"], "score": round(score, 4)}
    return found
