"""The verifier's query functions (store/queries/resolve.py, contradictions.py, verify.py) on both engines.

Each function's answer is compared with the same thing worked out in Python from whole-table reads of
the ingested example corpus, so a wrong join, filter, limit or order fails on either engine.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from graphcite.models import Acceptance
from graphcite.serve.warm import WarmReads, WarmView
from graphcite.store import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL
from graphcite.store.queries import contradictions as cq
from graphcite.store.queries import resolve as rq
from graphcite.store.queries import verify as vq
from graphcite.store.queries.verify_memo import evidence_memo, memo_of

ROOT = Path(__file__).resolve().parents[2]
ANSWER = ROOT / "graphcite" / "examples" / "answers" / "clean.json"
RESTRICTED = "manuals/signing-keys-internal.md"
SUPERSEDED = "notes/2022-webhook-retry-note.md"
DECISION = "decisions/dr-017-webhook-retries.md"


def table(store: Store, name: str) -> list[dict[str, Any]]:
    return store.rows(f"SELECT * FROM {name}")


def units_of(store: Store, source_key: str) -> list[dict[str, Any]]:
    return sorted((u for u in table(store, "evidence_unit") if u["source_key"] == source_key),
                  key=lambda u: u["start"])


# -- citation resolution ------------------------------------------------------------------------
def test_rows_by_id_keep_known_ids_only(any_corpus_store: Store) -> None:
    store = any_corpus_store
    unit = units_of(store, DECISION)[1]
    assert rq.units_by_id(store, [unit["unit_id"], "no-such-unit"]) == [unit]
    found = rq.sources_by_key(store, {DECISION, SUPERSEDED, "missing.md"})
    assert [s["key"] for s in found] == [DECISION, SUPERSEDED]
    revision = found[0]["current_revision"]
    (row,) = rq.revisions_by_id(store, [revision, "0000000000000000"])
    assert row["revision_id"] == revision and row["source_key"] == DECISION and row["text"]
    assert rq.revisions_by_hash_prefix(store, row["content_hash"][:10]) == [row]
    assert rq.revisions_by_hash_prefix(store, "zzzzzzzzzz") == []
    assert rq.units_by_id(store, []) == rq.sources_by_key(store, []) == rq.revisions_by_id(store, []) == []


def test_supersessions_name_the_superseding_source_and_its_date(any_corpus_store: Store) -> None:
    rows = rq.supersessions(any_corpus_store, [SUPERSEDED, DECISION])
    assert {(r["to_key"], r["from_key"], r["effective"]) for r in rows} == {(SUPERSEDED, DECISION, "2023-05-02")}
    assert rq.supersessions(any_corpus_store, [DECISION]) == []
    assert rq.supersessions(any_corpus_store, []) == []


def test_units_of_revisions_and_overlapping_spans(any_corpus_store: Store) -> None:
    store = any_corpus_store
    units = units_of(store, DECISION)
    revision = units[0]["revision_id"]
    assert rq.units_of_revisions(store, [revision]) == units
    # a span from the middle of the second unit into the third: exactly those two, in document order
    span = (revision, units[1]["start"] + 1, units[2]["start"] + 1)
    assert rq.units_overlapping(store, [span]) == units[1:3]
    # spans that touch a unit's edge only do not overlap it; a repeated span gives each unit once
    edge = (revision, units[1]["end"], units[1]["end"])
    assert rq.units_overlapping(store, [span, span, edge]) == units[1:3]
    assert rq.units_overlapping(store, []) == []


def test_values_of_units_are_every_value_in_order(any_corpus_store: Store) -> None:
    store = any_corpus_store
    values = table(store, "typed_value")
    unit_ids = sorted({v["unit_id"] for v in values})[:5]
    expected = sorted((v for v in values if v["unit_id"] in unit_ids), key=lambda v: (v["unit_id"], v["start"]))
    assert rq.values_of_units(store, [*unit_ids, "no-such-unit"]) == expected
    assert rq.values_of_units(store, []) == []


def test_source_alias_rows_read_the_url_from_front_matter(any_store: Store, tmp_path: Path) -> None:
    from graphcite.ingest import ingest

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "relay.md").write_text("---\ntitle: Relay notes\nurl: https://example.org/relay\n---\n# Relay\n\n"
                                     "The relay retries five times.\n", encoding="utf-8")
    (folder / "plain.md").write_text("# Plain\n\nNothing to see.\n", encoding="utf-8")
    ingest(any_store, [folder])
    rows = rq.source_alias_rows(any_store)
    assert [(r["key"], r["url"]) for r in rows] == [("plain.md", None), ("relay.md", "https://example.org/relay")]
    assert rows[1]["title"] == "Relay notes"


# -- contradictions ------------------------------------------------------------------------------
def test_contradiction_candidates_rank_current_units_per_part(any_corpus_store: Store) -> None:
    store = any_corpus_store
    terms = ["attempt", "relay", "retry", "webhook"]
    rows = cq.contradiction_candidates(store, [0] * 4 + [1] * 2, [0] * 4 + [0] * 2, [*terms, "sign", "secret"],
                                       per_part=3, common_share=1.0)
    by_part: dict[tuple[int, int], list[str]] = {}
    for row in rows:
        by_part.setdefault((row["ci"], row["pi"]), []).append(row["unit_id"])
    assert set(by_part) == {(0, 0), (1, 0)} and all(len(ids) <= 3 for ids in by_part.values())
    # the best units are those holding most of the part's terms (ties by unit id), as worked out here
    postings = table(store, "term_posting")
    current = {s["current_revision"] for s in table(store, "source")}
    units = {u["unit_id"]: u for u in table(store, "evidence_unit") if u["revision_id"] in current}
    shared: dict[str, int] = {}
    for p in postings:
        if p["term"] in terms and p["unit_id"] in units:
            shared[p["unit_id"]] = shared.get(p["unit_id"], 0) + 1
    best = sorted(shared, key=lambda u: (-shared[u], u))[:3]
    assert by_part[(0, 0)] == best
    assert all(row["revision_id"] in current for row in rows)
    restricted = [r for r in rows if r["source_key"] == RESTRICTED]
    assert restricted and all(r["visibility"] == "restricted" for r in restricted)
    assert cq.contradiction_candidates(store, [], [], [], per_part=3, common_share=0.05) == []


def test_common_terms_do_not_narrow_the_contradiction_search(any_corpus_store: Store) -> None:
    # with a share of 0 every term found in more than 50 units is left out
    store = any_corpus_store
    counts: dict[str, int] = {}
    for p in table(store, "term_posting"):
        counts[p["term"]] = counts.get(p["term"], 0) + 1
    common = max(counts, key=lambda t: (counts[t], t))
    assert counts[common] > 50
    assert cq.contradiction_candidates(store, [0], [0], [common], per_part=5, common_share=0.0) == []
    assert cq.contradiction_candidates(store, [0], [0], [common], per_part=5, common_share=1.0)


def test_values_with_unit_start_and_superseded_sources(any_corpus_store: Store) -> None:
    store = any_corpus_store
    starts = {u["unit_id"]: u["start"] for u in table(store, "evidence_unit")}
    unit_ids = sorted({v["unit_id"] for v in table(store, "typed_value")})[:4]
    rows = cq.values_with_unit_start(store, unit_ids)
    assert rows and {r["unit_id"] for r in rows} == set(unit_ids)
    assert all(r["unit_start"] == starts[r["unit_id"]] <= r["start"] for r in rows)
    assert [(r["unit_id"], r["start"]) for r in rows] == sorted((r["unit_id"], r["start"]) for r in rows)
    assert cq.values_with_unit_start(store, []) == []
    assert cq.superseded_sources(store) == {SUPERSEDED: DECISION}


# -- locating evidence ---------------------------------------------------------------------------
def test_units_with_terms_carry_their_index_terms(any_corpus_store: Store) -> None:
    store = any_corpus_store
    units = units_of(store, DECISION)
    terms: dict[str, list[str]] = {}
    for p in table(store, "term_posting"):
        terms.setdefault(p["unit_id"], []).append(p["term"])
    rows = vq.units_with_terms(store, [units[0]["revision_id"]])
    assert [r["unit_id"] for r in rows] == [u["unit_id"] for u in units]
    for row, unit in zip(rows, units, strict=True):
        assert list(row.pop("_terms") or []) == sorted(terms.get(unit["unit_id"], []))
        assert row == unit
    assert vq.units_with_terms(store, []) == []


def test_term_counts_postings_and_unit_count(any_corpus_store: Store) -> None:
    store = any_corpus_store
    postings = table(store, "term_posting")
    assert vq.evidence_unit_count(store) == len(table(store, "evidence_unit"))
    wanted = {"relay", "secret", "no-such-term"}
    assert vq.term_frequencies(store, wanted) == {
        t: sum(1 for p in postings if p["term"] == t) for t in ("relay", "secret")}
    assert vq.term_postings(store, wanted) == {
        t: sorted(p["unit_id"] for p in postings if p["term"] == t) for t in ("relay", "secret")}
    assert vq.term_frequencies(store, []) == vq.term_postings(store, []) == {}


def test_current_units_leave_out_old_and_restricted_units(any_corpus_store: Store) -> None:
    store = any_corpus_store
    restricted = units_of(store, RESTRICTED)[-1]["unit_id"]
    superseded_doc = units_of(store, SUPERSEDED)[-1]["unit_id"]  # its revision's status is 'superseded'
    current = [u for u in units_of(store, DECISION) if u["status"] == "current"][-1]
    ids = [restricted, superseded_doc, current["unit_id"]]
    internal = vq.current_units(store, ids)
    assert sorted(internal) == sorted([restricted, current["unit_id"]])
    assert internal[current["unit_id"]]["title"] == "DR-017: Webhook relay retries and parking"
    assert internal[current["unit_id"]]["text"] == current["text"]
    assert list(vq.current_units(store, ids, public=True)) == [current["unit_id"]]
    assert vq.current_units(store, []) == {}


# -- restricted origins --------------------------------------------------------------------------
def test_restricted_sources_and_their_candidates(any_corpus_store: Store, any_store: Store) -> None:
    store = any_corpus_store
    assert vq.has_restricted_sources(store) and not vq.has_restricted_sources(any_store)
    terms = ["rotate", "secret", "sign"]
    found = vq.restricted_candidates(store, [0, 0, 0, 1], [*terms, "webhook"], per_query=2)
    restricted = {u["unit_id"] for u in units_of(store, RESTRICTED)}
    assert set(found) <= {0, 1} and found[0]
    assert all(len(ids) <= 2 and set(ids) <= restricted for ids in found.values())
    assert vq.restricted_candidates(store, [], [], per_query=2) == {}


def test_public_terms_leave_out_terms_only_restricted_units_hold(any_corpus_store: Store) -> None:
    store = any_corpus_store
    restricted = {u["unit_id"] for u in units_of(store, RESTRICTED)}
    where: dict[str, set[bool]] = {}
    for p in table(store, "term_posting"):
        where.setdefault(p["term"], set()).add(p["unit_id"] in restricted)
    only_restricted = sorted(t for t, places in where.items() if places == {True})[:3]
    both = sorted(t for t, places in where.items() if places == {True, False})[:3]
    assert only_restricted and both
    assert vq.public_terms(store, [*only_restricted, *both, "no-such-term"]) == set(both)
    assert vq.public_terms(store, []) == set()


def test_unit_texts_and_values_by_unit(any_corpus_store: Store) -> None:
    store = any_corpus_store
    values = table(store, "typed_value")
    units = {u["unit_id"]: u for u in table(store, "evidence_unit")}
    with_values = sorted({v["unit_id"] for v in values})[:3]
    without = next(u for u in sorted(units) if u not in {v["unit_id"] for v in values})
    ids = [*with_values, without, "no-such-unit"]
    assert vq.unit_texts(store, ids) == {u: units[u]["text"] for u in [*with_values, without]}
    found = vq.values_by_unit(store, ids)
    assert sorted(found) == with_values
    for unit_id, rows in found.items():
        assert rows == sorted((v for v in values if v["unit_id"] == unit_id), key=lambda v: v["start"])
    assert vq.unit_texts(store, []) == vq.values_by_unit(store, []) == {}


# -- reviews and batches -------------------------------------------------------------------------
def test_annotation_labels_and_acceptances(any_store: Store) -> None:
    store = any_store
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    store.bulk_insert("annotation", [
        {"annotation_id": f"a{i}", "claim_id": claim, "citation_index": 0, "label": label, "rationale": "r",
         "reviewer": "kim", "created_at": now}
        for i, (claim, label) in enumerate([("c1", "supports"), ("c1", "refutes"), ("c2", "supports"),
                                            ("c9", "supports")])])
    assert vq.annotation_labels(store, ["c1", "c2", "c3"]) == {"c1": {"supports", "refutes"}, "c2": {"supports"}}
    assert vq.annotation_labels(store, []) == {}
    store.execute("DROP TABLE IF EXISTS acceptance")  # stores made before the first acceptance lack it
    assert vq.accepted_claims(store, ["c1"]) == set()
    store.ensure_table(Acceptance)
    row = "(?, ?, 'r', 'h', 't', 'd', '[]', '[]', 'v', 'supported', FALSE, TIMESTAMP '2026-01-02 03:04:05')"
    store.execute("INSERT INTO acceptance (acceptance_id, claim_id, answer_rev, claim_revision, task, destination, "
                  "evidence_json, evidence_revisions_json, verification_record, verification_status, while_current, "
                  "accepted_at) VALUES " + ", ".join([row] * 3), ["x0", "c2", "x1", "c2", "x2", "c7"])
    assert vq.accepted_claims(store, ["c1", "c2"]) == {"c2"}
    assert vq.accepted_claims(store, []) == set()


def test_stored_answers_and_record_counts(any_corpus_store: Store) -> None:
    from graphcite.verify import check_answer

    store = any_corpus_store
    report = check_answer(store, str(ANSWER))
    rev = report["answer_rev"]
    assert vq.stored_answer_revs(store, [rev, "not-an-answer"]) == {rev}
    assert vq.record_counts(store, [rev, "not-an-answer"]) == {rev: len(report["claims"])}
    check_answer(store, str(ANSWER))
    assert vq.record_counts(store, [rev]) == {rev: 2 * len(report["claims"])}
    assert vq.stored_answer_revs(store, []) == set() and vq.record_counts(store, []) == {}


# -- the evidence memo of a batch ----------------------------------------------------------------
def counting(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements ``store`` sends from now on (the real engine still runs each one)."""
    sent: list[str] = []
    run = store._run

    def counted(sql: str, params: Any) -> Any:
        sent.append(sql)
        return run(sql, params)

    monkeypatch.setattr(store, "_run", counted)
    return sent


