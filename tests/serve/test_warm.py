"""Warm evidence reads: answers come from memory only while the evidence they read is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphcite.ingest import ingest
from graphcite.serve.warm import WarmReads, WarmView, tables_in
from graphcite.store import Store
from graphcite.verify.check import check_answer

UNITS = "SELECT unit_id, text FROM evidence_unit ORDER BY unit_id"


def _write(folder: Path, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "pump.md").write_text(text, encoding="utf-8")


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    _write(tmp_path / "docs", "# Pump\n\nThe pump stops after 40 seconds without flow.\n")
    opened = Store(tmp_path / "warm.duckdb")
    ingest(opened, [tmp_path / "docs"])
    yield opened
    opened.close()


def test_tables_in_leaves_out_the_query_s_own_names() -> None:
    sql = ("WITH RECURSIVE up(k) AS (SELECT from_key FROM source_link), t AS (SELECT 1) "
           "SELECT * FROM up JOIN evidence_unit u ON u.unit_id = up.k")
    assert tables_in(sql) == {"source_link", "evidence_unit"}


@pytest.mark.parametrize(("sql", "cached"), [
    (UNITS, True),
    ("SELECT count(*) FROM claim", False),  # a record table: what a check writes must be read back at once
    ("SELECT u.* FROM evidence_unit u WHERE u.unit_id IN (SELECT unit_id FROM citation)", False),
    ("SELECT * FROM evidence_unit u JOIN _gc_ids i ON i.id = u.unit_id", False),  # a per-call Arrow view
    ("INSERT INTO source_link SELECT * FROM source_link", False),
])
def test_only_pure_evidence_reads_are_cacheable(sql: str, cached: bool) -> None:
    assert WarmReads().cacheable(sql) is cached


def test_second_read_comes_from_memory_and_callers_cannot_poison_it(store: Store) -> None:
    warm = WarmReads()
    view = WarmView(store, warm)
    first = view.rows(UNITS)
    first[0]["text"] = "edited by a caller"
    second = view.rows(UNITS)
    assert (warm.misses, warm.hits) == (1, 1)
    assert second == store.rows(UNITS)


def test_a_new_revision_ingested_elsewhere_drops_the_cache(store: Store, tmp_path: Path) -> None:
    warm = WarmReads(check_every=0)
    view = WarmView(store, warm)
    warm.revalidate(view)
    before = view.rows(UNITS)
    _write(tmp_path / "docs", "# Pump\n\nThe pump stops after 90 seconds without flow.\n")
    ingest(store, [tmp_path / "docs"])  # not through the view: as another process would
    assert view.rows(UNITS) == before  # not yet noticed
    warm.revalidate(view)
    after = view.rows(UNITS)
    assert after != before and any("90 seconds" in row["text"] for row in after)


def test_lineage_reads_are_kept_and_an_ingest_elsewhere_renews_them(store: Store, tmp_path: Path) -> None:
    lineage = "SELECT key, current_revision FROM source_lineage ORDER BY key"
    assert WarmReads().cacheable(lineage)  # ingest derives it with the sources, in the same transaction
    warm = WarmReads(check_every=0)
    view = WarmView(store, warm)
    warm.revalidate(view)
    before = view.rows(lineage)
    assert len(before) == 1 and view.rows(lineage) == before and warm.hits == 1
    _write(tmp_path / "docs", "# Pump\n\nThe pump stops after 90 seconds without flow.\n")
    ingest(store, [tmp_path / "docs"])  # another process's ingest: a new revision, a new lineage row
    warm.revalidate(view)
    after = view.rows(lineage)
    assert after == store.rows(lineage) and after != before


def test_a_write_through_the_view_drops_the_cache_and_a_rollback_too(store: Store) -> None:
    warm = WarmReads()
    view = WarmView(store, warm)
    view.rows(UNITS)
    view.execute("UPDATE source SET title = 'Renamed'")
    assert warm.get(("rows", UNITS, "None")) is not None  # sentinel, not a stored answer
    assert view.rows("SELECT title FROM source") == [{"title": "Renamed"}]
    with pytest.raises(RuntimeError), view.transaction():
        view.rows(UNITS)
        raise RuntimeError("abandon")
    assert warm.misses >= 2 and not warm._entries


def test_checks_through_warm_reads_give_the_same_report(store: Store) -> None:
    unit = store.row("SELECT u.unit_id, u.revision_id, u.start, u.text FROM evidence_unit u "
                     "WHERE u.text LIKE 'The pump%'")
    assert unit is not None
    answer = {"answer_id": "warm", "claims": [{"text": "The pump stops after 40 seconds without flow.",
                                               "citations": [{"chunk_id": unit["unit_id"],
                                                              "quote": unit["text"]}]}]}
    plain = check_answer(store, answer)
    warm = WarmReads()
    view = WarmView(store, warm)
    warmed = [check_answer(view, answer) for _ in range(3)][-1]
    assert warm.hits > 0
    strip = {"earlier"}
    assert json.dumps({k: v for k, v in warmed.items() if k not in strip}, sort_keys=True, default=str) == \
        json.dumps({k: v for k, v in plain.items() if k not in strip}, sort_keys=True, default=str)
    assert plain["claims"][0]["status"] == "supported"
