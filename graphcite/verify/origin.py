"""Restricted origin: a claim that states what only a restricted source says, while citing a public one.

Laundering looks like this: the answer says "signing secrets are rotated every 45 days" and cites a
public post that says only "on a fixed schedule"; the figure came from a restricted runbook. The
citation check calls that claim insufficient, but the harm is elsewhere: every public export would
copy the restricted figure. This module finds the origin. A claim's *decisive* content is each
value no cited unit agrees with, and each content term that no cited unit and no public unit
contains. A restricted unit is an origin when it is about the same subject (it holds at least half
of the claim's content terms) and holds a decisive value (same number after unit conversion, same
counted noun) or a decisive term. A unit is read with its heading path and, for a table row, the
table's headers (:func:`unit_reading`): a row holds only its cells. Candidates are the restricted units sharing most index terms with
the claim, ranked over the term index's postings of restricted units (one query for many claims; a
batch reads each term's postings once).

The internal report names the units (finding ``restricted-origin``); for the public audience the
claim's text is withheld wherever it would be shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphcite.ingest.terms import content_terms
from graphcite.language.values import values_agree
from graphcite.models import ExtractedValue
from graphcite.store import Store
from graphcite.store.queries import verify as reads

__all__ = ["MIN_SUBJECT_SHARE", "OriginQuery", "restricted_origin", "restricted_origins", "unit_reading"]

CANDIDATES_PER_CLAIM = 20
# share of the claim's content terms a restricted unit must hold to be about the same subject
MIN_SUBJECT_SHARE = 0.5
# A source is restricted when its current visibility is, or when any of its revisions was.
_COUNTS = frozenset({"count", "number"})


@dataclass(frozen=True, slots=True)
class OriginQuery:
    """One claim to check: an id to key the answer by, its text and values, the units its citations name."""

    claim_id: str
    text: str
    values: Sequence[ExtractedValue]
    cited_unit_ids: Sequence[str]


def _numberless(text: str, values: Sequence[ExtractedValue]) -> str:
    """``text`` with every value span blanked (offsets into ``text``; spans that do not fit are ignored)."""
    chars = list(text)
    for value in values:
        if 0 <= value.start <= value.end <= len(text) and text[value.start:value.end] == value.surface:
            chars[value.start:value.end] = " " * (value.end - value.start)
    return "".join(chars)


def _terms(text: str) -> set[str]:
    return {t for t in content_terms(text) if not t.replace(",", "").replace(".", "").isdigit()}


def _same_value(claimed: ExtractedValue, found: ExtractedValue) -> bool:
    if claimed.bound == "approx" or found.bound == "approx":
        return False
    if claimed.kind in _COUNTS and found.kind in _COUNTS and claimed.counted_noun and found.counted_noun \
            and claimed.counted_noun != found.counted_noun:
        return False
    return values_agree(claimed, found) is True


def _value(row: Mapping[str, Any]) -> ExtractedValue:
    return ExtractedValue(start=row["start"], end=row["end"], surface=row["surface"], magnitude=row["magnitude"],
                          unit=row["unit"], dimensionality=row["dimensionality"], kind=row["kind"],
                          counted_noun=row["counted_noun"], bound=row["bound"], low=row["low"], high=row["high"],
                          role=row["role"], measured=row["measured"])


def unit_reading(row: Mapping[str, Any]) -> str:
    """What a unit says, read with where it says it: its heading path, a table row's headers, then its text.

    A table row holds only the cells ("Zephyr | 45"); the headers ("Job | Rotation (days)") and the
    headings above it say what the figure is. The subject test reads them all, so a restricted figure
    that reaches a public answer from a table row is traced to it.
    """
    headings = json.loads(row.get("heading_path_json") or "[]")
    headers = json.loads(row.get("table_headers_json") or "[]") if row.get("table_headers_json") else []
    return "\n".join([*(str(h) for h in headings), *(str(h) for h in headers if h), row["text"]])


def _units(store: Store, unit_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Text, reading (text with headings and headers) and typed values of some units, in two queries."""
    rows = reads.unit_contexts(store, unit_ids)
    values = reads.values_by_unit(store, rows)
    return {unit_id: {"unit_id": unit_id, "text": row["text"], "reading": unit_reading(row),
                      "values": [_value(v) for v in values.get(unit_id, [])]}
            for unit_id, row in rows.items()}


def _candidates(store: Store, terms_per_query: list[set[str]]) -> dict[int, list[str]]:
    """Restricted units sharing the most index terms with each query, best first (one query for all)."""
    qi: list[int] = []
    qterms: list[str] = []
    for i, terms in enumerate(terms_per_query):
        for term in sorted(terms):
            qi.append(i)
            qterms.append(term)
    return reads.restricted_candidates(store, qi, qterms, per_query=CANDIDATES_PER_CLAIM)


def restricted_origins(store: Store, queries: Sequence[OriginQuery]) -> dict[str, list[str]]:
    """Restricted units each claim's decisive values or terms come from, by claim id (claims with none left out).

    A few queries in all, whatever the number of claims; none but one count when the store holds no
    restricted source.
    """
    if not queries or not reads.has_restricted_sources(store):
        return {}
    subject = [_terms(_numberless(q.text, q.values)) for q in queries]
    search = [set(content_terms(q.text)) for q in queries]
    candidates = _candidates(store, search)
    if not candidates:
        return {}
    cited = _units(store, {u for q in queries for u in q.cited_unit_ids if u})
    found = _units(store, {u for units in candidates.values() for u in units})
    cited_terms = {u: _terms(row["reading"]) for u, row in cited.items()}
    missing: list[set[str]] = []
    for q, terms in zip(queries, subject, strict=True):
        seen = set().union(*(cited_terms.get(u, set()) for u in q.cited_unit_ids))
        missing.append(terms - seen)
    public = reads.public_terms(store, set().union(*missing))
    out: dict[str, list[str]] = {}
    for i, q in enumerate(queries):
        if i not in candidates:
            continue
        cited_values = [v for u in q.cited_unit_ids if u in cited for v in cited[u]["values"]]
        decisive_values = [v for v in q.values if v.bound != "approx"
                           and not any(_same_value(v, c) for c in cited_values)]
        decisive_terms = missing[i] - public
        if not decisive_values and not decisive_terms:
            continue
        origins = []
        for unit_id in candidates[i]:
            unit = found.get(unit_id)
            if unit is None or unit_id in q.cited_unit_ids:
                continue
            unit_terms = _terms(unit["reading"])
            if subject[i] and len(subject[i] & unit_terms) < MIN_SUBJECT_SHARE * len(subject[i]):
                continue
            if decisive_terms & unit_terms or any(_same_value(v, w) for v in decisive_values
                                                  for w in unit["values"]):
                origins.append(unit_id)
        if origins:
            out[q.claim_id] = origins
    return out


def restricted_origin(store: Store, claim_text: str, values: Sequence[ExtractedValue],
                      cited_unit_ids: Iterable[str]) -> list[str]:
    """Restricted units that hold the claim's decisive values or terms when no cited unit does, best first."""
    query = OriginQuery("claim", claim_text, list(values), [u for u in cited_unit_ids if u])
    return restricted_origins(store, [query]).get("claim", [])
