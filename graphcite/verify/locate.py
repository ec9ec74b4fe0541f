"""Locate the evidence for a citation that names a source (or a unit, or a document and pages) but no span.

Most RAG systems cite a file, a chunk or a URL, not a quote. Such a citation is checked like any other
(the source must exist, be visible to the audience, and have the cited revision; see
:mod:`graphcite.verify.resolve`), then its evidence is located in the cited revision, and only there:

1. the revision's units are ranked for the claim by BM25 over the term index (``term_posting``: rare
   terms of the document weigh more, long units are damped); pages or a cited unit narrow the units;
2. the sentences of the best :data:`CANDIDATE_UNITS` units (a table row is one span, code is cut into
   lines) are scored for each atomic part of the claim: the share of its slots found or paraphrased
   (:func:`graphcite.language.align.align`, values blanked as the engine does), the share of its values
   stated in any unit ("a fortnight" meets "14 days"), and the share of its term weight;
3. each part keeps its best sentence, so "X offers a lookup and keeps keys for 24 hours" may rest on two
   sentences of the source (joint support, at most :data:`MAX_JOINT` spans).

The engine then verifies the claim against the located span(s) like any quoted span; the report says
``located: true`` with the rank score. A revision's units and index terms are read once per store
(:func:`revision_indexes`): revisions are immutable, so later claims citing it cost no round trip.

:func:`find_elsewhere` looks for an uncited, current, visible unit that holds the claim (every number, at
least :data:`ELSEWHERE_MIN_ALIGN` of its slots). It is named next to a located citation that does not
support its claim (``supported_elsewhere``) and never makes the claim supported.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graphcite.audience import verdict_may_use_restricted
from graphcite.claims.decompose import decompose
from graphcite.claims.markers import sentence_spans
from graphcite.ingest.terms import content_terms
from graphcite.ingest.values import extract_values, values_agree
from graphcite.language.align import Alignment, align
from graphcite.models import ExtractedValue
from graphcite.store import Store
from graphcite.store.queries import verify as reads
from graphcite.verify.lexical import NUMBER_WORDS
from graphcite.verify.rules.common import blank_values

__all__ = [
    "ALIGN_WEIGHT",
    "CANDIDATE_UNITS",
    "LONG_SPAN",
    "MAX_JOINT",
    "SPANS_ALIGNED",
    "Candidate",
    "ElsewhereQuery",
    "LocateQuery",
    "Ranking",
    "RevisionIndex",
    "find_elsewhere",
    "rank_units",
    "revision_indexes",
]

CANDIDATE_UNITS = 6  # units whose sentences are considered after the term ranking
# a cited span longer than this (code points: a whole document, a long unit) is narrowed before the rules
# run: its units are ranked for the claim like a located citation's and the rules read the chosen sentences
LONG_SPAN = 2_000
SPANS_ALIGNED = 4  # sentences of those units aligned with each part of the claim (most term weight first)
MAX_JOINT = 3  # spans a located claim may rest on together (one per atomic part)
ALIGN_WEIGHT = 0.7  # share of the rank score given to slot alignment (the rest: term coverage)
VALUE_ALIGN_WEIGHT, VALUE_WEIGHT = 0.55, 0.3  # the same when the claim states values: slots, values, terms
ELSEWHERE_MIN_ALIGN = 0.75  # an uncited unit "holds" the claim from this slot share, with every number
ELSEWHERE_CANDIDATES = 12  # best units (by term weight) outside the cited sources that are aligned
# a term in more units than this share of the store (and more than ELSEWHERE_COMMON_UNITS) is too common
# to narrow the search elsewhere ("relay" in a relay handbook), as for contradiction candidates
ELSEWHERE_COMMON_SHARE, ELSEWHERE_COMMON_UNITS = 0.05, 50
_K1, _B = 1.2, 0.75  # BM25 constants
_LINE = re.compile(r"[^\n]*\S[^\n]*")
_WORD = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True, slots=True)
class LocateQuery:
    """One citation to locate: the claim it backs and the revision (and pages, or unit) it names."""

    index: int
    claim: str
    revision_id: str
    first_page: int | None = None
    last_page: int | None = None
    unit_id: str | None = None  # a chunk citation: the unit is given, only its fit is scored
    span: tuple[int, int] | None = None  # a long cited span (document offsets): only its sentences are read


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
    values: float | None = None  # share of the claim's values the span states (None: the claim has none)

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

    @property
    def complete(self) -> bool:
        """Every slot and value of every part found in a current unit: no need to look elsewhere."""
        return bool(self.chosen) and all(
            c.alignment.score >= 1.0 and c.values in (None, 1.0) and c.row.get("status") == "current"
            for c in self.chosen)


@dataclass(frozen=True, slots=True)
class ElsewhereQuery:
    """A located claim whose support may lie in a source it does not cite."""

    index: int
    claim: str
    cited_sources: frozenset[str]


def _context(row: dict[str, Any], title: str | None) -> str:
    """What a span of the unit is read with, as in the evidence envelope: headings, table headers, title."""
    headings = json.loads(row.get("heading_path_json") or "[]")
    headers = json.loads(row.get("table_headers_json") or "[]")
    symbol = (row.get("symbol") or "").replace("_", " ").replace(".", " ")
    return " ".join([*headings, *headers, symbol, title or ""])


@dataclass(slots=True)
class RevisionIndex:
    """The units of one revision with their index terms, as the term index holds them.

    Revisions are immutable, so an index is built once per store and revision (one query) and every
    later claim citing the revision is ranked without a round trip.
    """

    units: dict[str, dict[str, Any]]
    postings: dict[str, list[str]]  # term -> unit ids, in document order
    sizes: dict[str, int]

    @property
    def total_units(self) -> int:
        return len(self.units)


_INDEXES: weakref.WeakKeyDictionary[Store, dict[str, RevisionIndex]] = weakref.WeakKeyDictionary()
_INDEXED_UNITS_LIMIT = 200_000  # units kept per store; beyond it the oldest revisions are dropped


def revision_indexes(store: Store, revision_ids: Iterable[str]) -> dict[str, RevisionIndex]:
    """The :class:`RevisionIndex` of each revision, from the per-store cache or one bulk query."""
    cache = _INDEXES.setdefault(store, {})
    missing = sorted({r for r in revision_ids if r not in cache})
    if missing:
        built = {r: RevisionIndex({}, {}, {}) for r in missing}
        for row in reads.units_with_terms(store, missing):
            index = built[row["revision_id"]]
            terms = row.pop("_terms") or []
            index.units[row["unit_id"]] = row
            index.sizes[row["unit_id"]] = len(row["text"])
            for term in terms:
                index.postings.setdefault(term, []).append(row["unit_id"])
        cache.update(built)
        while sum(i.total_units for i in cache.values()) > _INDEXED_UNITS_LIMIT and len(cache) > len(built):
            del cache[next(iter(cache))]
    return {r: cache[r] for r in revision_ids if r in cache}


def rank_units(store: Store, queries: Sequence[LocateQuery],
               titles: dict[str, str | None] | None = None) -> dict[int, Ranking]:
    """Rank the sentences of the best units of each query's revision for its claim: BM25 over the
    revision's index terms picks :data:`CANDIDATE_UNITS` units, then their sentences are aligned with
    each part of the claim.

    ``titles`` maps revision ids to titles, read with every unit as in the evidence envelope.
    Returns one :class:`Ranking` per query index.
    """
    titles = titles or {}
    out = {q.index: Ranking(problem="no unit") for q in queries}
    indexes = revision_indexes(store, [q.revision_id for q in queries])
    for q in queries:
        index = indexes.get(q.revision_id)
        if index is None:
            continue
        scope = [u for u, row in index.units.items() if _in_scope(row, q)]
        if not scope:
            continue
        in_scope = set(scope) if len(scope) != index.total_units else None
        terms = _terms(q.claim)
        average = sum(index.sizes[u] for u in scope) / len(scope) or 1.0
        weights: dict[str, float] = {}
        scores: dict[str, float] = {}
        for term in terms:
            posted = [u for u in index.postings.get(term, ()) if in_scope is None or u in in_scope]
            weights[term] = weight = math.log(1 + (len(scope) - len(posted) + 0.5) / (len(posted) + 0.5))
            for unit in posted:
                scores[unit] = scores.get(unit, 0.0) + weight
        ranked = sorted(scores, key=lambda u: (-scores[u] * (_K1 + 1) / (
            1 + _K1 * (1 - _B + _B * index.sizes[u] / average)), index.units[u]["start"]))
        top = ranked[:CANDIDATE_UNITS] or ([q.unit_id] if q.unit_id else _first_read(index, scope) if q.span else [])
        ranking = out[q.index] = Ranking(considered=len(scores))
        if top:
            ranking.chosen = _choose(q.claim, [index.units[u] for u in top], titles.get(q.revision_id), weights,
                                     q.span)
    return out


def _first_read(index: RevisionIndex, scope: list[str]) -> list[str]:
    """A cited span none of whose units shares a term with the claim is read in its first unit that is
    no heading (the claim then fails lexical support, as it would against the whole span)."""
    return [u for u in scope if index.units[u].get("block_type") != "heading"][:1]


def _in_scope(row: dict[str, Any], query: LocateQuery) -> bool:
    if query.unit_id is not None and row["unit_id"] != query.unit_id:
        return False
    if query.span is not None and not (row["start"] < query.span[1] and row["end"] > query.span[0]):
        return False
    if query.first_page is None:
        return True
    page = row.get("page")
    return page is not None and query.first_page <= page <= (query.last_page or query.first_page)


def _choose(claim: str, rows: list[dict[str, Any]], title: str | None,
            weights: dict[str, float], within: tuple[int, int] | None = None) -> list[Candidate]:
    """The best span for each atomic part of the claim ("X offers a lookup and keeps keys for 24 hours"
    rests on two sentences), best first; one span when every part finds the same one."""
    chosen: list[Candidate] = []
    heaviest = max(weights.values(), default=1.0)
    for part in _parts(claim)[:MAX_JOINT]:
        part_weights = {t: weights.get(t, heaviest) for t in _terms(part)}
        candidates = _spans(part, rows, title, part_weights, within)
        if not candidates:
            continue
        best = min(candidates, key=lambda c: (-c.score, c.start))
        if all((best.start, best.end) != (c.start, c.end) for c in chosen):
            chosen.append(best)
    return sorted(chosen, key=lambda c: -c.score)


@lru_cache(maxsize=4096)
def _parts(claim: str) -> tuple[str, ...]:
    """The claim's atomic parts as the engine will read them (one when it is not compound)."""
    texts = tuple(p.text for p in decompose(claim) if p.text.strip())
    return texts or (claim,)


