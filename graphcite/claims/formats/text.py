"""Answers given as one text plus citations that point into it: offsets in the producer's unit, claims
as the sentences of the text, and ``[n]`` markers that point at retrieved documents.

Producers count offsets differently: Gemini in UTF-8 bytes, JavaScript-based tools in UTF-16 code
units, Python-based ones (OpenAI, Cohere, LangChain, LlamaIndex) in code points. Everything inside
graphcite is code points, so :class:`Offsets` converts once per text, and says when an offset falls
inside a character (a byte offset in the middle of "é") or past the end, which makes that citation
defective rather than the answer unreadable.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphcite.claims.formats.common import AnswerLimits, is_sentence
from graphcite.claims.markers import sentence_spans
from graphcite.models import CitationRef, InputClaim

__all__ = ["NAME_FIELDS", "UNITS", "Offsets", "Pinned", "document_names", "first_int", "marked_claims",
           "sentence_claims"]

UNITS = ("codepoint", "utf8", "utf16")
_UNIT_NAMES = {"codepoint": "code points", "utf8": "UTF-8 bytes", "utf16": "UTF-16 code units"}
_MARKER = re.compile(r"[ \t]*\[\s*(\d{1,9}(?:\s*,\s*\d{1,9})*)\s*\]")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|#{1,6})\s+")
_SPACE = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]")
# metadata fields that name a document, most specific first (the source map is asked about each)
NAME_FIELDS = ("source", "file_path", "path", "url", "uri", "file_name", "filename", "title", "id", "doc_id",
               "document_id", "ref_doc_id")


def _width(char: str, unit: str) -> int:
    if unit == "utf8":
        point = ord(char)
        return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
    if unit == "utf16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


class Offsets:
    """Offsets in ``unit`` (one of :data:`UNITS`) into ``text``, converted to code points.

    ``point(n)`` is the code point index, or None when ``n`` is past the end or inside a character;
    ``problem(n)`` says which, in words. Only the characters wider than one unit are recorded, so a
    mostly-ASCII text costs next to nothing and a long one is converted by binary search.
    """

    def __init__(self, text: str, unit: str) -> None:
        if unit not in UNITS:
            raise ValueError(f"unknown offset unit {unit!r}")
        self.text, self.unit = text, unit
        self._wide_at: array[int] = array("q")  # unit offset where each wide character starts
        self._wide_index: array[int] = array("q")  # its code point index
        self._wide_width: array[int] = array("q")
        at = 0
        if unit != "codepoint" and not text.isascii():
            for i, char in enumerate(text):
                width = _width(char, unit)
                if width > 1:
                    self._wide_at.append(at)
                    self._wide_index.append(i)
                    self._wide_width.append(width)
                at += width
            self.length = at
        else:
            self.length = len(text)

    def point(self, offset: int) -> int | None:
        if not 0 <= offset <= self.length:
            return None
        k = bisect_right(self._wide_at, offset) - 1
        if k < 0:
            return offset
        start, index, width = self._wide_at[k], self._wide_index[k], self._wide_width[k]
        if start < offset < start + width:
            return None
        return index if offset == start else index + 1 + (offset - start - width)

    def problem(self, offset: int, name: str) -> str:
        what = _UNIT_NAMES[self.unit]
        if not 0 <= offset <= self.length:
            return f"{name} {offset} is beyond the text ({self.length} {what})"
        return f"{name} {offset} falls inside a character (offsets are {what})"


@dataclass(frozen=True, slots=True)
class Pinned:
    """A citation pinned to the answer text: ``start == end`` for a point (an index after the
    sentence), a range otherwise; ``drop`` marks a range that is a citation marker (a link), not words."""

    start: int
    end: int
    ref: CitationRef | None  # None: only text to drop (a marker)
    drop: bool = False


def _sentences(text: str) -> list[tuple[int, int]]:
    out = []
    for a, b in sentence_spans(text):
        piece = text[a:b]
        a, b = a + len(piece) - len(piece.lstrip()), b - (len(piece) - len(piece.rstrip()))
        if b > a:
            out.append((a, b))
    return out


def _claim_text(text: str, start: int, end: int, drops: Sequence[tuple[int, int]]) -> str:
    pieces, at = [], start
    for a, b in sorted(drops):
        if b <= at or a >= end:
            continue
        pieces.append(text[at:max(a, at)])
        at = max(at, min(b, end))
    pieces.append(text[at:end])
    joined = _BULLET.sub("", "".join(pieces), count=1)
    return _SPACE.sub(" ", joined).strip()


def sentence_claims(text: str, pinned: Sequence[Pinned], limits: AnswerLimits, where: str) -> list[InputClaim]:
    """The claims of an answer text: one per sentence, with the citations pinned into it.

    A point citation belongs to the sentence it follows; a range to every sentence it overlaps (to
    the one before it when it covers only white space). An uncited sentence is a claim only when it is
    a whole sentence (:func:`~graphcite.claims.formats.common.is_sentence`), so headings and
    connecting phrases are not reported as unsupported.
    """
    sentences = _sentences(text)
    if not sentences:
        return []
    starts = [a for a, _ in sentences]
    cited: dict[int, list[CitationRef]] = {}
    for pin in pinned:
        if pin.ref is None:
            continue
        hits = []
        if pin.end > pin.start:
            i = max(bisect_right(starts, pin.start) - 1, 0)
            while i < len(sentences) and sentences[i][0] < pin.end:
                if pin.start < sentences[i][1]:
                    hits.append(i)
                i += 1
        if not hits:  # a point, or a range over white space: the sentence it follows
            hits = [max(bisect_left(starts, max(pin.start, 1)) - 1, 0)]
        for i in hits:
            refs = cited.setdefault(i, [])
            if pin.ref not in refs:
                refs.append(pin.ref)
    drops = [(p.start, p.end) for p in pinned if p.drop]
    claims: list[InputClaim] = []
    for i, (a, b) in enumerate(sentences):
        claim = _claim_text(text, a, b, drops)
        if not _LETTER.search(claim) or (i not in cited and not is_sentence(claim)):
            continue
        limits.check_claim_text(claim, where)
        claims.append(InputClaim(text=claim, citations=tuple(cited.get(i, ()))))
        limits.check_claims(len(claims), where=where)
    return claims


def marked_claims(text: str, documents: Sequence[CitationRef], limits: AnswerLimits, where: str, *,
                  all_when_unmarked: bool) -> list[InputClaim]:
    """Claims of an answer whose sentences mark retrieved documents with ``[1]``, ``[1][2]`` or ``[1, 2]``.

    Each sentence cites the documents it marks (1-based); a number with no document makes a defective
    citation, so that claim is reported invalid and the rest is read. When the answer marks nothing
    and ``all_when_unmarked``, every sentence cites every document (the evidence is then located in
    them); otherwise an unmarked sentence has no citation.
    """
    marks = list(_MARKER.finditer(text))
    if not marks and all_when_unmarked:
        pinned = [Pinned(0, len(text), ref) for ref in documents]
        return sentence_claims(text, pinned, limits, where)
    pinned = []
    for match in marks:
        for digits in re.findall(r"\d+", match.group(1)):
            number = int(digits)
            if 1 <= number <= len(documents):
                ref = documents[number - 1]
            else:
                ref = CitationRef(defect=f"marker [{number}] has no retrieved document ({len(documents)} given)")
            pinned.append(Pinned(match.start(), match.start(), ref))
        pinned.append(Pinned(match.start(), match.end(), None, drop=True))
    return sentence_claims(text, pinned, limits, where)


def document_names(metadata: Mapping[str, Any], *extra: Any) -> list[Any]:
    """The names a retrieved document goes by, most specific first: metadata fields, then ``extra``."""
    return [metadata.get(field) for field in NAME_FIELDS] + list(extra)


def first_int(values: Iterable[Any]) -> int | None:
    """The first plain integer (or digit string) among ``values``."""
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 10:
            return int(value.strip())
    return None
