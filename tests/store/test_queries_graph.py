"""The graph stage's query functions (store/queries/graph.py, graph_conflicts.py, lineage.py) on both engines.

One small store written row by row for the purpose: a decision two posts derive from (one by
quotation, two levels deep), an older note the decision supersedes, a lineage cycle, a restricted
source and a public source with one restricted revision; an answer with two revisions, parent claims
stored out of answer order with atomic parts, citations and verification records of which only the
newest may count. Every expectation is written out by hand, so a wrong join, filter or order fails.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from graphcite.ingest.lineage import rebuild_lineage
from graphcite.store import Store
from graphcite.store.queries import graph as q
from graphcite.store.queries import graph_conflicts as cq
from graphcite.store.queries import lineage as lq

NOW = dt.datetime(2024, 3, 1, 12, 0, 0)
SOURCES = {  # key -> (kind, visibility, revisions (id, visibility))
    "dec.md": ("decision", "public", [("r-dec", "public")]),
    "post1.md": ("post", "public", [("r-post1-a", "public"), ("r-post1-b", "public")]),
    "post2.md": ("post", "public", [("r-post2", "public")]),
    "old.md": ("note", "public", [("r-old", "public")]),
    "cyc-a.md": ("note", "public", [("r-cyc-a", "public")]),
    "cyc-b.md": ("note", "public", [("r-cyc-b", "public")]),
    "hidden.md": ("manual", "restricted", [("r-hidden", "restricted")]),
    "pub.md": ("manual", "public", [("r-pub-1", "restricted"), ("r-pub-2", "public")]),
}
LINKS = [  # from, to, relation, declared in
    ("post1.md", "dec.md", "derived_from", "r-post1-b"),
    ("post2.md", "post1.md", "quotes", "r-post2"),
    ("dec.md", "old.md", "supersedes", "r-dec"),
    ("cyc-a.md", "cyc-b.md", "derived_from", "r-cyc-a"),
    ("cyc-b.md", "cyc-a.md", "implements", "r-cyc-b"),
    ("post2.md", "never.md", "derived_from", "r-post2"),
    ("hidden.md", "dec.md", "derived_from", "r-hidden"),
    ("pub.md", "dec.md", "see_also", "r-pub-2"),
]
EXTRA = 300  # parent claims beyond the answer's own, so id lists are long too


def unit_id(key: str, n: int) -> str:
    return f"u-{key}-{n}"


@pytest.fixture
def graph_store(any_store: Store) -> Store:
    store = any_store
    sources, revisions, units = [], [], []
    for key, (kind, visibility, revs) in SOURCES.items():
        sources.append({"key": key, "title": f"Title of {key}", "kind": kind, "visibility": visibility,
                        "current_revision": revs[-1][0], "first_ingested_at": NOW})
        previous = None
        for seq, (rev, rev_visibility) in enumerate(revs, start=1):
            revisions.append({"revision_id": rev, "source_key": key, "seq": seq, "content_hash": rev, "text": "x",
                              "format": "markdown", "ingested_at": NOW, "effective": dt.date(2023, 1, seq),
                              "status": "current", "title": f"{key} v{seq}", "kind": kind,
                              "visibility": rev_visibility, "previous_revision": previous})
            previous = rev
        for n, block in enumerate(["heading", "paragraph", "paragraph"]):
            units.append({"unit_id": unit_id(key, n), "revision_id": revs[-1][0], "source_key": key, "ordinal": n,
                          "start": n * 10, "end": n * 10 + 8, "text": f"{key} unit {n}", "block_type": block,
                          "heading_path_json": json.dumps([key]), "status": "superseded" if n == 2 and
                          key == "post2.md" else "current", "page": n if key == "pub.md" else None})
    claims = [
        {"claim_id": "c-second", "answer_rev": "ans-v2", "ordinal": 1, "text": "Second claim."},
        {"claim_id": "c-first", "answer_rev": "ans-v2", "ordinal": 0, "text": "First claim."},
        {"claim_id": "c-first-p0", "answer_rev": "ans-v2", "ordinal": 0, "part": 0, "parent_id": "c-first",
         "text": "First"},
        {"claim_id": "c-first-p1", "answer_rev": "ans-v2", "ordinal": 0, "part": 1, "parent_id": "c-first",
         "text": "claim"},
        {"claim_id": "c-old", "answer_rev": "ans-v1", "ordinal": 0, "text": "Old claim."},
        *({"claim_id": f"c-x{i:03d}", "answer_rev": "ans-other", "ordinal": i, "text": f"Extra {i}."}
          for i in range(EXTRA)),
    ]
    report = {"citations": [{"unit_id": unit_id("post2.md", 1), "revision": "r-post2", "source": "post2.md"}]}
    with store.transaction():
        store.bulk_insert("source", sources)
        store.bulk_insert("source_revision", revisions)
        store.bulk_insert("evidence_unit", units)
        store.bulk_insert("source_link", [{"link_id": f"l{i}", "from_key": f, "to_key": t, "relation": r,
                                           "declared_in": d} for i, (f, t, r, d) in enumerate(LINKS)])
        store.bulk_insert("answer", [
            {"answer_rev": rev, "answer_id": answer_id, "format": "native", "content_json": "{}",
             "stored_at": NOW + dt.timedelta(days=day)}
            for rev, answer_id, day in (("ans-v1", "ans", 0), ("ans-v2", "ans", 1), ("ans-other", "other", 0))])
        store.bulk_insert("claim", claims)
        store.bulk_insert("citation", [
            {"citation_id": f"cit-{claim}-{n}", "claim_id": claim, "ordinal": n, "source_key": key,
             "chunk_id": unit_id(key, 1)}
            for claim, n, key in (("c-second", 1, "pub.md"), ("c-second", 0, "dec.md"), ("c-first", 0, "post2.md"))])
        store.bulk_insert("verification", [
            {"record_id": record, "claim_id": "c-first", "answer_rev": "ans-v2", "config_hash": "h", "config_json": "{}",
             "evidence_revisions_json": json.dumps(evidence), "verified_at": NOW + dt.timedelta(hours=hours),
             "status": status, "supported": status == "supported", "result_json": json.dumps(report)}
            for record, hours, status, evidence in (("v-old", 0, "unsupported", ["r-old"]),
                                                     ("v-new", 2, "supported", ["r-post2"]))])
        store.bulk_insert("verification", [  # the extra claims' records: the table is not a handful of rows
            {"record_id": f"v-x{i:03d}", "claim_id": f"c-x{i:03d}", "answer_rev": "ans-other", "config_hash": "h",
             "config_json": "{}", "evidence_revisions_json": "[]", "verified_at": NOW, "status": "unsupported",
             "supported": False, "result_json": "{}"} for i in range(EXTRA)])
    return store


# -- selection -----------------------------------------------------------------------------------
def test_a_claim_reference_names_its_parent(graph_store: Store) -> None:
    assert q.claim_ref(graph_store, "c-first-p1") == {"claim_id": "c-first-p1", "parent_id": "c-first", "part": 1,
                                                      "answer_rev": "ans-v2", "ordinal": 0, "text": "claim",
                                                      "claim_type": "direct", "answer_id": "ans"}
    row = q.claim_ref(graph_store, "c-first")
    assert (row["parent_id"], row["part"], row["answer_id"]) == (None, None, "ans")
    assert {k: v for k, v in row.items() if k not in ("parent_id", "part", "answer_id")} == q.claim_rows(
        graph_store, ["c-first"])[0]
    graph_store.bulk_insert("claim", [{"claim_id": "c-lost", "answer_rev": "ans-gone", "ordinal": 0, "text": "Lost."}])
    assert q.claim_ref(graph_store, "c-lost")["answer_id"] is None  # an answer revision not stored
    assert q.claim_ref(graph_store, "ans") is None
    without = q.claim_ref(graph_store, "c-first", answer=False)
    assert "answer_id" not in without and without == {k: v for k, v in row.items() if k != "answer_id"}


def test_an_answer_id_means_its_newest_revision(graph_store: Store) -> None:
    assert q.newest_answer(graph_store, "ans") == {"answer_rev": "ans-v2", "answer_id": "ans"}
    assert q.newest_answer(graph_store, "ans-v1") == {"answer_rev": "ans-v1", "answer_id": "ans"}
    assert q.newest_answer(graph_store, "c-first") is None


def test_an_answers_claims_are_its_parents_in_answer_order(graph_store: Store) -> None:
    assert q.answer_claim_ids(graph_store, "ans-v2") == ["c-first", "c-second"]
    assert q.answer_claim_ids(graph_store, "missing") == []


def test_claim_parents_and_every_parent(graph_store: Store) -> None:
    assert q.claim_parents(graph_store, ["c-first-p0", "c-second", "nope"]) == {"c-first-p0": "c-first",
                                                                             "c-second": "c-second"}
    every = q.all_parent_claim_ids(graph_store)
    assert every[:2] == ["c-x000", "c-x001"] and every[-3:] == ["c-old", "c-first", "c-second"]  # by answer_rev
    assert len(every) == EXTRA + 3
    assert q.claim_parents(graph_store, []) == {}


def test_claims_about_a_source_cite_it_or_were_verified_against_it(graph_store: Store) -> None:
    assert q.source_exists(graph_store, "dec.md") and not q.source_exists(graph_store, "never.md")
    assert q.claims_about_source(graph_store, "dec.md") == ["c-second"]
    assert q.claims_about_source(graph_store, "post2.md") == ["c-first"]  # cited and verified against
    assert q.claims_about_source(graph_store, "old.md") == ["c-first"]  # an older record's evidence counts
    assert q.claims_about_source(graph_store, "cyc-a.md") == []


# -- the rows of a graph ------------------------------------------------------------------------
def test_only_the_newest_verification_counts(graph_store: Store) -> None:
    (row,) = q.latest_verification_rows(graph_store, ["c-first", "c-second"])
    assert (row["record_id"], row["status"], row["supported"]) == ("v-new", "supported", True)
    assert row["verified_at"] == "2024-03-01 14:00:00" and json.loads(row["result_json"])["citations"]
    assert q.latest_verification_rows(graph_store, []) == []
    (short,) = q.latest_verification_rows(graph_store, ["c-first"], record=False)
    assert short == {k: v for k, v in row.items() if k not in ("record_id", "answer_rev")}


def test_within_one_second_the_later_record_counts(graph_store: Store) -> None:
    for record in ("v-tie-1", "v-tie-2", "v-tie-3"):  # one write each: insertion order is record order
        graph_store.bulk_insert("verification", [
            {"record_id": record, "claim_id": "c-second", "answer_rev": "ans-v2", "config_hash": "h",
             "config_json": "{}", "evidence_revisions_json": "[]", "verified_at": NOW, "status": "supported",
             "supported": True, "result_json": "{}"}])
    rows = {r["claim_id"]: r["record_id"] for r in q.latest_verification_rows(graph_store, ["c-second", "c-first"])}
    assert rows == {"c-second": "v-tie-3", "c-first": "v-new"}


def test_restricted_sources_revisions_and_units(graph_store: Store) -> None:
    assert q.restricted_sources(graph_store) == [{"key": "hidden.md", "title": "Title of hidden.md"},
                                                 {"key": "pub.md", "title": "Title of pub.md"}]
    assert sorted(r["revision_id"] for r in q.restricted_revisions(graph_store)) == ["r-hidden", "r-pub-1",
                                                                                     "r-pub-2"]
    assert q.restricted_unit_ids(graph_store) == {unit_id(k, n) for k in ("hidden.md", "pub.md") for n in range(3)}


def test_restricted_names_and_the_sources_of_named_ids(graph_store: Store) -> None:
    """One statement for the names a public output scrubs; one for whether the ids it names are restricted."""
    keys, titles = q.restricted_names(graph_store)
    assert keys == q.restricted_sources(graph_store)
    assert titles == {"hidden.md v1", "pub.md v1", "pub.md v2"}  # the revisions' titles that are not the source's
    full = {r["revision_id"]: r["title"] for r in q.restricted_revisions(graph_store)}
    assert titles | {r["title"] for r in keys} == set(full.values()) | {r["title"] for r in keys}
    ids = ["r-hidden", "r-pub-1", "r-dec", unit_id("pub.md", 0), unit_id("dec.md", 1), "c-first", "nope"]
    revisions, units = q.sources_of_ids(graph_store, ids)
    assert revisions == {"r-hidden": "hidden.md", "r-pub-1": "pub.md", "r-dec": "dec.md"}
    assert units == {unit_id("pub.md", 0): "pub.md", unit_id("dec.md", 1): "dec.md"}
    assert q.sources_of_ids(graph_store, []) == ({}, {})
    many = [unit_id(k, n) for k in SOURCES for n in range(3)] + [f"x{i}" for i in range(300)]  # an array parameter
    assert set(q.sources_of_ids(graph_store, many)[1]) == {unit_id(k, n) for k in SOURCES for n in range(3)}


def test_claim_rows_are_parents_in_answer_order_with_their_answer(graph_store: Store) -> None:
    ids = ["c-second", "c-first-p0", "c-first", "c-old", "c-x005", "c-x004"]
    rows = q.claim_rows(graph_store, ids)
    assert [r["claim_id"] for r in rows] == ["c-x004", "c-x005", "c-old", "c-first", "c-second"]
    assert rows[3] == {"claim_id": "c-first", "answer_rev": "ans-v2", "ordinal": 0, "text": "First claim.",
                       "claim_type": "direct"}
    many = q.claim_rows(graph_store, [f"c-x{i:03d}" for i in range(EXTRA)] + ["c-first-p1"])
    assert [r["ordinal"] for r in many] == list(range(EXTRA))
    assert q.answer_ids_of(graph_store, ["ans-v1", "ans-other", "nope"]) == {"ans-v1": "ans", "ans-other": "other"}


def test_given_citations_in_claim_and_citation_order(graph_store: Store) -> None:
    rows = q.given_citations(graph_store, ["c-second", "c-first"])
    assert [(r["claim_id"], r["ordinal"], r["source_key"]) for r in rows] == [
        ("c-first", 0, "post2.md"), ("c-second", 0, "dec.md"), ("c-second", 1, "pub.md")]


def test_units_sources_and_revisions(graph_store: Store) -> None:
    rows = {r["unit_id"]: r for r in q.unit_rows(graph_store, [unit_id("pub.md", 2), unit_id("dec.md", 0), "nope"])}
    assert set(rows) == {unit_id("pub.md", 2), unit_id("dec.md", 0)}
    assert rows[unit_id("pub.md", 2)] == {
        "unit_id": unit_id("pub.md", 2), "revision_id": "r-pub-2", "source_key": "pub.md", "ordinal": 2, "start": 20,
        "end": 28, "text": "pub.md unit 2", "block_type": "paragraph", "heading_path_json": '["pub.md"]',
        "status": "current", "page": 2, "symbol": None}
    assert q.revision_source_keys(graph_store, ["r-post1-a", "r-pub-1", "r-pub-2", "nope"]) == {"post1.md", "pub.md"}
    sources = sorted(q.source_rows(graph_store, ["post1.md", "never.md"]), key=lambda r: r["key"])
    assert sources == [{"key": "post1.md", "title": "Title of post1.md", "kind": "post", "visibility": "public",
                        "current_revision": "r-post1-b"}]
    revisions = q.revision_rows(graph_store, ["pub.md", "post1.md"])
    assert [(r["source_key"], r["seq"], r["previous_revision"]) for r in revisions] == [
        ("post1.md", 1, None), ("post1.md", 2, "r-post1-a"), ("pub.md", 1, None), ("pub.md", 2, "r-pub-1")]
    assert revisions[1]["effective"] == "2023-01-02" and revisions[2]["visibility"] == "restricted"


# -- lineage ---------------------------------------------------------------------------------------
def _links(rows: list[dict[str, Any]]) -> set[tuple[str, str, str, str]]:
    return {(r["from_key"], r["to_key"], r["relation"], r["declared_in"]) for r in rows}


def test_links_from_a_level_are_lineage_and_supersession_only(graph_store: Store) -> None:
    assert _links(q.links_from(graph_store, ["post2.md", "dec.md", "pub.md"])) == {
        ("post2.md", "post1.md", "quotes", "r-post2"), ("post2.md", "never.md", "derived_from", "r-post2"),
        ("dec.md", "old.md", "supersedes", "r-dec")}  # pub.md's see_also is no lineage
    assert q.links_from(graph_store, []) == []


def test_links_into_keys_are_supersessions_and_into_downstream_any_lineage(graph_store: Store) -> None:
    assert _links(q.links_into(graph_store, ["old.md", "dec.md"])) == {("dec.md", "old.md", "supersedes", "r-dec")}
    assert _links(q.links_into(graph_store, ["old.md"], downstream="dec.md")) == {
        ("dec.md", "old.md", "supersedes", "r-dec"), ("post1.md", "dec.md", "derived_from", "r-post1-b"),
        ("hidden.md", "dec.md", "derived_from", "r-hidden")}
    assert q.links_into(graph_store, [], downstream=None) == []


def test_the_lineage_table_holds_each_keys_card_and_closure(graph_store: Store) -> None:
    assert lq.lineage_table_empty(graph_store)
    assert lq.stale_sources(graph_store) == sorted(SOURCES)  # written row by row: no lineage rows yet
    assert rebuild_lineage(graph_store) == len(SOURCES) + 1  # and never.md, which only a link names
    assert not lq.lineage_table_empty(graph_store) and lq.stale_sources(graph_store) == []
    rows = {r["key"]: r for r in lq.lineage_rows(graph_store, ["post2.md", "never.md", "nobody.md"])}
    assert sorted(rows) == ["never.md", "post2.md"]
    assert json.loads(rows["post2.md"]["links_json"]) == [  # up two levels, then the supersession seen there
        ["dec.md", "old.md", "supersedes", "r-dec", 2], ["post1.md", "dec.md", "derived_from", "r-post1-b", 1],
        ["post2.md", "never.md", "derived_from", "r-post2", 0], ["post2.md", "post1.md", "quotes", "r-post2", 0]]
    card = json.loads(rows["post2.md"]["source_json"])
    assert card["source"] == q.source_rows(graph_store, ["post2.md"])[0]
    assert card["revisions"] == q.revision_rows(graph_store, ["post2.md"])
    assert rows["never.md"]["source_json"] is None and rows["never.md"]["links_json"] == "[]"
    old = json.loads(lq.lineage_rows(graph_store, ["old.md"])[0]["links_json"])
    assert old == [["dec.md", "old.md", "supersedes", "r-dec", -1]]  # superseded from outside its closure
    assert list(lq.lineage_rows(graph_store, ["cyc-a.md"], links=False)[0]) == ["key", "source_json"]


def test_lineage_maintenance_reads(graph_store: Store) -> None:
    assert _links(lq.links_touching(graph_store, ["dec.md"])) == {
        ("post1.md", "dec.md", "derived_from", "r-post1-b"), ("hidden.md", "dec.md", "derived_from", "r-hidden"),
        ("dec.md", "old.md", "supersedes", "r-dec")}  # not pub.md's see_also
    assert _links(lq.lineage_links_into(graph_store, ["dec.md", "old.md"])) == {
        ("post1.md", "dec.md", "derived_from", "r-post1-b"), ("hidden.md", "dec.md", "derived_from", "r-hidden")}
    assert len(lq.all_followed_links(graph_store)) == len(LINKS) - 1
    assert [r["key"] for r in lq.all_source_rows(graph_store)] == sorted(SOURCES)
    assert len(lq.all_revision_rows(graph_store)) == sum(len(revs) for _, _, revs in SOURCES.values())
    with graph_store.transaction():
        lq.replace_lineage_rows(graph_store, None, [{"key": "a.md", "links_json": "[]"},
                                                    {"key": "b.md", "links_json": "[]"}])
        lq.replace_lineage_rows(graph_store, ["a.md"], [{"key": "a.md", "current_revision": "r", "links_json": "[1]"}])
    assert [(r["key"], r["links_json"]) for r in graph_store.rows("SELECT * FROM source_lineage ORDER BY key")] == [
        ("a.md", "[1]"), ("b.md", "[]")]
    assert lq.stale_sources(graph_store) == sorted(SOURCES)


def test_ids_filter_is_false_for_no_ids_a_list_for_few_and_one_array_for_many(graph_store: Store) -> None:
    with q.ids_filter(graph_store, "key", []) as (fragment, values):
        assert (fragment, values) == ("FALSE", [])
        assert graph_store.rows(f"SELECT key FROM source WHERE {fragment}", values or None) == []
    with q.ids_filter(graph_store, "key", ["old.md", "dec.md", "old.md"]) as (fragment, values):
        assert values == ["dec.md", "old.md"]
        assert sorted(r["key"] for r in graph_store.rows(f"SELECT key FROM source WHERE {fragment}", values)) == [
            "dec.md", "old.md"]
    many = [f"c-x{i:03d}" for i in range(q.IN_LIST_LIMIT + 1)]
    with q.ids_filter(graph_store, "claim_id", many) as (fragment, values):
        assert len(values) == 1 and values[0] == many
        assert len(graph_store.rows(f"SELECT claim_id FROM claim WHERE {fragment}", values)) == len(many)
    assert q.rows_for_ids(graph_store, "SELECT key FROM source WHERE {ids}", "key", []) == []


# -- conflicts -----------------------------------------------------------------------------------
def test_current_units_leave_out_headings_superseded_and_restricted(graph_store: Store) -> None:
    # paragraphs (ordinals 1, 2) of current revisions; old.md is superseded by dec.md's current revision;
    # post2.md's unit 2 is marked superseded
    assert cq.current_unit_count(graph_store, public=False) == 2 * 7 - 1
    assert cq.current_unit_count(graph_store, public=True) == 2 * 5 - 1  # without hidden.md and pub.md


def test_conflict_candidates_share_enough_terms(graph_store: Store) -> None:
    a, b, c = unit_id("dec.md", 1), unit_id("post1.md", 1), unit_id("dec.md", 2)
    postings = [(t, a) for t in ("retry", "five", "webhook", "attempt")] + \
               [(t, b) for t in ("retry", "five", "webhook", "queue")] + [(t, c) for t in ("retry", "five", "webhook")]
    with graph_store.transaction():
        graph_store.bulk_insert("term_posting", [{"term": t, "unit_id": u} for t, u in postings])
        graph_store.bulk_insert("typed_value", [{"value_id": "tv1", "unit_id": a, "revision_id": "r-dec", "start": 13,
                                                 "end": 14, "surface": "1", "magnitude": 1.0, "kind": "number"}])
    found = cq.conflict_candidates(graph_store, public=False, same_source=False, max_units_per_term=50, min_shared=3,
                                   per_unit=8)
    assert found == sorted(found, key=lambda p: (p["a"], p["b"])) and {p["shared"] for p in found} == {3}
    assert {(p["a"], p["b"]) for p in found} == {tuple(sorted((a, b))), tuple(sorted((c, b)))}
    same = cq.conflict_candidates(graph_store, public=False, same_source=True, max_units_per_term=50, min_shared=3,
                                  per_unit=8)
    assert {(p["a"], p["b"]) for p in same} == {tuple(sorted((a, b))), tuple(sorted((c, b))), tuple(sorted((a, c)))}
    assert cq.conflict_candidates(graph_store, public=False, same_source=True, max_units_per_term=2, min_shared=3,
                                  per_unit=8) == []  # every term is in three units: too common
    units, values = cq.conflict_rows(graph_store, [a, b])
    assert set(units) == {a, b} and units[a]["doc_status"] == "current" and units[a]["kind"] == "decision"
    assert units[a]["effective"] == "2023-01-01" and [v["value_id"] for v in values[a]] == ["tv1"] and b not in values


# -- plans: every lookup of a chain is answered from an index ----------------------------------------
CHAIN_LOOKUPS = [
    ("claim_ref", lambda s: q.claim_ref(s, "c-first")),
    ("claim_ref without the answer", lambda s: q.claim_ref(s, "c-first", answer=False)),
    ("claim_rows", lambda s: q.claim_rows(s, ["c-first", "c-second"])),
    ("answer_claim_ids", lambda s: q.answer_claim_ids(s, "ans-v2")),
    ("answer_ids_of", lambda s: q.answer_ids_of(s, ["ans-v2"])),
    ("latest_verification_rows", lambda s: q.latest_verification_rows(s, ["c-first"])),
    ("latest_verification_rows without the record", lambda s: q.latest_verification_rows(s, ["c-first"], record=False)),
    ("unit_rows", lambda s: q.unit_rows(s, [unit_id("dec.md", 1), unit_id("pub.md", 2)])),
    ("source_rows", lambda s: q.source_rows(s, ["dec.md", "post1.md"])),
    ("revision_rows", lambda s: q.revision_rows(s, ["dec.md", "post1.md"])),
    ("links_from", lambda s: q.links_from(s, ["post2.md", "post1.md"])),
    ("links_into", lambda s: q.links_into(s, ["old.md"], downstream="dec.md")),
    ("lineage_rows", lambda s: lq.lineage_rows(s, ["post2.md", "dec.md"])),
]


@pytest.mark.parametrize("name", [name for name, _ in CHAIN_LOOKUPS])
def test_chain_lookups_use_an_index(graph_store: Store, name: str) -> None:
    """DuckDB scans the whole table once a second condition sits beside the indexed one; the plan says which.

    DuckDB picks an index scan when the scan starts, so only ``EXPLAIN ANALYZE`` shows it.
    """
    rebuild_lineage(graph_store)
    issued: list[tuple[str, Any]] = []
    run = graph_store._run

    def record(sql: str, params: Any) -> Any:
        issued.append((sql, params))
        return run(sql, params)

    graph_store._run = record  # type: ignore[method-assign]
    try:
        dict(CHAIN_LOOKUPS)[name](graph_store)
    finally:
        del graph_store._run
    assert issued
    if graph_store.engine == "postgresql":
        graph_store.execute("SET enable_seqscan = off")  # a table this small is scanned unless told otherwise
    for sql, params in issued:
        plan = " ".join(str(v) for row in run(f"EXPLAIN ANALYZE {sql}", params)[1] for v in row)  # already in dialect
        assert "Index Scan" in plan or "Index Only Scan" in plan, f"{name}: {sql}\n{plan}"
