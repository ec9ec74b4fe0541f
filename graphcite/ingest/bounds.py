"""Bounded evidence units: a block longer than :data:`MAX_UNIT_CHARS` is cut into pieces.

A parser makes one unit per block, and some blocks are huge (a 24 MB text with no blank line is
one paragraph). Every later step works per unit -- value extraction, the term index, a rule
comparing a claim with its evidence -- so one giant unit costs gigabytes and minutes. Pieces are
cut at the last sentence end before the limit, else at a line break, else at a space, else at the
limit itself (never inside ``\\r\\n``); code is cut at line breaks. Offsets stay exact: a piece is
a stripped span of the same text, so ``text[start:end]`` is always the piece's text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import replace

from graphcite.ingest.text import line_starts, strip_span
from graphcite.models import ParsedUnit

__all__ = ["MAX_UNIT_CHARS", "bounded_units", "split_span"]

#: The longest evidence unit, in code points; a paragraph is rarely a fifth of this.
MAX_UNIT_CHARS = 10_000

_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SPACE = re.compile(r"\s")


def bounded_units(text: str, units: list[ParsedUnit], *, max_chars: int = MAX_UNIT_CHARS) -> list[ParsedUnit]:
    """``units`` with every unit longer than ``max_chars`` replaced by its pieces, in order.

    A piece keeps its unit's block type, heading path, page, symbol and table headers; a table
    row's cell offsets are dropped (a piece holds only part of the row) and line numbers are
    recomputed when the unit had them. Units within the limit are returned unchanged.
    """
    if all(unit.end - unit.start <= max_chars for unit in units):
        return units
    starts = line_starts(text)
    bounded: list[ParsedUnit] = []
    for unit in units:
        if unit.end - unit.start <= max_chars:
            bounded.append(unit)
            continue
        for start, end in split_span(text, unit.start, unit.end, max_chars=max_chars,
                                     by_lines=unit.block_type == "code"):
            numbered = unit.line_start is not None
            bounded.append(replace(
                unit, start=start, end=end, cells=None,
                line_start=bisect_right(starts, start) if numbered else None,
                line_end=bisect_right(starts, end - 1) if numbered else None))
    return bounded


def split_span(text: str, start: int, end: int, *, max_chars: int = MAX_UNIT_CHARS,
               by_lines: bool = False) -> Iterator[tuple[int, int]]:
    """Stripped, non-empty pieces of ``text[start:end]``, each at most ``max_chars`` long, in order."""
    if max_chars < 2:
        raise ValueError("max_chars must be at least 2")
    position = start
    while True:
        position, _ = strip_span(text, position, end)
        if position >= end:
            return
        if end - position <= max_chars:
            yield strip_span(text, position, end)
            return
        cut = _cut_point(text, position, position + max_chars, by_lines=by_lines)
        piece = strip_span(text, position, cut)
        if piece[0] < piece[1]:
            yield piece
        position = cut


def _cut_point(text: str, start: int, limit: int, *, by_lines: bool) -> int:
    """Where to end a piece that starts at ``start`` and must end by ``limit``."""
    window_start = start + (limit - start) // 2  # never cut so early that pieces become tiny
    patterns = (_LINE_BREAK, _SPACE) if by_lines else (_SENTENCE_END, _LINE_BREAK, _SPACE)
    for pattern in patterns:
        last = None
        for last in pattern.finditer(text, window_start, limit):  # noqa: B007 - we want the last match
            pass
        if last is not None:
            return last.end()
    cut = limit
    if text[cut - 1] == "\r" and text[cut : cut + 1] == "\n":
        cut -= 1
    return cut
