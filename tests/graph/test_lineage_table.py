"""The source_lineage table: ingest keeps it equal to a full computation, and chains read from it are the
chains of the level-by-level walk it replaced, byte for byte, on both engines.

Every comparison runs the graph questions twice on the same store, once reading the table
(``LINEAGE_QUERY = "table"``, the default) and once walking source_link level by level (``"levels"``,
the old path), so a wrong or stale row shows up as a different chain.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lineage_corpus import FILES, build_store, write_corpus

import graphcite.graph.fetch as fetchmod
from graphcite.errors import StoreError
from graphcite.graph import audit_independence, build_graph, chain
from graphcite.ingest import ingest
from graphcite.ingest.lineage import MAX_LINEAGE_LEVELS, computed_lineage, rebuild_lineage
from graphcite.store import Store, copy_store

COLUMNS = ("key", "current_revision", "source_json", "links_json")


def stored_rows(store: Store) -> list[tuple[Any, ...]]:
    return [tuple(r[c] for c in COLUMNS) for r in store.rows("SELECT * FROM source_lineage ORDER BY key")]


def fresh_rows(store: Store) -> list[tuple[Any, ...]]:
    return [tuple(r[c] for c in COLUMNS) for r in computed_lineage(store)]


def graph_summary(G: Any) -> list[Any]:
    nodes = sorted((n, sorted(d.items())) for n, d in G.nodes(data=True))
    edges = sorted((u, v, k) for u, v, k in G.edges(keys=True))
    return [nodes, edges, G.graph.get("dangling"), G.graph.get("cycles"), G.graph.get("truncated")]


def answers_of(store: Store) -> list[dict[str, Any]]:
    """Everything the graph commands say about the store: chains, audits and source neighbourhoods."""
    claims = [r["claim_id"] for r in store.rows("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id")]
    answers = [r["answer_id"] for r in store.rows("SELECT DISTINCT answer_id FROM answer ORDER BY answer_id")]
    keys = [r["key"] for r in store.rows("SELECT key FROM source ORDER BY key")]
    out: list[dict[str, Any]] = []
    for audience in ("internal", "public"):
        for ref in [*claims, *answers]:
            out.append({"chain": chain(store, ref, audience=audience),
                        "audit": audit_independence(store, ref, audience=audience, include_unsupported=True)})
        for key in keys:
            out.append({"source": key, "graph": graph_summary(build_graph(store, source=key, audience=audience))})
    return out


def in_mode(store: Store, mode: str) -> str:
    default, fetchmod.LINEAGE_QUERY = fetchmod.LINEAGE_QUERY, mode
    try:
        return json.dumps(answers_of(store), sort_keys=True, default=str)
    finally:
        fetchmod.LINEAGE_QUERY = default


def assert_table_reads_like_the_walk(store: Store) -> None:
    table, levels = in_mode(store, "table"), in_mode(store, "levels")
    assert table == levels
    assert '"lineage": [{' in table  # the corpus has lineage to show


@pytest.fixture(params=["duckdb", "postgresql"])
def lineage_any(request: pytest.FixtureRequest, lineage_db: tuple[Path, dict[str, Any]]) -> Iterator[Store]:
    """The lineage store read-only in DuckDB, or its row-for-row copy in PostgreSQL."""
    if request.param == "duckdb":
        with Store(lineage_db[0], read_only=True) as store:
            yield store
        return
    with Store(request.getfixturevalue("pg_lineage"), read_only=True) as store:
        yield store


def test_ingest_leaves_the_table_equal_to_a_full_computation(lineage_any: Store) -> None:
    rows = stored_rows(lineage_any)
    assert rows == fresh_rows(lineage_any)
    keys = {r[0] for r in rows}
    assert "decisions/never-ingested.md" in keys  # a key only a link names has a row, without a card
    assert dict((r[0], r[2]) for r in rows)["decisions/never-ingested.md"] is None


def test_chains_read_from_the_table_are_those_of_the_level_walk(lineage_any: Store) -> None:
    assert_table_reads_like_the_walk(lineage_any)


def test_the_table_saves_the_walk_its_statements(lineage_db: tuple[Path, dict[str, Any]]) -> None:
    import graphcite.store.duck as duck

    claim = lineage_db[1]["claims"][0]["claim_id"]
    counted: dict[str, int] = {}
    run = duck.DuckDBStore._run

    def counting(self: Any, sql: str, params: Any) -> Any:
        counted[fetchmod.LINEAGE_QUERY] = counted.get(fetchmod.LINEAGE_QUERY, 0) + 1
        return run(self, sql, params)

    with Store(lineage_db[0], read_only=True) as store:
        duck.DuckDBStore._run = counting  # type: ignore[method-assign]
        try:
            for mode in ("levels", "table"):
                fetchmod.LINEAGE_QUERY = mode
                chain(store, claim)
        finally:
            duck.DuckDBStore._run = run  # type: ignore[method-assign]
            fetchmod.LINEAGE_QUERY = "table"
    assert counted["table"] <= 6 < counted["levels"]


def test_a_store_without_rows_reads_the_same_chains(writable_store: Store) -> None:
    expected = in_mode(writable_store, "levels")
    keys = [r["key"] for r in writable_store.rows("SELECT key FROM source_lineage ORDER BY key")]
    with writable_store.transaction():  # every other row gone: the start keys and the keys they reach mix
        writable_store.execute("DELETE FROM source_lineage WHERE key IN (SELECT unnest(?::VARCHAR[]))", [keys[::2]])
    assert in_mode(writable_store, "table") == expected
    writable_store.execute("DELETE FROM source_lineage")
    assert in_mode(writable_store, "table") == expected


# ----------------------------------------------------------------------------------------------
# rows that carry the cards of their closure (one read for the whole lineage)
# ----------------------------------------------------------------------------------------------


def with_closure_cards(store: Store) -> None:
    """Rewrite every row so its card also holds ``closure``: the cards of the other keys its links name."""
    from graphcite.store.queries.lineage import replace_lineage_rows

    rows = store.rows("SELECT * FROM source_lineage ORDER BY key")
    own = {r["key"]: None if r["source_json"] is None else json.loads(r["source_json"]) for r in rows}
    for card in own.values():
        if card is not None:
            card.pop("closure", None)
    for row in rows:
        if row["source_json"] is None:
            continue
        ends = {end for link in json.loads(row["links_json"]) for end in link[:2]} - {row["key"]}
        row["source_json"] = json.dumps({**own[row["key"]], "closure": {end: own.get(end) for end in sorted(ends)}})
    with store.transaction():
        replace_lineage_rows(store, None, rows)


@pytest.fixture(params=["duckdb", "postgresql"])
def writable_any(request: pytest.FixtureRequest, lineage_db: tuple[Path, dict[str, Any]]) -> Iterator[Store]:
    """A private, writable copy of the lineage store in DuckDB or PostgreSQL."""
    if request.param == "duckdb":
        yield request.getfixturevalue("writable_store")
        return
    url = request.getfixturevalue("new_pg_database")()
    with Store(lineage_db[0], read_only=True) as source, Store(url) as target:
        copy_store(source, target)
        yield target


def test_rows_with_closure_cards_read_the_chains_of_the_walk(writable_any: Store) -> None:
    expected = in_mode(writable_any, "levels")
    with_closure_cards(writable_any)
    assert '"closure":{' in writable_any.row(
        "SELECT source_json FROM source_lineage WHERE key = 'posts/p1.md'")["source_json"].replace(" ", "")
    assert in_mode(writable_any, "table") == expected
    keys = [r["key"] for r in writable_any.rows("SELECT key FROM source_lineage ORDER BY key")]
    with writable_any.transaction():  # a start key without a row of its own may still be in another's closure
        writable_any.execute("DELETE FROM source_lineage WHERE key IN (SELECT unnest(?::VARCHAR[]))", [keys[1::2]])
    assert in_mode(writable_any, "table") == expected


def test_a_start_key_known_only_from_another_closure_still_has_its_own_lineage(any_store: Store) -> None:
    """s.md supersedes b.md, which a.md derives from: a.md's row holds s.md's card but not s.md's own lineage
    (s.md derives from t.md), so a start key whose row is gone is walked even when another row named it."""
    now = dt.datetime(2024, 1, 1)
    keys = ["a.md", "b.md", "s.md", "t.md"]
    any_store.bulk_insert("source", [{"key": k, "current_revision": f"r-{k}", "first_ingested_at": now} for k in keys])
    any_store.bulk_insert("source_revision", [{"revision_id": f"r-{k}", "source_key": k, "seq": 1, "content_hash": k,
                                               "text": "", "format": "text", "ingested_at": now} for k in keys])
    any_store.bulk_insert("source_link", [
        {"link_id": f"l{i}", "from_key": f, "to_key": t, "relation": r, "declared_in": f"r-{f}"}
        for i, (f, t, r) in enumerate([("a.md", "b.md", "derived_from"), ("s.md", "b.md", "supersedes"),
                                       ("s.md", "t.md", "derived_from")])])
    rebuild_lineage(any_store)
    with_closure_cards(any_store)
    with any_store.transaction():
        any_store.execute("DELETE FROM source_lineage WHERE key = 's.md'")
    found = []
    for mode in ("table", "levels"):
        got = fetchmod.Fetched()
        fetchmod.LINEAGE_QUERY = mode
        try:
            fetchmod._fetch_lineage(any_store, got, {"a.md", "s.md"})
        finally:
            fetchmod.LINEAGE_QUERY = "table"
        found.append((got.links, sorted(got.sources), list(got.revisions)))
    assert found[0] == found[1]
    assert {"from_key": "s.md", "to_key": "t.md", "relation": "derived_from"} in found[0][0]


def test_closure_cards_make_the_lineage_one_read(writable_store: Store, report: dict[str, Any]) -> None:
    import graphcite.store.duck as duck

    reads: list[int] = []
    run = duck.DuckDBStore._run

    def counting(self: Any, sql: str, params: Any) -> Any:
        reads[-1] += "source_lineage" in sql
        return run(self, sql, params)

    duck.DuckDBStore._run = counting  # type: ignore[method-assign]
    try:
        for cards in (False, True):
            if cards:
                with_closure_cards(writable_store)
            reads.append(0)
            for claim in report["claims"]:
                chain(writable_store, claim["claim_id"])
    finally:
        duck.DuckDBStore._run = run  # type: ignore[method-assign]
    assert reads[1] == len(report["claims"]) < reads[0]


# ----------------------------------------------------------------------------------------------
# ingest keeps the table right
# ----------------------------------------------------------------------------------------------

EDITS: list[tuple[str, dict[str, str]]] = [
    ("a post changes what it derives from", {"posts/p3.md": FILES["posts/p3.md"].replace(
        "derived_from: posts/p1.md", "derived_from: posts/p2.md")}),
    ("a new note supersedes the decision", {"notes/new-rule.md": """---
