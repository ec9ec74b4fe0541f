"""Request bodies that differ only in their answer id: read once, then given the new id.

A client that issues the same answer under a new id each time (a cached answer, a retry with a
fresh id) sends bodies the service has not seen, so each was read claim by claim and citation by
citation (a third of a new-revision check's CPU time), and its revision id hashed from a fresh
canonical text. :class:`IdlessBodies` keeps, per body content without its ``answer_id``, the answer
read from it and the canonical text after the id, so the next body of that content costs a JSON
parse, the id's own check and one hash.

Kept only when two bodies of the same content read the ordinary way (:func:`load_answer_text`,
:func:`answer_rev_for`) give exactly what the kept form gives for both: the answer field for field
and the revision id. A body that is not a JSON object with ``claims`` and a non-empty string
``answer_id``, or that fails to read, goes the ordinary way (so errors are the ordinary ones).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from graphcite.claims.answers import answer_rev_for
from graphcite.claims.formats import AnswerLimits, load_answer_text
from graphcite.claims.formats.common import AnswerFormatError, answer_to_dict, parse_json, string
from graphcite.errors import GraphciteError
from graphcite.lru import MISSING, LruCache
from graphcite.models import InputAnswer

__all__ = ["IdlessBodies"]

_HEAD = '{"answer_id":'  # the canonical text sorts its keys: the id comes first


@dataclass(frozen=True, slots=True)
class _Read:
    """An answer as read from a body, and its canonical text after the id."""

    answer: InputAnswer
    rest: str


def _rev(answer_id: str, rest: str) -> str:
    """:func:`answer_rev_for` of an answer whose canonical text is ``_HEAD`` + the id + ``rest``."""
    canonical = f"{_HEAD}{json.dumps(answer_id, ensure_ascii=False, separators=(',', ':'))}{rest}"
    return hashlib.sha256(f"{answer_id}\0{canonical}".encode()).hexdigest()[:16]


def _split(answer: InputAnswer, rev: str) -> _Read | None:
    """The kept form of an answer read the ordinary way, or None when its canonical text and revision
    id are not what :func:`_rev` rebuilds."""
    head = f"{_HEAD}{json.dumps(answer.answer_id, ensure_ascii=False, separators=(',', ':'))}"
    canonical = json.dumps(answer_to_dict(answer), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    if not canonical.startswith(head):
        return None
    read = _Read(replace(answer, answer_id=""), canonical[len(head):])
    return read if _rev(answer.answer_id, read.rest) == rev else None


class IdlessBodies:
    """Answers read from bodies by their content without the id (LRU), and the first body of content
    seen once, until a second proves the kept form (see the module docstring)."""

    def __init__(self, max_entries: int = 256) -> None:
        self._firsts: LruCache[Any, tuple[InputAnswer, str]] = LruCache(max_entries)
        self._kept: LruCache[Any, _Read] = LruCache(max_entries)
        #: bodies answered from a kept form
        self.reused = 0

    def parse(self, text: str, format: str | None, documents: list[str] | None, limits: AnswerLimits,
              where: str = "body") -> tuple[InputAnswer, str]:
        """What ``load_answer_text(text, ...)`` and :func:`answer_rev_for` give for ``text``."""
        found = self._content(text, format, documents, limits)
        if found is not None:
            key, answer_id = found
            kept = self._kept.get(key)
            if kept is not MISSING:
                self.reused += 1
                return replace(kept.answer, answer_id=answer_id), _rev(answer_id, kept.rest)  # type: ignore[union-attr]
        answer = load_answer_text(text, format=format, documents=documents, limits=limits, where=where)
        rev = answer_rev_for(answer)
        if found is not None:
            self._learn(found[0], answer, rev)
        return answer, rev

    @staticmethod
    def _content(text: str, format: str | None, documents: list[str] | None,
                 limits: AnswerLimits) -> tuple[Any, str] | None:
        """(the body's content without its id, with what it is read under; the id), or None when the body
        is not one this class reads (then the ordinary reader gives the answer, or the error)."""
        if format not in (None, "native") or (limits.max_bytes is not None and len(text) * 4 > limits.max_bytes):
            return None  # (a body this short is never measured against the byte limit)
        if not text.startswith("{"):
            return None
        try:
            data = parse_json(text)
            if not isinstance(data, dict) or "claims" not in data:
                return None
            answer_id = string(data.pop("answer_id", None), "answer_id")
            content = json.dumps(data, ensure_ascii=False)
        except (GraphciteError, AnswerFormatError, TypeError, ValueError):
            return None
        assert answer_id is not None
        return (content, format, tuple(documents) if documents is not None else None, limits), answer_id

    def _learn(self, key: Any, answer: InputAnswer, rev: str) -> None:
        """Remember an answer read the ordinary way; a second of the same content keeps the form that
        gives both exactly."""
        first = self._firsts.get(key)
        if first is MISSING or first[0].answer_id == answer.answer_id:  # type: ignore[index]
            self._firsts.put(key, (answer, rev))
            return
        read = _split(answer, rev)
        if read is None:
            return
        earlier, earlier_rev = first  # type: ignore[misc]
        if (replace(read.answer, answer_id=answer.answer_id) == answer
                and replace(read.answer, answer_id=earlier.answer_id) == earlier
                and _rev(earlier.answer_id, read.rest) == earlier_rev):
            self._kept.put(key, read)
