"""An evidence unit is analysed once: kept parses go into ``unit_parse`` in one write, come back in one read
for the cited units, only for the current pipeline version, and a report is the same with or without them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphcite.claims import load_answer, parts_for
from graphcite.ingest.analysis import evidence_texts, prepare_parses, prepared_parses_off
from graphcite.language import parse as P
from graphcite.store import SCHEMA_VERSION, Store
from graphcite.store.queries.parses import keep_unit_parses, unit_parses
from graphcite.verify import VerifierConfig
from graphcite.verify.engine import verify_claims
from graphcite.verify.resolve import resolve_citations
from tests.conftest import ANSWERS

VERSION = "test-version"


def _blob(text: str) -> bytes:
    return P.serialise(P.parser()(text))


def test_kept_parses_come_back_for_their_units_and_version_only(any_store: Store) -> None:
    rows = [("u1", "k1", _blob("One text.")), ("u1", "k2", _blob("Two texts.")), ("u2", "k3", _blob("Three."))]
    assert keep_unit_parses(any_store, rows, VERSION) == 3
    assert keep_unit_parses(any_store, rows[:1], VERSION) == 1  # a repeated write keeps one row
    assert any_store.scalar("SELECT count(*) FROM unit_parse") == 3
    assert [key for key, _ in unit_parses(any_store, ["u1"], VERSION)] == ["k1", "k2"]
    assert unit_parses(any_store, ["u1", "u2"], "another-version") == []
    key, data = unit_parses(any_store, ["u2"], VERSION)[0]
    assert key == "k3" and P._load(data).text == "Three."  # type: ignore[union-attr]


def test_a_new_version_replaces_the_units_old_parses(any_store: Store) -> None:
    keep_unit_parses(any_store, [("u1", "k1", _blob("Old."))], "old")
    keep_unit_parses(any_store, [("u2", "k9", _blob("Other unit."))], "old")
    keep_unit_parses(any_store, [("u1", "k1", _blob("New."))], VERSION)
    kept = any_store.rows("SELECT unit_id, pipeline_version FROM unit_parse ORDER BY 1, 2")
    assert kept == [{"unit_id": "u1", "pipeline_version": VERSION}, {"unit_id": "u2", "pipeline_version": "old"}]


def test_a_write_inside_a_callers_transaction_is_its_own(any_store: Store) -> None:
    with any_store.transaction():
        any_store.bulk_insert("lemma_lookup", [{"word": "relays", "lemma": "relay"}])
        assert keep_unit_parses(any_store, [("u1", "k1", _blob("Inside."))], VERSION) == 1
    assert any_store.scalar("SELECT count(*) FROM lemma_lookup WHERE word = 'relays'") == 1
    assert any_store.scalar("SELECT count(*) FROM unit_parse") == 1


def test_a_read_only_store_keeps_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db):
        pass
    with Store(db, read_only=True) as store:
        assert keep_unit_parses(store, [("u1", "k1", _blob("Read only."))], VERSION) == 0


def test_a_schema4_store_opens_read_only_and_gains_the_table_when_written(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.execute("DROP TABLE unit_parse")
        store.execute("UPDATE graphcite_meta SET value = '4' WHERE key = 'schema_version'")
    with Store(db, read_only=True) as store:
        assert store.schema_version == 4
        assert unit_parses(store, ["u1"], VERSION) == []
        assert keep_unit_parses(store, [("u1", "k1", _blob("Old store."))], VERSION) == 0
        assert "unit_parse" not in store.counts()
    with Store(db) as store:
        assert store.schema_version == SCHEMA_VERSION == 5
        assert keep_unit_parses(store, [("u1", "k1", _blob("Upgraded."))], VERSION) == 1


def test_the_texts_prepared_for_a_quote_are_those_the_readers_parse() -> None:
    assert evidence_texts("Retries stop after 3 attempts.") == ("Retries stop after 3 attempts.",)
    assert evidence_texts("Retries stop\n  after 3 attempts.") == ("Retries stop after 3 attempts.",
                                                                   "Retries stop\n  after 3 attempts.")


def _reports(store: Store, name: str) -> list[str]:
    answer = load_answer(json.loads((ANSWERS / name).read_text(encoding="utf-8")))
    return [json.dumps(verify_claims(store, answer, parts_for(answer), VerifierConfig()), sort_keys=True)]


@contextlib.contextmanager
def _pipeline_runs() -> Iterator[list[str]]:
    """The texts the pipeline itself parses inside the block (its class is swapped for a counting one)."""
    runs: list[str] = []
    nlp = P.parser()
    plain = type(nlp)

    class Counting(plain):  # type: ignore[misc, valid-type]
        def __call__(self, text: str, *args: Any, **kwargs: Any) -> Any:
            runs.append(text)
            return plain.__call__(self, text, *args, **kwargs)

    nlp.__class__ = Counting
    try:
        yield runs
    finally:
        nlp.__class__ = plain


def _forget() -> None:
    from benchmarks.verify import clear_result_caches

    clear_result_caches()


@pytest.mark.parametrize("name", ["clean.json", "traps.json"])
def test_reports_are_byte_identical_with_and_without_kept_parses(any_corpus_store: Store, name: str) -> None:
    store = any_corpus_store
    _forget()
    with prepared_parses_off():
        without = _reports(store, name)
    answer = load_answer(json.loads((ANSWERS / name).read_text(encoding="utf-8")))
    resolved = resolve_citations(store, [r for c in answer.claims for r in c.citations])
    cited = [(c.unit_id, c.evidence.quote) for c in resolved if c.valid and c.evidence and c.unit_id]
    assert cited
    _forget()
    first = prepare_parses(store, cited)  # what a first check does: nothing kept yet, the rules parse, keep
    assert first.handed == 0 and first.missing
    for _unit, text in first.missing:
        P.parse(text)
    assert first.keep(store) == len(first.missing)
    _forget()
    again = prepare_parses(store, cited)  # a later check: every cited text's parse comes from the store
    assert not again.missing and again.handed >= len(first.missing)
    texts = [text for _unit, quote in cited for text in evidence_texts(quote)]
    with _pipeline_runs() as runs:
        with_kept = _reports(store, name)
    assert with_kept == without
    assert runs  # the claims are parsed by the pipeline (they are not evidence) ...
    assert not set(texts) & set(runs)  # ... but no cited text: each came from a kept parse


def test_a_check_keeps_the_parses_it_makes_and_the_next_one_reads_them(corpus_store: Store) -> None:
    _forget()
    corpus_store.execute("DELETE FROM unit_parse")
    first = _reports(corpus_store, "traps.json")
    assert corpus_store.scalar("SELECT count(*) FROM unit_parse") > 0
    _forget()
    assert _reports(corpus_store, "traps.json") == first


def test_a_scratch_check_reads_kept_parses_and_writes_none(corpus_store: Store) -> None:
    from graphcite.verify.check import scratch_check

    _forget()
    corpus_store.execute("DELETE FROM unit_parse")
    before = corpus_store.scalar("SELECT count(*) FROM unit_parse")
    scratch_check(corpus_store, load_answer(json.loads((ANSWERS / "traps.json").read_text(encoding="utf-8"))))
    assert corpus_store.scalar("SELECT count(*) FROM unit_parse") == before == 0
