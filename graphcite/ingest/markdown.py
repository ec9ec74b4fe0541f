"""Markdown parser: block units with exact offsets, heading lineage and table headers.

The blocks are CommonMark + GFM tables as markdown-it-py finds them. The fast scanner in
:mod:`graphcite.ingest.mdblocks` reads the common constructs itself and hands each region it does
not handle to markdown-it-py (``parse(..., fast=False)`` uses markdown-it-py throughout); property
and real-file tests check that both give the same units. Line maps become code-point offsets
through a table of line starts, so the stored text stays byte-for-byte what was on disk (CRLF
included). For speed, inline parsing is off (units are block spans), plain paragraph lines skip
markdown-it's terminator checks (``_plain_paragraph``), front matter goes through libyaml, and
large bodies are read in ~1 MB pieces cut where no block can continue.

Units: headings (ATX: the text after the ``#`` marks; setext: the text lines), paragraphs, list
items (the marker excluded; an item's nested lists are cut out into their own units when they come
last in the item, otherwise the item is one unit), block quotes (whole, ``>`` marks included),
code (fenced: the lines between the fences; indented), raw HTML blocks other than comments (as
paragraphs), and table rows. Every table row, the header row included, is a ``table_row`` unit;
body rows carry the header cell texts in ``table_headers`` (None on the header row itself) and
every row carries ``cells``, the offsets of each cell's stripped text.
"""

from __future__ import annotations

import gc
import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from graphcite.ingest import mdblocks
from graphcite.ingest.frontmatter import normalise_metadata, split_front_matter
from graphcite.ingest.text import NEWLINE, line_starts, strip_span
from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["markdown_parser", "parse", "parser_counts", "plain_inline"]

_LIST_OPEN = ("bullet_list_open", "ordered_list_open")
# Whitespace markdown-it trims from table lines (CommonMark's set); used to find the outer pipes.
_MD_TRIM = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                     "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|(?=[\r\n])|$)")
_ATX_CLOSING = re.compile(r"(?:(?<=[ \t])|^)#+[ \t]*$")
_FENCE_LINE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})[ \t]*")

# First characters that may start something other than a paragraph line (or end one).
_NOT_PLAIN = frozenset("#>-+*=_`~<|:[")
_ORDERED_MARKER = re.compile(r"\d{1,9}[.)]")
_TABLE_DELIMITER = re.compile(r"[|:-][-:| \t]*")
_SETEXT_UNDERLINE = re.compile(r"(?:-+|=+)[ \t]*")


