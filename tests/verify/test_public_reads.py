"""Issue 23 item 1, timing: a public check reads nothing of the restricted content into Python.

A public verdict is the one a store without its restricted sources would give, and its timing may not
depend on them either. The cheapest way to hold that is structural: the rows every query of a public
check returns hold no restricted unit, and there are as many of them on a store with one restricted
runbook as on one with forty whose paragraphs share every word of the claim (the keys and titles of
the restricted sources aside: the redactor needs those to replace names in the report).
``benchmarks/public_timing.py`` measures the same thing in milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphcite.store import Store
from tests.conftest import KEYSTORE_RUNBOOK, ROTATION_POST

ANSWER = {"answer_id": "probe", "claims": [
    {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": "posts/rotation.md"}]},
    {"text": "Signing keys are rotated on a fixed schedule.", "citations": [{"source": "posts/rotation.md"}]},
]}


def _runbook(n: int) -> str:
    """A restricted runbook whose paragraphs share the claims' words (the first one is the conftest's)."""
    if n == 0:
        return KEYSTORE_RUNBOOK
    lines = [f"Signing keys of vault {n} are rotated by the keeper job on a fixed schedule, every {n} days."]
    lines += [f"Keys rotated in batch {n}-{i} are signed again after each rotation." for i in range(8)]
    return (f"---\ntitle: Vault runbook {n}\nkind: manual\nvisibility: restricted\n---\n# Vault {n}\n\n"
            + "\n\n".join(lines) + "\n")


def _store(root: Path, runbooks: int) -> Path:
    from graphcite.ingest import ingest

    corpus = root / "corpus"
    (corpus / "ops").mkdir(parents=True)
    (corpus / "posts").mkdir()
    (corpus / "posts" / "rotation.md").write_text(ROTATION_POST, encoding="utf-8")
    for n in range(runbooks):
        (corpus / "ops" / f"runbook-{n:02d}.md").write_text(_runbook(n), encoding="utf-8")
    db = root / "store.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
    return db


class _Reads:
    """Every row the store's queries hand to Python while it is held (the store itself is real)."""

    def __init__(self, store: Store) -> None:
        self.store, self.rows = store, []  # type: tuple[Store, list[dict[str, Any]]]

    def __enter__(self) -> _Reads:
        def rows(sql: str, params: Any = None, _read: Any = self.store.rows) -> list[dict[str, Any]]:
            found = _read(sql, params)
            self.rows.extend(found)
            return found

        self.store.rows = rows  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self.store.rows


def _public_check_reads(db: Path) -> tuple[list[dict[str, Any]], set[str], set[str]]:
    """The rows a public check read (after a warm-up), the restricted unit ids and the restricted keys."""
    from graphcite.verify.check import scratch_check

    with Store(db, read_only=True) as store:
        restricted = {r["unit_id"] for r in store.rows(
            "SELECT unit_id FROM evidence_unit WHERE source_key LIKE 'ops/%'")}
        keys = {r["key"] for r in store.rows("SELECT key FROM source WHERE key LIKE 'ops/%'")}
        scratch_check(store, ANSWER, audience="public")  # pipelines loaded, nothing kept between the two
        with _Reads(store) as reads:
            scratch_check(store, ANSWER, audience="public")
    return reads.rows, restricted, keys


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("public-reads")
    yield {"small": _store(root / "small", 1), "large": _store(root / "large", 40)}


def _names_a_restricted_source(row: dict[str, Any], keys: set[str]) -> bool:
    return set(row) <= {"key", "title"} and row.get("key") in keys


def test_a_public_check_reads_no_restricted_unit(stores: dict[str, Path]) -> None:
    rows, restricted, _ = _public_check_reads(stores["large"])
    leaked = [row for row in rows if restricted & {str(v) for v in row.values()}]
    assert leaked == []


def test_a_public_check_reads_as_many_rows_whatever_the_restricted_content(stores: dict[str, Path]) -> None:
    counts = {}
    for name, db in stores.items():
        rows, _, keys = _public_check_reads(db)
        counts[name] = sum(1 for row in rows if not _names_a_restricted_source(row, keys))
    assert counts["large"] == counts["small"]


def test_the_large_store_holds_restricted_units_that_share_the_claims_words(stores: dict[str, Path]) -> None:
    """The fixture can fail the tests above: its restricted paragraphs hold the claims' index terms."""
    with Store(stores["large"], read_only=True) as store:
        shared = store.scalar("SELECT count(DISTINCT p.unit_id) FROM term_posting p JOIN evidence_unit u "
                              "ON u.unit_id = p.unit_id WHERE u.source_key LIKE 'ops/%' AND p.term = 'rotate'")
    assert shared >= 40
