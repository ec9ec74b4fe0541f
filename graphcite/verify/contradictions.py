"""Contradictions in the store: current units about the same subject whose values or polarity disagree.

A clean citation list can hide that the corpus says otherwise. For each atomic part, candidate units
come from the term index (one grouped query for the whole answer, top candidates per part), then the
same value and polarity tests the rules use decide whether a candidate contradicts. Superseded
candidates are attached and marked; a current one turns support into a conflict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from graphcite.audience import verdict_may_use_restricted
from graphcite.claims.formats.passages import PASSAGE_PREFIX
from graphcite.language.values import values_agree
from graphcite.models import AtomicClaim, ExtractedValue, InputAnswer
from graphcite.store import Store
from graphcite.store.queries import contradictions as reads
from graphcite.store.queries.verify_memo import memo_of
from graphcite.verify.evidence import negation_of
from graphcite.verify.lexical import lexical_score, support_terms
from graphcite.verify.resolve import ResolvedCitation
from graphcite.verify.rules.common import blank_values
from graphcite.verify.rules.quantity import agree, claim_values, comparable, times_noun
from graphcite.verify.rules.scope import named_entities

__all__ = ["find_contradictions", "prefetch_contradictions", "unit_conflicts"]

CANDIDATES_PER_PART = 12
# terms in more than this share of units ("retry" in a retry archive) do not narrow the search
COMMON_TERM_SHARE = 0.05
MIN_SUBJECT_OVERLAP = 0.75


def _numberless(text: str, values: Sequence[ExtractedValue]) -> str:
    return blank_values(text, list(values))


def _value_from_row(row: dict[str, Any]) -> ExtractedValue:
    offset = row["unit_start"]
    return ExtractedValue(start=row["start"] - offset, end=row["end"] - offset, surface=row["surface"], magnitude=row["magnitude"], unit=row["unit"],
                          dimensionality=row["dimensionality"], kind=row["kind"], counted_noun=row["counted_noun"],
                          bound=row["bound"], low=row["low"], high=row["high"], role=row["role"],
                          measured=row["measured"])


def _sentence_around(text: str, value: ExtractedValue) -> str:
    """The sentence (or table row) of ``text`` holding the value at unit-relative offsets."""
    start = max(text.rfind(". ", 0, value.start), text.rfind("\n", 0, value.start), text.rfind("; ", 0, value.start))
    ends = [i for i in (text.find(". ", value.end), text.find("\n", value.end), text.find("; ", value.end)) if i != -1]
    return text[start + 1: min(ends) if ends else len(text)]


def unit_conflicts(part: AtomicClaim, unit_text: str, unit_values: Sequence[ExtractedValue]) -> str | None:
    """Why a unit contradicts the part (value or polarity), or None.

    Precision first: the disagreeing value must sit in a sentence about the same subject (most of the
    claim's content terms, every name it uses) and be the only comparable value there.
    """
    mine = claim_values(part)
    subject_text = _numberless(part.text, part.values)
    if lexical_score(subject_text, unit_text) < MIN_SUBJECT_OVERLAP:
        return None
    names = {n.lower() for n in named_entities(part.text, initial=True)}
    about: list[ExtractedValue] = []  # values that sit in a sentence about the claim's subject
    for other in unit_values:
        if other.bound == "approx":
            continue  # "a couple of hours" contradicts nothing precisely
        other = times_noun(unit_text, other)
        sentence = _sentence_around(unit_text, other)
        if lexical_score(subject_text, sentence) >= MIN_SUBJECT_OVERLAP and all(n in sentence.lower() for n in names):
            about.append(other)
    checkable = [v for v in mine if v.kind not in {"number", "date", "version", "revision"}]
    for value in checkable:
        if sum(1 for other in checkable if comparable(value, other)) > 1:
            continue  # two durations in one claim: which one a sentence contradicts is a guess
        same = [v for v in about if comparable(value, v) and v.kind == value.kind
                and (v.counted_noun == value.counted_noun or "time" in {v.counted_noun, value.counted_noun}
                     or agree(value, v))
                and (not value.measured or not v.measured or v.measured == value.measured)
                and not ({value.role, v.role} >= {"observed"} and value.role != v.role)]
        if len(same) == 1 and not values_agree(value, same[0]) and not agree(value, same[0]):
            return f"says {same[0].surface!r} where the claim says {value.surface!r}"
    if not mine and lexical_score(part.text, unit_text) >= 0.8 and bool(negation_of(unit_text)) != part.negated:
        return "states the opposite polarity"
    return None


_TermRows = tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]]
_PREFETCHED = "contradiction candidates"


def _term_rows(parts_per_claim: Sequence[Sequence[AtomicClaim]]) -> tuple[dict[tuple[int, int], AtomicClaim],
                                                                         _TermRows]:
    """The parts worth searching (they state values or a negation and have two terms or more), and one
    ``(claim, part, term)`` row per term of each, as parallel tuples."""
    rows_claim: list[int] = []
    rows_part: list[int] = []
    rows_term: list[str] = []
    wanted: dict[tuple[int, int], AtomicClaim] = {}
    for ci, parts in enumerate(parts_per_claim):
        for pi, part in enumerate(parts):
            if not part.values and not part.negated:
                continue
            terms = sorted(support_terms(_numberless(part.text, part.values)))
            if len(terms) < 2:
                continue
            wanted[(ci, pi)] = part
            for term in terms:
                rows_claim.append(ci)
                rows_part.append(pi)
                rows_term.append(term)
    return wanted, (tuple(rows_claim), tuple(rows_part), tuple(rows_term))


def prefetch_contradictions(store: Store, answers_parts: Sequence[Sequence[Sequence[AtomicClaim]]], *,
                            audience: str = "internal") -> None:
    """Search the candidates of many answers' parts in one grouped query; each answer's
    :func:`find_contradictions` for the same audience then takes its own (inside an evidence memo; a
    no-op outside one)."""
    public = not verdict_may_use_restricted(audience)
    memo = memo_of(store)
    if memo is None:
        return
    keys = [_term_rows(parts)[1] for parts in answers_parts]
    answers = [a for a, key in enumerate(keys) for _ in key[2]]
    if not answers:
        return
    found: dict[int, list[dict[str, Any]]] = {a: [] for a, key in enumerate(keys) if key[2]}
    for row in reads.contradiction_candidates(
            store, [c for key in keys for c in key[0]], [p for key in keys for p in key[1]],
            [t for key in keys for t in key[2]], per_part=CANDIDATES_PER_PART, common_share=COMMON_TERM_SHARE,
            answers=answers, public=public):
        found[row.pop("ai")].append(row)
    for a, rows in found.items():
        memo.stash(_PREFETCHED, (public, keys[a]), rows)


def find_contradictions(store: Store, parts_per_claim: Sequence[Sequence[AtomicClaim]], answer: InputAnswer,
                        resolved: Sequence[ResolvedCitation], *,
                        audience: str = "internal") -> dict[tuple[int, int], list[dict[str, Any]]]:
    """Contradicting units per (claim index, part index), found through the term index in bulk.

    For the public audience restricted units are left out before the candidates are ranked, and a
    restricted source supersedes nothing: the result is the one a store without them would give.
    Passages stored from answers (``passages/...``) never stand against a claim: another sample's
    passage would make one answer's verdict depend on what else a data set holds.
    """
    public = not verdict_may_use_restricted(audience)
    wanted, key = _term_rows(parts_per_claim)
    if not wanted:
        return {}
    cited_units = {c.unit_id for c in resolved if c.unit_id}
    memo = memo_of(store)
    candidates = memo.take(_PREFETCHED, (public, key)) if memo is not None else None
    if candidates is None:
        candidates = reads.contradiction_candidates(store, *key, per_part=CANDIDATES_PER_PART,
                                                    common_share=COMMON_TERM_SHARE, public=public)
    if not candidates:
        return {}
    value_rows = reads.values_with_unit_start(store, {c["unit_id"] for c in candidates})
    superseded = reads.superseded_sources(store, public=public)
    values_by_unit: dict[str, list[ExtractedValue]] = {}
    for row in value_rows:
        values_by_unit.setdefault(row["unit_id"], []).append(_value_from_row(row))
    found: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for cand in candidates:
        key = (cand["ci"], cand["pi"])
        if cand["unit_id"] in cited_units or key not in wanted:
            continue
        if cand["source_key"].startswith(PASSAGE_PREFIX):
            continue  # a passage that came with an answer is that answer's evidence, not the corpus's
        reason = unit_conflicts(wanted[key], cand["text"], values_by_unit.get(cand["unit_id"], []))
        if not reason:
            continue
        status = cand["status"]
        if cand["source_key"] in superseded and status == "current":
            status = "superseded"
        if status not in {"current", "superseded", "historical"}:
            continue
        found.setdefault(key, []).append({
            "unit_id": cand["unit_id"], "source": cand["source_key"], "quote": cand["text"],
            "status": status, "heading_path": json.loads(cand["heading_path_json"] or "[]"),
            "page": cand["page"], "superseded_by": superseded.get(cand["source_key"]), "reason": reason,
        })
    return found
