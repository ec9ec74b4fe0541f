"""Issue 23 item 1, timing: a public graph, chain or export reads what it names, not the restricted content.

The public view needs the restricted sources' keys and titles (to scrub them out of stored text); whether
a revision or unit id is restricted it asks of the store for the ids the output names
(:class:`graphcite.audience.RestrictedIds`), in one statement. So the rows a public chain reads besides the
keys and titles are as many on a store with one restricted runbook as on one with forty, and the outputs
are the ones the full sets give (inside an evidence memo the full sets are read once and kept: the
service's way, compared here with the lazy one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from graphcite.audience import WITHHELD_TEXT, RestrictedIds, restricted_set
from graphcite.store import Store
from graphcite.store.queries.verify_memo import evidence_memo
from tests.conftest import KEYSTORE_RUNBOOK, ROTATION_POST

ANSWER = {"answer_id": "stored", "claims": [
    {"text": "Signing keys are rotated on a fixed schedule.", "citations": [{"source": "posts/rotation.md"}]},
    {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": "posts/rotation.md"}]},
    {"text": "The keystore runbook covers signing keys.", "citations": [{"source": "ops/runbook-00.md"}]},
]}


def _runbook(n: int) -> str:
    if n == 0:
        return KEYSTORE_RUNBOOK
    lines = [f"Signing keys of vault {n} are rotated by the keeper job on a fixed schedule, every {n} days."]
    lines += [f"Keys rotated in batch {n}-{i} are signed again after each rotation." for i in range(8)]
    return (f"---\ntitle: Vault runbook {n}\nkind: manual\nvisibility: restricted\n---\n# Vault {n}\n\n"
            + "\n\n".join(lines) + "\n")


def _store(root: Path, runbooks: int) -> Path:
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    corpus = root / "corpus"
    (corpus / "ops").mkdir(parents=True)
    (corpus / "posts").mkdir()
    (corpus / "posts" / "rotation.md").write_text(ROTATION_POST, encoding="utf-8")
    for n in range(runbooks):
        (corpus / "ops" / f"runbook-{n:02d}.md").write_text(_runbook(n), encoding="utf-8")
    db = root / "store.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
        check_answer(store, ANSWER, audience="internal")
        check_answer(store, ANSWER, audience="public")
    return db


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("public-graph-reads")
    yield {"small": _store(root / "small", 1), "large": _store(root / "large", 40)}


def _outputs(store: Store) -> dict[str, Any]:
    from graphcite.graph import chain
    from graphcite.graph.build import build_graph
    from graphcite.verify.check import history

    claims = [r["claim_id"] for r in store.rows("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id")]
    out: dict[str, Any] = {"answer": chain(store, "stored", audience="public"),
                           "graph": nx.node_link_data(build_graph(store, all=True, audience="public"), edges="links")}
    for claim in claims:
        out[f"chain {claim}"] = chain(store, claim, audience="public")
        out[f"history {claim}"] = history(store, claim, audience="public")
    return json.loads(json.dumps(out, default=str))


def _rows_read(store: Store, fn: Any) -> list[list[dict[str, Any]]]:
    """The rows each statement ``fn`` sends returns (the store itself is real)."""
    reads: list[list[dict[str, Any]]] = []

    def read(sql: str, params: Any = None, _read: Any = store.rows) -> list[dict[str, Any]]:
        found = _read(sql, params)
        reads.append(found)
        return found

    store.rows = read  # type: ignore[method-assign]
    try:
        fn()
    finally:
        del store.rows
    return reads


def test_the_restricted_set_reads_keys_and_titles_only(stores: dict[str, Path]) -> None:
    counts = {}
    for name, db in stores.items():
        with Store(db, read_only=True) as store:
            reads = _rows_read(store, lambda s=store: restricted_set(s))
        counts[name] = [row for rows in reads for row in rows if set(row) - {"part", "key", "title"}]
    assert counts == {"small": [], "large": []}


def test_restricted_ids_are_answered_as_the_full_sets_answer(stores: dict[str, Path]) -> None:
    with Store(stores["large"], read_only=True) as store:
        units = {r["unit_id"]: r["source_key"].startswith("ops/") for r in store.rows(
            "SELECT unit_id, source_key FROM evidence_unit")}
        revisions = {r["revision_id"]: r["source_key"].startswith("ops/") for r in store.rows(
            "SELECT revision_id, source_key FROM source_revision")}
        lazy = restricted_set(store)
        assert isinstance(lazy.units, RestrictedIds) and lazy.units and lazy.revisions
        some = [*list(units)[:30], *list(revisions)[:10], "not-an-id", "0123456789abcdef"]
        lazy.prefetch({"ids": some})
        assert {u: u in lazy.units for u in units} == units
        assert {r: r in lazy.revisions for r in revisions} == revisions
        assert "0123456789abcdef" not in lazy.units and None not in lazy.units
        with pytest.raises(TypeError):
            iter(lazy.units)  # type: ignore[call-overload]  # nothing may count the restricted ids


def test_public_chain_and_graph_read_as_many_rows_whatever_the_restricted_content(stores: dict[str, Path]) -> None:
    """Besides the keys and titles, the rows naming no restricted unit are as many on both stores; the rows
    that do are the origin test's candidates (it must search restricted content to withhold a laundering
    claim), at most :data:`graphcite.verify.origin.CANDIDATES_PER_CLAIM` a claim and statement, however many restricted units there are."""
    from graphcite.verify.origin import CANDIDATES_PER_CLAIM

    counts, most = {}, {}
    for name, db in stores.items():
        with Store(db, read_only=True) as store:
            restricted = {r["unit_id"] for r in store.rows(
                "SELECT unit_id FROM evidence_unit WHERE source_key LIKE 'ops/%'")}
            _outputs(store)  # warm-up
            reads = _rows_read(store, lambda s=store: _outputs(s))
        counts[name] = sum(1 for rows in reads for row in rows
                           if set(row) - {"part", "key", "title"} and not restricted & {str(v) for v in row.values()})
        most[name] = max(len(restricted & {str(v) for row in rows for v in row.values()}) for rows in reads)
    assert counts["large"] == counts["small"]
    assert most["large"] <= len(ANSWER["claims"]) * CANDIDATES_PER_CLAIM < 361  # the 40 runbooks' units


def test_public_outputs_are_those_of_the_full_restricted_sets(stores: dict[str, Path]) -> None:
    """Asked id by id (a command) or read whole once (inside a memo, as the service does): the same outputs."""
    for db in stores.values():
        with Store(db, read_only=True) as store:
            lazy = _outputs(store)
            with evidence_memo(store):
                assert restricted_set(store).units._read is None  # every id read once, kept
                full = _outputs(store)
        assert lazy == full
        shown = json.dumps(full)
        assert "restricted-source-1" in shown and WITHHELD_TEXT in shown  # a restricted key, a laundering claim
