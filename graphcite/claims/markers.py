"""Plain-text answers with inline citation markers (the ``markers`` answer format).

One claim per sentence. Optional header lines ``Question: ...`` and ``Answer-ID: ...`` may open
the file. Markers:

* ``[1]``, ``[2][3]``, ``[1, 2]`` -- numbered passages, listed after a line ``Passages:``,
  ``References:`` or ``Sources:``; with no such list, ``[n]`` is ``documents[n-1]``.
* ``[policy.md:120-180]`` -- a source key with document offsets (end exclusive);
  ``[policy.md@REV:120-180]`` pins a revision.

A passage line is ``[n] REF``, ``[n] REF: quoted text`` or ``[n] REF:START-END: quoted text``, where
REF is a source key (``policy.md``, ``<a key with spaces.md>``), optionally with ``@REVISION``, or
``chunk:UNIT_ID``. Surrounding quote marks of the quoted text are dropped. A sentence ends at ``.``,
``!`` or ``?`` followed by white space and no lower-case letter, at a blank line, or before a list
bullet; markers right after the full stop belong to the sentence before it. Claim text is the
sentence without its markers and bullet. Sentences without markers become claims without citations
when they contain letters. Errors name the line: ``line 4: marker [4] has no entry in the passage
list``. See ``schema/examples/markers.txt``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputClaim

__all__ = ["MarkerAnswer", "parse_markers"]


_REF_KEY = r"(?:<[^<>\n]+>|[^\s\[\]<>:@,]+)"
_NUMBERED = r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]"
_KEYED = rf"\[(?P<key>{_REF_KEY})(?:@(?P<rev>[^\s\[\]:@]+))?:(?P<s>\d+)\s*-\s*(?P<e>\d+)\]"
_MARKER = re.compile(rf"{_NUMBERED}|{_KEYED}")
_MARKER_RUN = re.compile(rf"(?:[ \t]*(?:{_NUMBERED}|\[{_REF_KEY}(?:@[^\s\[\]:@]+)?:\d+\s*-\s*\d+\]))+")
_SECTION = re.compile(r"^[ \t]*#*[ \t]*(passages|references|sources)[ \t]*:?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_HEADER = re.compile(r"^[ \t]*(question|answer-id|answer_id)[ \t]*:[ \t]*(.*)$", re.IGNORECASE)
_END = re.compile(r"[.!?]+[\"'”’)\]]*")
_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*•+]|\d+[.)])[ \t]+)")
_BULLET = re.compile(r"^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "fig", "no", "dr", "mr", "ms", "st"})
_PASSAGE = re.compile(
    rf"^[ \t]*\[(?P<n>\d+)\][ \t]*(?:chunk:(?P<chunk>[^\s:]+)|(?P<key>{_REF_KEY})(?:@(?P<rev>[^\s:@]+))?)"
    r"(?::(?P<s>\d+)\s*-\s*(?P<e>\d+))?(?:[ \t]*:[ \t]*(?P<quote>.*?))?[ \t]*$"
)
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’"}
_NON_SPACE = re.compile(r"\S")
_DIGITS = re.compile(r"\d+")
_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")
_LETTER = re.compile(r"[^\W\d_]")
_LAST_WORD = re.compile(r"(\w+(?:\.\w+)*)$")


class MarkerAnswer(NamedTuple):
    """What a marker answer holds before it becomes an InputAnswer."""

    question: str | None
    answer_id: str | None
    claims: tuple[InputClaim, ...]


def _line_of(text: str, offset: int) -> str:
    return f"line {text.count(chr(10), 0, offset) + 1}"


def _reversed(start: int, end: int, where: str) -> None:
    raise AnswerFormatError(f"start {start} is after end {end}", where=where,
                            fix="offsets are code points, end exclusive")


def parse_markers(text: str, documents: list[str] | None = None) -> MarkerAnswer:
    """Question, answer id and claims of a marker answer (see the module docstring for the syntax)."""
    question: str | None = None
    answer_id: str | None = None
    body_start = 0
    for line in text.splitlines(keepends=True):
        match = _HEADER.match(line.rstrip("\r\n"))
        if not match and line.strip():
            break
        if match:
            if match.group(1).lower() == "question":
                question = match.group(2).strip() or None
            else:
                answer_id = match.group(2).strip() or None
        body_start += len(line)
    section = _SECTION.search(text, body_start)
    body_end = section.start() if section else len(text)
    passages = _parse_passages(text, section.end()) if section else None
    claims: list[InputClaim] = []
    for start, end in _sentences(text, body_start, body_end):
        claim = _marker_claim(text, start, end, passages, documents)
        if claim is not None:
            claims.append(claim)
    return MarkerAnswer(question, answer_id, tuple(claims))


def _parse_passages(text: str, start: int) -> dict[int, CitationRef]:
    passages: dict[int, CitationRef] = {}
    offset = start
    for line in text[start:].splitlines(keepends=True):
        line_start = offset
        offset += len(line)
        if not line.strip():
            continue
        where = _line_of(text, line_start)  # passage lists are short
        match = _PASSAGE.match(line.rstrip("\r\n"))
        if not match:
            raise AnswerFormatError(
                "expected a passage line '[n] KEY', '[n] KEY: quoted text' or '[n] chunk:UNIT_ID'",
                where=where, fix="see schema/examples/markers.txt",
            )
        number = int(match.group("n"))
        if number in passages:
            raise AnswerFormatError(f"passage [{number}] is listed twice", where=where)
        s, e = match.group("s"), match.group("e")
        start_i, end_i = (int(s), int(e)) if s is not None else (None, None)
        if start_i is not None and end_i is not None and start_i > end_i:
            _reversed(start_i, end_i, where)
        quote = match.group("quote") or None
        if quote and len(quote) >= 2 and _QUOTES.get(quote[0]) == quote[-1]:
            quote = quote[1:-1]
        key = match.group("key")
        passages[number] = CitationRef(
            source=key.strip("<>") if key else None,
            revision=match.group("rev"),
            chunk_id=match.group("chunk"),
            start=start_i,
            end=end_i,
            quote=quote or None,
        )
    return passages


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans of text[start:end]; markers just after a full stop stay with its sentence."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for block in _blocks(text, start, end):
        b_start, b_end = block
        cursor = b_start
        for match in _END.finditer(text, b_start, b_end):
            stop = match.end()
            run = _MARKER_RUN.match(text, stop, b_end)
            if run:
                stop = run.end()
            if stop < b_end and not text[stop].isspace():
                continue  # "v2.3", "policy.md"
            nxt = _NON_SPACE.search(text, stop, b_end)
            if nxt is not None and nxt.group().islower():
                continue
            word = _LAST_WORD.search(text, max(cursor, match.start() - 40), match.start())
            if word and word.group(1).lower() in _ABBREVIATIONS and match.group() == ".":
                continue
            spans.append((cursor, stop))
            cursor = stop
        if cursor < b_end:
            spans.append((cursor, b_end))
    return spans


def _blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    cursor = start
    for match in _BREAK.finditer(text, start, end):
        blocks.append((cursor, match.start()))
        cursor = match.end()
    blocks.append((cursor, end))
    return blocks


def _marker_claim(
    text: str, start: int, end: int, passages: dict[int, CitationRef] | None, documents: list[str] | None
) -> InputClaim | None:
    pieces: list[str] = []
    refs: list[CitationRef] = []
    cursor = start
    for match in _MARKER.finditer(text, start, end):
        pieces.append(text[cursor:match.start()].rstrip(" \t"))
        cursor = match.end()
        if match.group("key") is not None:
            s, e = int(match.group("s")), int(match.group("e"))
            if s > e:
                _reversed(s, e, _line_of(text, match.start()))
            refs.append(CitationRef(source=match.group("key").strip("<>"), revision=match.group("rev"), start=s, end=e))
            continue
        for number in (int(n) for n in _DIGITS.findall(match.group())):
            refs.append(_numbered(number, passages, documents, text, match.start()))
    pieces.append(text[cursor:end])
    claim_text = "".join(pieces)
    if claim_text[:12].lstrip()[:1] in {"-", "*", "•", "+"} or claim_text.lstrip()[:1].isdigit():
        claim_text = _BULLET.sub("", claim_text)
    claim_text = claim_text.strip()
    if "\n" in claim_text:
        claim_text = _NEWLINE.sub(" ", claim_text)
    if not _LETTER.search(claim_text):
        if refs:
            raise AnswerFormatError("citation markers without a sentence before them", where=_line_of(text, start))
        return None
    return InputClaim(text=claim_text, citations=tuple(refs))


def _numbered(
    number: int, passages: dict[int, CitationRef] | None, documents: list[str] | None, text: str, offset: int
) -> CitationRef:
    if passages is not None and number in passages:
        return passages[number]
    if passages is None and documents and 1 <= number <= len(documents):
        return CitationRef(source=documents[number - 1])
    where = _line_of(text, offset)
    if passages is not None:
        raise AnswerFormatError(f"marker [{number}] has no entry in the passage list", where=where,
                                fix="add a line '[n] KEY' after 'Passages:'")
    raise AnswerFormatError(
        f"marker [{number}] cannot be resolved: no 'Passages:' list" + (
            f" and only {len(documents)} documents given" if documents else " and no documents given"),
        where=where,
        fix="list the passages after a line 'Passages:' or pass --documents",
    )
