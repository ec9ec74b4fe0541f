"""Transformed quotes and excerpt limits in what graphcite shows: the HTML export and the review page render
each verbatim piece from the stored text, mark omissions and insertions as such, and never reproduce more
than --max-quote-chars code points of a source (a shortened excerpt names its full offsets)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphcite.errors import InputError
from graphcite.export import export, export_graph
from graphcite.export.html import excerpt_html, render_page
from graphcite.export.output import DEFAULT_MAX_QUOTE_CHARS, check_max_quote_chars, excerpt_window
from graphcite.graph import build_graph
from graphcite.ingest import ingest
from graphcite.serve.review import environment
from graphcite.serve.views import answer_view
from graphcite.store import Store
from graphcite.verify import check_answer

LONG = " ".join(f"Buoy {n} marks the channel edge on the {side} side and is checked every {n + 2} days by the crew."
                for n, side in zip(range(1, 13), ["east", "west"] * 6, strict=True))
HARBOUR = f"""# Harbour

## Crossings

The morning ferry leaves the north pier at seven. It carries bicycles on the lower deck only. Cars wait for the second crossing.

## Buoys

{LONG}
"""
CITED = "Buoy 7 marks the channel edge on the east side and is checked every 9 days by the crew."


@pytest.fixture(scope="module")
def harbour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Path, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("excerpts")
    (root / "docs").mkdir()
    (root / "docs" / "harbour.md").write_text(HARBOUR, encoding="utf-8")
    with Store(root / "harbour.duckdb") as store:
        ingest(store, [root / "docs"], prefix="docs/")
        report = check_answer(store, {"answer_id": "harbour", "claims": [
            {"text": "The morning ferry leaves at seven and cars wait for the second crossing.", "citations": [
                {"source": "docs/harbour.md",
                 "quote": "The morning ferry leaves the north pier at seven. … Cars wait for the second crossing."}]},
            {"text": "The morning ferry carries bicycles on the lower deck only.", "citations": [
                {"source": "docs/harbour.md", "quote": "[The morning ferry] carries bicycles on the lower deck only."}]},
            {"text": "Buoy 7 is checked every 9 days.", "citations": [{"source": "docs/harbour.md", "quote": CITED}]}]})
        yield store, root, report


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_the_report_records_the_pieces(harbour: tuple[Store, Path, dict[str, Any]]) -> None:
    _, _, report = harbour
    first, second, third = (c["citations"][0] for c in report["claims"])
    assert len(first["quote_pieces"]) == 2 and first["valid"]
    assert second["quote_transformations"][0]["kind"] == "insertion"
    assert "quote_pieces" not in third and len(LONG) > DEFAULT_MAX_QUOTE_CHARS


def test_html_export_shows_pieces_and_truncates_a_long_paragraph(harbour: tuple[Store, Path, dict[str, Any]]) -> None:
    store, root, _ = harbour
    out = root / "page.html"
    export(store, "html", out, answer="harbour")
    page = out.read_text(encoding="utf-8")
    # the ellipsis and the insertion are shown as such, the pieces marked from the stored text
    assert "<mark>The morning ferry leaves the north pier at seven.</mark> <span class=\"omission\">[…]</span> " \
           "<mark>Cars wait for the second crossing.</mark>" in page
    assert "<ins class=\"insertion\" title=\"the answer's insertion, not in the source\">[The morning ferry]</ins> " \
           "<mark>carries bicycles on the lower deck only.</mark>" in page
    assert "It carries bicycles" not in _text(page)  # the paragraph is not shown in place of the quote as quoted
    # the long paragraph is shortened to the limit around the cited span, with its full offsets
    assert LONG not in _text(page) and f"<mark>{CITED}</mark>" in page
    start = HARBOUR.index(CITED)
    assert f"the cited span is {start}–{start + len(CITED)}" in page
    assert f"Shortened to {DEFAULT_MAX_QUOTE_CHARS} of {len(LONG)} code points" in page
    excerpt = re.search(r"<blockquote><p>([^<]*<mark>Buoy 7.*?)</p>", page)
    assert excerpt is not None and len(_text(excerpt.group(1)).strip("…")) == DEFAULT_MAX_QUOTE_CHARS


def test_a_smaller_limit_applies_to_every_excerpt(harbour: tuple[Store, Path, dict[str, Any]]) -> None:
    store, root, _ = harbour
    G = build_graph(store, answer="harbour")
    G.graph["max_quote_chars"] = 40
    out = root / "small.html"
    export_graph(store, G, "html", out)
    page = out.read_text(encoding="utf-8")
    assert CITED not in _text(page) and f"<mark>{CITED[:40]}</mark>" in page
    assert "shortened to 40 code points of source text" in page  # the quote of two pieces is cut too
    assert "<mark>Cars wait for the second crossing.</mark>" not in page
    quoted = [m for m in re.findall(r"<mark>(.*?)</mark>", page)]
    assert quoted and max(len(m) for m in quoted) <= 40
    assert render_page(G, max_quote_chars=40) != render_page(G)


def test_limits_are_checked() -> None:
    assert check_max_quote_chars(None) == DEFAULT_MAX_QUOTE_CHARS
    for bad in (0, 19, -5, True, 2.5):
        with pytest.raises(InputError, match="--max-quote-chars"):
            check_max_quote_chars(bad)  # type: ignore[arg-type]
    assert excerpt_window(1000, 400, 450, 100) == (375, 475)
    assert excerpt_window(1000, 950, 1000, 100) == (900, 1000)
    assert excerpt_window(1000, 100, 900, 100) == (100, 200)
    body, note = excerpt_html("a<b" * 20, 0, 3, 30, base=10)
    assert "&lt;" in body and "<b" not in body and "shown 10–40 of the revision" in note


def test_review_page_renders_the_pieces(harbour: tuple[Store, Path, dict[str, Any]]) -> None:
    store, _, _ = harbour
    view = answer_view(store, "harbour", "internal")
    cit = view["claims"][0]["citations"][0]
    assert [p["text"] for p in cit["quote_pieces"]] == ["The morning ferry leaves the north pier at seven.",
                                                        "Cars wait for the second crossing."]
    html = environment().get_template("answer.html").render(
        view=view, audience="internal", csrf="x", reviewer=None, here="/review/answers/harbour", recorded=None,
        title="Answer", max_quote_chars=DEFAULT_MAX_QUOTE_CHARS)
    assert '<span class="omission">[…]</span>' in html and '<ins class="insertion"' in html
    assert "The quoted text was not found in this unit" not in html
    assert LONG not in _text(html) and "Shortened to 500" in html


def test_review_app_pages_show_pieces(tmp_path: Path) -> None:
    """The running review app (answer page and claim page) shows a transformed quote piece by piece."""
    from starlette.testclient import TestClient

    from graphcite.serve import ServiceSettings, create_app

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "harbour.md").write_text(HARBOUR, encoding="utf-8")
    db = tmp_path / "app.duckdb"
    with Store(db) as store:
        ingest(store, [tmp_path / "docs"], prefix="docs/")
        report = check_answer(store, {"answer_id": "app", "claims": [
            {"text": "The morning ferry carries bicycles on the lower deck only.", "citations": [
                {"source": "docs/harbour.md",
                 "quote": "The morning ferry … carries bicycles on the lower deck only."}]}]})
    claim_id = report["claims"][0]["claim_id"]
    with TestClient(create_app(ServiceSettings(db=db))) as client:
        answer = client.get("/review/answers/app")
        claim = client.get(f"/review/claims/{claim_id}")
    for page in (answer, claim):
        assert page.status_code == 200
        assert ('<mark>The morning ferry</mark> <span class="omission">[…]</span> '
                "<mark>carries bicycles on the lower deck only.</mark>") in page.text
        assert "Quoted as 2 verbatim pieces" in page.text


def test_public_export_never_shows_pieces_of_a_restricted_source(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "vault.md").write_text(
        "---\ntitle: Vault rota\nvisibility: restricted\n---\n# Vault\n\n"
        "The vault opens at nine. Only two keyholders may enter together.\n", encoding="utf-8")
    db = tmp_path / "vault.duckdb"
    with Store(db) as store:
        ingest(store, [tmp_path / "docs"], prefix="docs/")
        report = check_answer(store, {"answer_id": "vault", "claims": [{"text": "The vault opens at nine.", "citations": [
            {"source": "docs/vault.md", "quote": "The vault opens … at nine. Only [the] two keyholders"}]}]})
        assert report["claims"][0]["citations"][0]["quote_pieces"]  # recorded for the internal audience
        internal, public = tmp_path / "internal.html", tmp_path / "public.html"
        export(store, "html", internal, answer="vault")
        export(store, "html", public, answer="vault", audience="public")
    assert '<span class="omission">[…]</span>' in internal.read_text(encoding="utf-8")
    page = public.read_text(encoding="utf-8")
    assert "keyholders" not in page and "omission" not in page.split("<main")[1] and "Evidence withheld" in page


def test_graph_exports_bound_every_excerpt(tmp_path: Path) -> None:
    """JSON and GraphML exports carry at most --max-quote-chars of a source per quote or unit text."""
    import json as _json

    from typer.testing import CliRunner

    from graphcite.cli import app

    docs = tmp_path / "docs"
    docs.mkdir()
    long_sentence = "The archive keeps every signed delivery note for seven years. " + "Filler words follow here. " * 40
    (docs / "notes.md").write_text(f"# Notes\n\n{long_sentence}\n", encoding="utf-8")
    db = str(tmp_path / "x.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(docs), "--db", db]).exit_code == 0
    answer = tmp_path / "a.json"
    answer.write_text(_json.dumps({"answer_id": "cap", "claims": [{
        "text": "The archive keeps every signed delivery note for seven years.",
        "citations": [{"source": "notes.md", "quote": long_sentence.strip()}]}]}), encoding="utf-8")
    assert runner.invoke(app, ["check", str(answer), "--db", db]).exit_code in (0, 1)
    out = tmp_path / "g.json"
    result = runner.invoke(app, ["export", "--format", "json", "--answer", "cap", "--out", str(out),
                                 "--max-quote-chars", "60", "--db", db])
    assert result.exit_code == 0, result.output
    nodes = _json.loads(out.read_text(encoding="utf-8"))["nodes"]
    long_values = [n for n in nodes for key in ("quote", "text") if isinstance(n.get(key), str) and len(n[key]) > 60]
    assert not long_values
    shortened = [n for n in nodes if n.get("excerpt_shortened")]
    assert shortened and all(n.get("quote_chars", n.get("text_chars", 0)) > 60 for n in shortened)
    bad = runner.invoke(app, ["export", "--format", "json", "--answer", "cap", "--out", str(out),
                              "--max-quote-chars", "3", "--db", db])
    assert bad.exit_code == 2 and "--max-quote-chars" in bad.output