title: New rule
status: current
kind: note
supersedes: decisions/dr-100.md
---
# New rule

The relay makes at most six delivery attempts for each event.
"""}),
    ("the never-ingested decision arrives, deriving from the manual", {"decisions/never-ingested.md": """---
title: Late decision
status: current
kind: decision
derived_from: manuals/ops.md
---
# Late decision

The relay signs every webhook with a shared secret.
"""}),
    ("two notes supersede each other (a cycle)", {
        "notes/x.md": "---\ntitle: X\nkind: note\nsupersedes: notes/y.md\n---\n# X\n\nX says the queue is sharded.\n",
        "notes/y.md": "---\ntitle: Y\nkind: note\nsupersedes: notes/x.md\nderived_from: posts/p4.md\n---\n# Y\n\n"
                      "Y says the queue is sharded.\n"}),
    ("the cycle is broken", {
        "notes/y.md": "---\ntitle: Y\nkind: note\nderived_from: posts/p4.md\n---\n# Y\n\nY says the queue is sharded.\n"}),
    ("a post is superseded from the other side", {"posts/p1.md": FILES["posts/p1.md"].replace(
        "derived_from: decisions/dr-100.md", "derived_from: decisions/dr-100.md\nsuperseded_by: notes/new-rule.md")}),
]


def test_each_later_ingest_keeps_the_table_right(db_url: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    with Store(db_url) as store:
        ingest(store, [corpus])
        assert stored_rows(store) == fresh_rows(store)
        for what, files in EDITS:
            write_corpus(corpus, files)
            ingest(store, [corpus])  # the files unchanged are skipped
            assert stored_rows(store) == fresh_rows(store), what
        relations = {r["relation"] for r in store.rows("SELECT relation FROM source_link")}
        assert "supersedes_cycle" in relations  # the cycle's first declarations stay relabelled
        links = json.loads(store.row("SELECT links_json FROM source_lineage WHERE key = 'posts/p1.md'")["links_json"])
        assert ["notes/new-rule.md", "posts/p1.md", "supersedes"] in [link[:3] for link in links]


def test_an_edited_store_reads_like_the_walk(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    with Store(tmp_path / "edited.duckdb") as store:
        ingest(store, [corpus])
        for _, files in EDITS:
            write_corpus(corpus, files)
            ingest(store, [corpus])
        assert in_mode(store, "table") == in_mode(store, "levels")


# ----------------------------------------------------------------------------------------------
# depth: the 64-level bound
# ----------------------------------------------------------------------------------------------


def test_ingest_writes_closures_as_deep_as_the_graph_reads_them() -> None:
    """The depth is the table's contract (graphcite.store.queries.lineage); ingest's walk must use the same."""
    from graphcite.store.queries.lineage import MAX_LINEAGE_LEVELS as read_depth

    assert MAX_LINEAGE_LEVELS == read_depth == fetchmod.MAX_LINEAGE_LEVELS == 64


@pytest.mark.parametrize("length", [MAX_LINEAGE_LEVELS - 1, MAX_LINEAGE_LEVELS, MAX_LINEAGE_LEVELS + 1, 70])
def test_a_deep_lineage_is_cut_at_the_same_level(any_store: Store, length: int) -> None:
    now = dt.datetime(2024, 1, 1)
    keys = [f"deep/{i:03d}.md" for i in range(length + 1)]
    any_store.bulk_insert("source", [{"key": k, "current_revision": f"r{k}", "first_ingested_at": now} for k in keys])
    any_store.bulk_insert("source_revision", [{"revision_id": f"r{k}", "source_key": k, "seq": 1, "content_hash": k,
                                               "text": "", "format": "text", "ingested_at": now} for k in keys])
    any_store.bulk_insert("source_link", [
        *({"link_id": f"l{i}", "from_key": keys[i], "to_key": keys[i + 1], "relation": "derived_from",
           "declared_in": f"r{keys[i]}"} for i in range(length)),
        {"link_id": "side", "from_key": keys[1], "to_key": keys[-1], "relation": "quotes", "declared_in": "x"},
        {"link_id": "sup", "from_key": "late.md", "to_key": keys[-1], "relation": "supersedes", "declared_in": "y"}])
    rebuild_lineage(any_store)
    results = []
    for mode in ("table", "levels"):
        for start in ({keys[0]}, {keys[0], keys[length // 2]}):
            got = fetchmod.Fetched()
            fetchmod.LINEAGE_QUERY = mode
            try:
                fetchmod._fetch_lineage(any_store, got, start)
            finally:
                fetchmod.LINEAGE_QUERY = "table"
            results.append((mode, sorted(start), got.truncated, got.links, sorted(got.sources), list(got.revisions)))
    table, levels = results[:2], results[2:]
    assert [r[1:] for r in table] == [r[1:] for r in levels]
    # the quotes link reaches the top in two levels; a key 64 levels down the chain is left unvisited
    assert table[0][2] is (length > MAX_LINEAGE_LEVELS)


def test_a_long_chain_without_a_shortcut_is_truncated_alike(any_store: Store) -> None:
    keys = [f"long/{i:03d}.md" for i in range(MAX_LINEAGE_LEVELS + 2)]
    any_store.bulk_insert("source_link", [{"link_id": f"l{i}", "from_key": keys[i], "to_key": keys[i + 1],
                                           "relation": "quotes", "declared_in": "r"} for i in range(len(keys) - 1)])
    rebuild_lineage(any_store)
    found = {}
    for mode in ("table", "levels"):
        got = fetchmod.Fetched()
        fetchmod.LINEAGE_QUERY = mode
        try:
            found[mode] = (fetchmod._walk_levels(any_store, got, {keys[0]}, None) if mode == "levels" else
                           fetchmod._walk_table(any_store, got, {keys[0]}, None, fetchmod._Cards()), got.truncated)
        finally:
            fetchmod.LINEAGE_QUERY = "table"
    assert found["table"][1] is found["levels"][1] is True
    assert sorted(map(str, found["table"][0])) == sorted(map(str, found["levels"][0]))


# ----------------------------------------------------------------------------------------------
# a store written before the table
# ----------------------------------------------------------------------------------------------


def test_a_store_from_before_the_table_is_upgraded_and_filled(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    build_store(db, tmp_path / "corpus")
    with Store(db) as store:
        expected = in_mode(store, "levels")
        store.execute("DROP TABLE source_lineage")
        store.execute("UPDATE graphcite_meta SET value = '2' WHERE key = 'schema_version'")
    with pytest.raises(StoreError) as refused:
        Store(db, read_only=True)
    assert "no table source_lineage" in str(refused.value) and "\n" not in str(refused.value)
    with Store(db) as store:  # opening for writing adds the table, empty: chains read the source tables
        assert stored_rows(store) == []
        assert in_mode(store, "table") == expected
        ingest(store, [tmp_path / "corpus"])  # the next ingest fills it, even when no file changed
        assert stored_rows(store) == fresh_rows(store) != []
        assert in_mode(store, "table") == expected


def test_a_copied_store_carries_its_table(lineage_db: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    with Store(lineage_db[0], read_only=True) as source, Store(tmp_path / "copy.duckdb") as target:
        copy_store(source, target)
        assert stored_rows(target) == stored_rows(source) != []
    shutil.rmtree(tmp_path, ignore_errors=True)
