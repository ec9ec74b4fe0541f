"""Quotes with explicit transformations, through the real pipeline: a small Markdown corpus ingested into a
DuckDB store, answers checked with ellipses, bracketed insertions and typographic differences."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.claims import load_answer
from graphcite.ingest import ingest
from graphcite.schemas import report_schema
from graphcite.store import Store
from graphcite.verify import verify_answer
from graphcite.verify.quotes import (
    KINDS,
    NORMALISATIONS,
    QuoteMatch,
    QuoteProblem,
    match_quote,
    normalise,
    parse_quote,
)

FERRY = """---
title: Harbour ferry operations
---
# Ferry operations

## Crossings

The morning ferry leaves the north pier at seven. It carries bicycles on the lower deck only. Cars wait for the second crossing.

When fog closes the harbour, the pilot holds the ferry at the pier. The harbour office posts a notice within ten minutes.

## Fares

A single crossing costs four euros. Children under twelve travel free.

## Signals

The pier's "stop" lamp \u2013 red, above the gangway \u2013 means boarding is closed.
"""
KEY = "docs/ferry.md"


@pytest.fixture(scope="module")
def ferry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, str]]:
    root = tmp_path_factory.mktemp("quotes")
    (root / "docs").mkdir()
    (root / "docs" / "ferry.md").write_text(FERRY, encoding="utf-8")
    with Store(root / "quotes.duckdb") as store:
        ingest(store, [root / "docs"], prefix="docs/")
        text = store.scalar("SELECT r.text FROM source s JOIN source_revision r ON r.revision_id = s.current_revision "
                            "WHERE s.key = ?", [KEY])
        yield store, text


def check(store: Store, claim: str, quote: str, **extra: Any) -> dict[str, Any]:
    answer = load_answer({"answer_id": "ferry", "claims": [
        {"text": claim, "citations": [{"source": KEY, "quote": quote, **extra}]}]})
    return verify_answer(store, answer)["claims"][0]


def codes(claim: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {f["code"]: (f["outcome"], f["detail"]) for f in claim["citations"][0]["findings"]}


def test_ellipsis_across_two_sentences_of_one_unit(ferry: tuple[Store, str]) -> None:
    store, text = ferry
    claim = check(store, "The morning ferry leaves the north pier at seven and cars wait for the second crossing.",
                  "The morning ferry leaves the north pier at seven. … Cars wait for the second crossing.")
    cit = claim["citations"][0]
    assert cit["valid"] and claim["status"] == "supported"
    assert codes(claim)["GC108"][0] == "note" and "in one unit" in codes(claim)["GC108"][1]
    assert [p["text"] for p in cit["quote_pieces"]] == ["The morning ferry leaves the north pier at seven.",
                                                        "Cars wait for the second crossing."]
    for piece in cit["quote_pieces"]:  # offsets are code points into the stored text
        assert text[piece["start"]:piece["end"]] == piece["text"]
    assert cit["quote_transformations"] == [{"kind": "ellipsis", "text": "…", "at": 1}]
    assert (cit["start"], cit["end"]) == (cit["quote_pieces"][0]["start"], cit["quote_pieces"][-1]["end"])
    left_out = text[cit["quote_pieces"][0]["end"]:cit["quote_pieces"][1]["start"]]
    assert "bicycles" in left_out and "bicycles" not in cit["quote"]


def test_three_dots_and_adjacent_units_of_one_section(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "Cars wait for the second crossing, and in fog the pilot holds the ferry at the pier.",
                  "Cars wait for the second crossing. ... the pilot holds the ferry at the pier.")
    assert claim["citations"][0]["valid"]
    assert "adjacent units" in codes(claim)["GC108"][1]
    assert claim["citations"][0]["quote"] == \
        "Cars wait for the second crossing. ... the pilot holds the ferry at the pier."


def test_ellipsis_across_two_sections_is_invalid(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "Cars wait for the second crossing, which costs four euros.",
                  "Cars wait for the second crossing. … A single crossing costs four euros.")
    assert claim["status"] == "invalid" and not claim["citations"][0]["valid"]
    outcome, detail = codes(claim)["GC109"]
    assert outcome == "fail" and "different sections" in detail and "Crossings" in detail and "Fares" in detail
    assert "GC108" not in codes(claim)


def test_pieces_out_of_order_are_invalid(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "Children under twelve travel free and a single crossing costs four euros.",
                  "Children under twelve travel free. … A single crossing costs four euros.")
    assert claim["status"] == "invalid"
    assert codes(claim)["GC109"] == ("fail", "every piece occurs in the cited text, but not in the quoted order")


def test_a_piece_from_another_document_is_not_found(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "Cars wait for the second crossing and trams run all night.",
                  "Cars wait for the second crossing. … Trams run all night.")
    assert claim["status"] == "invalid"
    outcome, detail = codes(claim)["GC107"]
    assert outcome == "fail" and "piece 2" in detail


def test_bracketed_clarification_is_an_insertion_not_source_text(ferry: tuple[Store, str]) -> None:
    store, text = ferry
    claim = check(store, "The morning ferry carries bicycles on the lower deck only.",
                  "[The morning ferry] carries bicycles on the lower deck only.")
    cit = claim["citations"][0]
    assert cit["valid"] and codes(claim)["GC108"][0] == "note"
    assert cit["quote_transformations"] == [{"kind": "insertion", "text": "The morning ferry", "at": 0}]
    assert cit["quote_pieces"][0]["text"] == "carries bicycles on the lower deck only."
    assert text[cit["start"]:cit["end"]] == "carries bicycles on the lower deck only."
    # the inserted words are the answer's: support is judged on the verbatim pieces, never on them
    other = check(store, "The midnight hovercraft carries bicycles on the lower deck only.",
                  "[The midnight hovercraft] carries bicycles on the lower deck only.")
    assert other["citations"][0]["valid"]
    assert "missing: midnight, hovercraft" in codes(other)["GC201"][1]


def test_an_insertion_may_not_hide_an_omission(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "The morning ferry leaves at seven and cars wait for the second crossing.",
                  "The morning ferry leaves the north pier at seven. [Then] Cars wait for the second crossing.")
    assert claim["status"] == "invalid"
    outcome, detail = codes(claim)["GC106"]
    assert outcome == "fail" and "without an ellipsis" in detail and "bicycles" in detail


def test_given_offsets_must_be_the_pieces_offsets(ferry: tuple[Store, str]) -> None:
    store, text = ferry
    quote = "The morning ferry leaves the north pier at seven. … Cars wait for the second crossing."
    start = text.index("The morning ferry")
    end = text.index("second crossing.") + len("second crossing.")
    assert check(store, "The morning ferry leaves at seven.", quote, start=start, end=end)["citations"][0]["valid"]
    drifted = check(store, "The morning ferry leaves at seven.", quote, start=start + 4, end=end)
    outcome, detail = codes(drifted)["GC106"]
    assert outcome == "fail" and f"{start}-{end}" in detail


def test_curly_quotes_and_dashes_are_normalised_and_reported(ferry: tuple[Store, str]) -> None:
    store, text = ferry
    claim = check(store, "The stop lamp means boarding is closed.",
                  "The pier\u2019s \u201cstop\u201d lamp \u2014 red, above the gangway \u2014 means boarding is closed.")
    cit = claim["citations"][0]
    assert cit["valid"]
    outcome, detail = codes(claim)["GC110"]
    assert outcome == "note" and "curly quotes" in detail and "dashes" in detail and "whitespace" not in detail
    assert cit["quote"] == text[cit["start"]:cit["end"]] == \
        "The pier's \"stop\" lamp \u2013 red, above the gangway \u2013 means boarding is closed."
    assert "quote_pieces" not in cit and "GC108" not in codes(claim)


def test_spaces_are_normalised_and_named(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "A single crossing costs four euros.", "A single  crossing\u00a0costs four euros.")
    detail = codes(claim)["GC110"][1]
    assert "non-breaking spaces" in detail and "runs of whitespace" in detail and "curly" not in detail
    assert claim["citations"][0]["quote"] == "A single crossing costs four euros."


def test_an_exact_quote_needs_no_note(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    claim = check(store, "A single crossing costs four euros.", "A single crossing costs four euros.")
    assert not {"GC108", "GC109", "GC110"} & set(codes(claim))
    assert "quote_pieces" not in claim["citations"][0]


def test_reports_are_deterministic_and_match_the_schema(ferry: tuple[Store, str]) -> None:
    store, _ = ferry
    answer = {"answer_id": "ferry", "claims": [
        {"text": "The morning ferry carries bicycles.", "citations": [
            {"source": KEY, "quote": "[The morning ferry] carries bicycles … only."}]},
        {"text": "Cars wait for the second crossing.", "citations": [
            {"source": KEY, "quote": "Cars wait for the second crossing. … A single crossing costs four euros."}]}]}
    first = json.dumps(verify_answer(store, load_answer(answer)), sort_keys=True)
    assert first == json.dumps(verify_answer(store, load_answer(answer)), sort_keys=True)
    validator = jsonschema.Draft202012Validator(json.loads(report_schema()))
    assert not list(validator.iter_errors(json.loads(first)))
    assert '"quote_pieces"' in first and '"kind": "insertion"' in first


def test_parse_quote_forms() -> None:
    parsed = parse_quote("Refunds [\u2026] are accepted [for buyers] ... days.")
    assert parsed.pieces == ("Refunds", "are accepted", "days.")
    assert [(t.kind, t.text, t.at) for t in parsed.transformations] == [
        ("ellipsis", "[\u2026]", 1), ("insertion", "for buyers", 2), ("ellipsis", "...", 2)]
    assert not parse_quote("an empty [] bracket stays text").transformed
    assert parse_quote("plain words").pieces == ("plain words",)


WORDS = st.sampled_from(["dock", "ferry", "pier", "lamp", "fog", "fare", "crew", "deck", "tide", "rope"])


@settings(max_examples=60, deadline=None)
@given(words=st.lists(WORDS, min_size=6, max_size=30), cut=st.data())
def test_pieces_are_found_at_their_offsets(words: list[str], cut: st.DataObject) -> None:
    text = " ".join(words) + "."
    cuts = sorted(cut.draw(st.lists(st.integers(0, len(words)), min_size=4, max_size=4)))
    a, b, c, d = cuts
    if a == b or c == d:
        return
    first, second = " ".join(words[a:b]), " ".join(words[c:d])
    found = match_quote(text, f"{first} … {second}")
    assert isinstance(found, QuoteMatch | QuoteProblem)
    if isinstance(found, QuoteMatch):
        assert [text[p.start:p.end] for p in found.pieces] == [first, second]
        assert found.pieces[0].end <= found.pieces[1].start
        assert found.render(text) == f"{first} … {second}"
    else:  # the only reason a quote taken from the text is refused: it fits several places
        assert found.code == "GC107" and "places" in found.detail


def test_the_quote_shown_is_rebuilt_from_the_stored_text() -> None:
    text = "The pier's lamp is red. Boarding closes at dusk."
    found = match_quote(text, "The pier\u2019s lamp \u2026 closes at dusk.")
    assert isinstance(found, QuoteMatch) and found.normalised == ("curly quotes",)
    assert found.render(text) == "The pier's lamp \u2026 closes at dusk."
    assert Path(KEY).suffix == ".md"


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .\t\n\u00a0\u2019\u201c\u2014-'")), max_size=40))
def test_normalised_positions_map_back_to_the_stored_text(text: str) -> None:
    norm = normalise(text, frozenset(KINDS))
    table = {k: v for kinds in NORMALISATIONS.values() for k, v in kinds.items()}
    assert "  " not in norm.text and "\n" not in norm.text
    previous = -1
    for at, ch in enumerate(norm.text):
        origin = norm.origin(at)
        assert origin > previous
        previous = origin
        stored = table.get(text[origin], text[origin])
        assert stored == ch or (ch == " " and stored.isspace())


def test_both_engines_place_and_refuse_the_same_pieces(any_store: Store, tmp_path: Path) -> None:
    """The piece checks run on what the store returns, so DuckDB and PostgreSQL give the same report."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ferry.md").write_text(FERRY, encoding="utf-8")
    ingest(any_store, [tmp_path / "docs"], prefix="docs/")
    adjacent = check(any_store, "Cars wait, and in fog the pilot holds the ferry.",
                     "Cars wait for the second crossing. … the pilot holds the ferry at the pier.")
    assert adjacent["citations"][0]["valid"] and "adjacent units" in codes(adjacent)["GC108"][1]
    across = check(any_store, "Cars wait for the crossing that costs four euros.",
                   "Cars wait for the second crossing. … A single crossing costs four euros.")
    assert codes(across)["GC109"][0] == "fail"


