"""Passages that come with an answer: the text a RAG system retrieved, carried inside the answer.

A LangChain document's ``page_content``, a LlamaIndex node's ``text``, an ALCE doc's ``text``, a
RAGAS context and a native citation's ``passage`` are each read into a
:class:`~graphcite.models.Passage` whose ``key`` is content-addressed (:func:`passage_key`): the same
text is one source however many answers carry it. The citation keeps the producer's name for the
document (``source``) and points at its passage (``CitationRef.passage``);
:func:`graphcite.rag.store_passages` later decides whether it is verified against the stored document
the passage came from or against the passage itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graphcite.claims.formats.common import check_text, json_type, string
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, Passage
from graphcite.models.findings import ANSWER_PASSAGE

__all__ = [
    "EVIDENCE_KIND",
    "PASSAGE_FIELDS",
    "PASSAGE_PREFIX",
    "PassageList",
    "check_passage_indexes",
    "evidence_kind",
    "passage_from_dict",
    "passage_key",
    "passage_to_dict",
]

PASSAGE_PREFIX = "passages/"  # the source keys of passages stored from answers
PASSAGE_FIELDS = ("key", "text", "name", "url", "title", "start_index")
EVIDENCE_KIND = ANSWER_PASSAGE  # what a report citation of a passage that came with its answer says it rests on


def evidence_kind(source_key: str | None) -> str | None:
    """``answer-passage`` for a source stored from a passage that came with an answer, else None (a
    document of the store). One test for every place that tells the two apart (reports, the CLI, eval-rag)."""
    return EVIDENCE_KIND if source_key and source_key.startswith(PASSAGE_PREFIX) else None


def passage_key(text: str) -> str:
    """The source key a passage's text is stored under: ``passages/`` + 16 hex of its SHA-256 + ``.txt``."""
    return f"{PASSAGE_PREFIX}{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.txt"


def passage_to_dict(passage: Passage) -> dict[str, Any]:
    """A passage in the canonical answer form (absent fields left out)."""
    return {name: getattr(passage, name) for name in PASSAGE_FIELDS if getattr(passage, name) is not None}


def passage_from_dict(raw: Any, where: str) -> Passage:
    """A passage written by :func:`passage_to_dict` (or by hand): ``{"text", "name"?, "url"?, "title"?,
    "start_index"?}``; a ``key`` that does not match the text is an error, never trusted."""
    if not isinstance(raw, Mapping):
        raise AnswerFormatError(f"expected a passage object, found {json_type(raw)}", where=where)
    unknown = sorted(str(k) for k in raw if k not in PASSAGE_FIELDS)
    if unknown:
        raise AnswerFormatError(f"unknown passage field {unknown[0]!r}", where=where,
                                fix=f"allowed fields: {', '.join(PASSAGE_FIELDS)}")
    text = string(raw.get("text"), f"{where}.text") or ""
    key = passage_key(text)
    if raw.get("key") is not None and raw.get("key") != key:
        raise AnswerFormatError("the passage's key does not match its text", where=f"{where}.key",
                                fix="leave 'key' out: it is the hash of the text")
    return Passage(key=key, text=text, name=_name(raw.get("name"), f"{where}.name"),
                   url=_name(raw.get("url"), f"{where}.url"), title=_name(raw.get("title"), f"{where}.title"),
                   start_index=_start(raw.get("start_index")))


class PassageList:
    """The passages one answer carries, each once, in the order first met (a citation holds its index)."""

    __slots__ = ("_index", "passages")

    def __init__(self) -> None:
        self.passages: list[Passage] = []
        self._index: dict[Passage, int] = {}

    def add(self, text: Any, where: str, *, name: Any = None, url: Any = None, title: Any = None,
            start_index: Any = None) -> int | None:
        """The index of this passage (added when new), or None when ``text`` is empty or not text."""
        if not isinstance(text, str) or not text.strip():
            return None
        check_text(text, where)
        passage = Passage(key=passage_key(text), text=text, name=_name(name, where), url=_name(url, where),
                          title=_name(title, where), start_index=_start(start_index))
        if passage not in self._index:
            self._index[passage] = len(self.passages)
            self.passages.append(passage)
        return self._index[passage]

    def cite(self, ref: CitationRef | None, index: int | None) -> CitationRef:
        """``ref`` pointing at passage ``index``; a passage with no name to cite cites its own key."""
        from dataclasses import replace

        if index is None:
            return ref if ref is not None else CitationRef(defect="a retrieved passage has neither text nor a name")
        if ref is None:
            return CitationRef(source=self.passages[index].key, passage=index)
        if ref.source is None and ref.chunk_id is None:
            return replace(ref, source=self.passages[index].key, passage=index)
        return replace(ref, passage=index)

    def __iter__(self) -> Iterator[Passage]:
        return iter(self.passages)

    def __len__(self) -> int:
        return len(self.passages)

    def as_tuple(self) -> tuple[Passage, ...]:
        return tuple(self.passages)


def check_passage_indexes(refs: Sequence[CitationRef], count: int, where: str) -> None:
    """Refuse a citation whose passage index is not one of the answer's passages."""
    for ref in refs:
        if ref.passage is not None and not 0 <= ref.passage < count:
            raise AnswerFormatError(f"passage {ref.passage} is not one of the answer's {count} passages",
                                    where=where, fix="a citation's 'passage' is a 0-based index into 'passages'")


def _name(value: Any, where: str) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    return check_text(value.strip(), where)


def _start(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 2**63 - 1:
        return None
    return value
