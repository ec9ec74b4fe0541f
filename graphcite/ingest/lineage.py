"""Source lineage: links declared in front matter (derived_from, quotes, implements, supersedes).

A link belongs to the revision that declared it, so when a source gets a new revision, the links in
force are those declared by current revisions. Links to keys that were never ingested are kept and
reported as dangling.

Supersession must not go round in a circle: when the current declarations make a cycle (a
supersedes b, b supersedes a), nobody can say which is in force, so after every ingest the links
in the cycle are relabelled ``supersedes_cycle`` -- every reader of ``supersedes`` then treats none
of them as superseded -- and the ingest reports the cycle. When a later revision breaks the cycle,
the remaining links become ``supersedes`` again. A source naming itself is refused before this
(see :mod:`graphcite.ingest.prepare`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from graphcite.store import Store
from graphcite.store.queries import ingest as queries

__all__ = ["CYCLE_RELATION", "LINEAGE_KEYS", "current_links", "dangling_links", "links_from_metadata",
           "mark_supersession_cycles", "supersession_cycles"]

#: The relation a ``supersedes`` link carries while it is part of a cycle of current declarations.
CYCLE_RELATION = "supersedes_cycle"

# front matter key -> (relation, direction): "out" means this source -> named key.
LINEAGE_KEYS: dict[str, tuple[str, str]] = {
    "derived_from": ("derived_from", "out"),
    "quotes": ("quotes", "out"),
    "implements": ("implements", "out"),
    "supersedes": ("supersedes", "out"),
    "superseded_by": ("supersedes", "in"),
}


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def links_from_metadata(source_key: str, revision_id: str, metadata: Mapping[str, Any]) -> list[dict[str, str]]:
    """Rows for ``source_link`` declared by one revision's metadata, deterministic order."""
    rows: list[dict[str, str]] = []
    for meta_key, (relation, direction) in LINEAGE_KEYS.items():
        for other in _as_list(metadata.get(meta_key)):
            src, dst = (source_key, other) if direction == "out" else (other, source_key)
            digest = hashlib.sha256(f"{src}\0{dst}\0{relation}\0{revision_id}".encode()).hexdigest()[:16]
            rows.append({"link_id": digest, "from_key": src, "to_key": dst, "relation": relation,
                         "declared_in": revision_id})
    return rows


def current_links(store: Store) -> list[dict[str, str]]:
    """Links declared by the current revision of their declaring source."""
    return queries.current_links(store)


def dangling_links(store: Store) -> list[dict[str, str]]:
    """Current links whose other end was never ingested."""
    return queries.dangling_links(store)


_SUPERSESSION_RELATIONS = ("supersedes", CYCLE_RELATION)


def _cycle_groups(edges: list[tuple[str, str]]) -> list[list[str]]:
    """Sorted groups of keys that supersede one another in a circle (strongly connected, size > 1)."""
    import networkx as nx

    graph = nx.DiGraph(edges)
    groups = [sorted(group) for group in nx.strongly_connected_components(graph) if len(group) > 1]
    return sorted(groups)


def supersession_cycles(store: Store) -> list[list[str]]:
    """Groups of source keys whose current ``supersedes`` declarations form a cycle, each sorted."""
    rows = queries.current_supersessions(store, _SUPERSESSION_RELATIONS)
    return _cycle_groups([(r["from_key"], r["to_key"]) for r in rows]) if rows else []


def mark_supersession_cycles(store: Store) -> list[str]:
    """Relabel current supersession links by whether they lie on a cycle; one warning per cycle.

    Runs inside the ingest transaction after the new links are written.
    """
    rows = queries.current_supersessions(store, _SUPERSESSION_RELATIONS)
    if not rows:
        return []
    groups = _cycle_groups([(r["from_key"], r["to_key"]) for r in rows])
    group_of = {key: index for index, group in enumerate(groups) for key in group}
    relabel: dict[str, list[str]] = {"supersedes": [], CYCLE_RELATION: []}
    for row in rows:
        home = group_of.get(row["from_key"])
        cyclic = home is not None and home == group_of.get(row["to_key"])
        wanted = CYCLE_RELATION if cyclic else "supersedes"
        if row["relation"] != wanted:
            relabel[wanted].append(row["link_id"])
    for relation, link_ids in relabel.items():
        queries.relabel_links(store, link_ids, relation)
    return [f"supersession cycle among {', '.join(group)}: they supersede one another, so none of them "
            "is treated as superseded (fix their supersedes / superseded_by keys)" for group in groups]
