"""A fast Markdown block scanner for the common constructs, exact or not at all.

markdown-it-py builds a state object and tries a dozen rules per line; most Markdown needs far less.
:func:`block_tokens` reads the body line by line and returns the top-level block tokens the
:mod:`graphcite.ingest.markdown` walker turns into units -- the tokens markdown-it-py would give
for the blocks it knows, except that a paragraph is one ``paragraph`` token (not an open and a close
token) and a list item whose content is one paragraph is one ``list_item`` token (not six): ATX headings, paragraphs, GFM tables, fenced and indented code, block quotes
(whole), thematic breaks, HTML blocks, setext headings, link reference definitions on one line, and
list items whose content is one paragraph, with tight lists of such items nested in them (each item
one ``list_item`` token). Anything else (multi-block list items, lazy lines after a quote, tabs in indentation, ...) stops the scanner at the start of that block
(:func:`scan_blocks`), and the caller parses from there with markdown-it-py up to the next point
where no block can continue, then resumes the scanner. Property tests compare the units of both.

Line numbering follows markdown-it: lines end at ``\\r\\n``, ``\\r`` or ``\\n`` and a final line
break adds no empty line. Indentation counts spaces only (a tab there is unsupported).
"""

from __future__ import annotations

import re

from markdown_it.rules_block.html_block import HTML_SEQUENCES

__all__ = ["BlockToken", "Unsupported", "block_tokens", "body_lines", "scan_blocks"]


class Unsupported(Exception):
    """The fast scanner met a construct it does not handle; use markdown-it-py for this text."""


class BlockToken:
    """The fields of a markdown-it token that the unit walker reads."""

    __slots__ = ("content", "map", "markup", "nesting", "tag", "type")

    def __init__(self, type_: str, nesting: int, line_map: list[int] | None, markup: str = "",
                 tag: str = "", content: str = "") -> None:
        self.type = type_
        self.nesting = nesting
        self.map = line_map
        self.markup = markup
        self.tag = tag
        self.content = content


# CommonMark's whitespace (what markdown-it's mdTrim strips).
_MD_TRIM = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"
# First characters that may start or end a block; any other first character is ordinary text.
_SPECIAL = frozenset("#>-+*=_`~<|:[0123456789")
_DIGITS = frozenset("0123456789")
_ORDERED = re.compile(r"(\d{1,9})[.)](?=[ \t]|$)")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]|$)")
_HR = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")
_FENCE = re.compile(r"`{3,}|~{3,}")
_HEADER_CELL = re.compile(r":?-+:?")
_DELIMITER_CHARS = frozenset("|-: \t")
# A whole-line link reference definition: [label]: destination, optionally a quoted title.
_REFERENCE = re.compile(r"\[[^\[\]\\]*[^\s\[\]\\][^\[\]\\]*\]:[ \t]*[^\s\x00-\x1f\x7f<>()\\\"'\[\]]+"
                        r"([ \t]+(?:\"[^\"\\]*\"|'[^'\\]*'))?[ \t]*")
# Destinations markdown-it refuses (then the line is a paragraph, not a definition).
_UNSAFE_LINK = re.compile(r"[ \t]*(?:javascript|vbscript|file|data):", re.IGNORECASE)
_MAX_AUTOCOMPLETED_CELLS = 0x10000
#: Lists nested deeper than this are left to markdown-it-py.
_MAX_LIST_DEPTH = 4


def body_lines(body: str) -> list[str]:
    """The lines of ``body`` as markdown-it numbers them, without their line breaks."""
    if not body:
        return []
    lines = re.split(r"\r\n?|\n", body) if "\r" in body else body.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _indent(line: str) -> int:
    """Leading spaces of a non-blank line; a tab among them is unsupported."""
    stripped = line.lstrip(" ")
    if stripped[:1] == "\t":
        raise Unsupported("tab in indentation")
    return len(line) - len(stripped)


def _is_blank(line: str) -> bool:
    return not line.strip(" \t")


def _html_sequence(rest: str) -> tuple[re.Pattern[str], re.Pattern[str], bool] | None:
    for sequence in HTML_SEQUENCES:
        if sequence[0].search(rest):
            return sequence
    return None


