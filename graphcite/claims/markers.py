"""Plain-text answers with inline citation markers (the ``markers`` answer format).

One claim per sentence. Optional header lines ``Question: ...`` and ``Answer-ID: ...`` may open
the file. Markers:

* ``[1]``, ``[2][3]``, ``[1, 2]`` -- numbered passages, listed after a line ``Passages:``,
  ``References:`` or ``Sources:``; with no such list, ``[n]`` is ``documents[n-1]``.
* ``[policy.md:120-180]`` -- a source key with document offsets (end exclusive);
  ``[policy.md@REV:120-180]`` pins a revision.
* ``[decisions/dr-017.md]``, ``[policy.md@REV]`` -- a source key without offsets, located in that
  source like a passage line ``[n] KEY``. The key must look like a file path: it holds a ``/`` (and a
  letter, and a ``.``, ``-``, ``_`` or digit: ``[and/or]`` and ``[24/7]`` stay prose) or ends with a
  file ending graphcite reads (``.md``, ``.txt``, ``.html``, ``.pdf``, ``.py``). Other bracketed text,
  ``[sic]``, ``[Note]``, ``[v2.3]``, stays in the claim.

A passage line is ``[n] REF``, ``[n] REF: quoted text`` or ``[n] REF:START-END: quoted text``, where
REF is a source key (``policy.md``, ``<a key with spaces.md>``), optionally with ``@REVISION``, or
``chunk:UNIT_ID``. Surrounding quote marks of the quoted text are dropped. A sentence ends at ``.``,
``!`` or ``?`` followed by white space and no lower-case letter, at a blank line, or before a list
bullet; markers right after the full stop belong to the sentence before it. Claim text is the
sentence without its markers and bullet. Sentences without markers become claims without citations
when they contain letters. Errors name the line: ``line 4: marker [4] has no entry in the passage
list``. See ``schema/examples/markers.txt``.

Windows line ends (CRLF) and old Mac ones (CR) read like ``\n``. A keyed marker whose offsets are not
two non-negative integers (``[policy.md:-5-10]``, ``[policy.md:1.5-3]``, ``[policy.md:a-b]``), are reversed or exceed
2^63 - 1 is still a marker: its citation carries a ``defect`` and is reported invalid, and the rest of
the answer is read. The same holds for the offsets of a passage line.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from graphcite.errors import make_error
from graphcite.ingest.files import FORMATS
from graphcite.models import CitationRef, InputClaim

__all__ = ["MarkerAnswer", "looks_like_markers", "parse_markers", "sentence_spans"]


_REF_KEY = r"(?:<[^<>\n]+>|[^\s\[\]<>:@,]+)"
_NUMBERED = r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]"
# offsets as written: digits, signs, dots, exponents, dashes; at least one digit and one dash
_SPAN_CHARS = r"[-\u2013+\d.,eE \t]"
_SPAN_TEXT = rf"(?={_SPAN_CHARS}*\d)(?={_SPAN_CHARS}*[-\u2013]){_SPAN_CHARS}+"  # scans stop at any other char
# offsets written as words ("a-b", "start-end"): a malformed marker when the key looks like a file
# ("policy.md", "docs/a", "<a b.md>") or a digit is in it; "[Note: well-known]" stays prose
_WORD_SPAN = r"[ \t]*[\w.+]+[ \t]*[-\u2013][ \t]*[\w.+]+[ \t]*"
# (the digit scan stops at the next "[" too: a marker holds none, and "[[[[..." stays linear, not quadratic)
_KEY_LOOKS_LIKE_MARKER = r"(?=<|[^\s\[\]<>:@,]*[./]|[^\[\]\n]*\d)"
_KEYED = (rf"\[{_KEY_LOOKS_LIKE_MARKER}(?P<key>{_REF_KEY})(?:@(?P<rev>[^\s\[\]:@]+))?:"
          rf"(?P<span>{_SPAN_TEXT}|{_WORD_SPAN})\]")
# a key without offsets must look like a file path: "decisions/dr-017.md", "ops/run-book", "<my notes.md>",
# "policy.md@REV"; "[and/or]", "[24/7]", "[sic]", "[v2.3]" stay prose (every scan stops at "[", "]" or a line end)
_ENDINGS = "|".join(sorted((re.escape(e.lstrip(".")) for e in FORMATS), key=len, reverse=True))
_BARE_KEY_CHARS = r"[^\s\[\]<>:@,]"
_KEY_LOOKS_LIKE_PATH = (
    rf"(?=<[^<>\n\[\]]*(?:/|\.(?:{_ENDINGS}))>"
    rf"|{_BARE_KEY_CHARS}*\.(?i:{_ENDINGS})[@\]]"
    rf"|(?={_BARE_KEY_CHARS}*/)(?={_BARE_KEY_CHARS}*[^\W\d_])(?={_BARE_KEY_CHARS}*[-_.\d]))"
)
_BARE_KEYED = rf"\[{_KEY_LOOKS_LIKE_PATH}(?P<bare>{_REF_KEY})(?:@(?P<bare_rev>[^\s\[\]:@]+))?\]"
_MARKER = re.compile(rf"{_NUMBERED}|{_KEYED}|{_BARE_KEYED}")
_MARKER_RUN = re.compile(rf"(?:[ \t]*(?:{_NUMBERED}|\[{_KEY_LOOKS_LIKE_MARKER}{_REF_KEY}(?:@[^\s\[\]:@]+)?:"
                         rf"(?:{_SPAN_TEXT}|{_WORD_SPAN})\]|\[{_KEY_LOOKS_LIKE_PATH}{_REF_KEY}(?:@[^\s\[\]:@]+)?\]))+")
_WELL_FORMED_SPAN = re.compile(r"(\d+)[ \t]*-[ \t]*(\d+)")
_SECTION = re.compile(r"^[ \t]*#*[ \t]*(passages|references|sources)[ \t]*:?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_HEADER = re.compile(r"^[ \t]*(question|answer-id|answer_id)[ \t]*:[ \t]*(.*)$", re.IGNORECASE)
_END = re.compile(r"[.!?]+[\"'”’)\]]*")
_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*•+]|\d+[.)])[ \t]+)")
_BULLET = re.compile(r"^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "fig", "no", "dr", "mr", "ms", "st"})
_PASSAGE = re.compile(
    rf"^[ \t]*\[(?P<n>\d+)\][ \t]*(?:chunk:(?P<chunk>[^\s:]+)|(?P<key>{_REF_KEY})(?:@(?P<rev>[^\s:@]+))?)"
    rf"(?::(?P<span>{_SPAN_TEXT}|{_WORD_SPAN}(?=:|[ \t]*$)))?(?:[ \t]*:[ \t]*(?P<quote>.*?))?[ \t]*$"
)
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’"}
_NON_SPACE = re.compile(r"\S")
_DIGITS = re.compile(r"\d+")
_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")
_LETTER = re.compile(r"[^\W\d_]")
_LAST_WORD = re.compile(r"(\w+(?:\.\w+)*)$")
_MAX_OFFSET = 2**63 - 1
_MAX_NUMBER_DIGITS = 9  # a passage number beyond this cannot be listed


class MarkerAnswer(NamedTuple):
    """What a marker answer holds before it becomes an InputAnswer."""

    question: str | None
    answer_id: str | None
    claims: tuple[InputClaim, ...]


def _line_of(text: str, offset: int) -> str:
    return f"line {text.count(chr(10), 0, offset) + 1}"


def _offsets(span: str) -> tuple[int | None, int | None, str | None]:
    """``(start, end, None)`` for a well-formed ``START-END``, else ``(None, None, defect)``."""
    match = _WELL_FORMED_SPAN.fullmatch(span.strip())
    shown = span.strip() if len(span.strip()) <= 40 else span.strip()[:37] + "..."
    if match is None:
        return None, None, f"malformed offsets {shown!r} (expected START-END, two non-negative integers)"
    digits = match.group(1), match.group(2)
    if any(len(d.lstrip("0")) > 19 for d in digits) or any(int(d) > _MAX_OFFSET for d in digits):
        return None, None, f"offsets {shown!r} are out of range (at most 2^63 - 1)"
    start, end = int(digits[0]), int(digits[1])
    if start > end:
        return None, None, f"start {start} is after end {end}"
    return start, end, None


def looks_like_markers(text: str) -> bool:
    """Whether ``text``, which may open with ``[`` like a JSON array, is a marker answer.

    JSON that parses is JSON. Text that does not parse is markers when it holds a citation marker or
    a passage list (``[1] The relay ...``, ``[Draft] ... [1]``); otherwise it is broken JSON, and its
    reader reports it as such (E206).
    """
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("["):
        return not stripped.startswith("{")
    try:
        json.loads(stripped)
    except (ValueError, RecursionError):
        return bool(_MARKER.search(stripped) or _SECTION.search(stripped))
    return False


def parse_markers(text: str, documents: list[str] | None = None, *,
                  max_claim_chars: int | None = None) -> MarkerAnswer:
    """Question, answer id and claims of a marker answer (see the module docstring for the syntax).

    A claim longer than ``max_claim_chars`` is refused (E205) naming its line.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    question: str | None = None
    answer_id: str | None = None
    body_start = 0
    for line in text.splitlines(keepends=True):
        match = _HEADER.match(line.rstrip("\n"))
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
            if max_claim_chars is not None and len(claim.text) > max_claim_chars:
                raise make_error("E205", where=_line_of(text, start), length=len(claim.text), limit=max_claim_chars)
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
        match = _PASSAGE.match(line.rstrip("\n"))
        if not match:
            raise make_error(
                "E209", where=where,
                detail="expected a passage line '[n] KEY', '[n] KEY: quoted text' or '[n] chunk:UNIT_ID'")
        if len(match.group("n")) > _MAX_NUMBER_DIGITS:
            raise make_error("E209", where=where, detail=f"passage number [{match.group('n')[:20]}...] is too large",
                             fix="number the passages 1, 2, 3, ...")
        number = int(match.group("n"))
        if number in passages:
            raise make_error("E209", where=where, detail=f"passage [{number}] is listed twice",
                             fix="give each passage its own number")
        span = match.group("span")
        start_i, end_i, defect = _offsets(span) if span is not None else (None, None, None)
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
            defect=f"passage [{number}]: {defect}" if defect else None,
        )
    return passages


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans of ``text[start:end]`` by the marker answers' rules (also used to cut answers and
    evidence units into sentences): a full stop, ``!`` or ``?`` before white space and no lower-case
    letter, a blank line or a list bullet ends a sentence; markers right after a full stop stay with it.
    Spans keep their surrounding white space; strip it when needed."""
    return _sentences(text, start, len(text) if end is None else end)


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
            start_i, end_i, defect = _offsets(match.group("span"))
            refs.append(CitationRef(source=match.group("key").strip("<>"), revision=match.group("rev"),
                                    start=start_i, end=end_i,
                                    defect=f"marker {_shown(match.group())}: {defect}" if defect else None))
            continue
        if match.group("bare") is not None:  # located in that source, like a passage line "[n] KEY"
            refs.append(CitationRef(source=match.group("bare").strip("<>"), revision=match.group("bare_rev")))
            continue
        for digits in _DIGITS.findall(match.group()):
            refs.append(_numbered(digits, passages, documents, text, match.start()))
    pieces.append(text[cursor:end])
    claim_text = "".join(pieces)
    if claim_text[:12].lstrip()[:1] in {"-", "*", "•", "+"} or claim_text.lstrip()[:1].isdigit():
        claim_text = _BULLET.sub("", claim_text)
    claim_text = claim_text.strip()
    if "\n" in claim_text:
        claim_text = _NEWLINE.sub(" ", claim_text)
    if not _LETTER.search(claim_text):
        if refs:
            raise make_error("E209", where=_line_of(text, start),
                             detail="citation markers without a sentence before them",
                             fix="put each marker after the sentence it supports")
        return None
    return InputClaim(text=claim_text, citations=tuple(refs))


def _shown(marker: str) -> str:
    return marker if len(marker) <= 60 else marker[:57] + "...]"


def _numbered(
    digits: str, passages: dict[int, CitationRef] | None, documents: list[str] | None, text: str, offset: int
) -> CitationRef:
    number = int(digits) if len(digits) <= _MAX_NUMBER_DIGITS else -1
    if passages is not None and number in passages:
        return passages[number]
    if passages is None and documents and 1 <= number <= len(documents):
        return CitationRef(source=documents[number - 1])
    where = _line_of(text, offset)
    shown = digits if len(digits) <= 20 else digits[:17] + "..."
    if passages is not None:
        raise make_error("E209", where=where, detail=f"marker [{shown}] has no entry in the passage list",
                         fix="add a line '[n] KEY' after 'Passages:'")
    raise make_error(
        "E209", where=where,
        detail=f"marker [{shown}] cannot be resolved: no 'Passages:' list" + (
            f" and only {len(documents)} documents given" if documents else " and no documents given"),
        fix="list the passages after a line 'Passages:' or pass --documents",
    )