def _score(alignment: Alignment, cover: float, values: float | None) -> float:
    """Slots first; the share of the claim's values (when it has any) next; term coverage last."""
    if values is None:
        return ALIGN_WEIGHT * alignment.score + (1 - ALIGN_WEIGHT) * cover
    return VALUE_ALIGN_WEIGHT * alignment.score + VALUE_WEIGHT * values + (
        1 - VALUE_ALIGN_WEIGHT - VALUE_WEIGHT) * cover


def _value_share(claim_values: Sequence[ExtractedValue], text: str) -> float | None:
    """Share of the claim's values (dates aside: they often come from a title) that the span states,
    in any unit ("a fortnight" meets "14 days"); None when the claim has none."""
    wanted = [v for v in claim_values if v.kind != "date"]
    if not wanted:
        return None
    mine = extract_values(text)
    return sum(1 for v in wanted if any(_same_value(v, w) for w in mine)) / len(wanted)


def _same_value(claim: ExtractedValue, other: ExtractedValue) -> bool:
    if values_agree(claim, other):
        return True
    return other.unit is None and other.magnitude is not None and other.magnitude == claim.magnitude


def _candidate(claim: str, span: _Span, weights: dict[str, float]) -> Candidate:
    """One span of a unit scored for the claim: slots, values, terms."""
    values = _claim_values(claim)
    alignment = align(_blanked(claim), f"{span.text} {span.context}")
    share = _value_share(values, span.text)
    return Candidate(span.row, span.start, span.end, round(span.cover, 4), alignment,
                     _score(alignment, span.cover, share), share)


