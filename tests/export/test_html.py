"""The HTML review page: static structure and escaping, then headless Chromium (render, screenshot, axe, XSS)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from graphcite.export.html import CSP

# ----------------------------------------------------------------------------------------------
# static checks
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(exported: Callable[..., Path]) -> str:
    return exported("html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tree(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def test_strict_csp_and_nothing_external(page: str, tree: Any) -> None:
    csp = tree.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    assert csp == [CSP] and "default-src 'none'" in CSP and "style-src 'unsafe-inline'" in CSP
    assert not tree.xpath("//script | //link | //img | //iframe | //object | //embed | //form | //base")
    assert "@import" not in page and "url(" not in page
    for element in tree.iter():
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), (element.tag, name)
            if name in {"href", "src", "action"}:
                assert value.startswith(("#", "graphcite://")), value


def test_hostile_text_is_escaped(page: str, tree: Any) -> None:
    assert "<script>document.title" not in page and "<img src=x" not in page
    assert "&lt;script&gt;document.title=&#x27;PWNED-SCRIPT&#x27;&lt;/script&gt;" in page
    assert "javascript:" not in "".join(tree.xpath("//a/@href"))
    assert any("onerror=" in t for t in tree.xpath("//blockquote//text()"))  # shown as text, not an attribute


def test_each_claim_has_verdict_word_symbol_and_adjacent_evidence(tree: Any, export_report: dict[str, Any]) -> None:
    words = {"supported": "✔ Supported", "insufficient": "? Insufficient", "conflict": "⚠ Conflict"}
    for n, claim in enumerate(export_report["claims"], 1):
        article = tree.get_element_by_id(f"claim-{n}")
        heading = article.xpath(".//h2")[0].text_content()
        assert words[claim["status"]] in heading
        assert claim["text"] in article.xpath('.//p[@class="claim-text"]')[0].text_content()
        evidence = article.xpath(".//ol[@class='evidence']/li")
        assert len(evidence) == len(claim["citations"])
        for cit, item in zip(claim["citations"], evidence, strict=True):
            link = article.xpath(f'.//a[@href="#{item.get("id")}"]')[0]
            label = link.get("aria-label")
            assert label.startswith(f"[{cit['index'] + 1}]") and cit["source"] in label
            marks = item.xpath(".//blockquote/p/mark")
            assert [m.text_content() for m in marks] == [cit["quote"]]
            assert item.xpath(f'.//a[starts-with(@href, "graphcite://source/") and contains(@href, "{cit["revision"]}")]')
            assert item.xpath(f'.//a[@href="#claim-{n}"]')  # the way back to the claim


def test_supersession_contradiction_and_independence(tree: Any) -> None:
    superseded = tree.get_element_by_id("claim-3").text_content()
    assert "superseded by decisions/dr-100.md, effective 2024-01-10" in superseded
    against = tree.get_element_by_id("claim-8").xpath(".//section[@class='against']")[0].text_content()
    assert "manuals/ops.md" in against and "superseded by decisions/dr-100.md" in against
    first = tree.get_element_by_id("claim-1").text_content()
    assert ("Independence: 3 attestations, 1 authority: posts/p1.md, posts/p2.md and posts/p3.md derive from "
            "decisions/dr-100.md") in first
    assert "not independent" in first


def test_landmarks_and_heading_order(tree: Any) -> None:
    assert tree.xpath("/html/@lang") == ["en"]
    assert len(tree.xpath("//main")) == 1 and len(tree.xpath("//h1")) == 1
    levels = [int(h.tag[1]) for h in tree.iter("h1", "h2", "h3", "h4")]
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels))
    ids = tree.xpath("//@id")
    assert len(ids) == len(set(ids))


# ----------------------------------------------------------------------------------------------
# headless Chromium
# ----------------------------------------------------------------------------------------------


def run_chromium(binary: str, url: str, tmp_path: Path, *extra: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            *extra, url]
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def without_csp(page: str) -> str:
    return re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)


def test_page_renders_with_its_claims(chromium: str, exported: Callable[..., Path], tmp_path: Path,
                                      export_report: dict[str, Any]) -> None:
    dom = run_chromium(chromium, exported("html").as_uri(), tmp_path, "--dump-dom")
    for claim in export_report["claims"]:
        assert claim["text"].replace("'", "&#x27;") in dom or claim["text"] in dom
    shot = tmp_path / "page.png"
    run_chromium(chromium, exported("html").as_uri(), tmp_path, f"--screenshot={shot}", "--window-size=1280,1600")
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_axe_reports_no_violations(chromium: str, axe_script: Path, exported: Callable[..., Path],
                                   tmp_path: Path) -> None:
    page = exported("html").read_text(encoding="utf-8")
    runner = """
<script>
axe.run(document).then(function (r) {
  var pre = document.createElement('pre'); pre.id = 'axe-result';
  pre.textContent = JSON.stringify({violations: r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target; })}; }),
    passes: r.passes.length});
  document.body.appendChild(pre);
}).catch(function (e) { var pre = document.createElement('pre'); pre.id = 'axe-result';
  pre.textContent = JSON.stringify({error: String(e)}); document.body.appendChild(pre); });
</script>"""
    axe = axe_script.read_text(encoding="utf-8").replace("</script", "<\\/script")
    injected = without_csp(page).replace("</body>", f"<script>{axe}</script>{runner}</body>")
    copy = tmp_path / "axe.html"
    copy.write_text(injected, encoding="utf-8")
    dom = run_chromium(chromium, copy.as_uri(), tmp_path, "--dump-dom", "--virtual-time-budget=5000")
    found = re.search(r'<pre id="axe-result">(.*?)</pre>', dom, re.S)
    assert found, "axe did not report (did the script run?)"
    result = json.loads(lxml.html.fromstring(f"<p>{found.group(1)}</p>").text_content())
    assert "error" not in result, result
    assert result["passes"] > 10
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def test_hostile_corpus_text_executes_nothing(chromium: str, exported: Callable[..., Path], tmp_path: Path) -> None:
    # even without the CSP (which would block scripts anyway), the escaped page runs nothing
    page = without_csp(exported("html").read_text(encoding="utf-8"))
    copy = tmp_path / "hostile.html"
    copy.write_text(page, encoding="utf-8")
    dom = run_chromium(chromium, copy.as_uri(), tmp_path, "--dump-dom", "--virtual-time-budget=3000")
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title and "PWNED" not in title.group(1)
    assert "<pwned" not in dom.lower()
    # control: the same payload unescaped does run in this harness, so the check above has teeth
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html lang="en"><head><title>clean</title></head><body>'
                       "<img src=x onerror=\"document.title='PWNED-IMG'\"></body></html>", encoding="utf-8")
    dom = run_chromium(chromium, control.as_uri(), tmp_path, "--dump-dom", "--virtual-time-budget=3000")
    assert "<title>PWNED-IMG</title>" in dom
