"""The review page of several answers (``export --all``, the demo's out/review.html): one section per
answer with its own tally and numbering, whole claim texts that wrap instead of overflowing; checked
statically and in headless Chromium (layout, screenshot, axe-core)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from graphcite.store import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "graphcite" / "examples"
LONG_TOKEN = "retry_policy.deliver_webhook_with_backoff_and_parking_" * 4  # no break opportunity at all
LONG_CLAIM = ("The webhook relay makes at most five delivery attempts for each event, and after the fifth failed "
              "attempt it parks the event for 72 hours so that operators can replay it from the relay console, "
              f"as the function {LONG_TOKEN} shows in the code the release manifest names for 2024.09.")


@pytest.fixture(scope="module")
def answers_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled corpus with the demo's two answers checked, plus a one-claim answer with a very long claim."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer
    from graphcite.verify.config import load_config

    root = tmp_path_factory.mktemp("html-answers")
    db = root / "answers.duckdb"
    long_answer = root / "long.json"
    long_answer.write_text(json.dumps({"answer_id": "long-claim", "claims": [
        {"text": LONG_CLAIM, "citations": [{"source": "decisions/dr-017-webhook-retries.md"}]}]}), encoding="utf-8")
    with Store(db) as store:
        config = load_config(EXAMPLES / "verifier.yaml")
        ingest(store, [EXAMPLES / "corpus"])
        for answer in (EXAMPLES / "answers" / "clean.json", EXAMPLES / "answers" / "traps.json", long_answer):
            check_answer(store, answer, audience="public", config=config)
    return db


@pytest.fixture(scope="module")
def store(answers_db: Path) -> Iterator[Store]:
    with Store(answers_db, read_only=True) as opened:
        yield opened


@pytest.fixture(scope="module")
def page_path(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from graphcite.export import export

    out = tmp_path_factory.mktemp("html-answers-page") / "review.html"
    export(store, "html", out, all=True, audience="public")
    return out


@pytest.fixture(scope="module")
def tree(page_path: Path) -> Any:
    return lxml.html.document_fromstring(page_path.read_text(encoding="utf-8"))


def test_one_section_per_answer_with_only_its_claims(tree: Any) -> None:
    sections = tree.xpath("//main/section[@class='answer']")
    titles = [s.xpath("./h2")[0].text_content() for s in sections]
    assert sorted(titles) == ["Answer demo-clean", "Answer demo-traps", "Answer long-claim"]
    texts = {t: [p.text_content() for p in s.xpath(".//p[@class='claim-text']")] for t, s in zip(titles, sections,
                                                                                                   strict=True)}
    clean = json.loads((EXAMPLES / "answers" / "clean.json").read_text(encoding="utf-8"))
    assert len(texts["Answer demo-clean"]) == len(clean["claims"])
    for claim in clean["claims"]:  # every clean claim is in the clean section and in no other
        assert any(claim["text"] in t for t in texts["Answer demo-clean"]), claim["text"]
        assert not any(claim["text"] in t for t in texts["Answer demo-traps"] + texts["Answer long-claim"])
    for section in sections:  # numbered from 1 within each answer, as its report numbers them
        numbers = [int(re.match(r"Claim (\d+):", h.text_content()).group(1))  # type: ignore[union-attr]
                   for h in section.xpath("./article/h3")]
        assert numbers == list(range(1, len(numbers) + 1))
        tally = section.xpath("./p[@class='answer-tally']")[0].text_content()
        assert tally.startswith(f"{len(numbers)} claim")


def test_long_claim_is_whole_in_the_article_and_the_contents(tree: Any) -> None:
    assert any(LONG_CLAIM in p.text_content() for p in tree.xpath("//p[@class='claim-text']"))
    assert any(LONG_CLAIM in a.text_content() for a in tree.xpath("//nav//a"))


def test_headings_ids_and_back_links(tree: Any) -> None:
    levels = [int(h.tag[1]) for h in tree.iter("h1", "h2", "h3", "h4", "h5", "h6")]
    assert levels[0] == 1 and all(b - a <= 1 for a, b in itertools.pairwise(levels))
    ids = tree.xpath("//@id")
    assert len(ids) == len(set(ids))
    for href in tree.xpath("//a/@href"):
        if href.startswith("#"):
            assert tree.xpath(f"//*[@id='{href[1:]}']"), href


def test_one_answer_keeps_the_flat_page(store: Store, tmp_path: Path) -> None:
    from graphcite.export import export

    out = tmp_path / "one.html"
    export(store, "html", out, answer="demo-clean", audience="public")
    one = lxml.html.document_fromstring(out.read_text(encoding="utf-8"))
    assert not one.xpath("//section[@class='answer']")
    assert one.xpath("//h1")[0].text_content() == "Review of answer demo-clean"
    assert [h.text_content().split(":")[0] for h in one.xpath("//article/h2")][:2] == ["Claim 1", "Claim 2"]


# ----------------------------------------------------------------------------------------------
# headless Chromium
# ----------------------------------------------------------------------------------------------

MEASURE = """
<script>
window.addEventListener('load', function () {
  var root = document.documentElement, wide = [];
  document.querySelectorAll('p.claim-text, nav a, article').forEach(function (el) {
    var box = el.getBoundingClientRect();
    if (box.right > root.clientWidth + 1 || el.scrollWidth > el.clientWidth + 1) { wide.push(el.tagName + '.' + el.className); }
  });
  var pre = document.createElement('pre'); pre.id = 'layout';
  pre.textContent = JSON.stringify({scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide: wide});
  document.body.appendChild(pre);
});
</script>"""


def _run(chromium: str, url: str, tmp_path: Path, *extra: str) -> str:
    from test_html import run_chromium  # the export tests' one way of starting Chromium

    return run_chromium(chromium, url, tmp_path, *extra)


@pytest.mark.parametrize("width", [1280, 420])
def test_nothing_overflows_the_page(chromium: str, page_path: Path, tmp_path: Path, width: int) -> None:
    from test_html import without_csp

    copy = tmp_path / "measure.html"
    copy.write_text(without_csp(page_path.read_text(encoding="utf-8")).replace("</body>", f"{MEASURE}</body>"),
                    encoding="utf-8")
    dom = _run(chromium, copy.as_uri(), tmp_path, "--dump-dom", f"--window-size={width},900",
               "--virtual-time-budget=3000")
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom, re.S)
    assert found, "the layout script did not report"
    layout = json.loads(lxml.html.fromstring(f"<p>{found.group(1)}</p>").text_content())
    assert layout["wide"] == [] and layout["scrollWidth"] <= layout["clientWidth"], layout
    shot = tmp_path / f"answers-{width}.png"
    _run(chromium, page_path.as_uri(), tmp_path, f"--screenshot={shot}", f"--window-size={width},2400")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_axe_reports_no_violations_on_several_answers(chromium: str, axe_script: Path, page_path: Path,
                                                      tmp_path: Path) -> None:
    from test_html import without_csp

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
    copy = tmp_path / "axe.html"
    copy.write_text(without_csp(page_path.read_text(encoding="utf-8")).replace(
        "</body>", f"<script>{axe}</script>{runner}</body>"), encoding="utf-8")
    dom = _run(chromium, copy.as_uri(), tmp_path, "--dump-dom", "--virtual-time-budget=8000")
    found = re.search(r'<pre id="axe-result">(.*?)</pre>', dom, re.S)
    assert found, "axe did not report (did the script run?)"
    result = json.loads(lxml.html.fromstring(f"<p>{found.group(1)}</p>").text_content())
    assert "error" not in result, result
    assert result["passes"] > 10
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def test_failed_checks_read_as_sentences(tree: Any) -> None:
    items = [li.text_content().strip() for li in tree.xpath("//details/ul/li")]
    assert len(items) > 5
    for item in (i for i in items if ": " in i):  # a restricted citation's details are blanked for the public
        code, _, detail = item.partition(": ")
        assert code.startswith(("GC", "Note: GC")) and (detail[:1].isupper() or detail[:1].isdigit()), item
        assert detail.endswith("."), item


def test_located_evidence_and_the_findings_heading_say_so(tree: Any) -> None:
    long_claim = next(s for s in tree.xpath("//main/section[@class='answer']")
                      if s.xpath("./h2")[0].text_content() == "Answer long-claim")
    notes = [p.text_content() for p in long_claim.xpath(".//p[@class='meta']")]
    assert "Evidence located by graphcite (the answer gave no span)." in notes  # it named a source, no span
    clean = next(s for s in tree.xpath("//main/section[@class='answer']")
                 if s.xpath("./h2")[0].text_content() == "Answer demo-clean")
    assert not any("located by graphcite" in p.text_content() for p in clean.xpath(".//p[@class='meta']"))
    headings = [s.text_content() for s in tree.xpath("//details/summary")]
    assert headings
    for heading, details in zip(headings, tree.xpath("//details"), strict=True):
        assert re.fullmatch(r"\d+ failed checks?( and \d+ notes?)?|\d+ notes?", heading), heading
        failed = [li for li in details.xpath("./ul/li") if not li.text_content().startswith("Note: ")]
        assert heading.startswith(f"{len(failed)} failed") or (not failed and "failed" not in heading)
