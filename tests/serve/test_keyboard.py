"""Keyboard only, in headless Chromium: sign in, open a claim's evidence and come back, record a judgement.

Only Tab, Enter and Escape move and act (typing fills the two text fields); the browser is driven over
the DevTools pipe (:mod:`cdp`), so no driver package is needed. The answer page is saved as a screenshot
in the test's temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cdp import Browser
from serve_support import LiveServer

FOCUSED = """(function () {
  var e = document.activeElement;
  if (!e || e === document.body) { return null; }
  return {tag: e.tagName, id: e.id, cls: String(e.className || ""), href: e.getAttribute("href"),
          name: e.getAttribute("name"), claim: e.getAttribute("data-claim"),
          evidence: e.closest(".evidence > li") ? e.closest(".evidence > li").id : null,
          text: (e.textContent || "").trim().slice(0, 120)};
})()"""


def in_view(selector: str) -> str:
    return (f"(function () {{ var r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })()")


def tab_until(browser: Browser, wanted: Any, limit: int = 120) -> dict[str, Any]:
    """Press Tab until the focused element satisfies ``wanted``; that element."""
    seen = []
    for _ in range(limit):
        browser.press("Tab")
        focused = browser.evaluate(FOCUSED)
        if focused and wanted(focused):
            return focused  # type: ignore[no-any-return]
        seen.append(focused and (focused["tag"], focused["href"] or focused["name"] or focused["text"][:30]))
    raise AssertionError(f"never reached by Tab; focus went through {seen}")


def test_keyboard_only_review(chromium: str, live: LiveServer, live_checked: dict[str, Any], tmp_path: Path) -> None:
    traps = live_checked["traps"]
    path = f"/review/answers/{traps['answer_rev']}"
    rationale = "keyboard only: the marked span says what the claim says"
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.navigate(f"{live.url}{path}")
        assert browser.evaluate("document.querySelectorAll('form.annotate').length") == 0  # readable, not writable

        # sign in: Tab to the link, Enter, Tab to the token field, type, Enter
        tab_until(browser, lambda f: (f["href"] or "").startswith("/review/sign-in"))
        browser.press("Enter")
        browser.wait_for("location.pathname === '/review/sign-in' && document.readyState === 'complete'")
        tab_until(browser, lambda f: f["name"] == "token")
        browser.type_text(live.tokens["kim"])
        browser.press("Enter")
        browser.wait_for(f"location.pathname === {json.dumps(path)} && document.readyState === 'complete' && "
                         "document.body.textContent.indexOf('Signed in as kim') >= 0")
        assert browser.evaluate("document.cookie") == ""  # the session cookie is HttpOnly

        # open the first claim's first citation with Enter: focus moves to the evidence, the claim stays in view
        cite = tab_until(browser, lambda f: "cite" in f["cls"].split())
        assert cite["claim"] == "claim-1" and cite["href"] == "#ev-1-1" and "citation of" in browser.evaluate(
            "document.activeElement.getAttribute('aria-label')")
        browser.press("Enter")
        browser.wait_for("document.activeElement && document.activeElement.id === 'ev-1-1'")
        # the evidence the focus moved to is on screen (the page now opens with the answer's metrics, so its
        # heading may sit above the fold while its body shows) and the claim stays in view
        assert browser.evaluate(in_view("#claim-1 .claim-text")) and browser.evaluate(
            "(function () { var r = document.querySelector('#ev-1-1').getBoundingClientRect();"
            " return r.height > 0 && r.top < window.innerHeight && r.bottom > 0; })()")

        # Escape returns focus to the citation link that opened it
        browser.press("Escape")
        assert browser.evaluate("document.activeElement === document.querySelector('#claim-1 a.cite')")
        assert browser.evaluate(in_view("#claim-1 .claim-text"))

        # open it again and judge it: Tab to the label (it starts unset: the reviewer decides), ArrowDown
        # to the first label, Tab to the rationale, type, Tab to the button, Enter
        browser.press("Enter")
        browser.wait_for("document.activeElement.id === 'ev-1-1'")
        tab_until(browser, lambda f: f["name"] == "label" and f["evidence"] == "ev-1-1", limit=40)
        browser.press("ArrowDown")
        browser.wait_for("document.activeElement.value !== ''")
        tab_until(browser, lambda f: f["name"] == "rationale" and f["evidence"] == "ev-1-1", limit=10)
        browser.type_text(rationale)
        tab_until(browser, lambda f: f["tag"] == "BUTTON" and f["evidence"] == "ev-1-1", limit=5)
        browser.press("Enter")
        status = browser.wait_for("(document.getElementById('status').textContent.indexOf('Recorded: kim') >= 0)"
                                  " && document.getElementById('status').textContent")
        assert "kim says" in status
        assert browser.evaluate("document.activeElement === document.querySelector('#ev-1-1 .review-state')")

        # reload: the judgement is stored, under the signed-in reviewer's name
        browser.reload()
        judgements = browser.evaluate("document.querySelector('#ev-1-1 .judgements').textContent")
        assert "kim says" in judgements and rationale in judgements
        shot = browser.screenshot(tmp_path / "keyboard-answer-page.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
