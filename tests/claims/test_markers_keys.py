"""Marker answers: ``[KEY]`` naming a source without offsets is a citation to that source, located there
like a passage line ``[n] KEY``; bracketed prose (``[sic]``, ``[Note]``, ``[and/or]``) keeps its meaning."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import load_answer_text
from graphcite.claims.markers import looks_like_markers, parse_markers
from graphcite.store import Store
from graphcite.verify.check import check_answer

DR017 = "decisions/dr-017-webhook-retries.md"


@pytest.mark.parametrize(("marker", "source", "revision"), [
    (f"[{DR017}]", DR017, None),
    ("[policy.md]", "policy.md", None),
    ("[POLICY.MD]", "POLICY.MD", None),
    ("[ops/run-book]", "ops/run-book", None),
    ("[<release notes/2.3.md>]", "release notes/2.3.md", None),
    ("[policy.md@a41c09e2]", "policy.md", "a41c09e2"),
    ("[manual/review_queue.html]", "manual/review_queue.html", None),
])
def test_a_key_without_offsets_is_a_citation_to_that_source(marker: str, source: str, revision: str | None) -> None:
    (claim,) = parse_markers(f"The relay makes at most five delivery attempts for each event {marker}.").claims
    assert claim.text == "The relay makes at most five delivery attempts for each event."
    (ref,) = claim.citations
    assert (ref.source, ref.revision, ref.start, ref.end, ref.quote, ref.defect) == (source, revision, None, None,
                                                                                    None, None)


@pytest.mark.parametrize("prose", ["[sic]", "[Note]", "[and/or]", "[24/7]", "[v2.3]", "[i.e]", "[U.S]",
                                   "[x:y]", "[see: A-B]", "[e.g. policy]", "[http://example.com/a.md]"])
def test_bracketed_prose_stays_in_the_claim(prose: str) -> None:
    text = f"The relay keeps logs {prose} for thirty days."
    (claim,) = parse_markers(text).claims
    assert claim.text == text and claim.citations == ()


def test_numbered_and_keyed_markers_keep_their_meaning_beside_a_bare_key() -> None:
    text = ("The relay retries [sic] four times [1][policy.md]. Logs are kept.[ops/logs.md] Events park [a.md:3-9].\n\n"
            "Passages:\n[1] decisions/dr-017.md: four retries\n")
    claims = parse_markers(text).claims
    assert [c.text for c in claims] == ["The relay retries [sic] four times.", "Logs are kept.", "Events park."]
    assert [[(r.source, r.quote, r.start) for r in c.citations] for c in claims] == [
        [("decisions/dr-017.md", "four retries", None), ("policy.md", None, None)],
        [("ops/logs.md", None, None)],
        [("a.md", None, 3)],
    ]


def test_text_opening_with_a_bare_key_is_markers_not_broken_json() -> None:
    assert looks_like_markers(f"[{DR017}] The relay makes five attempts.")
    assert [c.citations[0].source for c in load_answer_text(f"The relay makes five attempts [{DR017}].").claims] == [
        DR017]


_SEGMENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(_SEGMENT, min_size=1, max_size=4), st.sampled_from([".md", ".txt", ".html", ".pdf", ".py"]))
def test_property_a_path_key_is_a_citation_and_leaves_the_claim(segments: list[str], ending: str) -> None:
    key = "/".join(segments) + ending
    (claim,) = parse_markers(f"The relay keeps logs [{key}].").claims
    assert claim.text == "The relay keeps logs." and [r.source for r in claim.citations] == [key]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcXYZ -_:,@<>'", min_size=1, max_size=30))
def test_property_bracketed_words_without_a_path_stay_prose(inner: str) -> None:
    text = f"The relay keeps logs [{inner}] for a week."
    assert [(c.text, c.citations) for c in parse_markers(text).claims] == [(text, ())]


def test_a_bare_key_is_located_in_that_source(corpus_store: Store) -> None:
    answer = load_answer_text(f"The relay makes at most five delivery attempts for each event [{DR017}].")
    report = check_answer(corpus_store, answer, record=False)
    (claim,) = report["claims"]
    (citation,) = claim["citations"]
    assert citation["valid"] and citation["source"] == DR017 and citation["unit_id"]
    assert "five delivery attempts" in citation["quote"]
    assert claim["status"] == "supported"