def test_a_unit_citation_keeps_its_pieces_inside_the_unit(ferry: tuple[Store, str]) -> None:
    store, text = ferry
    unit = store.row("SELECT unit_id, start FROM evidence_unit WHERE text LIKE 'The morning ferry%'")
    assert unit is not None
    answer = load_answer({"answer_id": "ferry", "claims": [{"text": "The morning ferry leaves at seven.", "citations": [
        {"chunk_id": unit["unit_id"], "quote": "The morning ferry leaves … at seven. [It] carries bicycles"}]}]})
    cit = verify_answer(store, answer)["claims"][0]["citations"][0]
    assert cit["valid"] and len(cit["quote_pieces"]) == 3
    assert "inserted [It] for 'It'" in next(f["detail"] for f in cit["findings"] if f["code"] == "GC108")
    assert all(text[p["start"]:p["end"]] == p["text"] for p in cit["quote_pieces"])  # document offsets
    assert cit["quote_pieces"][0]["start"] == unit["start"]
    outside = load_answer({"answer_id": "ferry", "claims": [{"text": "x", "citations": [
        {"chunk_id": unit["unit_id"], "quote": "The morning ferry leaves … the pilot holds the ferry"}]}]})
    refused = verify_answer(store, outside)["claims"][0]["citations"][0]
    assert not refused["valid"] and any(f["code"] == "GC107" for f in refused["findings"])