def _bullet_or_ordered(rest: str) -> int:
    """Length of a list marker at the start of ``rest`` (0 when there is none)."""
    first = rest[:1]
    if first in ("-", "*", "+"):
        return 1 if len(rest) == 1 or rest[1] in " \t" else 0
    if first in _DIGITS:
        match = _ORDERED.match(rest)
        return match.end() if match else 0
    return 0


def _escaped_split(line: str) -> list[str]:
    """Cells of a table line split at unescaped pipes; ``\\|`` becomes ``|`` (as markdown-it does)."""
    cells: list[str] = []
    current = ""
    last = 0
    escaped = False
    for position, char in enumerate(line):
        if char == "|":
            if not escaped:
                cells.append(current + line[last:position])
                current = ""
                last = position + 1
            else:
                current += line[last : position - 1]
                last = position
        escaped = char == "\\"
    cells.append(current + line[last:])
    return cells


def _trimmed_cells(line: str) -> list[str]:
    cells = _escaped_split(line)
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


class _Scanner:
    """Top-level blocks of one body, as markdown-it tokens (block level only)."""

    def __init__(self, lines: list[str], *, final: bool = True) -> None:
        self.lines = lines
        self.count = len(lines)
        # False when the lines are a piece of a longer body: a fence or raw-HTML block still open
        # at their end may continue past it, so it is declined.
        self.final = final
        self.tokens: list[BlockToken] = []
        # The first line of the block being read and the tokens before it (kept when it fails).
        self.block_start = 0
        self.mark = 0

    # -- line tests ------------------------------------------------------------------------

    def table_columns(self, index: int) -> int:
        """Columns of a table starting at line ``index`` (header, delimiter), 0 when there is none."""
        if index + 2 > self.count:
            return 0
        delimiter = self.lines[index + 1]
        rest = delimiter.lstrip(" \t")
        if len(delimiter) - len(rest) >= 4 or len(rest) < 2:
            return 0
        if "\t" in delimiter[: len(delimiter) - len(rest)]:
            raise Unsupported("tab in indentation")
        first, second = rest[0], rest[1]
        if first not in "|-:" or (second not in "|-:" and second not in " \t") or (first == "-" and second in " \t"):
            return 0
        if not _DELIMITER_CHARS.issuperset(rest):
            return 0
        columns = rest.split("|")
        aligned = 0
        for position, column in enumerate(columns):
            cell = column.strip(_MD_TRIM)
            if not cell:
                if position in (0, len(columns) - 1):
                    continue
                return 0
            if not _HEADER_CELL.fullmatch(cell):
                return 0
            aligned += 1
        header = self.lines[index].lstrip(" \t").strip(_MD_TRIM)
        if "|" not in header or _indent(self.lines[index]) >= 4:
            return 0
        count = len(_trimmed_cells(header))
        return count if count and count == aligned else 0

    def fence_marker(self, rest: str) -> str | None:
        """The opening fence marker run at the start of ``rest``, or None."""
        match = _FENCE.match(rest)
        if match is None:
            return None
        marker = match.group()
        if marker[0] == "`" and "`" in rest[len(marker) :]:
            return None
        return marker

    def interrupts(self, index: int, rest: str, *, paragraph: bool) -> bool:
        """Whether the (non-blank, indent < 4) line starting a block ends a paragraph or table."""
        first = rest[0]
        if first not in _SPECIAL:
            return False
        if paragraph and self.table_columns(index):
            return True
        if first in "`~":
            return self.fence_marker(rest) is not None
        if first == ">":
            return True
        if first in "-*_" and _HR.fullmatch(rest):
            return True
        marker = _bullet_or_ordered(rest)
        if marker:
            if not paragraph:
                return True
            if rest[marker:].strip(" \t") == "":
                return False
            return first not in _DIGITS or int(rest[: marker - 1]) == 1
        if first == "<":
            sequence = _html_sequence(rest)
            return sequence is not None and sequence[2]
        if first == "#":
            return _HEADING.match(rest) is not None
        return False

    def ordinary(self, rest: str) -> bool:
        """Whether a non-blank line's text can neither start, end nor underline any block."""
        first = rest[0]
        if first not in _SPECIAL:
            return True
        if first in "`~":
            return self.fence_marker(rest) is None
        if first == ">":
            return False
        if first in "-*_+" and (_HR.fullmatch(rest) or _bullet_or_ordered(rest)):
            return False
        if first in _DIGITS:
            return not _bullet_or_ordered(rest)
        if first in "=-" and _UNDERLINE.fullmatch(rest):
            return False
        if first in "|:-" and _DELIMITER_CHARS.issuperset(rest):
            return False
        if first == "<":
            return _html_sequence(rest) is None
        if first == "#":
            return _HEADING.match(rest) is None
        return True

    # -- blocks ----------------------------------------------------------------------------

    def scan(self, start: int = 0) -> list[BlockToken]:
        lines, index = self.lines, start
        while index < self.count:
            line = lines[index]
            if _is_blank(line):
                index += 1
                continue
            self.block_start, self.mark = index, len(self.tokens)
            indent = _indent(line)
            if indent >= 4:
                index = self.indented_code(index)
                continue
            rest = line[indent:]
            first = rest[0]
            if first not in _SPECIAL and not (index + 1 < self.count and "|" in line):
                index = self.paragraph(index)
            elif columns := self.table_columns(index):
                index = self.table(index, columns)
            elif first in "`~" and (marker := self.fence_marker(rest)) is not None:
                index = self.fence(index, marker)
            elif first == ">":
                index = self.quote(index)
            elif first in "-*_" and _HR.fullmatch(rest):
                index += 1
            elif marker_length := _bullet_or_ordered(rest):
                index = self.list_item(index, indent, marker_length)
            elif first == "[" and ("]:" in rest or "]" not in rest or "\\" in rest):
                index = self.reference(index, rest)
            elif first == "<" and _html_sequence(rest) is not None:
                index = self.html(index, rest)
            elif first == "#" and (heading := _HEADING.match(rest)) is not None:
                self.heading(index, rest, len(heading.group(1)))
                index += 1
            else:
                index = self.paragraph(index)
        return self.tokens

    def paragraph_end(self, index: int) -> tuple[int, str]:
        """The line after the paragraph starting at ``index``, and the setext underline character
        (``=`` or ``-``) when an underline ends it ('' otherwise; the underline is the line returned)."""
        lines, count = self.lines, self.count
        line_number = index + 1
        while line_number < count:
            line = lines[line_number]
            rest = line.lstrip(" ")
            if not rest.strip(" \t"):
                break
            if rest[0] not in _SPECIAL:
                if line_number + 1 < count and "|" in rest and self.table_columns(line_number):
                    break
                line_number += 1
                continue
            indent = _indent(line)
            if indent >= 4:
                line_number += 1
                continue
            if rest[0] in "=-" and _UNDERLINE.fullmatch(rest):
                return line_number, rest[0]
            if self.interrupts(line_number, rest, paragraph=True):
                break
            line_number += 1
        return line_number, ""

    def paragraph(self, index: int) -> int:
        stop, underline = self.paragraph_end(index)
        if underline:  # a setext heading: the paragraph's lines are its text
            tag = "h1" if underline == "=" else "h2"
            content = "\n".join(self.lines[index:stop]).strip()
            self.tokens.append(BlockToken("heading_open", 1, [index, stop + 1], underline, tag))
            self.tokens.append(BlockToken("inline", 0, [index, stop + 1], content=content))
            self.tokens.append(BlockToken("heading_close", -1, None, underline, tag))
            return stop + 1
        self.tokens.append(BlockToken("paragraph", 0, [index, stop]))
        return stop

    def heading(self, index: int, rest: str, level: int) -> None:
        end = len(rest.rstrip(" \t"))
        if end < level:
            end = level
        closing = end
        while closing > level and rest[closing - 1] == "#":
            closing -= 1
        if closing < end and closing > level and rest[closing - 1] in " \t":
            end = closing
        content = rest[level:end].strip(_MD_TRIM)
        tag = f"h{level}"
        self.tokens.append(BlockToken("heading_open", 1, [index, index + 1], "#" * level, tag))
        self.tokens.append(BlockToken("inline", 0, [index, index + 1], content=content))
        self.tokens.append(BlockToken("heading_close", -1, None, "#" * level, tag))

    def table(self, index: int, columns: int) -> int:
        tokens = self.tokens
        table_open = BlockToken("table_open", 1, [index, index + 2])
        tokens.append(table_open)
        tokens.append(BlockToken("thead_open", 1, None))
        tokens.append(BlockToken("tr_open", 1, [index, index + 1]))
        header = self.lines[index].lstrip(" \t").strip(_MD_TRIM)
        for cell in _trimmed_cells(header):
            tokens.append(BlockToken("inline", 0, None, content=cell.strip(_MD_TRIM)))
        tokens.append(BlockToken("tr_close", -1, None))
        tokens.append(BlockToken("thead_close", -1, None))
        autocompleted = 0
        line_number = index + 2
        while line_number < self.count:
            line = self.lines[line_number]
            rest = line.lstrip(" \t")
            if rest and len(line) - len(rest) < 4:
                _indent(line)
                if self.interrupts(line_number, rest, paragraph=False):
                    break
            text = rest.strip(_MD_TRIM)
            if not text or _indent(line) >= 4:
                break
            autocompleted += columns - len(_trimmed_cells(text))
            if autocompleted > _MAX_AUTOCOMPLETED_CELLS:
                break
            tokens.append(BlockToken("tr_open", 1, [line_number, line_number + 1]))
            tokens.extend(BlockToken("inline", 0, None) for _ in range(columns))
            tokens.append(BlockToken("tr_close", -1, None))
            line_number += 1
        tokens.append(BlockToken("table_close", -1, None))
        table_open.map = [index, line_number]
        return line_number

    def fence(self, index: int, marker: str) -> int:
        char, length = marker[0], len(marker)
        line_number = index + 1
        stop = self.count
        while line_number < self.count:
            line = self.lines[line_number]
            rest = line.lstrip(" ")
            if rest[:1] == char and len(line) - len(rest) < 4:
                run = len(rest) - len(rest.lstrip(char))
                if run >= length and not rest[run:].strip(" \t"):
                    stop = line_number + 1
                    break
            line_number += 1
        if stop == self.count and not self.final and line_number == self.count:
            raise Unsupported("fence open at the end of a piece")
        self.tokens.append(BlockToken("fence", 0, [index, stop], marker, "code"))
        return stop

    def indented_code(self, index: int) -> int:
        last = index + 1
        line_number = index + 1
        while line_number < self.count:
            line = self.lines[line_number]
            if _is_blank(line):
                line_number += 1
                continue
            if _indent(line) < 4:
                break
            line_number += 1
            last = line_number
        self.tokens.append(BlockToken("code_block", 0, [index, last], tag="code"))
        return last

    def quote(self, index: int) -> int:
        line_number = index + 1
        while line_number < self.count:
            line = self.lines[line_number]
            rest = line.lstrip(" \t")
            if not rest:
                break
            if rest[0] != ">":
                raise Unsupported("lazy line after a block quote")
            line_number += 1
        self.tokens.append(BlockToken("blockquote_open", 1, [index, line_number]))
        self.tokens.append(BlockToken("blockquote_close", -1, None))
        return line_number

    def reference(self, index: int, rest: str) -> int:
        match = _REFERENCE.fullmatch(rest)
        if match is None or _UNSAFE_LINK.match(rest, rest.index("]:") + 2):
            raise Unsupported("possible link reference definition")
        if match.group(1) is None and index + 1 < self.count:
            following = self.lines[index + 1].lstrip(" \t")
            if following[:1] in ("\"", "'", "("):
                raise Unsupported("reference title on the next line")
        return index + 1

    def html(self, index: int, rest: str) -> int:
        _opening, closing, _interrupts = _html_sequence(rest) or (None, re.compile(""), False)
        line_number = index + 1
        if not closing.search(rest):
            while line_number < self.count:
                text = self.lines[line_number].lstrip(" \t")
                if closing.search(text):
                    if text:
                        line_number += 1
                    break
                line_number += 1
            else:
                if not self.final:
                    raise Unsupported("raw HTML open at the end of a piece")
        content = "\n".join(self.lines[index:line_number])
        self.tokens.append(BlockToken("html_block", 0, [index, line_number], content=content))
        return line_number

    def item_content_indent(self, index: int, indent: int, marker_length: int) -> int:
        """Where the content of the list item whose marker starts line ``index`` begins; the content must
        be ordinary paragraph text on the marker's line (otherwise unsupported)."""
        after = self.lines[index][indent + marker_length :]
        content = after.lstrip(" ")
        spaces = len(after) - len(content)
        if not content or content[0] == "\t" or spaces > 4:
            raise Unsupported("empty list item or unusual marker spacing")
        if not self.ordinary(content) or (content[0] == "[" and (
                "]:" in content or "]" not in content or "\\" in content)):
            raise Unsupported("list item starting with a block")
        return indent + marker_length + spaces

    def list_item(self, index: int, indent: int, marker_length: int) -> int:
        """A list item whose content is one paragraph, possibly followed by a tight list nested in it whose
        items are the same (to :data:`_MAX_LIST_DEPTH` levels); otherwise unsupported. One ``list_item``
        token per item, ending where its paragraph ends (a parent's at its first nested item)."""
        lines, count = self.lines, self.count
        # (marker indent, content indent) of the items open at this line, outermost first
        levels = [(indent, self.item_content_indent(index, indent, marker_length))]
        item = index
        line_number = index + 1
        stop = count
        while line_number < count:
            line = lines[line_number]
            if _is_blank(line):
                following = line_number + 1
                while following < count and _is_blank(lines[following]):
                    following += 1
                if following < count and _indent(lines[following]) >= levels[0][1]:
                    raise Unsupported("list item with more than one block")
                if (following < count and _bullet_or_ordered(lines[following].lstrip(" "))
                        and self.table_columns(following)):
                    # markdown-it reads that marker as the list's next (loose) item, not as a table's header
                    raise Unsupported("list marker heading a table after a blank line")
                stop = following
                break
            line_indent = _indent(line)
            rest = line[line_indent:]
            deepest = levels[-1][1]
            if line_indent >= deepest:
                if self.ordinary(rest):
                    line_number += 1
                    continue
                length = _bullet_or_ordered(rest)
                if (not length or line_indent - deepest >= 4 or _HR.fullmatch(rest) or len(levels) >= _MAX_LIST_DEPTH
                        or (rest[0] in _DIGITS and int(rest[: length - 1]) != 1)):  # only "1." opens a list here
                    raise Unsupported("block inside a list item")
                levels.append((line_indent, 0))  # a list nested in the deepest item
            else:
                inside = 0  # how many open items hold the line (by its indentation)
                while inside < len(levels) and line_indent >= levels[inside][1]:
                    inside += 1
                length = _bullet_or_ordered(rest)
                base = levels[inside - 1][1] if inside else 0
                if length and line_indent - base < 4 and not _HR.fullmatch(rest):
                    if line_indent - levels[-1][0] >= 4:  # markdown-it reads this marker as lazy text
                        raise Unsupported("list marker indented past its list")
                    if not inside:
                        if self.table_columns(line_number):
                            raise Unsupported("table after a list item")
                        stop = line_number
                        break
                    del levels[inside + 1 :]  # a next item of a nested list
                    levels[inside] = (line_indent, 0)
                elif (line_indent >= 4 and not inside) or not self.ordinary(rest):
                    raise Unsupported("block after a list item")
                else:  # lazy continuation of the deepest paragraph
                    line_number += 1
                    continue
            if self.table_columns(line_number):
                raise Unsupported("table after a list item")
            self.tokens.append(BlockToken("list_item", 0, [item, line_number]))
            item = line_number
            levels[-1] = (line_indent, self.item_content_indent(line_number, line_indent, length))
            line_number += 1
        self.tokens.append(BlockToken("list_item", 0, [item, stop]))
        return stop


def block_tokens(lines: list[str]) -> list[BlockToken]:
    """Top-level block tokens of a body given as :func:`body_lines`; raises :class:`Unsupported`."""
    return _Scanner(lines).scan()


def scan_blocks(lines: list[str], start: int = 0, *, final: bool = True) -> tuple[list[BlockToken], int | None]:
    """Block tokens from line ``start`` on, up to the first block the scanner does not handle.

    With ``final=False`` the lines are a piece of a longer body cut where no block but a fence or
    raw HTML can continue, and such a block left open at the piece's end is not handled either.

    Returns the tokens and that block's first line (None when the scanner reached the end). The
    tokens before it are final: every block before it is complete and starts where markdown-it's
    would, so markdown-it can take over at that line with a fresh state.
    """
    scanner = _Scanner(lines, final=final)
    try:
        return scanner.scan(start), None
    except Unsupported:
        return scanner.tokens[: scanner.mark], scanner.block_start
