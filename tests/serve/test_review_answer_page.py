"""The review app's pages (issue 25): the answer page lists the sentences that assert nothing apart, outside
the figures, names the configuration hash that decided the verdicts (and says what it is) and words its
findings as sentences; the judgements list shows each claim whole."""

from __future__ import annotations

import re
from typing import Any

import lxml.html

from graphcite.claims.formats import load_answer_text
from graphcite.verify.check import check_answer

TEXT = ("Here is what I found. The relay parks an event for 72 hours after the fifth failed attempt [1]. "
        "Shall I list the other waits?\n\nPassages:\n[1] decisions/dr-017-webhook-retries.md\n")


def _checked(client: Any, text: str) -> dict[str, Any]:
    with client.app.app.state.service.writer() as store:  # the Guard wraps the Starlette app
        return check_answer(store, load_answer_text(text))


def test_answer_page_lists_not_claims_and_the_configuration(client: Any) -> None:
    report = _checked(client, TEXT)
    page = client.get(f"/review/answers/{report['answer_rev']}")
    assert page.status_code == 200, page.text[:500]
    tree = lxml.html.document_fromstring(page.text)
    section = tree.xpath("//section[@class='not-claims']")
    assert len(section) == 1
    items = [li.text_content().strip() for li in section[0].xpath(".//li")]
    assert items == ["Here is what I found.", "Shall I list the other waits?"]
    assert "not counted" in section[0].text_content()
    claims = tree.xpath("//article[@class='claim']//p[@class='claim-text']")
    assert len(claims) == 1 and "Here is what I found" not in claims[0].text_content()
    assert tree.xpath("//dt[.='Claims supported']/following-sibling::dd[1]")[0].text_content().split(" of ")[1][:1] == "1"
    meta = " ".join(p.text_content() for p in tree.xpath("//p[@class='meta']"))
    assert f"Decided by configuration {report['verifier']['config_hash']}" in meta
    assert "every setting that can change a verdict" in meta


def test_an_answer_with_only_claims_has_no_not_claims_section(client: Any) -> None:
    report = _checked(client, "The relay parks an event for 72 hours after the fifth failed attempt [1].\n\n"
                              "Passages:\n[1] decisions/dr-017-webhook-retries.md\n")
    page = client.get(f"/review/answers/{report['answer_rev']}")
    assert page.status_code == 200 and 'class="not-claims"' not in page.text


def test_findings_on_the_answer_page_read_as_sentences(client: Any) -> None:
    report = _checked(client, "Merchants saw 11 minutes of customer impact during the March 2024 dispatch lag [1].\n\n"
                              "Passages:\n[1] incidents/inc-2024-03-dispatch-lag.md\n")
    page = client.get(f"/review/answers/{report['answer_rev']}")
    tree = lxml.html.document_fromstring(page.text)
    items = [li.text_content().strip() for li in tree.xpath("//details[@class='findings']//li")]
    assert items, page.text[:300]
    codes = [item.split()[0] for item in items]
    assert len(codes) == len(set(codes))  # one line per rule of a citation
    for item in items:
        detail = item.split(": ", 1)[1]
        assert (detail[0].isupper() or detail[0].isdigit()) and detail.endswith("."), item


def test_the_judgements_list_shows_a_long_claim_whole(client: Any, tokens: dict[str, dict[str, str]]) -> None:
    claim = ("The relay parks an event for 72 hours after the fifth failed attempt, and operators may replay a "
             "parked event from the relay console during that time, which starts a fresh delivery of the event [1].")
    report = _checked(client, f"{claim}\n\nPassages:\n[1] decisions/dr-017-webhook-retries.md\n")
    claim_id = report["claims"][0]["claim_id"]
    posted = client.post("/v1/annotations", json={"claim_id": claim_id, "citation": 0, "label": "supports",
                                                  "rationale": "the decision says so"}, headers=tokens["ana"])
    assert posted.status_code == 201, posted.text
    page = client.get("/review/annotations")
    assert page.status_code == 200
    shown = [a.text_content() for a in lxml.html.document_fromstring(page.text).xpath("//th[@scope='row']/a")]
    assert report["claims"][0]["text"] in shown and len(report["claims"][0]["text"]) > 140


def test_located_evidence_and_a_passage_of_the_answer_say_so(client: Any) -> None:
    from graphcite.claims.formats import load_answer
    from graphcite.rag import store_passages

    located = _checked(client, "The relay parks an event for 72 hours after the fifth failed attempt [1].\n\n"
                               "Passages:\n[1] decisions/dr-017-webhook-retries.md\n")
    with client.app.app.state.service.writer() as store:
        passage = check_answer(store, store_passages(store, load_answer({
            "question": "q", "answer": "Delivery logs are kept for 2 weeks.",
            "contexts": ["Delivery logs are kept for 2 weeks and then deleted."]})))
    for report, said in ((located, "Evidence located by graphcite (the answer gave no span)."),
                         (passage, "A passage that came with the answer; evidence located by graphcite (the answer "
                                   "gave no span).")):
        claim_id = report["claims"][0]["claim_id"]
        for path in (f"/review/answers/{report['answer_rev']}", f"/review/claims/{claim_id}"):
            page = client.get(path)
            assert page.status_code == 200, page.text[:300]
            metas = [p.text_content() for p in lxml.html.document_fromstring(page.text).xpath("//p[@class='meta']")]
            assert said in metas, (path, metas)


def test_the_findings_heading_counts_failures_and_notes_and_parts_show_on_the_chain_page(client: Any) -> None:
    report = _checked(client, "The relay makes at most five delivery attempts and keeps delivery logs for 90 days [1]."
                              "\n\nPassages:\n[1] decisions/dr-017-webhook-retries.md\n")
    tree = lxml.html.document_fromstring(client.get(f"/review/answers/{report['answer_rev']}").text)
    summaries = [s.text_content() for s in tree.xpath("//details[@class='findings']/summary")]
    assert summaries and all(re.fullmatch(r"\d+ failed checks?( and \d+ notes?)?|\d+ notes?", s) for s in summaries)
    claim = report["claims"][0]
    assert len(claim["parts"]) > 1
    chain = lxml.html.document_fromstring(client.get(f"/review/claims/{claim['claim_id']}").text)
    listed = [li.text_content() for li in chain.xpath("//p[.='Atomic parts:']/following-sibling::ul[1]/li")]
    assert len(listed) == len(claim["parts"])
    for item, part in zip(listed, claim["parts"], strict=True):
        assert part["text"] in item and part["status"] in item


def test_what_reviewers_settled_and_the_mark_beside_the_machines_badge() -> None:
    from graphcite.serve.review import review_mark, settled_label

    agreed = {"labels": ["supports"], "contested": False, "adjudicated": None}
    split = {"labels": ["contradicts", "supports"], "contested": True, "adjudicated": None}
    ruled = {"labels": ["contradicts", "supports"], "contested": False, "adjudicated": "contradicts"}
    assert [settled_label(r) for r in (None, agreed, split, ruled)] == [None, "supports", None, "contradicts"]

    def claim(*citations: tuple[str, dict | None]) -> dict:
        return {"citations": [{"relation": relation, "review": review} for relation, review in citations]}

    assert review_mark(claim(("supports", None))) == ""
    assert review_mark(claim(("supports", agreed))) == "reviewed"
    assert review_mark(claim(("supports", None), ("supports", ruled))) == "reviewers differ from the machine"
    assert review_mark(claim(("supports", ruled), ("mentions", split))) == "contested by reviewers"
