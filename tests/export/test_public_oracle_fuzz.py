"""Issue 23 item 1 as a property: for the public audience no status, finding or score may depend on
restricted content. Two stores differ only inside their restricted documents (every figure and the
one term only they hold are changed: 45 -> 46 days, 400 -> 401 days, 1,234 -> 1,235 keys, zephyr ->
quorra); hypothesis writes answers that probe them (claims stating either store's figures, citations
of restricted keys, titles, file names, unit and revision ids, quotes copied from restricted text,
located citations, plans for ``answerable``), and every public answer must be byte-for-byte the same
in both stores. Each public answer is also searched for the restricted titles, ids and figures the
input did not itself contain.

Bounded: 20 answers and 10 plans; ``GRAPHCITE_FUZZ_SCALE=10`` runs ten times as many.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from restricted_corpus import FILES, RESTRICTED_KEYS

from graphcite.store import Store

SCALE = max(1, int(os.environ.get("GRAPHCITE_FUZZ_SCALE", "1")))
FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                     HealthCheck.too_slow])
#: what changes between the two stores, inside the restricted documents only
CHANGES = (("45 days", "46 days"), ("400 days", "401 days"), ("1,234", "1,235"), ("zephyr", "quorra"),
           ("Zephyr", "Quorra"))
FIGURES = ("45", "46", "400", "401", "1,234", "1,235", "90", "30", "12")
TERMS = ("zephyr-keeper", "quorra-keeper", "keeper", "ledger", "rotation")


def _variant(text: str, second: bool) -> str:
    for old, new in CHANGES if second else ():
        text = text.replace(old, new)
    return text


def _build(root: Path, second: bool) -> tuple[Path, dict[str, list[str]]]:
    from graphcite.ingest import ingest

    for rel, text in FILES.items():
        path = root / "corpus" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_variant(text, second) if rel in RESTRICTED_KEYS else text, encoding="utf-8")
    db = root / "oracle.duckdb"
    with Store(db) as store:
        ingest(store, [root / "corpus"])
        keys = list(RESTRICTED_KEYS)
        ids = {"units": [r["unit_id"] for r in store.rows(
                   "SELECT unit_id FROM evidence_unit WHERE source_key IN (?, ?) ORDER BY unit_id", keys)],
               "revisions": [r["revision_id"] for r in store.rows(
                   "SELECT revision_id FROM source_revision WHERE source_key IN (?, ?) ORDER BY revision_id", keys)],
               "public_units": [r["unit_id"] for r in store.rows(
                   "SELECT unit_id FROM evidence_unit WHERE source_key NOT IN (?, ?) ORDER BY unit_id LIMIT 6", keys)],
               "quotes": [r["text"] for r in store.rows(
                   "SELECT text FROM evidence_unit WHERE source_key IN (?, ?) AND block_type <> 'heading' "
                   "ORDER BY unit_id", keys)]}
    return db, ids


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    first, first_ids = _build(tmp_path_factory.mktemp("oracle-a"), False)
    second, second_ids = _build(tmp_path_factory.mktemp("oracle-b"), True)
    stores = {"a": Store(first, read_only=True), "b": Store(second, read_only=True)}
    secrets = {s for ids in (first_ids, second_ids) for s in [*ids["units"], *ids["revisions"]]}
    secrets |= {"Zephyr Keystore Runbook", "Quorra Keystore Runbook", "Quillon Key Ledger", "2031-07-19"}
    yield {"stores": stores, "ids": first_ids, "other_ids": second_ids, "secrets": secrets}
    for store in stores.values():
        store.close()


SOURCES = st.sampled_from(["posts/rotation.md", "notes/audit.md", "decisions/dr-7.md", "notes/old-rotation.md",
                           *RESTRICTED_KEYS, "ops/nothing.md", "Zephyr Keystore Runbook", "Quorra Keystore Runbook",
                           "runbook.md", "/srv/docs/ops/runbook.md", "Quillon Key Ledger", "hidden-upstream.md"])
SENTENCES = st.sampled_from([
    "Signing keys are rotated every {n} days.", "Audit logs are kept for {n} days.", "The ledger holds {n} signing keys.",
    "The {t} job rotates signing keys.", "Webhook deliveries time out after {n} seconds.",
    "Signing keys are rotated every {n} days by the {t} job.", "Signing keys are rotated on a fixed schedule.",
])


@st.composite
def citations(draw: Any, ids: dict[str, list[str]]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["quote", "located", "unit", "revision", "public-unit", "restricted-quote"]))
    source = draw(SOURCES)
    if kind == "unit":
        return {"chunk_id": draw(st.sampled_from(ids["units"]))}
    if kind == "public-unit":
        return {"chunk_id": draw(st.sampled_from(ids["public_units"]))}
    if kind == "revision":
        return {"source": source, "revision": draw(st.sampled_from(ids["revisions"])),
                "quote": "Signing keys are rotated on a fixed schedule."}
    if kind == "restricted-quote":  # text copied from the first store's restricted documents
        return {"source": draw(st.sampled_from(["posts/rotation.md", *RESTRICTED_KEYS])),
                "quote": draw(st.sampled_from(ids["quotes"]))}
    if kind == "located":
        return {"source": source}
    return {"source": source, "quote": draw(st.sampled_from(
        ["Signing keys are rotated on a fixed schedule.", "Audit logs are kept for 90 days.",
         "Webhook deliveries time out after 30 seconds.", "Audit logs are kept for 400 days."]))}


@st.composite
def answers(draw: Any, ids: dict[str, list[str]]) -> dict[str, Any]:
    claims = []
    for _ in range(draw(st.integers(1, 3))):
        text = draw(SENTENCES).format(n=draw(st.sampled_from(FIGURES)), t=draw(st.sampled_from(TERMS)))
        claims.append({"text": text, "citations": draw(st.lists(citations(ids), min_size=1, max_size=2))})
    return {"answer_id": "oracle-probe", "claims": claims}


def _public_check(store: Store, answer: dict[str, Any]) -> str:
    from graphcite.claims.formats import load_answer
    from graphcite.verify import verify_answer

    report = verify_answer(store, load_answer(answer), audience="public")
    text = json.dumps(report, sort_keys=True, default=str)
    return re.sub(r'"(verified_at|elapsed_ms)": [^,}]*', r'"\1": ""', text)


def _unasked(output: str, given: str, secrets: set[str]) -> list[str]:
    return sorted(s for s in secrets if s in output and s not in given)


def test_the_two_stores_differ_where_the_internal_audience_looks(pair: dict[str, Any]) -> None:
    from graphcite.claims.formats import load_answer
    from graphcite.verify import verify_answer

    probe = load_answer({"answer_id": "p", "claims": [{"text": "Audit logs are kept for 400 days.",
                                                       "citations": [{"source": "ops/runbook.md"}]}]})
    internal = {k: verify_answer(s, probe, audience="internal")["claims"][0]["status"]
                for k, s in pair["stores"].items()}
    assert internal["a"] != internal["b"], internal  # so the public comparison below can fail


@settings(FUZZ, max_examples=20 * SCALE)
@given(data=st.data())
def test_public_checks_are_the_same_in_both_stores(pair: dict[str, Any], data: Any) -> None:
    answer = data.draw(answers(pair["ids"]))
    first, second = (_public_check(pair["stores"][k], answer) for k in ("a", "b"))
    assert first == second, json.dumps(answer)
    assert _unasked(first, json.dumps(answer), pair["secrets"]) == [], json.dumps(answer)


@settings(FUZZ, max_examples=10 * SCALE)
@given(queries=st.lists(st.tuples(SENTENCES, st.sampled_from(FIGURES), st.sampled_from(TERMS)), min_size=1,
                        max_size=3),
       kind=st.sampled_from([None, "incident", "registry", "post", "note"]))
def test_public_answerable_is_the_same_in_both_stores(pair: dict[str, Any], queries: list[tuple[str, str, str]],
                                                      kind: str | None) -> None:
    from graphcite.lifecycle.answerable import answerable

    needs = [{"id": f"n{i}", "query": s.format(n=n, t=t), **({"kind": kind} if kind else {})}
             for i, (s, n, t) in enumerate(queries)]
    plan = {"audience": "public", "needs": needs}
    first, second = (json.dumps(answerable(pair["stores"][k], plan), sort_keys=True) for k in ("a", "b"))
    assert first == second, needs
    assert _unasked(first, json.dumps(plan), pair["secrets"]) == [], needs


@pytest.fixture(scope="module")
def writable_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    first, first_ids = _build(tmp_path_factory.mktemp("oracle-wa"), False)
    second, _ = _build(tmp_path_factory.mktemp("oracle-wb"), True)
    stores = {"a": Store(first), "b": Store(second)}
    yield {"stores": stores, "ids": first_ids}
    for store in stores.values():
        store.close()


def _stored_views(store: Store, answer: dict[str, Any], *, audience: str = "public") -> str:
    """What the public sees of an answer a public check stored: the check's report, the chain and the
    graph export of it (a reviewer's token on a public server stores its answers)."""
    from graphcite.export.networkx_formats import cytoscape_elements
    from graphcite.graph import chain
    from graphcite.graph.build import build_graph
    from graphcite.verify import check_answer

    report = check_answer(store, answer, audience=audience)
    seen = [report, chain(store, answer["answer_id"], audience=audience),
            cytoscape_elements(build_graph(store, answer=answer["answer_id"], audience=audience))]
    text = json.dumps(seen, sort_keys=True, default=str)
    return re.sub(r'"(verified_at|elapsed_ms|last_verified_at|stored_at)": [^,}\]]*', r'"\1": ""', text)


@settings(FUZZ, max_examples=10 * SCALE)
@given(data=st.data())
def test_an_answer_a_public_check_stored_looks_the_same_in_both_stores(writable_pair: dict[str, Any],
                                                                      data: Any) -> None:
    """Storing answers with different figures and reading them back (chain, review pages, exports) must not
    tell which figure a restricted document holds: a stored public answer is its asker's own words."""
    answer = data.draw(answers(writable_pair["ids"]))  # restricted keys, titles, unit and revision ids cited too
    answer["answer_id"] = f"stored-probe-{_digest(answer)}"
    first, second = (_stored_views(writable_pair["stores"][k], answer) for k in ("a", "b"))
    assert first == second, json.dumps(answer)


#: the tables whose rows a graph reads by id, and so in the store's physical order unless it orders them
REORDERED = ("evidence_unit", "source", "source_revision", "source_link", "source_lineage")


def _reverse_rows(db: Path) -> None:
    """Rewrite each of :data:`REORDERED` with its rows in reverse order (same rows, other physical order)."""
    with Store(db) as store:
        for table in REORDERED:
            store.execute(f"CREATE TEMP TABLE reordered AS SELECT * FROM {table} ORDER BY rowid DESC")
            store.execute(f"DELETE FROM {table}")
            store.execute(f"INSERT INTO {table} SELECT * FROM reordered")
            store.execute("DROP TABLE reordered")


def test_a_stored_answer_looks_the_same_whatever_order_the_store_keeps_its_rows(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The fuzz property's failure, made deterministic: the graph listed units in the order the store
    returned them, which follows ingest timing (how long each document, restricted ones too, took), so
    two stores differing only in restricted text listed the same public units in another order. The
    internal graph must not follow the row order either: a store and its reordered copy look the same."""
    first, _ = _build(tmp_path_factory.mktemp("order-a"), False)
    copy, _ = _build(tmp_path_factory.mktemp("order-a-reversed"), False)
    second, _ = _build(tmp_path_factory.mktemp("order-b-reversed"), True)
    _reverse_rows(copy)
    _reverse_rows(second)
    answer = {"answer_id": "stored-order-probe", "claims": [
        {"text": "Signing keys are rotated every 400 days.", "citations": [{"source": "posts/rotation.md"}]},
        {"text": "Webhook deliveries time out after 1,234 seconds.", "citations": [{"source": "posts/rotation.md"}]},
        {"text": "Audit logs are kept for 45 days.", "citations": [
            {"source": "notes/audit.md", "quote": "Audit logs are kept for 90 days."}, {"source": "decisions/dr-7.md"}]}]}
    with Store(first) as a, Store(copy) as a_reversed, Store(second) as b_reversed:
        order = {s.scalar("SELECT string_agg(unit_id, ',') FROM evidence_unit") for s in (a, a_reversed)}
        assert len(order) == 2  # same rows, another physical order
        public = [_stored_views(s, answer) for s in (a, b_reversed)]
        assert public[0] == public[1]
        internal = [_stored_views(s, {**answer, "answer_id": "stored-order-internal"}, audience="internal")
                    for s in (a, a_reversed)]
        assert internal[0] == internal[1]


def _digest(answer: dict[str, Any]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(answer, sort_keys=True).encode()).hexdigest()[:12]


def test_a_stored_public_answer_citing_a_restricted_unit_looks_like_one_citing_a_missing_unit(
        writable_pair: dict[str, Any]) -> None:
    unit = writable_pair["ids"]["units"][0]  # a restricted unit of the first store; the second has no such id
    answer = {"answer_id": "stored-probe-unit", "claims": [
        {"text": "Signing keys are rotated every 45 days.", "citations": [{"chunk_id": unit}]}]}
    first, second = (_stored_views(writable_pair["stores"][k], answer) for k in ("a", "b"))
    assert first == second


def _as_named(view: str, names: dict[str, str]) -> str:
    for name, shown in names.items():
        view = view.replace(name, shown)
    return re.sub(r"c?[0-9a-f]{16}", "ID", view)  # claim ids are digests of the answer's words


def test_a_stored_public_answer_citing_a_restricted_key_or_revision_looks_like_one_citing_missing_ones(
        writable_pair: dict[str, Any]) -> None:
    """The same for a source key and a revision id: the restricted ones are shown as written and point
    nowhere, as a missing key and an unknown revision are (no placeholder, no source node)."""
    revision = writable_pair["ids"]["revisions"][0]
    views = []
    for n, (key, rev) in enumerate(((sorted(RESTRICTED_KEYS)[0], revision), ("ops/nothing.md", "0123456789abcdef"))):
        answer = {"answer_id": f"stored-probe-key-{n}", "claims": [
            {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": key}]},
            {"text": "Signing keys are rotated on a fixed schedule.",
             "citations": [{"source": "posts/rotation.md", "revision": rev}]}]}
        view = _stored_views(writable_pair["stores"]["a"], answer)
        assert f"'{key}'" in view and f"'{rev}'" in view  # the findings name them as the asker wrote them
        views.append(_as_named(view, {key: "KEY", rev: "REV", answer["answer_id"]: "ANSWER"}))
    assert views[0] == views[1]


def _parquet_and_pages(store: Store, answer: dict[str, Any], root: Path, names: dict[str, str]) -> list[Any]:
    """The parquet export of an answer a public check stored (rows in no order), its review page view and
    the answer list, with ``names`` replaced and ids blanked (:func:`_as_named`)."""
    import pyarrow.parquet as pq

    from graphcite.export.output import output_target
    from graphcite.export.parquet import write_parquet
    from graphcite.graph import select
    from graphcite.serve.views import answer_view, answers_with_faithfulness
    from graphcite.verify import check_answer

    check_answer(store, answer, audience="public")
    out = root / re.sub(r"\W+", "-", answer["answer_id"])
    write_parquet(store, select(store, answer=answer["answer_id"]), output_target(out, folder=True), audience="public")
    tables = {name: pq.read_table(out / f"{name}.parquet").to_pylist()
              for name in ("answer", "claim", "citation", "verification", "source", "evidence_unit")}
    for row in tables["verification"]:
        row.pop("verified_at")
        row["result_json"] = re.sub(r'"elapsed_ms": [^,}]*', "", row["result_json"])
    for row in tables["answer"]:
        row.pop("stored_at")
    listed = [a for a in answers_with_faithfulness(store, "public") if a["answer_id"] == answer["answer_id"]]
    def named(value: Any) -> str:
        text = json.dumps(value, sort_keys=True, default=str)
        return _as_named(re.sub(r'"(verified_at|stored_at|last_verified_at)": [^,}\]]*', r'"\1": ""', text), names)

    rows = {name: sorted(named(row) for row in found) for name, found in tables.items()}
    return [rows, named(answer_view(store, answer["answer_id"], "public")), named(listed)]


def test_parquet_and_review_pages_show_a_public_askers_restricted_names_as_missing_ones(
        writable_pair: dict[str, Any], tmp_path: Path) -> None:
    """The parquet rows, the answer page and the answer list of a stored public answer whose id, question
    and citation name a restricted key and unit look as they do for a missing key and unit."""
    unit = writable_pair["ids"]["units"][0]
    views = []
    for n, (key, cited) in enumerate(((sorted(RESTRICTED_KEYS)[0], unit), ("ops/nothing.md", "0123456789abcdef"))):
        answer = {"answer_id": f"about {key} probe-{'one' if n == 0 else 'two'}", "question": f"How often does {key} say keys rotate?", "claims": [
            {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": key}]},
            {"text": "Signing keys are rotated on a fixed schedule.", "citations": [{"chunk_id": cited}]}]}
        names = {key: "KEY", cited: "UNIT", "probe-one": "PROBE", "probe-two": "PROBE"}
        views.append(_parquet_and_pages(writable_pair["stores"]["a"], answer, tmp_path, names))
        assert "KEY" in json.dumps(views[-1]) and "UNIT" in json.dumps(views[-1])
    assert views[0] == views[1]
