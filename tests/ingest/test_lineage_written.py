"""Ingest names the sources it wrote when it brings source_lineage up to date (instead of scanning every
source for stale rows): the names must be exactly the stale sources, and the table must equal a full
computation after every kind of ingest (new, changed, reverted, unchanged, a supersession cycle)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from graphcite.ingest import ingest, lineage
from graphcite.ingest.lineage import computed_lineage
from graphcite.store import Store
from graphcite.store.queries import lineage as lineage_queries

COLUMNS = ("key", "current_revision", "source_json", "links_json")

RULE = "---\ntitle: Rule\nkind: decision\n---\n# Rule\n\nThe relay retries a webhook 4 times.\n"
RULE_V2 = "---\ntitle: Rule\nkind: decision\nsupersedes: notes/old.md\n---\n# Rule\n\nThe relay retries 5 times.\n"
OLD = "---\ntitle: Old\nkind: note\n---\n# Old\n\nThe relay retries a webhook 3 times.\n"
POST = "---\ntitle: Post\nkind: post\nderived_from: decisions/rule.md\n---\n# Post\n\nRetries: 4 times.\n"
CYCLE_A = "---\ntitle: A\nkind: note\nsupersedes: notes/b.md\n---\n# A\n\nA says 2 shards.\n"
CYCLE_B = "---\ntitle: B\nkind: note\nsupersedes: notes/a.md\n---\n# B\n\nB says 2 shards.\n"

#: (what happens, files written before the ingest, the keys the ingest writes)
STEPS: list[tuple[str, dict[str, str], set[str]]] = [
    ("first ingest", {"decisions/rule.md": RULE, "notes/old.md": OLD}, {"decisions/rule.md", "notes/old.md"}),
    ("a new post derives from the rule", {"posts/post.md": POST}, {"posts/post.md"}),
    ("the rule changes and supersedes the old note", {"decisions/rule.md": RULE_V2}, {"decisions/rule.md"}),
    ("the rule goes back to its first content", {"decisions/rule.md": RULE}, {"decisions/rule.md"}),
    ("nothing changes", {}, set()),
    ("two notes supersede each other", {"notes/a.md": CYCLE_A, "notes/b.md": CYCLE_B}, {"notes/a.md", "notes/b.md"}),
]


def _rows(found: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [tuple(r[c] for c in COLUMNS) for r in found]


@pytest.mark.parametrize("backend", ["duckdb", "postgresql"])
def test_written_names_the_stale_sources_and_the_table_stays_right(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(tmp_path / "store.duckdb") if backend == "duckdb" else request.getfixturevalue("new_pg_database")()
    seen: list[tuple[list[str], list[str]]] = []
    refresh = lineage.refresh_lineage

    def watched(store: Store, written: Iterable[str] | None = None, **kwargs: Any) -> int:
        # inside the ingest's transaction, before the refresh: what a scan of every source would find
        seen.append((sorted(written) if written is not None else ["<scan>"], lineage_queries.stale_sources(store)))
        return refresh(store, written, **kwargs)

    monkeypatch.setattr(lineage, "refresh_lineage", watched)
    corpus = tmp_path / "corpus"
    with Store(url) as store:
        for what, files, wrote in STEPS:
            for key, text in files.items():
                (corpus / key).parent.mkdir(parents=True, exist_ok=True)
                (corpus / key).write_text(text, encoding="utf-8")
            seen.clear()
            report = ingest(store, [corpus])
            assert seen, what
            written, stale = seen[0]
            assert written == sorted(wrote) == stale, what
            assert set(report.added) | set(report.updated) == wrote, what
            stored = _rows(store.rows("SELECT * FROM source_lineage ORDER BY key"))
            assert stored == _rows(computed_lineage(store)), what
        assert "decisions/rule.md" in report.unchanged
        relations = {r["relation"] for r in store.rows("SELECT relation FROM source_link")}
        assert "supersedes_cycle" in relations
