"""A time clause of a past event is its time, not a condition; of a general statement it is a condition."""

from __future__ import annotations

from graphcite.language.frames import aligned_frames


def test_a_past_events_time_clause_is_not_a_condition() -> None:
    _mine, theirs = aligned_frames("The ferry sank in 1953.", "The ferry sank in 1953 after striking a reef near the harbour.")
    assert theirs is not None and theirs.tense == "past"  # "sank" read as past even where the tagger says noun
    assert theirs.conditions == ()


def test_a_general_statements_time_clause_is_a_condition() -> None:
    _mine, theirs = aligned_frames("Refunds are paid.", "Refunds are paid when the parcel arrives at the depot.")
    assert theirs is not None and theirs.tense == "present"
    assert theirs.conditions == ("when the parcel arrives at the depot",)
