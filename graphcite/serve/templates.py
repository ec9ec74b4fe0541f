"""New answer revisions of content checked before: the same report, records and rows under new ids.

An answer's id goes into its revision id, and the revision id into every claim id; nothing else in
a report, a verification record or the stored rows depends on them (the report memo is keyed on
that, see :mod:`graphcite.serve.memo`). A client that sends the same content under new ids (a
cached answer issued again, a retry with a fresh id) would have the service encode the same report,
the same records and the same atomic parts again for every revision. A :class:`RevisionTemplate`
holds them once, with holes where the ids go: the report's JSON text, each record's result text,
and the answer, claim and citation rows with their ids re-derived.

A template is made only from two revisions of the same content prepared the ordinary way, and only
when filling it for each gives exactly what the ordinary path gave: the texts byte for byte, the
rows field for field (the time stored aside). Content seen once costs nothing more than keeping
what its first check prepared. Templates serve only revisions that are not stored yet: a stored
revision keeps the atomic parts it was stored with.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphcite.claims.answers import claim_id_for
from graphcite.lru import MISSING, LruCache
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.serve.jsontext import json_text
from graphcite.verify.check import PreparedCheck
from graphcite.verify.records import ClaimRecord, result_json

__all__ = ["HoledText", "RevisionTemplate", "TemplateDesk"]

#: what goes into a hole: the answer id, the revision id, or the id of the claim at a position
Hole = tuple[str, int]
AnswerRows = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]
_ANSWER_ID: Hole = ("answer_id", 0)
_REV: Hole = ("answer_rev", 0)


@dataclass(frozen=True, slots=True)
class HoledText:
    """JSON text with holes: ``pieces[0] + hole 0 + pieces[1] + ...``, each hole a JSON value."""

    pieces: tuple[str, ...]
    holes: tuple[Hole, ...]

    def fill(self, values: Mapping[Hole, str]) -> str:
        """The text with every hole replaced by its value's JSON text."""
        out = [self.pieces[0]]
        for hole, piece in zip(self.holes, self.pieces[1:], strict=True):
            out.append(values[hole])
            out.append(piece)
        return "".join(out)

    @classmethod
    def encode(cls, build: Callable[[Callable[[Hole], Any]], Any], dump: Callable[[Any, Callable[[Any], Any]], str]
               ) -> HoledText | None:
        """``dump(content, default)`` of ``content = build(mark)``, where each ``mark(hole)`` becomes a hole.

        A mark is an object the encoder hands to ``default``, which writes a string no evidence can
        hold (it carries a random nonce); None when a mark does not come out exactly once.
        """
        nonce = secrets.token_hex(8)
        marks: list[Hole] = []

        def mark(hole: Hole) -> _Mark:
            marks.append(hole)
            return _Mark(len(marks) - 1)

        def default(value: Any) -> Any:
            return f"\ue000{nonce}:{value.number}\ue001" if isinstance(value, _Mark) else str(value)

        split = re.split(f'"\ue000{nonce}:(\\d+)\ue001"', dump(build(mark), default))
        found = [int(n) for n in split[1::2]]
        if sorted(found) != list(range(len(marks))):
            return None
        return cls(tuple(split[0::2]), tuple(marks[n] for n in found))


class _Mark:
    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number


