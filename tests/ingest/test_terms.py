"""The term index: each unit's postings are the content terms the query side reads, on both engines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphcite.ingest import ingest
from graphcite.ingest.files import discover
from graphcite.ingest.prepare import prepare_file
from graphcite.ingest.terms import TOKEN_PATTERN, content_terms
from graphcite.store import Store

DOC = """# Relay retries

The relay kept putting 3 retries on the long-term queue; it was not dying.
Version v1.2 of the client waits 250 ms, then 1 s. A b c.

| Setting | Timeout (ms) |
| --- | --- |
| programme | 40 |
"""


def test_content_terms_lemmatise_and_drop_stopwords_and_single_letters() -> None:
    assert content_terms("The clients were dying: 3 retries on long-term v1.2 queues, not a b; Retries!") == [
        "client", "die", "3", "retry", "long-term", "v1.2", "queue", "not"]
    assert content_terms("They kept putting queues off") == ["queue"]  # "kept" is "keep", "putting" "put": stopwords
    assert content_terms("") == [] and content_terms("the a of") == []


@given(st.text(alphabet="ab19.-_ é\n", max_size=40))
def test_possessive_tokens_are_the_plain_patterns_tokens(text: str) -> None:
    assert re.findall(TOKEN_PATTERN, text) == re.findall(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*", text)


def postings(store: Store) -> set[tuple[str, str]]:
    return {(row[0], row[1]) for row in store.tuples("SELECT term, unit_id FROM term_posting")}


def expected_postings(store: Store) -> set[tuple[str, str]]:
    return {(term, unit_id) for unit_id, text in store.tuples("SELECT unit_id, text FROM evidence_unit")
            for term in content_terms(text)}


def test_postings_are_the_content_terms_of_every_unit(db_url: str, tmp_path: Path) -> None:
    (tmp_path / "relay.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("Dying relays were put back after 2 days.\n", encoding="utf-8")
    with Store(db_url) as store:
        report = ingest(store, [tmp_path])
        found = postings(store)
        assert found == expected_postings(store)
        assert report.postings == len(found) > 20
        assert {"die", "programme", "v1.2", "250", "long-term"} <= {term for term, _ in found}
        assert not {"the", "a", "b", "it", "was", "put", "putt"} & {term for term, _ in found}


def test_only_new_revisions_add_postings(db_url: str, tmp_path: Path) -> None:
    page = tmp_path / "relay.md"
    page.write_text(DOC, encoding="utf-8")
    with Store(db_url) as store:
        ingest(store, [tmp_path])
        first = postings(store)
        assert ingest(store, [tmp_path]).postings == 0
        page.write_text(DOC.replace("250 ms", "300 ms"), encoding="utf-8")
        changed = ingest(store, [tmp_path])
        assert changed.postings == len(postings(store)) - len(first) > 0
        page.write_text(DOC, encoding="utf-8")  # back to the first content: the pointer moves, no rows
        reverted = ingest(store, [tmp_path])
        assert reverted.reverted == ["relay.md"] and reverted.postings == 0
        assert postings(store) == expected_postings(store)


def test_prepared_postings_follow_the_units(tmp_path: Path) -> None:
    (tmp_path / "relay.md").write_text(DOC * 3, encoding="utf-8")
    prepared = prepare_file(discover([tmp_path])[0][0])
    units = [row for table in prepared.units.tables() for row in table.to_pylist()]
    rows = [row for table in prepared.postings.tables() for row in table.to_pylist()]
    assert rows == [{"term": term, "unit_id": unit["unit_id"]} for unit in units for term in content_terms(unit["text"])]
    assert prepared.postings.num_rows == len(rows) and [name for name, _ in prepared.tables()] == [
        "evidence_unit", "typed_value", "term_posting"]


def test_the_token_memo_stays_bounded_and_never_changes_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphcite.ingest import terms

    text = "The clients were dying: 3 retries on long-term v1.2 queues, not a b; Retries! " * 2
    want = content_terms(text)
    monkeypatch.setattr(terms, "_TERMS_HELD", 4)
    monkeypatch.setattr(terms, "_TERMS", terms._Terms())
    assert content_terms(text) == want and len(terms._TERMS) <= 4
    assert content_terms("putting dying relays") == ["die", "relay"] and len(terms._TERMS) <= 4
