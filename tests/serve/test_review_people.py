"""The review app as a reviewer meets it: reviewers' badges beside the machine's, filters, an answer's
metrics at the top, a judgement form that starts unset, a CSRF token that changes at sign-in, and (in
headless Chromium) long claims that wrap and a chain picture that scrolls inside its frame."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import lxml.html
from cdp import Browser
from serve_support import LiveServer

SHOTS = Path("/tmp/graphcite-review-shots")  # kept after the run, to look at


def _sign_in(client: httpx.Client, token: str, next_path: str) -> httpx.Response:
    page = client.get(f"/review/sign-in?next={next_path}")
    form = lxml.html.fromstring(page.text).xpath('//form[@action="/review/sign-in"]')[0]
    fields = {i.get("name"): i.get("value") for i in form.xpath(".//input[@type='hidden']")}
    return client.post("/review/sign-in", data={**fields, "token": token})


def _form_fields(page: str, claim_id: str, citation: int) -> dict[str, str]:
    form = lxml.html.fromstring(page).xpath(
        f'//form[.//input[@name="claim_id"][@value="{claim_id}"] and .//input[@name="citation"][@value="{citation}"]]')[0]
    return {i.get("name"): i.get("value") for i in form.xpath(".//input[@type='hidden']")}


def test_judging_starts_unset_and_the_token_changes_at_sign_in(live: LiveServer, live_checked: dict[str, Any]) -> None:
    traps = live_checked["traps"]
    answer_path = f"/review/answers/{traps['answer_rev']}"
    claim = traps["claims"][4]
    with httpx.Client(base_url=live.url, timeout=30) as client:
        before = lxml.html.fromstring(client.get("/review/sign-in").text).xpath('//input[@name="csrf"]/@value')[0]
        assert _sign_in(client, live.tokens["r1"], answer_path).status_code == 303
        page = client.get(answer_path).text
        fields = _form_fields(page, claim["claim_id"], 0)
        assert fields["csrf"] != before
        tree = lxml.html.fromstring(page)
        for select in tree.xpath('//form[@class="annotate"]//select[@name="label"]'):
            chosen = select.xpath("./option[@selected]/@value")
            assert chosen == [""], chosen  # the reviewer decides; the machine's verdict is only shown
        assert "The machine says" in page
        stale = client.post("/review/annotations", data={**fields, "csrf": before, "label": "supports",
                                                         "rationale": "old token"})
        assert stale.status_code == 403
        def metrics_text() -> str:
            metrics = lxml.html.fromstring(client.get(answer_path).text).get_element_by_id("metrics-title").getparent()
            return " ".join(" ".join(metrics.itertext()).split())

        reviewed_before = int(re.search(r"Citations reviewed (\d+)", metrics_text()).group(1))  # other tests judge too
        posted = client.post("/review/annotations", data={**fields, "label": "supports", "rationale": "reads so"})
        assert posted.status_code == 303
        text = metrics_text()
        assert f"Claims supported {sum(c['supported'] for c in traps['claims'])} of {len(traps['claims'])}" in text
        reviewed_after = int(re.search(r"Citations reviewed (\d+)", text).group(1))
        assert reviewed_after >= max(1, reviewed_before) and "Faithful no:" in text  # the judged citation counts


def test_answers_list_shows_reviews_beside_the_machine_and_filters(live: LiveServer,
                                                                  live_checked: dict[str, Any]) -> None:
    traps, clean = live_checked["traps"], live_checked["clean"]
    answer_path = f"/review/answers/{traps['answer_rev']}"
    claim = traps["claims"][6]
    with httpx.Client(base_url=live.url, timeout=30) as one, httpx.Client(base_url=live.url, timeout=30) as two:
        for client, token, label in ((one, live.tokens["r2"], "supports"), (two, live.tokens["r3"], "contradicts")):
            _sign_in(client, token, answer_path)
            fields = _form_fields(client.get(answer_path).text, claim["claim_id"], 0)
            assert client.post("/review/annotations", data={**fields, "label": label,
                                                             "rationale": "judged"}).status_code == 303
        rows = lxml.html.fromstring(one.get("/review/answers").text).xpath("//tbody/tr")
        row = next(r for r in rows if traps["answer_rev"] in r.text_content())
        assert "reviewed:" in row.text_content() and "contested: 1" in row.text_content()
        supported = sum(c["supported"] for c in traps["claims"])
        share = f"{supported} of 12 supported ({100 * supported / 12:.0f}%)"
        assert share in " ".join(row.text_content().split())  # the machine's share of supported claims
        assert row.xpath('.//span[contains(@class, "s-")]')  # the machine's badges stay, beside the reviewers'
        contested = one.get("/review/answers?contested=1").text
        assert traps["answer_rev"] in contested and clean["answer_rev"] not in contested
        failing = one.get("/review/answers?failing=1").text
        assert traps["answer_rev"] in failing and clean["answer_rev"] not in failing
        assert "Showing 1 of" in failing or "Showing 2 of" in failing


def test_pages_fit_the_window_in_chromium(chromium: str, live: LiveServer, live_checked: dict[str, Any],
                                          tmp_path: Path) -> None:
    SHOTS.mkdir(exist_ok=True)
    traps = live_checked["traps"]
    claim_id = traps["claims"][3]["claim_id"]
    with Browser(chromium, tmp_path / "profile", width=1024, height=900) as page:
        for name, path in (("answers", "/review/answers"), ("answer", f"/review/answers/{traps['answer_rev']}"),
                           ("chain", f"/review/claims/{claim_id}")):
            page.navigate(f"{live.url}{path}")
            page.wait_for("document.readyState === 'complete'")
            page.screenshot(SHOTS / f"{name}.png")
            wide = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
            assert wide, f"{name}: the page is wider than the window"
        frame = page.evaluate("(() => { const f = document.querySelector('figure.chain .picture');"
                              " const r = f.getBoundingClientRect();"
                              " return [r.right <= window.innerWidth + 1, getComputedStyle(f).overflowX]; })()")
        assert frame == [True, "auto"]
    svg = httpx.get(f"{live.url}/review/claims/{claim_id}/chain.svg", timeout=30).text
    quote = next(c["quote"] for c in traps["claims"][3]["citations"] if c.get("quote"))
    assert f">“{quote.split()[0]} " in svg  # the unit's node opens with the cited span, not the unit's start


def test_a_judgement_that_differs_from_the_machine_shows_beside_its_badge(live: LiveServer) -> None:
    body = {"answer_id": "review-differs", "claims": [{"text": "Webhook delivery logs are retained for 14 days.",
                                                        "citations": [{"source": "decisions/dr-017-webhook-retries.md"}]}]}
    report = httpx.post(f"{live.url}/v1/check", json=body, timeout=60).json()
    answer_path, claim = f"/review/answers/{report['answer_rev']}", report["claims"][0]
    machine = claim["citations"][0]["relation"]
    other = "contradicts" if machine != "contradicts" else "supports"

    def marks(client: httpx.Client) -> tuple[str, str, str]:
        row = next(r for r in lxml.html.fromstring(client.get("/review/answers").text).xpath("//tbody/tr")
                   if report["answer_rev"] in r.text_content())
        page = lxml.html.fromstring(client.get(answer_path).text)
        index = page.xpath('//nav[@aria-label="Claims of this answer"]//li')[0].text_content()
        metrics = page.get_element_by_id("metrics-title").getparent().text_content()
        return " ".join(row.text_content().split()), " ".join(index.split()), " ".join(metrics.split())

    with httpx.Client(base_url=live.url, timeout=30) as one, httpx.Client(base_url=live.url, timeout=30) as two:
        _sign_in(one, live.tokens["r4"], answer_path)
        fields = _form_fields(one.get(answer_path).text, claim["claim_id"], 0)
        assert one.post("/review/annotations", data={**fields, "label": other, "rationale": "I read it otherwise"}
                        ).status_code == 303
        row, index, metrics = marks(one)
        assert "reviewers differ from the machine: 1" in row and "contested" not in row
        assert "reviewers differ from the machine" in index and claim["status"] in index  # the machine's badge stays
        assert "1 where reviewers differ from the machine" in metrics
        _sign_in(two, live.tokens["r5"], answer_path)
        fields = _form_fields(two.get(answer_path).text, claim["claim_id"], 0)
        assert two.post("/review/annotations", data={**fields, "label": machine, "rationale": "the machine is right"}
                        ).status_code == 303
        row, index, metrics = marks(two)
        assert "contested: 1" in row and "differ from the machine" not in row  # contested settles nothing
        assert "contested by reviewers" in index and "differ from the machine" not in metrics
