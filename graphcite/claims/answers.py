"""Stored answers: immutable revisions with their atomic claims and citations.

Storing the same answer twice is a no-op (the revision id is a hash of its canonical content). A
correction is a new revision linked to the old one with its rationale and the evidence that was
missing; the old answer and everything recorded about it stay.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from graphcite.claims.formats import NO_LIMITS, SPACY_MAX_LENGTH, answer_to_dict, load_answer, parse_json
from graphcite.errors import NotFoundError, make_error
from graphcite.models import AtomicClaim, ExtractedValue, InputAnswer
from graphcite.store import Store, utcnow
from graphcite.store.queries import answers as queries

__all__ = [
    "add_answer",
    "answer_parts",
    "answer_rows",
    "atomic_from_dict",
    "atomic_to_dict",
    "claim_id_for",
    "expand_prefix",
    "get_answer",
    "list_answers",
    "parts_for",
    "suggest_answer",
]

_INT32_MAX = 2**31 - 1  # the citation table's offset and page columns; larger values stay in content_json


def _canonical(answer: InputAnswer) -> str:
    return json.dumps(answer_to_dict(answer), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def answer_rev_for(answer: InputAnswer) -> str:
    return hashlib.sha256(f"{answer.answer_id}\0{_canonical(answer)}".encode()).hexdigest()[:16]


def claim_id_for(answer_rev: str, ordinal: int, part: int | None = None) -> str:
    """Stable claim id: ``c`` + 15 hex of answer revision + position."""
    tag = f"{answer_rev}:{ordinal}" + ("" if part is None else f":{part}")
    return "c" + hashlib.sha256(tag.encode()).hexdigest()[:15]


def atomic_to_dict(claim: AtomicClaim) -> dict[str, Any]:
    return asdict(claim)


def atomic_from_dict(data: dict[str, Any]) -> AtomicClaim:
    fields = dict(data)
    fields["values"] = tuple(ExtractedValue(**v) for v in fields.get("values", ()))
    for key in ("span", "subject_span", "predicate_span", "object_span", "joins"):
        if fields.get(key) is not None:
            fields[key] = tuple(fields[key])
    fields["conditions"] = tuple(fields.get("conditions", ()))
    return AtomicClaim(**fields)


def parts_for(answer: InputAnswer, *, model: str | None = None) -> list[list[AtomicClaim]]:
    """Atomic parts of every claim; a declared claim type overrides the detected one."""
    from graphcite.claims.decompose import decompose  # spaCy: loaded by the commands that decompose only

    out = []
    for i, claim in enumerate(answer.claims):
        if len(claim.text) > SPACY_MAX_LENGTH:  # spaCy's E088: refuse here rather than crash inside it
            raise make_error("E205", where=f"claims[{i}].text", length=len(claim.text), limit=SPACY_MAX_LENGTH)
        parts = decompose(claim.text, model=model) or [AtomicClaim(text=claim.text, span=(0, len(claim.text)))]
        parts = [replace(p, sentence=claim.text, claim_type=claim.claim_type or p.claim_type) for p in parts]
        out.append(parts)
    return out


def add_answer(store: Store, answer: InputAnswer | dict[str, Any] | str, *, corrects: str | None = None,
               rationale: str | None = None, missing_evidence: str | None = None,
               model: str | None = None) -> str:
    """Store an answer revision (idempotent) and return its revision id."""
    if not isinstance(answer, InputAnswer):
        answer = load_answer(answer)
    rev = answer_rev_for(answer)
    if corrects is not None:
        get_answer(store, corrects)  # raises when unknown
    with store.transaction():
        if queries.answer_exists(store, rev):
            return rev
        parts = parts_for(answer, model=model)
        answer_row, claim_rows, citation_rows = answer_rows(rev, answer, parts, stored_at=utcnow(), corrects=corrects,
                                                            rationale=rationale, missing_evidence=missing_evidence)
        store.bulk_insert("answer", [answer_row])
        store.bulk_insert("claim", claim_rows)
        store.bulk_insert("citation", citation_rows)
    return rev


def answer_rows(rev: str, answer: InputAnswer, parts: Sequence[Sequence[AtomicClaim]], *, stored_at: Any,
                corrects: str | None = None, rationale: str | None = None, missing_evidence: str | None = None
                ) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The answer row, claim rows (each claim and its atomic parts) and citation rows of one answer
    revision, as :func:`add_answer` stores them (batch checks write many answers' rows at once)."""
    answer_row = {"answer_rev": rev, "answer_id": answer.answer_id, "question": answer.question,
                  "format": answer.format, "content_json": _canonical(answer), "stored_at": stored_at,
                  "corrects": corrects, "correction_rationale": rationale, "missing_evidence": missing_evidence}
    claim_rows: list[dict[str, Any]] = []
    citation_rows: list[dict[str, Any]] = []
    for ordinal, (claim, claim_parts) in enumerate(zip(answer.claims, parts, strict=True)):
        parent = claim_id_for(rev, ordinal)
        claim_rows.append({"claim_id": parent, "answer_rev": rev, "ordinal": ordinal, "part": None,
                           "parent_id": None, "text": claim.text,
                           "claim_type": claim.claim_type or claim_parts[0].claim_type, "atomic_json": "{}"})
        for index, part in enumerate(claim_parts):
            claim_rows.append({"claim_id": claim_id_for(rev, ordinal, index), "answer_rev": rev,
                               "ordinal": ordinal, "part": index, "parent_id": parent, "text": part.text,
                               "claim_type": part.claim_type,
                               "atomic_json": json.dumps(atomic_to_dict(part), ensure_ascii=False)})
        for index, cit in enumerate(claim.citations):
            citation_rows.append({
                "citation_id": f"{parent}-{index}", "claim_id": parent, "ordinal": index,
                "source_key": cit.source, "revision": cit.revision, "chunk_id": cit.chunk_id,
                "start": _column(cit.start), "end": _column(cit.end), "quote": cit.quote, "role": cit.role,
                "page": _column(cit.page)})
    return answer_row, claim_rows, citation_rows


