"""HTML parser: the visible text of a page, cut into block units.

For HTML the stored document text is the *extracted* text, not the markup: blocks of visible text
joined by blank lines ("\\n\\n"), inline whitespace collapsed to single spaces (``<br>`` kept as a
line break, ``<pre>`` kept verbatim). Offsets index that text. Markup never reaches it: script,
style, template, noscript, iframe, object, embed, svg, canvas and the whole ``<head>`` are dropped,
and attributes (``onerror=``, ``href="javascript:..."``) are never read. ``<title>`` goes to
``metadata["title"]``.

Units: h1-h6 (heading), p and other text blocks (paragraph), li/dt/dd (list_item; an item's
paragraphs stay one unit, nested lists are their own units), blockquote (block_quote), pre
(code) and tr (table_row: cells joined by " | ", ``cells`` holds each cell's offsets, body rows
carry the header row's texts from ``<thead>`` or an all-``<th>`` first row in ``table_headers``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from graphcite.errors import IngestError
from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["MAX_BLOCK_DEPTH", "parse"]

_DROPPED = frozenset({"script", "style", "template", "noscript", "head", "iframe", "object", "embed",
                      "svg", "canvas", "title"})
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "html",
    "legend", "li", "main", "menu", "nav", "ol", "p", "section", "summary", "table", "tbody", "tfoot",
    "thead", "ul", "td", "th", "center", "noframes", "search",
})
_OWNERS = {"li": "list_item", "dt": "list_item", "dd": "list_item", "blockquote": "block_quote"}
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_CELL_SEPARATOR = " | "
_BLOCK_SEPARATOR = "\n\n"

_SPACES = re.compile(r"[ \t\n\r\f]+")
_AROUND_BREAK = re.compile(r" *\n *")


#: Deepest nesting of block elements accepted. The HTML parser checks the stack of open elements
#: at every block start tag, so its time grows with the square of the depth (100,000 nested divs,
#: 500 KB, take 20 s); browsers cap the depth too (Chromium at 512).
MAX_BLOCK_DEPTH = 512
_NESTING = frozenset({
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
    "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol",
    "search", "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "listing", "form",
    "table",
})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)")


def _check_nesting(text: str, *, where: str) -> None:
    """Refuse a page whose block elements nest deeper than :data:`MAX_BLOCK_DEPTH` (a linear scan)."""
    depth = 0
    for tag in _TAG.finditer(text):
        if tag.group(2).lower() not in _NESTING:
            continue
        if tag.group(1):
            depth = max(depth - 1, 0)
            continue
        depth += 1
        if depth > MAX_BLOCK_DEPTH:
            line = text.count("\n", 0, tag.start()) + 1
            raise IngestError(f"HTML block elements nest more than {MAX_BLOCK_DEPTH} deep (line {line})",
                              where=where, fix="flatten the page (close its div, section and list tags)")


def parse(text: str, *, where: str) -> ParsedDocument:
    """Extract the visible text of the HTML page ``text`` and its block units.

    Pages nesting block elements more than :data:`MAX_BLOCK_DEPTH` deep are refused.
    """
    _check_nesting(text, where=where)
    try:
        tree = LexborHTMLParser(text)
    except Exception as exc:  # selectolax raises plain errors for input it cannot take
        raise IngestError(f"cannot parse HTML: {exc}", where=where, fix="check the file is HTML") from exc
    metadata: dict[str, Any] = {}
    title_node = tree.css_first("head > title")
    if title_node is not None:
        title = " ".join(title_node.text(deep=True).split())
        if title:
            metadata["title"] = title
    builder = _Builder()
    root = tree.root
    if root is not None:
        builder.walk(root)
    return ParsedDocument(text=builder.document_text(), format="html", units=builder.units,
                          metadata=metadata)


def _clean(raw: str) -> str:
    """Inline text after whitespace collapsing: spaces around ``<br>`` breaks removed, ends stripped."""
    return _AROUND_BREAK.sub("\n", raw).strip()


def _children(node: LexborNode) -> list[LexborNode]:
    found = []
    child = node.child
    while child is not None:
        found.append(child)
        child = child.next
    return found


def _inline_text(node: LexborNode, *, verbatim: bool = False) -> str:
    """Text of ``node``'s subtree: collapsed unless ``verbatim``; nested blocks become spaces."""
    pieces: list[str] = []
    stack = list(reversed(_children(node)))
    while stack:
        current = stack.pop()
        tag = current.tag
        if tag == "-text":
            content = current.text_content or ""
            pieces.append(content if verbatim else _SPACES.sub(" ", content))
            continue
        if tag is None or tag.startswith("-") or tag in _DROPPED:
            continue
        if tag == "br":
            pieces.append("\n")
            continue
        if tag in _BLOCKS or tag in _HEADINGS or tag in ("tr", "pre"):
            pieces.append("\n" if verbatim else " ")
        stack.extend(reversed(_children(current)))
    joined = "".join(pieces)
    return joined.strip() if verbatim else _clean(joined)