def _values(answer_id: str, rev: str, indexes: Sequence[int]) -> dict[Hole, str]:
    values = {_ANSWER_ID: json.dumps(answer_id, ensure_ascii=False), _REV: json.dumps(rev)}
    for position, index in enumerate(indexes):
        values[("claim", position)] = json.dumps(claim_id_for(rev, index))
    return values


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What the first check of some content prepared: enough to test a template against."""

    answer_id: str
    rev: str
    text: str
    records: tuple[ClaimRecord, ...]
    rows: AnswerRows


@dataclass(frozen=True, slots=True)
class RevisionTemplate:
    """A report text, record texts and answer rows with holes for the ids (see the module docstring)."""

    report: HoledText
    results: tuple[HoledText, ...]
    records: tuple[ClaimRecord, ...]
    indexes: tuple[int, ...]
    content_prefix: str
    content_rest: str
    rows: AnswerRows
    rev: str
    parts: list[list[AtomicClaim]]

    @classmethod
    def make(cls, report: dict[str, Any], records: Sequence[ClaimRecord], rows: AnswerRows,
             parts: list[list[AtomicClaim]]) -> RevisionTemplate | None:
        """The template of a prepared check's ``report`` (a dict with its ids), or None when the ids do
        not sit where this module puts its holes."""
        claims = report.get("claims")
        if not isinstance(claims, list) or len(claims) != len(records) or "answer_rev" not in report:
            return None
        rev, answer_id = report["answer_rev"], rows[0]["answer_id"]
        indexes = tuple(c.get("index") for c in claims)
        if report.get("answer_id") != answer_id or not all(isinstance(i, int) for i in indexes):
            return None
        if [c.get("claim_id") for c in claims] != [claim_id_for(rev, i) for i in indexes]:  # type: ignore[arg-type]
            return None

        def marked(mark: Callable[[Hole], Any]) -> dict[str, Any]:
            return {**report, "answer_id": mark(_ANSWER_ID), "answer_rev": mark(_REV),
                    "claims": [{**c, "claim_id": mark(("claim", n))} for n, c in enumerate(claims)]}

        holed = HoledText.encode(marked, lambda content, default: json_text(content, default=default))
        results = []
        for n, claim in enumerate(claims):
            result = HoledText.encode(lambda mark, n=n, claim=claim: {**claim, "claim_id": mark(("claim", n))},
                                      lambda content, default: result_json(content, default=default))
            if result is None:
                return None
            results.append(result)
        content = rows[0]["content_json"]
        prefix = '{"answer_id":'
        head = prefix + json.dumps(answer_id, ensure_ascii=False)
        if holed is None or not content.startswith(head):
            return None
        return cls(holed, tuple(results), tuple(records), indexes, prefix, content[len(head):], rows, rev, parts)

    def fill(self, answer: InputAnswer, rev: str, stored_at: Any) -> PreparedCheck:
        """The prepared check of ``answer`` (a new revision ``rev`` of this content)."""
        values = _values(answer.answer_id, rev, self.indexes)
        text = self.report.fill(values)
        records = [replace(record, claim_id=claim_id_for(rev, index), result_json=result.fill(values))
                   for record, index, result in zip(self.records, self.indexes, self.results, strict=True)]
        return PreparedCheck(rev, None, self._rows(answer, rev, stored_at), records, text)

    def _rows(self, answer: InputAnswer, rev: str, stored_at: Any) -> AnswerRows:
        answer_row, claim_rows, citation_rows = self.rows
        ids: dict[str, str] = {}
        for row in claim_rows:
            ids[row["claim_id"]] = claim_id_for(rev, row["ordinal"], row["part"])
        content = self.content_prefix + json.dumps(answer.answer_id, ensure_ascii=False) + self.content_rest
        return ({**answer_row, "answer_rev": rev, "answer_id": answer.answer_id, "content_json": content,
                 "stored_at": stored_at},
                [{**row, "claim_id": ids[row["claim_id"]], "answer_rev": rev,
                  "parent_id": None if row["parent_id"] is None else ids[row["parent_id"]]} for row in claim_rows],
                [{**row, "citation_id": f"{ids[row['claim_id']]}-{row['ordinal']}", "claim_id": ids[row["claim_id"]]}
                 for row in citation_rows])

    def gives(self, snapshot: _Snapshot, answer: InputAnswer) -> bool:
        """True when filling this template for ``snapshot``'s revision gives what was prepared for it."""
        if answer.answer_id != snapshot.answer_id:
            return False
        filled = self.fill(answer, snapshot.rev, snapshot.rows[0]["stored_at"])
        return (filled.text == snapshot.text and tuple(filled.records) == snapshot.records
                and filled.answer_rows == snapshot.rows)


class TemplateDesk:
    """Templates by content (LRU), and the first check of content seen once, until a second comes."""

    def __init__(self, max_entries: int = 256) -> None:
        self._firsts: LruCache[Any, _Snapshot] = LruCache(max_entries)
        self._templates: LruCache[Any, RevisionTemplate] = LruCache(max_entries)
        #: templates made, and revisions prepared from one
        self.made = 0
        self.filled = 0

    @staticmethod
    def content_key(answer: InputAnswer, *context: Any) -> Any:
        """The content of ``answer`` without its id, with ``context`` (configuration, audience, model,
        evidence generation); None when some field cannot be hashed."""
        key = (replace(answer, answer_id=""), *context)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def get(self, key: Any) -> RevisionTemplate | None:
        """The template of the content ``key`` names, if one was made."""
        found = self._templates.get(key)
        return None if found is MISSING else found  # type: ignore[return-value]

    def fill(self, template: RevisionTemplate, answer: InputAnswer, rev: str, stored_at: Any) -> PreparedCheck:
        """:meth:`RevisionTemplate.fill`, counted."""
        self.filled += 1
        return template.fill(answer, rev, stored_at)

    def learn(self, key: Any, answer: InputAnswer, prepared: PreparedCheck,
              parts: list[list[AtomicClaim]] | None) -> None:
        """Remember a new revision prepared the ordinary way (its report dict and text both set); the
        second revision of some content makes the template, kept when it gives both exactly."""
        if prepared.report is None or prepared.text is None or prepared.answer_rows is None or parts is None:
            return
        snapshot = _Snapshot(answer.answer_id, prepared.rev, prepared.text, tuple(prepared.records),
                             prepared.answer_rows)
        first = self._firsts.get(key)
        if first is MISSING or first.rev == prepared.rev:  # type: ignore[union-attr]
            self._firsts.put(key, snapshot)
            return
        template = RevisionTemplate.make(prepared.report, prepared.records, prepared.answer_rows, parts)
        if template is None:
            return
        earlier = replace(answer, answer_id=first.answer_id)  # type: ignore[union-attr]
        if template.gives(snapshot, answer) and template.gives(first, earlier):  # type: ignore[arg-type]
            self._templates.put(key, template)
            self.made += 1