@dataclass(frozen=True, slots=True)
class _Span:
    row: dict[str, Any]
    start: int
    end: int
    text: str
    context: str
    cover: float


def _spans(claim: str, rows: list[dict[str, Any]], title: str | None,
           weights: dict[str, float], within: tuple[int, int] | None = None) -> list[Candidate]:
    """Sentences of the units (a table row is one span, code is cut into lines) as candidates: the
    :data:`SPANS_ALIGNED` that hold most of the claim's term weight (with their headings and title) and
    of its values are aligned with it. ``within`` (document offsets) cuts every sentence to a cited span."""
    total = sum(weights.values()) or 1.0
    values = _claim_values(claim)
    scored: list[tuple[float, _Span]] = []
    for row in rows:
        context = _context(row, title)
        around = set(_terms(context))
        text, base = row["text"], row["start"]
        kind = row.get("block_type")
        if kind == "heading":
            continue  # a heading is read as the context of the units under it
        if kind == "table_row":
            pieces = [(0, len(text))]
        elif kind == "code":
            pieces = [(m.start(), m.end()) for m in _LINE.finditer(text)]
        else:
            pieces = sentence_spans(text)
        for a, b in pieces:
            if within is not None:
                a, b = max(a, within[0] - base), min(b, within[1] - base)
                if b <= a:
                    continue
            piece = text[a:b]
            a += len(piece) - len(piece.lstrip())
            b -= len(piece) - len(piece.rstrip())
            if b > a and any(ch.isalnum() for ch in text[a:b]):
                present = set(_terms(text[a:b]))
                cover = sum(w for t, w in weights.items() if t in present) / total
                read = sum(w for t, w in weights.items() if t in present or t in around) / total
                share = _value_share(values, text[a:b])
                scored.append((read + (share or 0.0), _Span(row, base + a, base + b, text[a:b], context, cover)))
    scored.sort(key=lambda x: (-x[0], x[1].start))
    return [_candidate(claim, span, weights) for _, span in scored[:SPANS_ALIGNED]]


