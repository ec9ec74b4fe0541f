"""Heading cues -> block status, nearest heading first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphcite.ingest.status import HEADING_CUES, heading_status, normalise_heading, status_for
from graphcite.models import STATUSES


@pytest.mark.parametrize(("cue", "status"), HEADING_CUES)
def test_every_cue_in_the_table_is_recognised(cue: str, status: str) -> None:
    assert status in STATUSES
    assert heading_status(cue) == status
    assert heading_status(cue.title()) == status
    assert heading_status(f"3.2 {cue.upper()}:") == status
    assert status_for((cue,), None) == (status, cue)


@pytest.mark.parametrize(("heading", "status"), [
    ("Current decision", "current"),
    ("Previous behaviour", "historical"),
    ("Previous behavior", "historical"),
    ("History", "historical"),
    ("Historical notes", "historical"),
    ("Superseded", "superseded"),
    ("Proposal: adaptive timeouts", "proposal"),
    ("Proposed change", "proposal"),
    ("Rejected alternatives", "rejected"),
    ("Alternatives considered", "rejected"),
    ("Option B (rejected)", "rejected"),
    ("Do NOT implement", "forbidden"),
    ("Forbidden patterns", "forbidden"),
    ("Must not implement", "forbidden"),
    ("Draft", "draft"),
    ("4. Rejected Alternatives", "rejected"),
    ("IV. History", "historical"),
    ("b) Proposal", "proposal"),
    ("**Superseded**", "superseded"),
    ("ＲＥＪＥＣＴＥＤ", "rejected"),  # full-width letters fold under NFKC
])
def test_headings_with_numbering_punctuation_and_case(heading: str, status: str) -> None:
    assert heading_status(heading) == status


@pytest.mark.parametrize("heading", [
    "Handling rejected requests", "Drafting guidelines", "Current limits", "Retry policy",
    "Decision", "Historically speaking the timeout", "", "3.2",
])
def test_headings_that_name_no_status(heading: str) -> None:
    assert heading_status(heading) is None


def test_normalise_heading() -> None:
    assert normalise_heading("  3.2.1. Rejected — alternatives!! ") == "rejected alternatives"
    assert normalise_heading("Café_au_lait") == "café au lait"


def test_nearest_heading_wins() -> None:
    path = ("Retry policy", "Current decision", "Rejected alternatives")
    assert status_for(path, None) == ("rejected", "Rejected alternatives")
    assert status_for(("Current decision", "Rejected alternatives", "Details"), None) == (
        "rejected", "Rejected alternatives")


def test_plain_subheading_inherits_its_ancestor() -> None:
    assert status_for(("Proposal", "Timeouts"), None) == ("proposal", "Proposal")
    assert status_for(("History", "2019", "Incident"), "current") == ("historical", "History")


def test_document_status_applies_without_a_cue() -> None:
    assert status_for(("Retry policy", "Limits"), "superseded") == ("superseded", "front matter")
    assert status_for((), "draft") == ("draft", "front matter")
    assert status_for(("Retry policy",), None) == ("current", None)
    assert status_for((), None) == ("current", None)


def test_heading_cue_overrides_document_status() -> None:
    assert status_for(("Rejected alternatives",), "current") == ("rejected", "Rejected alternatives")
    assert status_for(("Rejected alternatives",), "superseded") == ("rejected", "Rejected alternatives")


def test_current_decision_heading_does_not_lift_a_superseded_document() -> None:
    assert status_for(("Current decision",), "superseded") == ("superseded", "front matter")
    assert status_for(("Current decision",), "current") == ("current", "Current decision")


@given(st.lists(st.text(max_size=30), max_size=5), st.sampled_from([None, *STATUSES]))
def test_property_status_is_always_a_known_status(path: list[str], document: str | None) -> None:
    status, cue = status_for(tuple(path), document)
    assert status in STATUSES
    assert cue is None or cue == "front matter" or cue in path