class _Builder:
    """Accumulates text blocks and units while walking the DOM (iteratively: pages nest deeply)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.units: list[ParsedUnit] = []
        self.buffer: list[str] = []
        self.owners: list[tuple[int, str]] = []
        self.next_owner = 0
        self.last_owner: int | None = None
        self.headings: list[str | None] = [None] * 6
        self.path: tuple[str, ...] = ()
        self.tables: list[dict[str, tuple[str, ...] | None]] = []
        self.in_head_rows = 0

    def document_text(self) -> str:
        return _BLOCK_SEPARATOR.join(self.parts)

    def emit(self, raw: str, block_type: str, *, owner: int | None = None,
             heading_path: tuple[str, ...] | None = None, table_headers: tuple[str, ...] | None = None,
             cells: list[tuple[int, int]] | None = None) -> None:
        """Append one text block; consecutive blocks of one list item or quote form one unit."""
        core = raw.strip()
        if not core:
            return
        lead = len(raw) - len(raw.lstrip())
        if self.parts:
            self.length += len(_BLOCK_SEPARATOR)
        start = self.length
        self.parts.append(core)
        self.length += len(core)
        end = self.length
        if owner is not None and owner == self.last_owner and self.units:
            self.units[-1] = replace(self.units[-1], end=end)
            return
        self.last_owner = owner
        absolute = None
        if cells is not None:
            absolute = tuple((start + min(max(a - lead, 0), len(core)), start + min(max(b - lead, 0), len(core)))
                             for a, b in cells)
        self.units.append(ParsedUnit(
            start=start, end=end, block_type=block_type,
            heading_path=self.path if heading_path is None else heading_path,
            table_headers=table_headers, cells=absolute,
        ))

    def flush(self) -> None:
        if not self.buffer:
            return
        raw = _clean("".join(self.buffer))
        self.buffer.clear()
        if self.owners:
            owner, block_type = self.owners[-1]
            self.emit(raw, block_type, owner=owner)
        else:
            self.emit(raw, "paragraph")

    def walk(self, root: LexborNode) -> None:
        stack: list[tuple[LexborNode, bool]] = [(root, False)]
        while stack:
            node, leaving = stack.pop()
            tag = node.tag
            if leaving:
                self.flush()
                if tag in _OWNERS:
                    self.owners.pop()
                elif tag == "table":
                    self.tables.pop()
                elif tag == "thead":
                    self.in_head_rows -= 1
                continue
            if tag == "-text":
                self.buffer.append(_SPACES.sub(" ", node.text_content or ""))
                continue
            if tag is None or tag.startswith("-") or tag in _DROPPED:
                continue
            if tag == "br":
                self.buffer.append("\n")
                continue
            if tag in _HEADINGS:
                self.flush()
                self.heading(node, int(tag[1]))
                continue
            if tag == "pre":
                self.flush()
                self.emit(_inline_text(node, verbatim=True), "code")
                continue
            if tag == "tr":
                self.flush()
                self.row(node)
                continue
            if tag in _BLOCKS:
                self.flush()
                if tag in _OWNERS:
                    self.owners.append((self.next_owner, _OWNERS[tag]))
                    self.next_owner += 1
                elif tag == "table":
                    self.tables.append({"headers": None})
                elif tag == "thead":
                    self.in_head_rows += 1
                stack.append((node, True))
            stack.extend((child, False) for child in reversed(_children(node)))
        self.flush()

    def heading(self, node: LexborNode, level: int) -> None:
        title = _inline_text(node)
        ancestors = tuple(h for h in self.headings[: level - 1] if h)
        self.emit(title, "heading", heading_path=ancestors)
        self.headings[level - 1] = title or None
        for deeper in range(level, 6):
            self.headings[deeper] = None
        self.path = tuple(h for h in self.headings if h)

    def row(self, node: LexborNode) -> None:
        cells = [c for c in _children(node) if c.tag in ("td", "th")]
        texts = [_inline_text(c) for c in cells]
        if not any(texts):
            return
        spans: list[tuple[int, int]] = []
        position = 0
        for index, cell_text in enumerate(texts):
            if index:
                position += len(_CELL_SEPARATOR)
            spans.append((position, position + len(cell_text)))
            position += len(cell_text)
        raw = _CELL_SEPARATOR.join(texts)
        table = self.tables[-1] if self.tables else {"headers": None}
        is_header = self.in_head_rows > 0 or (
            table["headers"] is None and all(c.tag == "th" for c in cells)
        )
        if is_header:
            table["headers"] = tuple(texts)
            self.emit(raw, "table_row", cells=spans)
        else:
            self.emit(raw, "table_row", table_headers=table["headers"], cells=spans)
