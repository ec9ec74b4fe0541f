"""The fast block scanner gives exactly the units of the markdown-it-py path, or declines."""

from __future__ import annotations

import os
import site
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.ingest import markdown, mdblocks

REPO = Path(__file__).resolve().parents[2]

# Lines chosen to sit on the edges of the constructs the scanner handles or declines.
LINES = [
    "", "   ", "\t", "Plain words with 3 ms in them.", "more plain text", "# Heading", "## Sub heading ##",
    "### trailing #s ###", "#", "#hashtag", "####### seven", "  # indented heading", "- item", "* item",
    "+ item", "-", "- ", "1. one", "2) two", "10. ten", "1.5 is a number", "  - nested", "  two-space text",
    "    four-space code", "\tcode after a tab", "> quote", ">", " > quote", "```", "```py", "~~~", "````",
    "``` a`b", "| a | b |", "|---|---|", "a | b", "--|--", ":-: | -:", "| x \\| y | z |", "| 1 | 2 | 3 |",
    "---", "***", "___", "===", "- - -", "* * *", "<div>", "</div>", "<!-- c -->", "<!--", "-->", "<pre>",
    "</pre>", "<span>x</span>", "<https://example.org>", "[ref]: /url", "[ref]: /url \"t\"",
    "[ref]: javascript:x", "[a] b", "[x]:", "\"title\"", "[ ] task", "- [ ] task", "  continued",
    "   three spaces", "text\twith tab", "\u00a0nbsp", "*emph* text", "**bold**", "_x_", "`code` span",
    "\\| escaped", "2024. year", "-not a list", "+1 vote", "=", "=== title", "  ---", "  | a | b |",
    "  1. nested one", "  2) nested two", "   * three spaces", "    - deeper", "      - deepest", "  -", "  # nested",
]
NEWLINES = ["\n", "\r\n", "\r"]


def both(text: str, chunk_chars: int = markdown._CHUNK_CHARS) -> tuple[list[object], list[object]]:
    """Units of the markdown-it-py path and of the fast path (scanner plus markdown-it-py regions),
    the latter read in pieces of about ``chunk_chars``."""
    old = markdown._parse_body(text, 0, markdown._CHUNK_CHARS).units
    return old, markdown._fast_body(text, 0, chunk_chars).units


def scanner_handles(text: str) -> bool:
    try:
        mdblocks.block_tokens(mdblocks.body_lines(text))
    except mdblocks.Unsupported:
        return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([0, 0, 0, 1, 2, 3, 4, 5]), st.sampled_from(LINES)), max_size=14),
       st.sampled_from(NEWLINES), st.booleans(), st.sampled_from([1, 20, markdown._CHUNK_CHARS]))
def test_same_units_on_edge_lines(lines: list[tuple[int, str]], newline: str, final_break: bool,
                                  chunk_chars: int) -> None:
    text = newline.join(" " * indent + line for indent, line in lines) + (newline if final_break else "")
    old, fast = both(text, chunk_chars)
    assert fast == old, text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=" #>-*+=_`~<|:[]!1.)\\ta\n\r", max_size=60), st.sampled_from([1, 10, 10_000]))
def test_same_units_on_random_markup(text: str, chunk_chars: int) -> None:
    old, fast = both(text, chunk_chars)
    assert fast == old, text


def test_common_documents_take_the_fast_path() -> None:
    text = ("# Title\n\nSome text, 30 ms.\nMore text.\n\n## Table\n\n| Setting | Limit (ms) |\n|---|--:|\n"
            "| retry | 30 |\n\n- first\n- second\n  continues\n1. one\n\n> quoted\n> lines\n\n```sh\nrun\n```\n\n"
            "<div>raw</div>\n\n[ref]: https://example.org\n\n    code\n\n***\nSetext\ntitle\n---\n")
    old, fast = both(text)
    assert scanner_handles(text)
    assert fast == old
    assert [u.block_type for u in fast] == [
        "heading", "paragraph", "heading", "table_row", "table_row", "list_item", "list_item", "list_item",
        "block_quote", "code", "paragraph", "code", "heading"]


@pytest.mark.parametrize("text", [
    "- item\n\n  second paragraph\n", "- item\n  2. nested, not opened by 1\n", "- item\n  - nested\n\n    more\n",
    "- a\n  - b\n    - c\n      - d\n        - e\n", "> quote\nlazy line\n", "[ref]:\n  /url\n",
    "\tindented with a tab\n",
])
def test_declines_what_it_does_not_handle(text: str) -> None:
    assert not scanner_handles(text)
    before = markdown.parser_counts()["regions"]
    assert markdown.parse(text, where="x.md").units == markdown.parse(text, where="x.md", fast=False).units
    assert markdown.parser_counts()["regions"] == before + 1


@pytest.mark.parametrize(("text", "items"), [
    ("- item\n  - nested\n", 2), ("- a\n  - b\n    - c\n  - d\n- e\n", 5),
    ("1. one\n   1. inner\n   2. next\n2. two\n", 4), ("- a\n  * other marker\n  + and another\n", 3),
    ("- a\n  - b\nlazy text\n  lazy too\n- c\n", 3), ("- a\n   - three spaces\n     - deeper\n\nAfter.\n", 3),
    ("* a\n  - b\n\n* c\n", 3),
])
def test_handles_tight_nested_lists_like_markdown_it(text: str, items: int) -> None:
    assert scanner_handles(text)
    old, fast = both(text)
    assert fast == old
    assert [u.block_type for u in fast].count("list_item") == items


def test_markdown_it_reads_only_the_declined_region() -> None:
    text = ("# A\n\nFirst, 3 ms.\n\n- item\n  - nested\n\n    more\n\nBack to text.\n\n```\nopen fence\n\n"
            "Still code\n\n## B\n\nText after.\n")
    tokens, declined = mdblocks.scan_blocks(mdblocks.body_lines(text))
    assert declined == 4 and len(tokens) == 4  # heading (3 tokens) and paragraph (1) kept; the nested list declined
    before = markdown.parser_counts()
    assert markdown.parse(text, where="x.md").units == markdown.parse(text, where="x.md", fast=False).units
    after = markdown.parser_counts()
    assert after["regions"] == before["regions"] + 1
    assert after["fallback_chars"] - before["fallback_chars"] == len("- item\n  - nested\n\n    more\n\n")


def test_body_lines_number_like_markdown_it() -> None:
    assert mdblocks.body_lines("") == []
    assert mdblocks.body_lines("a\r\nb\rc\n") == ["a", "b", "c"]
    assert mdblocks.body_lines("a\n\n") == ["a", ""]


def _real_markdown_files() -> list[Path]:
    found = sorted(p for p in REPO.rglob("*.md") if ".venv" not in p.parts and "data" not in p.parts)
    packages: list[Path] = []
    for base in site.getsitepackages():
        packages.extend(sorted(Path(base).rglob("*.md")))
    if not os.environ.get("GRAPHCITE_ALL_MARKDOWN"):
        packages = packages[:: max(1, len(packages) // 300)]  # set the variable to compare every file
    return found + packages


def test_same_units_and_metadata_on_real_files() -> None:
    compared = 0
    for path in _real_markdown_files():
        try:
            text = path.read_text(encoding="utf-8")
            old = markdown.parse(text, where=str(path), fast=False)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        new = markdown.parse(text, where=str(path))
        assert new.units == old.units, path
        assert new.metadata == old.metadata, path
        compared += 1
    assert compared > 20