def _plain_paragraph(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's setext-heading and paragraph rules fused, skipping the work on plain lines.

    The stock rules try every paragraph terminator (list, fence, quote, table, ...) on every
    line, twice. A line is *plain* when its first non-blank character cannot start any of them
    (see ``_NOT_PLAIN``; a digit is plain unless it starts an ordered-list marker), so plain lines
    are taken at once and the terminators run only on the others. Whenever the outcome could be a
    table or a setext heading the rule declines and the stock rules decide, so the blocks are
    exactly the stock ones (a property test compares both parsers).
    """
    if state.sCount[start_line] - state.blkIndent >= 4:  # indented code
        return False
    src, b_marks, t_shift, e_marks, s_count = state.src, state.bMarks, state.tShift, state.eMarks, state.sCount
    first = src[b_marks[start_line] + t_shift[start_line]] if not state.isEmpty(start_line) else ""
    if not first or first in _NOT_PLAIN or (first.isdigit() and _ORDERED_MARKER.match(
            src, b_marks[start_line] + t_shift[start_line])):
        return False
    indent = state.blkIndent
    terminators = None
    line, last = start_line + 1, state.lineMax
    while line < last:
        pos = b_marks[line] + t_shift[line]
        end = e_marks[line]
        if pos >= end:
            break  # blank line
        if s_count[line] - indent > 3:
            line += 1  # lazy continuation
            continue
        char = src[pos]
        if char not in _NOT_PLAIN and not (char.isdigit() and _ORDERED_MARKER.match(src, pos)):
            line += 1
            continue
        if _TABLE_DELIMITER.fullmatch(src, pos, end):
            return False  # may be a table under the previous line
        if char in "-=" and s_count[line] >= indent and _SETEXT_UNDERLINE.fullmatch(src, pos, end):
            return False  # setext heading
        if s_count[line] < 0:
            line += 1
            continue
        if terminators is None:
            terminators = state.md.block.ruler.getRules("paragraph")
        parent = state.parentType
        state.parentType = "paragraph"
        try:
            if any(rule(state, line, last, True) for rule in terminators):
                break
        finally:
            state.parentType = parent
        line += 1
    if silent:
        return True
    state.line = line
    token = state.push("paragraph_open", "p", 1)
    token.map = [start_line, line]
    token = state.push("inline", "", 0)
    token.content = ""  # never read: inline parsing is off and units come from line maps
    token.map = [start_line, line]
    token.children = []
    state.push("paragraph_close", "p", -1)
    return True


def markdown_parser(*, fast: bool = True) -> MarkdownIt:
    """The block parser used here: CommonMark + tables, no inline pass, plus the fast rule."""
    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    if fast:
        md.block.ruler.before("table", "plain_paragraph", _plain_paragraph)
    return md


_PAUSE_GC_CHARS = 200_000


@contextmanager
def _collector_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector: a large file makes millions of acyclic token objects,
    and the repeated full collections they trigger would otherwise cost a third of the time."""
    was_enabled = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@lru_cache(maxsize=1)
def _shared_parser() -> MarkdownIt:
    return markdown_parser()


_INLINE_MARKUP = re.compile(r"[*_`\[\]<>&\\~!]")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]*)>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_EMPHASIS = re.compile(r"(?<![\w\\])[*_~]+|(?<!\\)[*_~]+(?!\w)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_inline(source: str) -> str:
    """Readable text of inline Markdown (for heading paths and table headers, not for offsets):
    emphasis marks, link targets, tags and escapes removed, entities decoded, spaces collapsed."""
    if not _INLINE_MARKUP.search(source):
        return " ".join(source.split())
    pieces: list[str] = []
    position = 0
    for match in _CODE_SPAN.finditer(source):
        pieces.append(_plain_segment(source[position : match.start()]))
        pieces.append(match.group(2).strip())
        position = match.end()
    pieces.append(_plain_segment(source[position:]))
    return " ".join("".join(pieces).split())


def _plain_segment(segment: str) -> str:
    segment = _LINK.sub(r"\1", segment)
    segment = _AUTOLINK.sub(r"\1", segment)
    segment = _TAG.sub("", segment)
    segment = _EMPHASIS.sub("", segment)
    segment = _ESCAPE.sub(r"\1", segment)
    return html.unescape(segment)


# Bodies read wholly by the fast scanner, bodies where markdown-it-py read some regions, those
# regions, and the characters of all bodies and of those regions (in this process).
_COUNTS = {"fast": 0, "mixed": 0, "regions": 0, "chars": 0, "fallback_chars": 0}


def parser_counts() -> dict[str, int]:
    """How much Markdown this process parsed with the fast scanner and how much fell back."""
    return dict(_COUNTS)


def parse(text: str, *, where: str, fast: bool = True) -> ParsedDocument:
    """Parse Markdown ``text``; front matter goes to ``metadata`` (validated), never into units.

    When the front matter has no title, the first level-1 heading becomes ``metadata["title"]``.
    The body goes through :mod:`graphcite.ingest.mdblocks`, and a region the scanner does not
    handle through markdown-it-py (everything with ``fast=False``); both give the same units.
    """
    front, body_offset = split_front_matter(text, where=where)
    metadata: dict[str, Any] = normalise_metadata(front, where=where)
    walker = _fast_body(text, body_offset) if fast else _parse_body(text, body_offset, _CHUNK_CHARS)
    if "title" not in metadata and walker.first_title:
        metadata["title"] = walker.first_title
    return ParsedDocument(text=text, format="markdown", units=walker.units, metadata=metadata)


# Large bodies are parsed in pieces of about this many characters: memory stays flat and time
# linear. Pieces start after a blank line at a line beginning in column 0 with a character that
# cannot continue anything (a letter, a heading mark, ...): no list item, quote, paragraph,
# table or indented code block survives that. Only a fence or a raw-HTML block (<pre>, <!--)
# can, and then the piece runs to its end unclosed -- such a cut is undone (see _runs_on).
_CHUNK_CHARS = 1_000_000
_CUT = re.compile(rf"{NEWLINE}[ \t]*{NEWLINE}(?=[^\s>\-+*=_`~<|:\[0-9])")


def _cut_points(body: str, size: int) -> list[int]:
    """Offsets in ``body`` where pieces may start: the first is 0, then about every ``size``."""
    points = [0]
    position = size
    while position < len(body):
        cut = _CUT.search(body, position)
        if cut is None:
            break
        points.append(cut.end())
        position = cut.end() + size
    return points


def _runs_on(tokens: list[Token], lines: int) -> bool:
    """True when a piece's last block is a fence or raw-HTML block left open at the piece's end."""
    if not tokens:
        return False
    last = tokens[-1]
    return last.type in ("fence", "html_block") and last.map is not None and last.map[1] >= lines


def _fast_body(text: str, body_offset: int, chunk_chars: int = _CHUNK_CHARS) -> _Walker:
    """The body's units: the fast scanner where it can, markdown-it-py for the regions it declines.

    The body is read in pieces of about ``chunk_chars`` cut where no block continues (``_CUT``),
    so the line list and tokens held at once stay bounded on huge files.
    """
    body = text[body_offset:] if body_offset else text
    walker = _Walker(text, body_offset)
    if "\x00" in body:  # markdown-it reads NUL as U+FFFD in heading and cell text; leave it that
        return _parse_body(text, body_offset, chunk_chars)
    starts = walker.starts
    position = 0
    regions = fallback_chars = 0
    with _collector_paused(len(body) > _PAUSE_GC_CHARS):
        while position < len(body):
            cut = _CUT.search(body, position + chunk_chars) if position + chunk_chars < len(body) else None
            end = cut.end() if cut else len(body)
            lines = mdblocks.body_lines(body[position:end])
            base = bisect_left(starts, body_offset + position)
            line = 0
            while True:
                tokens, declined = mdblocks.scan_blocks(lines, line, final=end >= len(body))
                walker.first_line = base
                walker.walk(tokens)
                if declined is None:
                    position = end
                    break
                start = starts[base + declined] - body_offset
                stop = _markdown_it_region(walker, body, body_offset, start)
                regions += 1
                fallback_chars += stop - start
                if stop >= end:
                    position = stop
                    break
                line = bisect_left(starts, body_offset + stop) - base
    _COUNTS["mixed" if regions else "fast"] += 1
    _COUNTS["regions"] += regions
    _COUNTS["chars"] += len(body)
    _COUNTS["fallback_chars"] += fallback_chars
    return walker


def _markdown_it_region(walker: _Walker, body: str, body_offset: int, start: int) -> int:
    """Parse ``body`` from the block start ``start`` with markdown-it-py up to the first cut point
    where no block can continue (see ``_CUT``), into ``walker``; returns where the region ends.

    A fence or raw-HTML block left open at the region's end extends it over twice as many cut
    points each time, so even a fence open for megabytes is parsed in linear time.
    """
    starts = walker.starts

    def next_cut(position: int) -> int:
        cut = _CUT.search(body, position)
        return cut.end() if cut else len(body)

    stop, reach = next_cut(start), 1
    while True:
        first_line = bisect_left(starts, body_offset + start)
        tokens = _shared_parser().parse(body[start:stop])
        lines = bisect_left(starts, body_offset + stop) - first_line
        if stop >= len(body) or not _runs_on(tokens, lines):
            break
        reach *= 2
        for _ in range(reach):
            stop = next_cut(stop)
    walker.first_line = first_line
    walker.walk(tokens)
    return stop


def _parse_body(text: str, body_offset: int, chunk_chars: int) -> _Walker:
    """Parse ``text[body_offset:]`` piece by piece into one walker (units, heading path, title).

    When a piece ends inside an open fence or raw-HTML block, the blocks before it are kept, the
    piece restarts at that block and reaches twice as many cut points further each time it still
    runs on, so even a fence left open for megabytes is parsed in linear time.
    """
    md = _shared_parser()
    walker = _Walker(text, body_offset)
    starts = walker.starts
    body = text[body_offset:] if body_offset else text
    points = _cut_points(body, chunk_chars)
    with _collector_paused(len(body) > _PAUSE_GC_CHARS):
        index = 0
        while index < len(points):
            start, reach = points[index], 1
            while True:
                following = min(index + reach, len(points))
                stop = points[following] if following < len(points) else len(body)
                first_line = bisect_left(starts, body_offset + start)
                tokens = md.parse(body[start:stop])
                lines = bisect_left(starts, body_offset + stop) - first_line
                if following == len(points) or not _runs_on(tokens, lines):
                    break
                opened_at = (tokens[-1].map or (0, 0))[0]
                if opened_at > 0:  # keep what precedes the open block; restart the piece at it
                    walker.first_line = first_line
                    walker.walk(tokens[:-1])
                    start = starts[first_line + opened_at] - body_offset
                else:
                    reach *= 2
            walker.first_line = first_line
            walker.walk(tokens)
            index = following
    return walker


class _Walker:
    """Turns the flat token stream into units, tracking the heading path."""

    def __init__(self, text: str, body_offset: int) -> None:
        self.text = text
        self.starts = line_starts(text)
        # line starts plus end-of-text sentinels, so "the line after the last" needs no check
        self.line_offsets = [*self.starts, len(text), len(text)]
        self.first_line = bisect_left(self.starts, body_offset)
        self.units: list[ParsedUnit] = []
        self.headings: list[str | None] = [None] * 6
        self.path: tuple[str, ...] = ()
        self.first_title: str | None = None
        self.tokens: Sequence[Token | mdblocks.BlockToken] = []
        self.close: list[int] = []

    # -- offsets ---------------------------------------------------------------------------

    def offset(self, line: int) -> int:
        """Offset where body line ``line`` (0-based, markdown-it numbering) begins."""
        return self.line_offsets[self.first_line + line]

    def line_end(self, line: int) -> int:
        """Offset just past the content of body line ``line`` (before its line break)."""
        start, end = self.offset(line), self.offset(line + 1)
        if end > start and self.text[end - 1] == "\n":
            end -= 1
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return end

    def add(self, start: int, end: int, block_type: str, heading_path: tuple[str, ...] | None = None,
            table_headers: tuple[str, ...] | None = None,
            cells: tuple[tuple[int, int], ...] | None = None) -> None:
        """Append a unit over the stripped span (the hot path: kept free of helper calls)."""
        text = self.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            return
        starts = self.starts
        self.units.append(ParsedUnit(
            start, end, block_type, self.path if heading_path is None else heading_path, None, None,
            bisect_right(starts, start), bisect_right(starts, end - 1), table_headers, cells,
        ))

    def add_lines(self, first: int, stop: int, block_type: str) -> None:
        offsets, base = self.line_offsets, self.first_line
        self.add(offsets[base + first], offsets[base + stop], block_type)

    # -- walking ---------------------------------------------------------------------------

    def walk(self, tokens: Sequence[Token | mdblocks.BlockToken]) -> None:
        self.tokens = tokens
        self.close = close = [0] * len(tokens)
        stack: list[int] = []
        for index, token in enumerate(tokens):
            if token.nesting == 1:
                stack.append(index)
            elif token.nesting == -1:
                close[stack.pop()] = index
        index = 0
        while index < len(tokens):
            token = tokens[index]
            self.block(index, token)
            index = close[index] + 1 if token.nesting == 1 else index + 1

    def block(self, index: int, token: Token | mdblocks.BlockToken) -> None:
        kind = token.type
        line_map = token.map
        if line_map is None:
            return
        if kind == "paragraph" or kind == "paragraph_open":  # the fast scanner's paragraph is one token
            self.add_lines(line_map[0], line_map[1], "paragraph")
        elif kind == "list_item":  # the fast scanner's one-paragraph item in a list of its own
            start = self.offset(line_map[0])
            marker = _LIST_MARKER.match(self.text, start, self.line_end(line_map[0]))
            self.add(marker.end() if marker else start, self.offset(line_map[1]), "list_item")
        elif kind == "heading_open":
            self.heading(index, token)
        elif kind in _LIST_OPEN:
            self.list_block(index, markers=1)
        elif kind == "blockquote_open":
            self.add_lines(line_map[0], line_map[1], "block_quote")
        elif kind == "fence":
            self.fence(token)
        elif kind == "code_block":
            self.add_lines(line_map[0], line_map[1], "code")
        elif kind == "table_open":
            self.table(index)
        elif kind == "html_block":
            content = token.content.strip()
            if not (content.startswith("<!--") and content.endswith("-->")):
                self.add_lines(line_map[0], line_map[1], "paragraph")

    def heading(self, index: int, token: Token | mdblocks.BlockToken) -> None:
        level = int(token.tag[1])
        title = plain_inline(self.tokens[index + 1].content)
        first, stop = token.map or (0, 0)
        if token.markup.startswith("#"):
            start, end = self.offset(first), self.line_end(first)
            line = self.text[start:end]
            marker = line.find(token.markup)
            content_start = start + marker + len(token.markup) if marker >= 0 else start
            rest = self.text[content_start:end]
            closing = _ATX_CLOSING.search(rest)
            content_end = content_start + closing.start() if closing else end
        else:  # setext: the text lines, without the underline
            content_start, content_end = self.offset(first), self.offset(stop - 1)
        ancestors = tuple(h for h in self.headings[: level - 1] if h)
        self.add(content_start, content_end, "heading", heading_path=ancestors)
        self.headings[level - 1] = title
        for deeper in range(level, 6):
            self.headings[deeper] = None
        self.path = tuple(h for h in self.headings if h)
        if level == 1 and self.first_title is None and title:
            self.first_title = title

    def fence(self, token: Token | mdblocks.BlockToken) -> None:
        first, stop = token.map or (0, 0)
        last = stop - 1
        if last > first:
            closing = _FENCE_LINE.fullmatch(self.text, self.offset(last), self.line_end(last))
            if closing and closing.group(1)[0] == token.markup[0] and len(closing.group(1)) >= len(token.markup):
                stop = last
        self.add_lines(first + 1, stop, "code")

    def children(self, index: int) -> list[int]:
        """Indices of the direct child tokens of the container opened at ``index``."""
        found = []
        child, end = index + 1, self.close[index]
        while child < end:
            found.append(child)
            child = self.close[child] + 1 if self.tokens[child].nesting == 1 else child + 1
        return found

    def list_block(self, index: int, *, markers: int) -> None:
        for item in self.children(index):
            if self.tokens[item].type == "list_item_open":
                self.list_item(item, markers=markers)
                markers = 1  # only the first item can share its line with enclosing items

    def list_item(self, index: int, *, markers: int) -> None:
        """One unit for the item's own content; trailing nested lists become their own units."""
        token = self.tokens[index]
        first, stop = token.map or (0, 0)
        children = self.children(index)
        own = len(children)
        while own and self.tokens[children[own - 1]].type in _LIST_OPEN:
            own -= 1
        nested = children[own:]
        if any(self.tokens[c].type in _LIST_OPEN for c in children[:own]):
            nested = []  # a list in the middle of the item: keep the item whole
            own_stop = stop
        else:
            own_stop = (self.tokens[nested[0]].map or (stop, stop))[0] if nested else stop
        start = self.offset(first)
        line_end = self.line_end(first)
        for _ in range(markers):
            match = _LIST_MARKER.match(self.text, start, line_end)
            if match is None:
                break
            start = match.end()
        if own:
            self.add(start, self.offset(own_stop), "list_item")
        for child in nested:
            child_first = (self.tokens[child].map or (0, 0))[0]
            self.list_block(child, markers=markers + 1 if (not own and child_first == first) else 1)

    def table(self, index: int) -> None:
        headers: tuple[str, ...] | None = None
        in_head = False
        position, end = index + 1, self.close[index]
        while position < end:
            token = self.tokens[position]
            if token.type == "thead_open":
                in_head = True
            elif token.type == "thead_close":
                in_head = False
            elif token.type == "tr_open" and token.map is not None:
                contents = [t.content for t in self.tokens[position + 1 : self.close[position]]
                            if t.type == "inline"]
                line = token.map[0]
                cells = self.cell_spans(line, len(contents))
                if in_head:
                    headers = tuple(plain_inline(c) for c in contents)
                    self.add(self.offset(line), self.line_end(line), "table_row", cells=cells)
                else:
                    self.add(self.offset(line), self.line_end(line), "table_row",
                             table_headers=headers, cells=cells)
                position = self.close[position]
            position += 1

    def cell_spans(self, line: int, columns: int) -> tuple[tuple[int, int], ...]:
        """Offsets of each cell's stripped text on a table line, split like markdown-it does."""
        text = self.text
        start, end = self.offset(line), self.line_end(line)
        while start < end and text[start] in _MD_TRIM:
            start += 1
        while end > start and text[end - 1] in _MD_TRIM:
            end -= 1
        pieces: list[tuple[int, int]] = []
        piece_start = start
        pipe = text.find("|", start, end)
        while pipe >= 0:
            if pipe == start or text[pipe - 1] != "\\":
                pieces.append((piece_start, pipe))
                piece_start = pipe + 1
            pipe = text.find("|", pipe + 1, end)
        pieces.append((piece_start, end))
        if pieces and pieces[0][0] == pieces[0][1]:
            pieces.pop(0)
        if pieces and pieces[-1][0] == pieces[-1][1]:
            pieces.pop()
        return tuple(strip_span(text, s, e) for s, e in pieces[:columns])
