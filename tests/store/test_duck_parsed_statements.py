"""DuckDB parses each statement text once per connection and runs the parsed statement again.

The parsed statement is run with each call's own parameters and must give exactly the rows the text
gives (``con.execute(text, params)``, the path before); a text of several statements stays text; the
kept statements are bounded; a cursor view keeps its own; PostgreSQL is not affected.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest

from graphcite.store import Store
from graphcite.store import duck as duck_module
from graphcite.store.duck import PARSED_LIMIT, DuckDBStore
from graphcite.store.queries import graph as q

NOW = dt.datetime(2024, 3, 1, 12, 0, 0)
SOURCES = [f"s{i:03d}.md" for i in range(q.IN_LIST_LIMIT + 20)]


def _fill(store: Store) -> None:
    with store.transaction():
        store.bulk_insert("source", [{"key": key, "title": f"Title {i}", "kind": "post" if i % 2 else "decision",
                                      "visibility": "public", "current_revision": f"r{i}",
                                      "first_ingested_at": NOW}
                                     for i, key in enumerate(SOURCES)])


def _text_rows(store: DuckDBStore, sql: str, params: Any) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` run as text, as before statements were kept parsed."""
    return store.con.execute(sql, params or []).fetchall()


def _in_stated_order(sql: str, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``rows`` as a statement promises them: in their order with ORDER BY, else sorted (no order is promised)."""
    return rows if "ORDER BY" in sql.upper() else sorted(rows, key=repr)


@pytest.fixture
def duck(tmp_path: Path) -> Any:
    with Store(tmp_path / "p.duckdb") as store:
        _fill(store)
        yield store


def test_a_kept_statement_runs_with_each_calls_parameters(duck: DuckDBStore) -> None:
    sql = "SELECT key, title, kind FROM source WHERE key = ?"
    seen = []
    for key in ["s001.md", "s002.md", "s001.md", "nope.md", "s250.md"]:
        rows = duck.tuples(sql, [key])
        assert _in_stated_order(sql, rows) == _in_stated_order(sql, _text_rows(duck, sql, [key]))
        seen.append(rows)
        assert isinstance(duck._parsed[sql], duckdb.Statement)
    kept = duck._parsed[sql]
    duck.tuples(sql, ["s003.md"])
    assert duck._parsed[sql] is kept  # parsed once, run again
    assert seen == [[("s001.md", "Title 1", "post")], [("s002.md", "Title 2", "decision")],
                    [("s001.md", "Title 1", "post")], [], [("s250.md", "Title 250", "decision")]]


@pytest.mark.parametrize("count", [1, 3, q.IN_LIST_LIMIT, q.IN_LIST_LIMIT + 1, len(SOURCES)])
def test_the_graph_reads_give_the_rows_of_their_text(duck: DuckDBStore, count: int) -> None:
    """An ``IN`` list of placeholders and an array parameter (``= ANY(?)``), each with new ids every call."""
    issued: list[tuple[str, Any, list[tuple[Any, ...]]]] = []
    run = duck._run

    def record(sql: str, params: Any) -> Any:
        names, rows = run(sql, params)
        issued.append((sql, params, rows))
        return names, rows

    duck._run = record  # type: ignore[method-assign]
    try:
        results = [sorted(r["key"] for r in q.source_rows(duck, SOURCES[start:start + count]))
                   for start in (0, 7, 0, 19)]
    finally:
        del duck._run
    assert results[0] == results[2] == SOURCES[:count] and results[1] == SOURCES[7:7 + count]
    assert results[3] == SOURCES[19:19 + count]
    assert len({sql for sql, _, _ in issued}) == 1 and len(issued) == 4
    for sql, params, rows in issued:
        assert _in_stated_order(sql, rows) == _in_stated_order(sql, _text_rows(duck, sql, params))


def test_named_parameters_and_a_transaction(duck: DuckDBStore) -> None:
    sql = "SELECT count(*) AS n FROM source WHERE kind = $kind"
    assert [duck.scalar(sql, {"kind": kind}) for kind in ("post", "decision", "post", "none")] == [138, 138, 138, 0]
    with duck.transaction():
        duck.execute("DELETE FROM source WHERE key = ?", ["s000.md"])
    with duck.transaction():
        duck.execute("DELETE FROM source WHERE key = ?", ["s001.md"])
    assert duck.scalar(sql, {"kind": "post"}) == 137 and duck.scalar(sql, {"kind": "decision"}) == 137
    assert isinstance(duck._parsed["BEGIN TRANSACTION"], duckdb.Statement)


def test_a_text_of_several_statements_stays_text_and_runs_them_all(duck: DuckDBStore) -> None:
    duck.execute("CREATE TEMPORARY TABLE seen (n INTEGER)")
    both = "INSERT INTO seen VALUES (1); INSERT INTO seen VALUES (2)"
    duck.execute(both)
    duck.execute(both)
    assert duck._parsed[both] == both
    assert duck.tuples("SELECT n, count(*) FROM seen GROUP BY n ORDER BY n") == [(1, 2), (2, 2)]


def test_a_parse_error_is_duckdbs_own_and_nothing_is_kept(duck: DuckDBStore) -> None:
    with pytest.raises(duckdb.ParserException):
        duck.rows("SELEC key FROM source")
    assert "SELEC key FROM source" not in duck._parsed
    with pytest.raises(duckdb.BinderException):  # parsed fine, fails when bound: kept, and fails again
        duck.rows("SELECT nothing FROM source")
    with pytest.raises(duckdb.BinderException):
        duck.rows("SELECT nothing FROM source")


def test_the_kept_statements_are_bounded_and_the_oldest_goes_first(duck: DuckDBStore,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duck_module, "PARSED_LIMIT", 8)
    duck._parsed.clear()
    texts = [f"SELECT ? + {i} AS n" for i in range(12)]
    for i, sql in enumerate(texts):
        assert duck.scalar(sql, [100]) == 100 + i
    assert list(duck._parsed) == texts[4:]
    assert duck.scalar(texts[0], [1]) == 1  # parsed again, pushing out the oldest kept
    assert list(duck._parsed) == [*texts[5:], texts[0]]
    assert PARSED_LIMIT >= 64  # room for every query text a chain or a check runs


def test_a_schema_change_after_parsing_is_seen(duck: DuckDBStore) -> None:
    """A kept statement is bound again at every run: a table made after it was parsed is read."""
    duck.execute("CREATE TEMPORARY TABLE later (n INTEGER)")
    sql = "SELECT count(*) FROM later"
    assert duck.scalar(sql) == 0
    duck.execute("DROP TABLE later")
    duck.execute("CREATE TEMPORARY TABLE later (n INTEGER, m INTEGER)")
    duck.execute("INSERT INTO later VALUES (1, 2), (3, 4)")
    assert duck.scalar(sql) == 2


def test_a_cursor_view_keeps_its_own_statements(duck: DuckDBStore) -> None:
    sql = "SELECT title FROM source WHERE key = ?"
    duck.scalar(sql, ["s001.md"])
    view = duck.cursor_view()
    assert view._parsed is not duck._parsed and view._parsed == {}
    found: list[Any] = []

    def read() -> None:
        found.extend(view.scalar(sql, [key]) for key in ("s004.md", "s005.md"))

    worker = threading.Thread(target=read)
    worker.start()
    worker.join()
    assert found == ["Title 4", "Title 5"] and sql in view._parsed
    assert duck.scalar(sql, ["s006.md"]) == "Title 6"


def test_postgresql_runs_the_same_reads_without_it(any_store: Store) -> None:
    """Both engines give the same answers to repeated reads with new parameters."""
    _fill(any_store)
    sql = "SELECT key FROM source WHERE key = ?"
    assert [any_store.scalar(sql, [key]) for key in ("s001.md", "s009.md", "nope", "s001.md")] == [
        "s001.md", "s009.md", None, "s001.md"]
    assert len(q.source_rows(any_store, SOURCES)) == len(SOURCES)
    assert hasattr(any_store, "_parsed") == (any_store.engine == "duckdb")
