"""conflicts(): current units that disagree on the same subject, found through the term index."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphcite.graph import conflicts
from graphcite.graph.conflicts import sentences
from graphcite.ingest import ingest
from graphcite.store import Store


def pairs(found: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(c["a"]["source"], c["b"]["source"]) for c in found}


def test_current_sources_that_disagree(lineage_store: Store) -> None:
    found = conflicts(lineage_store)
    assert pairs(found) == {("decisions/dr-100.md", "manuals/ops.md"), ("decisions/dr-100.md", "manuals/secret.md"),
                            ("manuals/ops.md", "manuals/secret.md")}
    first = next(c for c in found if c["b"]["source"] == "manuals/ops.md")
    assert first["a"]["sentence"] == "Delivery logs are kept for 14 days."
    assert first["b"]["sentence"] == "Delivery logs are kept for 30 days."
    assert first["reason"] == "manuals/ops.md says '30 days' where decisions/dr-100.md says '14 days'"
    assert first["a"]["doc_status"] == first["b"]["doc_status"] == "current"
    assert first["a"]["heading_path"] == ["DR-100: Relay delivery attempts", "Current decision"]
    assert first["shared_terms"] >= 3
    # offsets point at the sentence in the revision text
    text = lineage_store.scalar("SELECT text FROM source_revision WHERE revision_id = ?", [first["a"]["revision"]])
    assert text[first["a"]["sentence_start"]:first["a"]["sentence_end"]] == first["a"]["sentence"]


def test_superseded_and_agreeing_units_are_not_conflicts(lineage_store: Store) -> None:
    found = conflicts(lineage_store)
    assert not any("notes/old-note.md" in pair for pair in pairs(found))
    assert not any("five delivery attempts" in c["a"]["sentence"] for c in found)


def test_public_audience_leaves_restricted_units_out(lineage_store: Store) -> None:
    assert pairs(conflicts(lineage_store, audience="public")) == {("decisions/dr-100.md", "manuals/ops.md")}


def test_polarity_conflict(store: Store, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nThe relay retries deliveries to the fax adapter after a timeout.\n")
    (tmp_path / "b.md").write_text("# B\n\nThe relay never retries deliveries to the fax adapter after a timeout.\n")
    (tmp_path / "c.md").write_text("# C\n\nLunch is served in the canteen at noon.\n")
    ingest(store, [tmp_path])
    found = conflicts(store)
    assert pairs(found) == {("a.md", "b.md")}
    assert found[0]["reason"] == "b.md states the opposite polarity"


def test_empty_store(store: Store) -> None:
    assert conflicts(store) == []


@given(st.lists(st.sampled_from(["Logs last 14 days.", "Really?", "  ", "No; never!", "x.y", "\n", "A b"]),
                max_size=8).map("".join))
def test_sentence_spans(text: str) -> None:
    spans = sentences(text)
    for start, end in spans:
        assert 0 <= start < end <= len(text)
        assert text[start:end].strip() == text[start:end]
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    # nothing but whitespace is left between or around the sentences
    assert re.sub(r"\s", "", "".join(text[s:e] for s, e in spans)) == re.sub(r"\s", "", text)
