"""The review app in headless Chromium (Debian's package): it renders under its CSP, runs its one script,
executes nothing from hostile documents, passes axe-core, and its pages and chain picture are saved as
screenshots in the test's temporary folder."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import lxml.html
import pytest
from serve_support import ROOT, LiveServer

AXE = ROOT / "tests" / "export" / "node" / "node_modules" / "axe-core" / "axe.min.js"


def run_chromium(binary: str, url: str, tmp_path: Path, *extra: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            *extra, url]
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_answer_page_renders_runs_its_script_and_is_saved(chromium: str, live: LiveServer,
                                                          live_checked: dict[str, Any], tmp_path: Path) -> None:
    traps = live_checked["traps"]
    url = f"{live.url}/review/answers/{traps['answer_rev']}"
    dom = run_chromium(chromium, url, tmp_path, "--dump-dom", "--virtual-time-budget=3000")
    tree = lxml.html.fromstring(dom)
    assert "js" in (tree.get("class") or "").split()  # /static/review.js loaded under script-src 'self' and ran
    texts = " ".join(tree.xpath("//p[@class='claim-text']//text()"))
    for claim in traps["claims"]:
        assert claim["text"] in texts
    shot = tmp_path / "answer-page.png"
    run_chromium(chromium, url, tmp_path, f"--screenshot={shot}", "--window-size=1280,1800")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    picture = tmp_path / "chain-picture.png"
    claim_id = traps["claims"][3]["claim_id"]
    run_chromium(chromium, f"{live.url}/review/claims/{claim_id}", tmp_path, f"--screenshot={picture}",
                 "--window-size=1600,900")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size > 20_000


def test_hostile_documents_execute_nothing(chromium: str, live: LiveServer, live_checked: dict[str, Any],
                                           tmp_path: Path) -> None:
    hostile = live_checked["hostile"]
    for url in (f"{live.url}/review/answers/{hostile['answer_rev']}",
                f"{live.url}/review/claims/{hostile['claims'][0]['claim_id']}"):
        dom = run_chromium(chromium, url, tmp_path, "--dump-dom", "--virtual-time-budget=3000")
        title = re.search(r"<title>(.*?)</title>", dom, re.S)
        assert title and "PWNED" not in title.group(1)
        assert "PWNED" in dom  # the payload is on the page, as text
        tree = lxml.html.fromstring(dom)
        assert not tree.xpath("//img | //*[@onerror] | //script[not(@src)]")


def test_axe_reports_no_violations(chromium: str, live: LiveServer, live_checked: dict[str, Any],
                                   tmp_path: Path) -> None:
    if not AXE.exists():
        pytest.skip("axe-core is not installed in tests/export/node (run .ci/browser-deps.sh)")
    traps = live_checked["traps"]
    runner = """<script>
axe.run(document).then(function (r) {
  var pre = document.createElement('pre'); pre.id = 'axe-result';
  pre.textContent = JSON.stringify({violations: r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target; })}; }),
    passes: r.passes.length});
  document.body.appendChild(pre);
}).catch(function (e) { var pre = document.createElement('pre'); pre.id = 'axe-result';
  pre.textContent = JSON.stringify({error: String(e)}); document.body.appendChild(pre); });
</script>"""
    axe = AXE.read_text(encoding="utf-8").replace("</script", "<\\/script")
    pages = ["/review/answers", f"/review/answers/{traps['answer_rev']}",
             f"/review/claims/{traps['claims'][3]['claim_id']}", "/review/annotations", "/review/sign-in"]
    for number, path in enumerate(pages):
        page = httpx.get(f"{live.url}{path}", timeout=30).text
        # a copy without the CSP header (axe is injected inline), resolving /static against the server
        copy = page.replace("<head>", f'<head><base href="{live.url}/">', 1).replace(
            "</body>", f"<script>{axe}</script>{runner}</body>")
        file = tmp_path / f"axe-{number}.html"
        file.write_text(copy, encoding="utf-8")
        dom = run_chromium(chromium, file.as_uri(), tmp_path, "--dump-dom", "--virtual-time-budget=6000")
        found = re.search(r'<pre id="axe-result">(.*?)</pre>', dom, re.S)
        assert found, f"axe did not report on {path}"
        result = json.loads(lxml.html.fromstring(f"<p>{found.group(1)}</p>").text_content())
        assert "error" not in result, result
        assert result["passes"] > 10, path
        assert result["violations"] == [], (path, json.dumps(result["violations"], indent=1))
