"""Markdown parser: block units with exact offsets, heading lineage and table headers.

markdown-it-py (CommonMark + GFM tables) finds the blocks; its line maps are turned into code-point
offsets with a precomputed table of line starts, so the stored text stays byte-for-byte what was on
disk (CRLF included). Inline parsing is switched off -- units are block spans -- and a fast rule
takes plain top-level paragraphs in one step, which together make large files parse several
times faster than the stock parser while producing the same blocks (a property test checks it).

Units: headings (ATX: the text after the ``#`` marks; setext: the text lines), paragraphs, list
items (the marker excluded; an item's nested lists are cut out into their own units when they come
last in the item, otherwise the item is one unit), block quotes (whole, ``>`` marks included),
code (fenced: the lines between the fences; indented), raw HTML blocks other than comments (as
paragraphs), and table rows. Every table row, the header row included, is a ``table_row`` unit;
body rows carry the header cell texts in ``table_headers`` (None on the header row itself) and
every row carries ``cells``, the offsets of each cell's stripped text.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from graphcite.ingest.frontmatter import normalise_metadata, split_front_matter
from graphcite.ingest.text import line_starts, strip_span, unit_for_span
from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["markdown_parser", "parse", "plain_inline"]

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


def _plain_paragraph(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Fast path for a top-level paragraph whose every line is plain text and that ends at a blank
    line or the end of the document; anything else falls through to markdown-it's own rules.

    A line is plain when its first non-blank character cannot open a block, interrupt a
    paragraph, underline a setext heading or be part of a table (see ``_NOT_PLAIN``; a digit is
    plain unless it starts an ordered-list marker).
    """
    if state.parentType != "root" or state.blkIndent or state.level or state.sCount[start_line] > 3:
        return False
    src, b_marks, t_shift, e_marks = state.src, state.bMarks, state.tShift, state.eMarks
    line, last = start_line, state.lineMax
    while line < last:
        pos = b_marks[line] + t_shift[line]
        if pos >= e_marks[line]:
            break
        first = src[pos]
        if first in _NOT_PLAIN:
            return False
        if first.isdigit() and _ORDERED_MARKER.match(src, pos):
            return False
        line += 1
    if line == start_line:
        return False
    if silent:
        return True
    state.line = line
    token = state.push("paragraph_open", "p", 1)
    token.map = [start_line, line]
    token = state.push("inline", "", 0)
    token.content = state.getLines(start_line, line, state.blkIndent, False).strip()
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


@lru_cache(maxsize=1)
def _shared_parser() -> MarkdownIt:
    return markdown_parser()


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]*)>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_EMPHASIS = re.compile(r"(?<![\w\\])[*_~]+|(?<!\\)[*_~]+(?!\w)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_inline(source: str) -> str:
    """Readable text of inline Markdown (for heading paths and table headers, not for offsets):
    emphasis marks, link targets, tags and escapes removed, entities decoded, spaces collapsed."""
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


def parse(text: str, *, where: str) -> ParsedDocument:
    """Parse Markdown ``text``; front matter goes to ``metadata`` (validated), never into units.

    When the front matter has no title, the first level-1 heading becomes ``metadata["title"]``.
    """
    front, body_offset = split_front_matter(text, where=where)
    metadata: dict[str, Any] = normalise_metadata(front, where=where)
    body = text[body_offset:] if body_offset else text
    walker = _Walker(text, body_offset)
    walker.walk(_shared_parser().parse(body))
    if "title" not in metadata and walker.first_title:
        metadata["title"] = walker.first_title
    return ParsedDocument(text=text, format="markdown", units=walker.units, metadata=metadata)


class _Walker:
    """Turns the flat token stream into units, tracking the heading path."""

    def __init__(self, text: str, body_offset: int) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.first_line = bisect_left(self.starts, body_offset)
        self.units: list[ParsedUnit] = []
        self.headings: list[str | None] = [None] * 6
        self.path: tuple[str, ...] = ()
        self.first_title: str | None = None
        self.tokens: list[Token] = []
        self.close: list[int] = []

    # -- offsets ---------------------------------------------------------------------------

    def offset(self, line: int) -> int:
        """Offset where body line ``line`` (0-based, markdown-it numbering) begins."""
        index = self.first_line + line
        return self.starts[index] if index < len(self.starts) else len(self.text)

    def line_end(self, line: int) -> int:
        """Offset just past the content of body line ``line`` (before its line break)."""
        start, end = self.offset(line), self.offset(line + 1)
        if end > start and self.text[end - 1] == "\n":
            end -= 1
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return end

    def add(self, start: int, end: int, block_type: str, **fields: Any) -> None:
        unit = unit_for_span(self.text, self.starts, start, end, block_type,
                             heading_path=fields.pop("heading_path", self.path), **fields)
        if unit is not None:
            self.units.append(unit)

    def add_lines(self, first: int, stop: int, block_type: str) -> None:
        self.add(self.offset(first), self.offset(stop), block_type)

    # -- walking ---------------------------------------------------------------------------

    def walk(self, tokens: list[Token]) -> None:
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

    def block(self, index: int, token: Token) -> None:
        kind = token.type
        line_map = token.map
        if line_map is None:
            return
        if kind == "paragraph_open":
            self.add_lines(line_map[0], line_map[1], "paragraph")
        elif kind == "heading_open":
            self.heading(index, token)
        elif kind in _LIST_OPEN:
            self.list(index, markers=1)
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

    def heading(self, index: int, token: Token) -> None:
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

    def fence(self, token: Token) -> None:
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

    def list(self, index: int, *, markers: int) -> None:
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
            self.list(child, markers=markers + 1 if (not own and child_first == first) else 1)

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
