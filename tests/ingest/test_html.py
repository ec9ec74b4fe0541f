"""HTML parser: visible text only, block units, table headers, hostile input."""

from __future__ import annotations

import html as htmllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.ingest import html
from graphcite.models import BLOCK_TYPES, ParsedDocument


def assert_units_valid(doc: ParsedDocument) -> None:
    previous_end = 0
    for unit in doc.units:
        assert 0 <= unit.start < unit.end <= len(doc.text)
        assert unit.start >= previous_end
        surface = doc.text[unit.start : unit.end]
        assert surface and surface == surface.strip()
        assert unit.block_type in BLOCK_TYPES
        for cell_start, cell_end in unit.cells or ():
            assert unit.start <= cell_start <= cell_end <= unit.end
        previous_end = unit.end


def surfaces(doc: ParsedDocument) -> list[tuple[str, str]]:
    return [(u.block_type, doc.text[u.start : u.end]) for u in doc.units]


PAGE = """<!doctype html>
<html><head><title>  Retry
  policy </title><style>p { color: red }</style><script>var secret = 1;</script></head>
<body>
<h1>Retry policy</h1>
<p>The client <b>retries</b> failed&nbsp;calls &amp; waits.<br>Second   line.</p>
<h2>Current decision</h2>
<ul>
  <li><p>Three attempts at most.</p><p>Then give up.</p>
    <ul><li>Backoff doubles.</li></ul>
  </li>
  <li>Jitter is added.</li>
</ul>
<blockquote><p>Quoted one.</p><p>Quoted two.</p></blockquote>
<pre>
  MAX_RETRIES = 3
    indented
</pre>
<h3>Limits</h3>
<table>
  <thead><tr><th>Setting</th><th>Value</th></tr></thead>
  <tbody>
    <tr><td>Timeout (ms)</td><td>30</td></tr>
    <tr><td>Retries</td><td><span>3</span> max</td></tr>
  </tbody>
</table>
<div>Loose text in a div</div>
<h2>Rejected alternatives</h2>
<table><tr><th>Option</th><th>Why not</th></tr><tr><td>Retry forever</td><td>load</td></tr></table>
</body></html>
"""


def test_visible_text_and_units() -> None:
    doc = html.parse(PAGE, where="retry.html")
    assert doc.format == "html"
    assert doc.metadata == {"title": "Retry policy"}
    assert surfaces(doc) == [
        ("heading", "Retry policy"),
        ("paragraph", "The client retries failed\xa0calls & waits.\nSecond line."),
        ("heading", "Current decision"),
        ("list_item", "Three attempts at most.\n\nThen give up."),
        ("list_item", "Backoff doubles."),
        ("list_item", "Jitter is added."),
        ("block_quote", "Quoted one.\n\nQuoted two."),
        ("code", "MAX_RETRIES = 3\n    indented"),
        ("heading", "Limits"),
        ("table_row", "Setting | Value"),
        ("table_row", "Timeout (ms) | 30"),
        ("table_row", "Retries | 3 max"),
        ("paragraph", "Loose text in a div"),
        ("heading", "Rejected alternatives"),
        ("table_row", "Option | Why not"),
        ("table_row", "Retry forever | load"),
    ]
    assert "secret" not in doc.text and "color" not in doc.text
    assert_units_valid(doc)


def test_heading_paths() -> None:
    doc = html.parse(PAGE, where="retry.html")
    paths = {doc.text[u.start : u.end]: u.heading_path for u in doc.units}
    assert paths["Retry policy"] == ()
    assert paths["Current decision"] == ("Retry policy",)
    assert paths["Jitter is added."] == ("Retry policy", "Current decision")
    assert paths["Timeout (ms) | 30"] == ("Retry policy", "Current decision", "Limits")
    assert paths["Retry forever | load"] == ("Retry policy", "Rejected alternatives")


def test_table_rows_carry_headers_and_cells() -> None:
    doc = html.parse(PAGE, where="retry.html")
    rows = [u for u in doc.units if u.block_type == "table_row"]
    assert rows[0].table_headers is None
    assert rows[1].table_headers == ("Setting", "Value")
    assert [doc.text[a:b] for a, b in rows[1].cells] == ["Timeout (ms)", "30"]
    assert [doc.text[a:b] for a, b in rows[2].cells] == ["Retries", "3 max"]
    assert rows[3].table_headers is None  # all-<th> first row of a table without <thead>
    assert rows[4].table_headers == ("Option", "Why not")


