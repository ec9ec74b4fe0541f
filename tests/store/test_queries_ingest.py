"""Ingest's query functions (store/queries/ingest.py) on both engines.

Each answer is compared with the same thing worked out in Python from whole-table reads, so a wrong
join, filter or order fails on either engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.store.queries import ingest as iq

DECISION = "decisions/dr-017-webhook-retries.md"


def table(store: Store, name: str) -> list[dict[str, Any]]:
    return store.rows(f"SELECT * FROM {name}")


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def note(title: str, body: str, **meta: str | list[str]) -> str:
    lines = [f"title: {title}"] + [f"{key}: {json.dumps(value)}" for key, value in meta.items()]
    return "---\n" + "\n".join(lines) + f"\n---\n# {title}\n\n{body}\n"


# -- what an ingest reads and moves --------------------------------------------------------------
def test_current_revisions_give_the_pointer_and_the_highest_seq(any_store: Store, tmp_path: Path) -> None:
    store = any_store
    write(tmp_path, "a.md", "# A\n\nThe client retries 3 times.\n")
    write(tmp_path, "b.md", "# B\n\nThe queue holds 40 items.\n")
    ingest(store, [tmp_path])
    write(tmp_path, "a.md", "# A\n\nThe client retries 5 times.\n")
    ingest(store, [tmp_path])
    write(tmp_path, "a.md", "# A\n\nThe client retries 3 times.\n")  # back to the first content
    ingest(store, [tmp_path])
    revisions = table(store, "source_revision")
    expected = []
    for source in sorted(table(store, "source"), key=lambda s: s["key"]):
        current = next(r for r in revisions if r["revision_id"] == source["current_revision"])
        last = max(r["seq"] for r in revisions if r["source_key"] == source["key"])
        expected.append({"key": source["key"], "current_revision": source["current_revision"],
                         "content_hash": current["content_hash"], "last_seq": last})
    found = iq.current_revisions(store)
    assert found == expected
    a = next(row for row in found if row["key"] == "a.md")
    assert a["last_seq"] == 2 and next(r for r in revisions if r["revision_id"] == a["current_revision"])["seq"] == 1


def test_revision_stored_knows_stored_ids_only(any_corpus_store: Store) -> None:
    store = any_corpus_store
    stored = table(store, "source_revision")[0]["revision_id"]
    assert iq.revision_stored(store, stored) is True
    assert iq.revision_stored(store, "0000000000000000") is False


def test_point_sources_at_moves_the_named_sources_only(any_corpus_store: Store) -> None:
    store = any_corpus_store
    before = {s["key"]: s for s in table(store, "source")}
    keys = sorted(before)
    moved = [{"key": keys[0], "current_revision": before[keys[1]]["current_revision"], "title": "Moved",
              "kind": "note", "visibility": "restricted"},
             {"key": "never-ingested.md", "current_revision": "x", "title": "x", "kind": "x", "visibility": "x"}]
    with store.transaction():
        assert iq.point_sources_at(store, []) == 0
        assert iq.point_sources_at(store, moved) == 2
    after = {s["key"]: s for s in table(store, "source")}
    assert set(after) == set(before)
    assert [after[keys[0]][c] for c in iq.SOURCE_POINTER_COLUMNS] == \
        [before[keys[1]]["current_revision"], "Moved", "note", "restricted"]
    assert all(after[k] == before[k] for k in keys[1:])


# -- the source list and one unit ------------------------------------------------------------------
def test_source_list_counts_the_current_revision(any_corpus_store: Store) -> None:
    store = any_corpus_store
    revisions = {r["revision_id"]: r for r in table(store, "source_revision")}
    units = table(store, "evidence_unit")
    values = table(store, "typed_value")
    expected = []
    for source in sorted(table(store, "source"), key=lambda s: s["key"]):
        current = revisions[source["current_revision"]]
        expected.append({
            "key": source["key"], "title": source["title"], "kind": source["kind"],
            "visibility": source["visibility"], "current_revision": source["current_revision"],
            "status": current["status"], "format": current["format"],
            "effective": str(current["effective"]) if current["effective"] is not None else None,
            "revisions": sum(r["source_key"] == source["key"] for r in revisions.values()),
            "current_seq": current["seq"],
            "units": sum(u["revision_id"] == current["revision_id"] for u in units),
            "values": sum(v["revision_id"] == current["revision_id"] for v in values)})
    found = iq.source_list(store)
    assert found == expected
    assert any(row["effective"] for row in found) and all(row["units"] for row in found)


def test_one_unit_with_its_revision_and_values_in_text_order(any_corpus_store: Store) -> None:
    store = any_corpus_store
    values = table(store, "typed_value")
    unit = max((u for u in table(store, "evidence_unit") if u["source_key"] == DECISION),
               key=lambda u: sum(v["unit_id"] == u["unit_id"] for v in values))
    revision = next(r for r in table(store, "source_revision") if r["revision_id"] == unit["revision_id"])
    source = next(s for s in table(store, "source") if s["key"] == DECISION)
    row = iq.unit_with_revision(store, unit["unit_id"])
    assert row == {**unit, "format": revision["format"], "kind": revision["kind"],
                   "visibility": revision["visibility"], "revision_seq": revision["seq"],
                   "current_revision": source["current_revision"]}
    assert iq.unit_with_revision(store, "no-such-unit") is None
    mine = sorted((v for v in values if v["unit_id"] == unit["unit_id"]),
                  key=lambda v: (v["start"], v["end"], v["value_id"]))
    found = iq.unit_values(store, unit["unit_id"])
    assert len(found) >= 2
    assert found == [{k: v[k] for k in found[0]} for v in mine]
    assert "value_id" not in found[0] and "unit_id" not in found[0]
    assert iq.unit_values(store, "no-such-unit") == []


# -- source lineage --------------------------------------------------------------------------------
def lineage_folder(folder: Path) -> Path:
    write(folder, "a.md", note("A", "Plan A keeps 3 retries.", supersedes="b.md", derived_from="gone.md"))
    write(folder, "b.md", note("B", "Plan B keeps 5 retries.", supersedes="a.md"))
    write(folder, "c.md", note("C", "Plan C keeps 7 retries.", supersedes="b.md", quotes=["a.md"]))
    return folder


def expected_current_links(store: Store) -> list[dict[str, str]]:
    current = {s["current_revision"] for s in table(store, "source")}
    found = {(link["from_key"], link["to_key"], link["relation"]) for link in table(store, "source_link")
             if link["declared_in"] in current and link["relation"] != "revision_of"}
    return [{"from_key": f, "to_key": t, "relation": r} for f, t, r in sorted(found)]


def test_current_and_dangling_links(any_store: Store, tmp_path: Path) -> None:
    store = any_store
    folder = lineage_folder(tmp_path)
    ingest(store, [folder])
    write(folder, "c.md", note("C", "Plan C keeps 8 retries.", supersedes="b.md"))  # no longer quotes a.md
    ingest(store, [folder])
    links = iq.current_links(store)
    assert links == expected_current_links(store)
    assert {"from_key": "c.md", "to_key": "a.md", "relation": "quotes"} not in links
    assert any(link["relation"] == "revision_of" for link in table(store, "source_link"))
    keys = {s["key"] for s in table(store, "source")}
    assert iq.dangling_links(store) == [link for link in links if link["from_key"] not in keys
                                        or link["to_key"] not in keys]
    assert iq.dangling_links(store) == [{"from_key": "a.md", "to_key": "gone.md", "relation": "derived_from"}]


def test_supersessions_and_relabelling(any_store: Store, tmp_path: Path) -> None:
    store = any_store
    ingest(store, [lineage_folder(tmp_path)])
    current = {s["current_revision"] for s in table(store, "source")}
    everything = table(store, "source_link")

    def expected(relations: set[str]) -> list[dict[str, str]]:
        rows = [{k: link[k] for k in ("link_id", "from_key", "to_key", "relation")} for link in everything
                if link["declared_in"] in current and link["relation"] in relations]
        return sorted(rows, key=lambda link: link["link_id"])

    both = iq.current_supersessions(store, ["supersedes", "supersedes_cycle"])
    assert both == expected({"supersedes", "supersedes_cycle"})
    assert {link["relation"] for link in both} == {"supersedes", "supersedes_cycle"}  # a <-> b is a cycle
    assert iq.current_supersessions(store, ["supersedes_cycle"]) == expected({"supersedes_cycle"})
    assert iq.current_supersessions(store, []) == []
    plain = [link["link_id"] for link in both if link["relation"] == "supersedes"]
    with store.transaction():
        assert iq.relabel_links(store, [], "quotes") == 0
        assert iq.relabel_links(store, plain + plain, "supersedes_cycle") == len(plain)
    relabelled = {link["link_id"]: link["relation"] for link in table(store, "source_link")}
    assert all(relabelled[link_id] == "supersedes_cycle" for link_id in plain)
    assert {link_id: rel for link_id, rel in relabelled.items() if link_id not in plain} == \
        {link["link_id"]: link["relation"] for link in everything if link["link_id"] not in plain}
