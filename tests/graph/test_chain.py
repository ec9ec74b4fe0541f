"""Support chains: citations down to units and revisions, lineage up to primary authorities, supersession."""

from __future__ import annotations

from typing import Any

import pytest

from graphcite.errors import NotFoundError
from graphcite.graph import chain
from graphcite.store import Store


def walk_lineage(source: dict[str, Any]) -> list[str]:
    """Keys from a source up its first lineage branch."""
    keys = [source["key"]]
    while source.get("lineage"):
        source = source["lineage"][0]["source"]
        keys.append(source["key"] + (" (cycle)" if source.get("cycle") else ""))
    return keys


def test_claim_chain_reaches_primary_authority(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][0]["claim_id"])
    assert tree["kind"] == "claim" and tree["status"] == "supported"
    assert [c["index"] for c in tree["citations"]] == [0, 1, 2]
    for cit in tree["citations"]:
        assert cit["relation"] == "supports"
        assert cit["primary_authorities"] == ["decisions/dr-100.md"]
    recap = tree["citations"][2]
    unit = recap["unit"]
    assert unit["heading_path"] == "A recap of the recap" and unit["status"] == "current"
    assert recap["quote"] in unit["text"]
    assert unit["revision"]["current"] is True and unit["revision"]["seq"] == 1
    assert walk_lineage(unit["revision"]["source"]) == ["posts/p3.md", "posts/p1.md", "decisions/dr-100.md"]
    top = unit["revision"]["source"]["lineage"][0]["source"]["lineage"][0]["source"]
    assert top["primary"] is True and top["supersedes"] == ["notes/old-note.md"]


def test_quote_and_derivation_are_both_kept(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][0]["claim_id"])
    source = tree["citations"][1]["unit"]["revision"]["source"]
    assert sorted(link["relation"] for link in source["lineage"]) == ["derived_from", "quotes"]


def test_superseded_evidence_names_its_superseder(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][2]["claim_id"])
    cit = tree["citations"][0]
    assert cit["superseded"] == "superseded by decisions/dr-100.md, effective 2024-01-10"
    assert any(f["code"] == "GC602" for f in cit["findings"])
    assert cit["unit"]["revision"]["source"]["superseded_by"][0]["key"] == "decisions/dr-100.md"


def test_contradicting_evidence_stays_attached(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][7]["claim_id"])
    assert tree["status"] == "conflict"
    against = {e["unit"]["revision"]["source"]["key"]: e for e in tree["contradicting_evidence"]}
    assert set(against) == {"manuals/ops.md", "notes/old-note.md", "manuals/secret.md"}
    old = against["notes/old-note.md"]
    assert old["status"] == "superseded"
    assert old["superseded"] == "superseded by decisions/dr-100.md, effective 2024-01-10"
    assert "7 days" in old["unit"]["text"] and "'7 days'" in old["reason"]
    assert "superseded" not in against["manuals/ops.md"]


def test_cycle_stops_the_walk(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][4]["claim_id"])
    source = tree["citations"][0]["unit"]["revision"]["source"]
    assert walk_lineage(source) == ["posts/p4.md", "notes/a.md", "notes/b.md", "notes/a.md (cycle)"]
    assert tree["cycles"] == [["notes/a.md", "notes/b.md"]]
    assert tree["citations"][0]["primary_authorities"] == ["notes/a.md ↔ notes/b.md"]


def test_dangling_link_is_reported(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][5]["claim_id"])
    parent = tree["citations"][0]["unit"]["revision"]["source"]["lineage"][0]["source"]
    assert parent["key"] == "decisions/never-ingested.md" and parent["missing"] is True
    assert tree["dangling"][0]["to_key"] == "decisions/never-ingested.md"


def test_pinned_old_revision_is_marked_not_current(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][9]["claim_id"])
    old, new = (c["unit"]["revision"] for c in tree["citations"])
    assert old["current"] is False and old["current_revision"] == new["revision_id"]
    assert (old["seq"], new["seq"]) == (1, 2)


def test_answer_chain_lists_every_claim(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, "lineage-demo")
    assert tree["kind"] == "answer" and tree["answer_rev"] == report["answer_rev"]
    assert [c["claim_id"] for c in tree["claims"]] == [c["claim_id"] for c in report["claims"]]
    assert chain(lineage_store, report["answer_rev"]) == tree


def test_public_chain_withholds_restricted_evidence(lineage_store: Store, report: dict[str, Any]) -> None:
    tree = chain(lineage_store, report["claims"][3]["claim_id"], audience="public")
    cit = tree["citations"][0]
    assert tree["relies_on_restricted"] is True
    # the public verdict never read the restricted source: its citation points at nothing (issue 23 item 4)
    assert cit["restricted"] is True and cit["quote"] is None and cit["unit"] is None
    assert cit["source"]["key"].startswith("restricted-source-")


def test_unknown_id(lineage_store: Store) -> None:
    with pytest.raises(NotFoundError):
        chain(lineage_store, "no-such-thing")


@pytest.mark.parametrize("audience", ["internal", "public"])
def test_a_claim_chain_without_the_answer_id_is_the_full_graph_s(lineage_store: Store, report: dict[str, Any],
                                                                 audience: str) -> None:
    """chain() leaves a claim's answer id unread; its tree equals the tree of the graph that read it."""
    import json

    from graphcite.graph import audit_independence, build_graph, independence, resolve_ref
    from graphcite.graph.chain import claim_tree

    for claim in report["claims"]:
        full = resolve_ref(lineage_store, claim["claim_id"])
        assert full.rows is not None and full.rows[0]["answer_id"] == "lineage-demo"
        G = build_graph(lineage_store, selection=full, audience=audience)
        expected = claim_tree(G, claim["claim_id"])
        assert json.dumps(chain(lineage_store, claim["claim_id"], audience=audience), sort_keys=True) == \
            json.dumps(expected, sort_keys=True)
        audited = audit_independence(lineage_store, claim["claim_id"], audience=audience, include_unsupported=True)
        assert audited == [independence(G, claim["claim_id"])]