def test_inside_a_memo_evidence_read_again_sends_nothing(any_corpus_store: Store,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    store = any_corpus_store
    other, unit = units_of(store, DECISION)[:2]
    sent = counting(store, monkeypatch)
    with evidence_memo(store) as memo:
        first = (rq.units_by_id(store, [unit["unit_id"], "no-such-unit"]), cq.superseded_sources(store),
                 vq.term_frequencies(store, ["relay", "no-such-term"]), vq.has_restricted_sources(store),
                 rq.values_of_units(store, [unit["unit_id"]]), vq.public_terms(store, ["relay", "rotate"]))
        count = len(sent)
        again = (rq.units_by_id(store, ["no-such-unit", unit["unit_id"]]), cq.superseded_sources(store),
                 vq.term_frequencies(store, ["no-such-term", "relay"]), vq.has_restricted_sources(store),
                 rq.values_of_units(store, [unit["unit_id"]]), vq.public_terms(store, ["rotate", "relay"]))
        assert len(sent) == count == memo.reads == 6  # unknown ids and terms are remembered as absent too
        assert again == first
        # a new id alone is read, and the answer still holds every id asked for, in order
        assert rq.units_by_id(store, [unit["unit_id"], other["unit_id"]]) == sorted(
            [unit, other], key=lambda u: u["unit_id"])
        assert len(sent) == count + 1
    # outside the memo every read goes to the database again
    assert rq.units_by_id(store, [unit["unit_id"]]) == [unit] and len(sent) == count + 2
    assert memo_of(store) is None


def test_a_memo_that_outgrows_its_bound_starts_afresh_and_stays_right(any_corpus_store: Store,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import graphcite.store.queries.verify_memo as memo_module

    monkeypatch.setattr(memo_module, "MAX_ENTRIES", 3)
    store = any_corpus_store
    units = units_of(store, DECISION)[:5]
    ids = [u["unit_id"] for u in units]
    with evidence_memo(store):
        assert rq.units_by_id(store, ids[:2]) == sorted(units[:2], key=lambda u: u["unit_id"])
        assert rq.units_by_id(store, ids[1:4]) == sorted(units[1:4], key=lambda u: u["unit_id"])
        assert rq.units_by_id(store, ids) == sorted(units, key=lambda u: u["unit_id"])


def test_memos_nest_and_a_stashed_value_is_taken_once(any_store: Store) -> None:
    with evidence_memo(any_store) as outer, evidence_memo(any_store) as inner:
        assert inner is outer and memo_of(any_store) is outer
        outer.stash("k", ("a",), [1])
        outer.stash("k", ("a",), [2])
        assert outer.take("k", ("a",)) == [1] and outer.take("k", ("a",)) == [2]
        assert outer.take("k", ("a",)) is None and outer.take("other", 1) is None
    assert memo_of(any_store) is None


def test_candidates_of_many_answers_in_one_query_equal_one_query_each(any_corpus_store: Store) -> None:
    store = any_corpus_store
    asked = [([0, 0, 1, 1], [0, 0, 0, 0], ["relay", "retry", "sign", "secret"]),
             ([0, 0, 0], [0, 1, 1], ["adapter", "label", "timeout"]),
             ([2, 2], [1, 1], ["relay", "retry"])]
    one_each = [cq.contradiction_candidates(store, c, p, t, per_part=4, common_share=0.2) for c, p, t in asked]
    together = cq.contradiction_candidates(
        store, [x for c, _, _ in asked for x in c], [x for _, p, _ in asked for x in p],
        [x for _, _, t in asked for x in t], per_part=4, common_share=0.2,
        answers=[a for a, (c, _, _) in enumerate(asked) for _ in c])
    split: list[list[dict[str, Any]]] = [[] for _ in asked]
    for row in together:
        split[row.pop("ai")].append(row)
    assert split == one_each and all(one_each)


def test_restricted_candidates_rank_as_the_grouped_query_does(any_corpus_store: Store,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranking over memoised per-term postings equals SQL's: most shared terms first, ties by unit id."""
    store = any_corpus_store
    queries, terms = [0, 0, 0, 0, 1, 1, 2], ["rotate", "secret", "sign", "window", "webhook", "relay", "nothing"]
    rows = store.rows(f"""
        WITH q AS (SELECT unnest(?::INTEGER[]) AS qi, unnest(?::VARCHAR[]) AS term),
        ru AS (SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})),
        hits AS (SELECT q.qi, p.unit_id, count(*) AS shared FROM q JOIN term_posting p ON p.term = q.term
                 JOIN ru ON ru.unit_id = p.unit_id GROUP BY q.qi, p.unit_id),
        ranked AS (SELECT *, row_number() OVER (PARTITION BY qi ORDER BY shared DESC, unit_id) AS rk FROM hits)
        SELECT qi, unit_id FROM ranked WHERE rk <= 3 ORDER BY qi, rk""", [queries, terms])
    expected: dict[int, list[str]] = {}
    for row in rows:
        expected.setdefault(row["qi"], []).append(row["unit_id"])
    assert vq.restricted_candidates(store, queries, terms, per_query=3) == expected
    with evidence_memo(store):
        assert vq.restricted_candidates(store, queries, terms, per_query=3) == expected
        assert vq.restricted_candidates(store, queries, terms, per_query=3) == expected
    view = WarmView(store, WarmReads())  # the service: one read per term, from memory once seen
    assert vq.restricted_candidates(view, queries, terms, per_query=3) == expected
    sent = view.store_reads
    assert vq.restricted_candidates(view, queries, terms, per_query=3) == expected
    assert sent > 0 and view.store_reads == sent  # the second search is answered from memory alone
    monkeypatch.setattr(vq, "RESTRICTED_POSTINGS_MAX", 0)  # too many restricted units: ranked in the database
    assert vq.restricted_candidates(WarmView(store, WarmReads()), queries, terms, per_query=3) == expected
    with evidence_memo(store) as memo:
        assert vq.restricted_candidates(store, queries, terms, per_query=3) == expected
        assert vq.restricted_candidates(store, queries, terms, per_query=3) == expected
        assert memo.reads == 1  # the count of restricted units; the grouped queries bypass the memo
    postings = vq.restricted_postings(store, ["secret", "nothing"])
    assert list(postings) == ["secret"] and postings["secret"] == sorted(postings["secret"])
