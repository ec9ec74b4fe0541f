"""Stored answers on both engines: idempotent storage, corrections, lookup by id or revision, "did you
mean", the listing and the stored atomic parts."""

from __future__ import annotations

import pytest

from graphcite.claims.answers import add_answer, answer_parts, get_answer, list_answers, suggest_answer
from graphcite.errors import NotFoundError
from graphcite.store import Store

FIRST = {"answer_id": "relay-retries", "question": "How often does the relay retry?", "claims": [
    {"text": "The relay retries a failed delivery three times and logs each attempt.",
     "citations": [{"source": "spec.md", "quote": "three times"}]},
    {"text": "Delivery logs are kept for 14 days.", "citations": [{"source": "spec.md"}]}]}
SECOND = {**FIRST, "claims": [{"text": "The relay retries a failed delivery four times.",
                               "citations": [{"source": "spec.md", "quote": "four times"}]}]}


def test_answers_are_stored_once_and_corrections_link_back(any_store: Store) -> None:
    store = any_store
    first = add_answer(store, FIRST)
    assert add_answer(store, FIRST) == first  # the same content: the same revision, nothing added
    assert store.scalar("SELECT count(*) FROM answer") == 1
    second = add_answer(store, SECOND, corrects=first, rationale="the decision changed")
    assert get_answer(store, first)[0] == first
    rev, answer = get_answer(store, "relay-retries")  # by id: the latest revision, even within one second
    assert rev == second and [c.text for c in answer.claims] == [SECOND["claims"][0]["text"]]
    listed = {a["answer_rev"]: a for a in list_answers(store)}
    assert {r: (a["claims"], a["corrects"]) for r, a in listed.items()} == {first: (2, None), second: (1, first)}
    assert listed[second]["correction_rationale"] == "the decision changed"
    parts = answer_parts(store, first)
    assert len(parts) == 2 and all(parts) and parts[1][0].text.startswith("Delivery logs")


def test_an_unknown_answer_names_the_closest_stored_one(any_store: Store) -> None:
    add_answer(any_store, FIRST)
    assert suggest_answer(any_store, "relay-retrys") == "relay-retries"
    assert suggest_answer(any_store, "zzzzzz") is None
    with pytest.raises(NotFoundError, match="did you mean 'relay-retries'"):
        get_answer(any_store, "relay-retrie")
    assert answer_parts(any_store, "no-such-revision") == []


def test_an_empty_store_lists_nothing(any_store: Store) -> None:
    assert list_answers(any_store) == [] and suggest_answer(any_store, "anything") is None
    with pytest.raises(NotFoundError, match="no stored answer"):
        get_answer(any_store, "anything")