@lru_cache(maxsize=4096)
def _claim_values(claim: str) -> tuple[ExtractedValue, ...]:
    return tuple(extract_values(claim))


@lru_cache(maxsize=4096)
def _blanked(claim: str) -> str:
    """The claim without its values, as the engine aligns it: numbers and dates are the value rules' job."""
    return blank_values(claim, _claim_values(claim))


def _terms(text: str) -> list[str]:
    """Content terms as the term index holds them, plus number words as digits ("three" meets "3")."""
    terms = content_terms(text)
    digits = [NUMBER_WORDS[w] for w in _WORD.findall(text.lower()) if w in NUMBER_WORDS]
    return list(dict.fromkeys([*terms, *digits]))


def _numbers(terms: Iterable[str]) -> set[str]:
    """The plain numbers among terms ("3", "1,500", "4.5"), years aside."""
    return {t for t in terms if _NUMBER.fullmatch(t) and not _YEAR.fullmatch(t)}


def find_elsewhere(store: Store, queries: Sequence[ElsewhereQuery], *,
                   audience: str = "internal") -> dict[int, dict[str, Any]]:
    """For each query, the best current unit outside its cited sources that holds the claim, if any.

    "Holds" is strict: at least :data:`ELSEWHERE_MIN_ALIGN` of the claim's slots found or paraphrased
    and every number of the claim present. Restricted sources are searched only for the internal
    audience. Three plain bulk queries for all queries (term counts, postings of the rarer terms, the
    best units). Returns ``{index: {"unit_id", "source", "start", "end", "score"}}``.
    """
    terms_of = {q.index: _terms(q.claim) for q in queries}
    wanted = {t for terms in terms_of.values() for t in terms}
    if not wanted:
        return {}
    public = not verdict_may_use_restricted(audience)
    if public:  # counted and ranked over the public units only, in SQL: the public answer reads no restricted posting
        total = reads.public_unit_count(store)
        df = reads.public_term_frequencies(store, wanted)
    else:
        total = reads.evidence_unit_count(store)
        df = reads.term_frequencies(store, wanted)
    rare = {t for t, n in df.items() if n <= max(ELSEWHERE_COMMON_UNITS, total * ELSEWHERE_COMMON_SHARE)}
    if not rare:
        return {}
    postings = reads.public_term_postings(store, rare) if public else reads.term_postings(store, rare)
    best: dict[int, list[str]] = {}
    for q in queries:
        scores: dict[str, float] = {}
        for term in terms_of[q.index]:
            weight = math.log(1 + (total - df.get(term, 0) + 0.5) / (df.get(term, 0) + 0.5))
            for unit in postings.get(term, ()):
                scores[unit] = scores.get(unit, 0.0) + weight
        best[q.index] = sorted(scores, key=lambda u: (-scores[u], u))[:ELSEWHERE_CANDIDATES]
    units = {u for ids in best.values() for u in ids}
    if not units:
        return {}
    rows = reads.current_units(store, units, public=public)
    found: dict[int, dict[str, Any]] = {}
    for q in queries:
        numbers = _numbers(terms_of[q.index])
        for unit in best.get(q.index, []):
            row = rows.get(unit)
            if row is None or row["source_key"] in q.cited_sources:
                continue
            if numbers and not numbers <= set(_terms(row["text"])):
                continue
            score = align(_blanked(q.claim), f"{row['text']} {_context(row, row['title'])}").score
            if score >= ELSEWHERE_MIN_ALIGN and (q.index not in found or score > found[q.index]["score"]):
                found[q.index] = {"unit_id": row["unit_id"], "source": row["source_key"], "start": row["start"],
                                  "end": row["end"], "score": round(score, 4)}
    return found
