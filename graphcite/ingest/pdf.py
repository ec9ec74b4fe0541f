"""PDF parser: pypdf's text per page, cut into paragraph, list-item and heading units with pages.

The stored document text is the extracted text of every page joined by ``"\\n\\f\\n"`` (a form
feed on a line of its own marks each page break); ``metadata["page_starts"]`` holds the offset
where each page begins, so any offset maps back to its page. Units never cross a page break and
carry their 1-based ``page``.

pypdf usually gives one line per printed line and no blank lines, so paragraphs are rebuilt from
lines: a paragraph ends at a blank line, or after a line that ends a sentence and is clearly
shorter than the page's typical line; a line starting with a bullet or an item number opens a list
item. A short line right after a paragraph break that is numbered ("3.2 Retry budget"), all
capitals or in Title Case, without final punctuation, is taken as a heading; its numbering gives
its level (unnumbered headings are level 1). These are heuristics: good on ordinary reports, never
affecting offsets.

pypdf's own warnings about damage it worked around are captured, never printed: they come back
with the document (the ingest report lists them) or inside the one error line when the PDF cannot
be read. Lone surrogates, which a broken font map can produce, become U+FFFD one for one.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from collections.abc import Iterator
from typing import Any

from graphcite.errors import IngestError
from graphcite.ingest.text import line_starts, unit_for_span
from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["PAGE_SEPARATOR", "document_from_pages", "parse", "parse_with_notes"]

PAGE_SEPARATOR = "\n\f\n"
_SURROGATE = re.compile("[\ud800-\udfff]")

_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n|$)")
_BULLET = re.compile(r"(?:[•◦▪‣●○■□‐–—*-]|\(?(?:\d{1,3}|[a-zA-Z])[.)])\s+\S")
_NUMBERED = re.compile(r"(\d{1,3}(?:\.\d{1,3}){0,5})\.?\s+(\S.*)")
_SENTENCE_END = tuple(".!?:;)\"”’")
_NO_HEADING_END = tuple(".,;:!?")
_MINOR_WORDS = frozenset({"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor",
                          "of", "on", "or", "per", "the", "to", "via", "vs", "with"})


def parse(data: bytes, *, where: str) -> ParsedDocument:
    """Extract the text of the PDF ``data``; encrypted, corrupt or text-less PDFs raise IngestError."""
    return parse_with_notes(data, where=where)[0]


def parse_with_notes(data: bytes, *, where: str) -> tuple[ParsedDocument, list[str]]:
    """(document, the PDF library's warnings) for the PDF ``data``.

    pypdf reports damage it worked around ("incorrect startxref pointer") through logging and
    ``warnings``; they are captured here instead of reaching the terminal, returned with the
    document, and folded into the one error message when the PDF cannot be read at all.
    """
    from pypdf import PdfReader  # imported here: pypdf is only needed when PDFs are ingested

    notes: list[str] = []
    with _captured(notes):
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    opened = reader.decrypt("")
                except Exception as exc:  # pypdf raises DependencyError for AES without cryptography
                    raise IngestError(f"encrypted PDF ({exc})", where=where,
                                      fix="decrypt it first (e.g. qpdf --decrypt in.pdf out.pdf)") from exc
                if not opened:
                    raise IngestError("encrypted PDF (a password is needed to open it)", where=where,
                                      fix="decrypt it first (e.g. qpdf --decrypt in.pdf out.pdf)")
            pages = [page.extract_text() or "" for page in reader.pages]
            info = reader.metadata
            title = info.title if info is not None else None
        except IngestError:
            raise
        except Exception as exc:  # pypdf signals damage with many exception types
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise IngestError(f"cannot read PDF: {detail}{_noted(notes)}", where=where,
                              fix="check that the file is a complete, valid PDF") from exc
    if not any(page.strip() for page in pages):
        raise IngestError(f"PDF has no extractable text (scanned images?){_noted(notes)}", where=where,
                          fix="run OCR on it first (e.g. ocrmypdf) or remove it")
    # A broken ToUnicode map can yield lone surrogates, which no UTF-8 store can hold; each becomes
    # U+FFFD (one code point for one, so offsets are unaffected).
    pages = [_SURROGATE.sub("\ufffd", page) for page in pages]
    clean_title = _SURROGATE.sub("\ufffd", title) if isinstance(title, str) else None
    return document_from_pages(pages, title=clean_title), notes


def _noted(notes: list[str]) -> str:
    if not notes:
        return ""
    shown = "; ".join(notes[:3]) + ("; ..." if len(notes) > 3 else "")
    return f" (PDF reader said: {shown})"


@contextlib.contextmanager
def _captured(notes: list[str]) -> Iterator[None]:
    """Collect pypdf's log records and warnings into ``notes`` (distinct, one line each) while active."""
    logger = logging.getLogger("pypdf")

    class _Collector(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            _note(notes, record.getMessage())

    collector = _Collector(level=logging.DEBUG)
    saved = (logger.propagate, logger.level)
    logger.addHandler(collector)
    logger.propagate = False
    logger.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                for item in caught:
                    _note(notes, str(item.message))
    finally:
        logger.removeHandler(collector)
        logger.propagate, level = saved
        logger.setLevel(level)


def _note(notes: list[str], message: str) -> None:
    line = " ".join(message.split())
    if line and line not in notes and len(notes) < 20:
        notes.append(line)


def document_from_pages(pages: list[str], *, title: str | None = None) -> ParsedDocument:
    """Join page texts into the document text and cut each page into units (pure; no PDF needed)."""
    text = PAGE_SEPARATOR.join(pages)
    starts = line_starts(text)
    builder = _PageUnits(text, starts)
    page_starts: list[int] = []
    offset = 0
    for number, page_text in enumerate(pages, start=1):
        if number > 1:
            offset += len(PAGE_SEPARATOR)
        page_starts.append(offset)
        builder.page(offset, offset + len(page_text), number)
        offset += len(page_text)
    metadata: dict[str, Any] = {"pages": len(pages), "page_starts": page_starts}
    if title and title.strip():
        metadata["title"] = " ".join(title.split())
    return ParsedDocument(text=text, format="pdf", units=builder.units, metadata=metadata)


def _heading_level(line: str) -> int | None:
    """Level of a heading-looking line (numbered: number depth; capitals/Title Case: 1), else None."""
    if not line or len(line) > 80 or line.endswith(_NO_HEADING_END):
        return None
    numbered = _NUMBERED.fullmatch(line)
    if numbered:
        rest = numbered.group(2)
        if rest[0].isupper() and len(rest.split()) <= 12:
            return min(numbered.group(1).count(".") + 1, 6)
        return None
    words = line.split()
    if len(words) > 10 or not any(ch.isalpha() for ch in line):
        return None
    if line.isupper():
        return 1
    significant = [w for w in words if w.lower() not in _MINOR_WORDS and w[0].isalpha()]
    if significant and words[0][0].isupper() and all(w[0].isupper() for w in significant):
        return 1
    return None


class _PageUnits:
    """Units of one page at a time; the heading path runs on across pages."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text = text
        self.starts = starts
        self.units: list[ParsedUnit] = []
        self.headings: list[str | None] = [None] * 6
        self.path: tuple[str, ...] = ()
        self.number = 0

    def add(self, start: int, end: int, block_type: str, heading_path: tuple[str, ...] | None = None) -> None:
        unit = unit_for_span(self.text, self.starts, start, end, block_type, page=self.number,
                             heading_path=self.path if heading_path is None else heading_path)
        if unit is not None:
            self.units.append(unit)

    def heading(self, start: int, end: int, level: int) -> None:
        title = " ".join(self.text[start:end].split())
        self.add(start, end, "heading", heading_path=tuple(h for h in self.headings[: level - 1] if h))
        self.headings[level - 1] = title
        for deeper in range(level, 6):
            self.headings[deeper] = None
        self.path = tuple(h for h in self.headings if h)

    def page(self, page_start: int, page_end: int, number: int) -> None:
        self.number = number
        lines = [(m.start(), m.end()) for m in _LINE.finditer(self.text, page_start, page_end)
                 if m.end() > m.start()]
        contents = [self.text[s:e].strip() for s, e in lines]
        widths = sorted(len(c) for c in contents if c)
        typical = widths[int(0.9 * (len(widths) - 1))] if widths else 0
        has_blank_lines = any(not c for c in contents[1:-1])
        block: tuple[int, int, str] | None = None  # (start, end, block_type) of the open block

        def close() -> None:
            nonlocal block
            if block is not None:
                self.add(*block)
                block = None

        for (start, end), content in zip(lines, contents, strict=True):
            if not content:
                close()
                continue
            if block is None:
                level = _heading_level(content)
                if level is not None and (not has_blank_lines or self._alone(start, end, page_end)):
                    self.heading(start, end, level)
                    continue
            if _BULLET.match(content):
                close()
                block = (start, end, "list_item")
            elif block is None:
                block = (start, end, "paragraph")
            else:
                block = (block[0], end, block[2])
            if not has_blank_lines and content.endswith(_SENTENCE_END) and len(content) < 0.8 * typical:
                close()
        close()

    def _alone(self, start: int, end: int, page_end: int) -> bool:
        """With blank lines on the page, a heading must be a block of one line."""
        following = _LINE.match(self.text, end, page_end) if end < page_end else None
        return following is None or not self.text[following.start() : following.end()].strip()