def _column(value: int | None) -> int | None:
    return value if value is not None and 0 <= value <= _INT32_MAX else None


def suggest_answer(store: Store, ref: str) -> str | None:
    """The stored answer id or revision closest to a mistyped ``ref`` (difflib), or None."""
    close = difflib.get_close_matches(ref.strip(), queries.answer_names(store), n=1, cutoff=0.6)
    return close[0] if close else None


MIN_PREFIX = 4  # the shortest id prefix read as one, as git's short hashes
# ids made of a hash: claim ids (c + hex), answer revisions (hex), derived answer ids (a- + hex); a name a
# producer chose ("relay-retries") is never completed from its start, as git completes hashes, not names
_HASHED = re.compile(r"(?:a-|c)?[0-9a-f]+")


def expand_prefix(store: Store, ref: str, *, claims: bool = True, answers: bool = True) -> str:
    """The stored claim id, answer revision or derived answer id (``a-`` + hex) that ``ref`` is a unique
    prefix of, as git reads a short hash; ``ref`` itself when it is a whole id or a prefix of none. Two or more matches are an
    error naming a few of them, never a guess."""
    ref = ref.strip()
    if len(ref) < MIN_PREFIX or not _HASHED.fullmatch(ref):
        return ref
    names: set[str] = set()
    if answers:
        found = set(queries.answer_names(store))
        if ref in found:
            return ref
        names |= {n for n in found if n.startswith(ref) and _HASHED.fullmatch(n)}
    if claims and ref.isalnum():  # claim ids are letters and digits: nothing to escape in LIKE
        ids = set(queries.claim_ids_starting(store, ref))
        if ref in ids:
            return ref
        names |= ids
    if len(names) == 1:
        return names.pop()
    if len(names) > 1:
        shown = ", ".join(sorted(names)[:4]) + (" ..." if len(names) > 4 else "")
        raise NotFoundError(f"{ref!r} is the start of {len(names)} ids ({shown})", where="ID",
                            fix="give more characters of the id")
    return ref


def get_answer(store: Store, ref: str) -> tuple[str, InputAnswer]:
    """A stored answer by revision id or answer id (latest revision), or a unique prefix of either:
    (answer_rev, answer)."""
    row = queries.answer_by_rev(store, ref) or queries.answer_by_id(store, ref)
    if row is None:
        whole = expand_prefix(store, ref, claims=False)
        if whole != ref:
            row = queries.answer_by_rev(store, whole) or queries.answer_by_id(store, whole)
    if row is None:
        closest = suggest_answer(store, ref)
        raise NotFoundError(f"no stored answer {ref!r}", where="ANSWER",
                            fix=(f"did you mean {closest!r}? " if closest else "")
                            + "pass an answer file, or run `graphcite answers` to list stored ones")
    # stored content passed the limits it was stored under; read it back whatever today's limits are
    answer = load_answer(parse_json(row["content_json"]), format="native", limits=NO_LIMITS)
    return row["answer_rev"], InputAnswer(answer.answer_id, answer.question, answer.claims, row["format"],
                                          answer.documents, not_claims=answer.not_claims)


def answer_parts(store: Store, answer_rev: str) -> list[list[AtomicClaim]]:
    """The stored atomic parts of every claim of an answer revision, in order."""
    grouped: dict[int, list[AtomicClaim]] = {}
    for row in queries.atomic_parts(store, answer_rev):
        grouped.setdefault(row["ordinal"], []).append(atomic_from_dict(json.loads(row["atomic_json"])))
    return [grouped[k] for k in sorted(grouped)]


def list_answers(store: Store) -> list[dict[str, Any]]:
    """Stored answer revisions with their claim counts and correction links."""
    return queries.answer_summaries(store)
