"""Plain-text parser, plus the line and span helpers every parser shares.

A plain-text document is cut into paragraphs at blank lines. Lines end at ``\\r\\n``, ``\\r`` or
``\\n`` -- the same rule markdown-it and Python's tokenizer use -- so line numbers agree across
parsers. Other Unicode line separators (``\\u2028``, ``\\x85``, form feed) stay inside a line.
Offsets are code points into the text exactly as read; nothing is normalised.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["NEWLINE", "line_number", "line_starts", "parse", "strip_span", "unit_for_span"]

_NEWLINE = re.compile(r"\r\n?|\n")
# A line break that never splits "\r\n" in two, even when a pattern backtracks.
NEWLINE = r"(?:\r\n|\r(?!\n)|\n)"
# One or more blank lines (lines holding only whitespace) between two line breaks.
_BLANK_LINES = re.compile(rf"{NEWLINE}(?:[^\S\r\n]*{NEWLINE})+")


def line_starts(text: str) -> list[int]:
    """Offsets where each line begins: ``[0, ...]``; a final line break adds ``len(text)``."""
    if "\r" not in text:
        # One C-level split is much faster than a regex scan on large files.
        starts = [0]
        starts.extend(accumulate(len(line) + 1 for line in text.split("\n")[:-1]))
        return starts
    return [0, *(m.end() for m in _NEWLINE.finditer(text))]


def line_number(starts: list[int], offset: int) -> int:
    """1-based number of the line holding ``offset``, given :func:`line_starts` of the text."""
    return bisect_right(starts, offset)


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past surrounding whitespace (``str.isspace``); empty spans collapse."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def unit_for_span(
    text: str,
    starts: list[int],
    start: int,
    end: int,
    block_type: str,
    **fields: object,
) -> ParsedUnit | None:
    """A unit over the stripped ``[start, end)`` with 1-based line numbers; None when it is blank."""
    start, end = strip_span(text, start, end)
    if start >= end:
        return None
    return ParsedUnit(
        start=start,
        end=end,
        block_type=block_type,
        line_start=bisect_right(starts, start),
        line_end=bisect_right(starts, end - 1),
        **fields,  # type: ignore[arg-type]
    )


def parse(text: str, *, where: str) -> ParsedDocument:
    """Split ``text`` into paragraph units at blank lines; ``where`` names the file (unused: never fails)."""
    del where  # plain text cannot be malformed once it decoded
    starts = line_starts(text)
    units: list[ParsedUnit] = []
    position = 0
    for gap in _BLANK_LINES.finditer(text):
        unit = unit_for_span(text, starts, position, gap.start(), "paragraph")
        if unit is not None:
            units.append(unit)
        position = gap.end()
    unit = unit_for_span(text, starts, position, len(text), "paragraph")
    if unit is not None:
        units.append(unit)
    return ParsedDocument(text=text, format="text", units=units)