def test_row_headers_in_body_rows_are_not_a_header_row() -> None:
    doc = html.parse("<table><tr><th>Timeout</th><td>30 ms</td></tr></table>", where="t.html")
    (row,) = doc.units
    assert doc.text[row.start : row.end] == "Timeout | 30 ms" and row.table_headers is None


def test_hostile_input_never_becomes_markup() -> None:
    page = (
        '<p>Hi<script>alert(1)</script> there</p>'
        '<img src=x onerror="alert(2)">'
        '<a href="javascript:alert(3)">click me</a>'
        '<svg onload="alert(4)"><text>svg text</text></svg>'
        '<iframe src="javascript:alert(5)">frame text</iframe>'
        '<noscript><p>enable js</p></noscript>'
        '<template><p>template text</p></template>'
        '<style>body{}</style><!-- comment alert(6) -->'
        '<p>&lt;b&gt;shown as text&lt;/b&gt;</p>'
    )
    doc = html.parse(page, where="x.html")
    for forbidden in ("alert", "onerror", "javascript", "onload", "svg text", "frame text", "enable js",
                      "template text", "body{}", "comment"):
        assert forbidden not in doc.text
    assert surfaces(doc) == [("paragraph", "Hi there"), ("paragraph", "click me"),
                             ("paragraph", "<b>shown as text</b>")]


def test_empty_and_whitespace_pages() -> None:
    assert html.parse("<html><body>  \n </body></html>", where="e.html").units == []
    doc = html.parse("plain text without tags", where="p.html")
    assert surfaces(doc) == [("paragraph", "plain text without tags")]


def test_deep_nesting_does_not_recurse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html, "MAX_BLOCK_DEPTH", 10_000)  # the default refuses such pages up front
    page = "<div>" * 5000 + "deep text" + "</div>" * 5000
    doc = html.parse(page, where="deep.html")
    assert surfaces(doc) == [("paragraph", "deep text")]


_TEXT = st.lists(st.sampled_from([*"ab Z9.,;|<>&\"'\t\n\xa0", "😀", "\u00e9", "e\u0301", "日本"]),
                 max_size=12).map("".join)


@st.composite
def html_fragments(draw: st.DrawFn) -> str:
    def text() -> str:
        return htmllib.escape(draw(_TEXT))

    blocks = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 10))
        if kind == 0:
            level = draw(st.integers(1, 6))
            blocks.append(f"<h{level}>{text()}</h{level}>")
        elif kind == 1:
            blocks.append(f"<p>{text()}<b>{text()}</b><br>{text()}<script>alert('{text()}')</script></p>")
        elif kind == 2:
            items = "".join(f"<li>{text()}<ul><li>{text()}</li></ul>{text()}</li>"
                            for _ in range(draw(st.integers(0, 3))))
            blocks.append(f"<ul>{items}</ul>")
        elif kind == 3:
            blocks.append(f"<blockquote><p>{text()}</p>{text()}<p>{text()}</p></blockquote>")
        elif kind == 4:
            blocks.append(f"<pre>{text()}\n{text()}</pre>")
        elif kind == 5:
            head = "".join(f"<th>{text()}</th>" for _ in range(2))
            rows = "".join(f"<tr><td>{text()}</td><td>{text()}</td></tr>" for _ in range(draw(st.integers(0, 3))))
            blocks.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif kind == 6:
            blocks.append(f'<div>{text()}<a href="javascript:alert(1)">{text()}</a><div>{text()}</div></div>')
        elif kind == 7:
            blocks.append(f"<style>{text()}</style><noscript>alert(9)</noscript>")
        elif kind == 8:
            blocks.append(f"<img src=x onerror=alert(7)>{text()}")
        elif kind == 9:
            blocks.append(f"<dl><dt>{text()}</dt><dd>{text()}</dd></dl>")
        else:
            blocks.append(text())
    return "<html><head><title>" + text() + "</title></head><body>" + "".join(blocks) + "</body></html>"


@settings(max_examples=200, deadline=None)
@given(html_fragments())
def test_property_units_valid_and_no_script(page: str) -> None:
    doc = html.parse(page, where="p.html")
    assert_units_valid(doc)
    assert "alert" not in doc.text and "onerror" not in doc.text and "javascript" not in doc.text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_property_units_valid_on_any_text(page: str) -> None:
    assert_units_valid(html.parse(page, where="p.html"))
