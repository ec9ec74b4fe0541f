"""The two SQL dialects: each rewrite is checked as text and by running it on its engine."""

from __future__ import annotations

import pytest

from graphcite.store import Store
from graphcite.store.dialect import DUCKDB, POSTGRES, split_quoted


def test_duckdb_statements_are_left_alone() -> None:
    sql = "INSERT OR IGNORE INTO t (a) SELECT a FROM v WHERE x = ? AND rowid > 1"
    assert DUCKDB.sql(sql, has_params=True) == sql


@pytest.mark.parametrize(("given", "wanted"), [
    ("SELECT * FROM t WHERE a = ? AND b IN (?, ?)", "SELECT * FROM t WHERE a = %s AND b IN (%s, %s)"),
    ("SELECT '?' AS q, a FROM t WHERE a LIKE 'x%' AND b = ?", "SELECT '?' AS q, a FROM t WHERE a LIKE 'x%%' AND b = %s"),
    ("SELECT 'it''s ?' FROM t WHERE a = ?", "SELECT 'it''s ?' FROM t WHERE a = %s"),
    ("INSERT OR IGNORE INTO t (a) SELECT a FROM v;", "INSERT INTO t (a) SELECT a FROM v ON CONFLICT DO NOTHING"),
    ("SELECT * FROM v ORDER BY rowid DESC", "SELECT * FROM v ORDER BY ctid DESC"),
    ("SELECT 1 FROM information_schema.tables WHERE table_schema = 'main'",
     "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema()"),
    ("SELECT x::DOUBLE FROM t", "SELECT x::DOUBLE PRECISION FROM t"),
    ("SELECT unnest(?::VARCHAR[])", 'SELECT unnest((%s::VARCHAR[] COLLATE "C"))'),
    ("SELECT unnest(CAST(? AS VARCHAR[]))", 'SELECT unnest((%s::VARCHAR[] COLLATE "C"))'),
    ("SELECT json_extract_string(r.metadata_json, '$.url') FROM r", "SELECT (r.metadata_json::json ->> 'url') FROM r"),
])
def test_postgres_rewrites(given: str, wanted: str) -> None:
    assert POSTGRES.sql(given, has_params=True) == wanted


def test_without_parameters_percent_signs_stay_single() -> None:
    assert POSTGRES.sql("SELECT 'a%b' LIKE 'a%'", has_params=False) == "SELECT 'a%b' LIKE 'a%'"


def test_quoted_pieces_are_kept_whole() -> None:
    assert split_quoted('SELECT "a?b", \'c?d\' FROM t') == [
        (False, "SELECT "), (True, '"a?b"'), (False, ", "), (True, "'c?d'"), (False, " FROM t")]


def test_the_fragments_run_on_each_engine(any_store: Store) -> None:
    """tokens, matches, json_strings and insert_ignore give the same answers on both engines."""
    d = any_store.dialect
    words = [r["w"] for r in any_store.rows(
        f"SELECT {d.tokens('t.x', '[a-z0-9]+(?:[.-][a-z0-9]+)*')} AS w FROM (SELECT 'retry 3 times, v1.2-rc now' AS x) t")]
    assert words == ["retry", "3", "times", "v1.2-rc", "now"]
    assert any_store.scalar(f"SELECT {d.matches('t.x', '^[0-9]$')} FROM (SELECT '7' AS x) t") is True
    assert any_store.scalar(f"SELECT {d.matches('t.x', '^[0-9]$')} FROM (SELECT '77' AS x) t") is False
    found = [r["v"] for r in any_store.rows(
        f"SELECT {d.json_strings('t.j')} AS v FROM (SELECT '[\"r1\", \"r2\"]' AS j) t")]
    assert found == ["r1", "r2"]
    any_store.bulk_insert("lemma_lookup", [{"word": "ran", "lemma": "run"}])
    any_store.execute(d.insert_ignore("lemma_lookup", "word, lemma", "SELECT 'ran', 'running'"))
    any_store.execute("INSERT OR IGNORE INTO lemma_lookup (word, lemma) SELECT 'went', 'go'")
    assert any_store.rows("SELECT word, lemma FROM lemma_lookup ORDER BY word") == [
        {"word": "ran", "lemma": "run"}, {"word": "went", "lemma": "go"}]


def test_text_sorts_by_code_point_on_both_engines(any_store: Store) -> None:
    keys = ["b", "B", "a", "_x", "é", "Z", "10", "9"]
    any_store.bulk_insert("lemma_lookup", [{"word": k, "lemma": k} for k in keys])
    assert [r["word"] for r in any_store.rows("SELECT word FROM lemma_lookup ORDER BY word")] == sorted(keys)
    many = [f"k{i}" for i in range(1500)]
    where, params = any_store.in_list("word", many)
    assert any_store.scalar(f"SELECT count(*) FROM lemma_lookup WHERE {where}", params) == 0
    with any_store.temporary("_gc_probe", ["a", "b", "zz"]) as view:
        assert any_store.scalar(f"SELECT count(*) FROM lemma_lookup l JOIN {view} v ON v.id = l.word") == 2
