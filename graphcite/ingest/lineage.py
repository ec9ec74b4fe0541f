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

The source_lineage table is derived from these links and the sources: one row per key with its source
card and the links of its upward closure (:func:`closure_links`), so a support chain reads its whole
lineage with one index lookup per start key instead of one per level. Ingest keeps it current in the
same transaction (:func:`refresh_lineage`, called after the cycles are labelled); a store whose table is
empty (written before it existed) is filled by its next ingest.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphcite.models import LINEAGE_RELATIONS
from graphcite.store import Store
from graphcite.store.queries import graph as graph_queries
from graphcite.store.queries import ingest as queries
from graphcite.store.queries import lineage as lineage_queries
from graphcite.store.queries.lineage import MAX_LINEAGE_LEVELS

__all__ = ["CYCLE_RELATION", "FULL_REFRESH_AT", "LINEAGE_KEYS", "MAX_LINEAGE_LEVELS",
           "LinkIndex", "closure_links", "computed_lineage", "current_links", "dangling_links", "lineage_row", "links_from_metadata",
           "mark_supersession_cycles", "rebuild_lineage", "refresh_lineage", "supersession_cycles", "walk_up"]

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


def mark_supersession_cycles(store: Store, written: Iterable[str] | None = None) -> list[str]:
    """Relabel current supersession links by whether they lie on a cycle, then bring source_lineage up to
    date (:func:`refresh_lineage`; ``written`` names the sources this ingest wrote, None finds them);
    one warning per cycle.

    Runs inside the ingest transaction after the new links are written and the sources moved.
    """
    rows = queries.current_supersessions(store, _SUPERSESSION_RELATIONS)
    if not rows:
        refresh_lineage(store, written)
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
    relabelled = {row["link_id"]: (row["from_key"], row["to_key"]) for row in rows}
    for relation, link_ids in relabel.items():
        queries.relabel_links(store, link_ids, relation)
    refresh_lineage(store, written, also={k for ids in relabel.values() for i in ids for k in relabelled[i]})
    return [f"supersession cycle among {', '.join(group)}: they supersede one another, so none of them "
            "is treated as superseded (fix their supersedes / superseded_by keys)" for group in groups]


# ----------------------------------------------------------------------------------------------
# source_lineage: each key's source card and upward closure
# ----------------------------------------------------------------------------------------------

#: More stale keys than this and the whole table is computed again from every link (one read).
FULL_REFRESH_AT = 2000

Link = tuple[str, str, str, str]  # from_key, to_key, relation, declared_in


@dataclass(slots=True)
class LinkIndex:
    """Followed links (lineage and supersedes, any revision's declaration) indexed for walks upward."""

    out: dict[str, list[Link]] = field(default_factory=dict)  # by from_key
    superseding: dict[str, list[Link]] = field(default_factory=dict)  # supersedes links by to_key
    parents: dict[str, list[str]] = field(default_factory=dict)  # lineage parents by from_key

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            link = (row["from_key"], row["to_key"], row["relation"], row["declared_in"])
            out = self.out.setdefault(link[0], [])
            if link in out:
                continue
            out.append(link)
            if link[2] in LINEAGE_RELATIONS:
                self.parents.setdefault(link[0], []).append(link[1])
            else:
                self.superseding.setdefault(link[1], []).append(link)


def closure_links(key: str, index: LinkIndex) -> list[list[Any]]:
    """``[from, to, relation, declared_in, level]`` of every link a walk upward from ``key`` reads, sorted.

    The walk follows derived_from, quotes and implements links whatever revision declared them (which
    of them are in force is decided by the reader, from the current revisions) and visits keys at most
    63 levels up; it reads every followed link a visited key declares (level: that key's distance) and
    every supersedes link into a visited key (level -1 when its other end was not visited).
    """
    level = {key: 0}
    queue = deque([key])
    while queue:
        node = queue.popleft()
        if level[node] >= MAX_LINEAGE_LEVELS - 1:
            continue
        for parent in index.parents.get(node, ()):
            if parent not in level:
                level[parent] = level[node] + 1
                queue.append(parent)
    found: dict[Link, int] = {}
    for node, depth in level.items():
        for link in index.out.get(node, ()):
            found[link] = depth
    for node in level:
        for link in index.superseding.get(node, ()):
            found.setdefault(link, -1)
    return sorted([*link, depth] for link, depth in found.items())


def walk_up(store: Store, keys: Iterable[str]) -> LinkIndex:
    """The links :func:`closure_links` needs for ``keys``: one index lookup per level, then one for supersedes."""
    index = LinkIndex()
    visited: set[str] = set()
    frontier = set(keys)
    for _ in range(MAX_LINEAGE_LEVELS):
        if not frontier:
            break
        visited |= frontier
        rows = graph_queries.links_from(store, frontier)
        index.add(rows)
        frontier = {r["to_key"] for r in rows if r["relation"] in LINEAGE_RELATIONS} - visited
    index.add(graph_queries.links_into(store, visited))
    return index


def _walk_down(store: Store, keys: set[str]) -> set[str]:
    """``keys`` and every key that reaches one of them upward within the levels a closure visits."""
    reached = set(keys)
    frontier = set(keys)
    for _ in range(MAX_LINEAGE_LEVELS - 1):
        if not frontier:
            break
        frontier = {r["from_key"] for r in lineage_queries.lineage_links_into(store, frontier)} - reached
        reached |= frontier
    return reached


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _card(source: Mapping[str, Any] | None, revisions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    return None if source is None else {"source": dict(source), "revisions": [dict(r) for r in revisions]}


def lineage_row(key: str, index: LinkIndex, source: Mapping[str, Any] | None,
                revisions: Sequence[Mapping[str, Any]],
                cards: Mapping[str, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """The source_lineage row of ``key``: its card (``source``: its source row, None if never ingested)
    and its closure; with ``cards`` (key -> card, None for a key never ingested) the card also holds
    ``closure``, the cards of every other key its closure's links name, so a reader needs no second lookup."""
    links = closure_links(key, index)
    card = _card(source, revisions)
    if card is not None and cards is not None:
        card["closure"] = {end: cards.get(end) for end in sorted({e for link in links for e in link[:2]} - {key})}
    return {"key": key, "current_revision": None if source is None else source["current_revision"],
            "source_json": None if card is None else _dumps(card), "links_json": _dumps(links)}


def _rows(keys: Iterable[str], index: LinkIndex, sources: Mapping[str, Mapping[str, Any]],
          revisions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``keys``; ``sources`` and ``revisions`` cover every key their closures name."""
    by_source: dict[str, list[Mapping[str, Any]]] = {}
    for revision in revisions:  # sorted by source and sequence
        by_source.setdefault(revision["source_key"], []).append(revision)
    cards = {key: _card(source, by_source.get(key, ())) for key, source in sources.items()}
    return [lineage_row(key, index, sources.get(key), by_source.get(key, ()), cards) for key in sorted(keys)]


def computed_lineage(store: Store) -> list[dict[str, Any]]:
    """Every source_lineage row as computed from all sources, revisions and links (nothing written), by key."""
    index = LinkIndex()
    links = lineage_queries.all_followed_links(store)
    index.add(links)
    sources = {row["key"]: row for row in lineage_queries.all_source_rows(store)}
    keys = set(sources) | {k for link in links for k in (link["from_key"], link["to_key"])}
    return _rows(keys, index, sources, lineage_queries.all_revision_rows(store))


def rebuild_lineage(store: Store) -> int:
    """Compute every source_lineage row again from all sources, revisions and links; returns the rows written."""
    rows = computed_lineage(store)
    with store.transaction():
        lineage_queries.replace_lineage_rows(store, None, rows)
    return len(rows)


def refresh_lineage(store: Store, written: Iterable[str] | None = None, *, also: Iterable[str] = ()) -> int:
    """Recompute the source_lineage rows that sources written or links changed make stale; returns rows written.

    ``written`` names the sources whose row or revisions changed (None: every source whose lineage row
    is missing or names another current revision); ``also`` names keys whose links changed otherwise
    (relabelled supersessions). A link touching a changed key changes the closure of every key below
    it, so those rows are recomputed too. An empty table, or many changes, is computed again in full.
    """
    seeds = set(lineage_queries.stale_sources(store) if written is None else written) | set(also)
    if not seeds:  # a store upgraded from before the table has it empty: the next ingest fills it anyway
        return rebuild_lineage(store) if written is not None and lineage_queries.lineage_table_empty(store) else 0
    if len(seeds) > FULL_REFRESH_AT or lineage_queries.lineage_table_empty(store):
        return rebuild_lineage(store)
    seeds |= {k for link in lineage_queries.links_touching(store, seeds) for k in (link["from_key"], link["to_key"])}
    affected = _walk_down(store, seeds)
    index = walk_up(store, affected)
    named = affected | {end for links in index.out.values() for link in links for end in link[:2]}
    sources = {row["key"]: row for row in graph_queries.source_rows(store, named)}
    rows = _rows(affected, index, sources, graph_queries.revision_rows(store, sources))
    with store.transaction():
        lineage_queries.replace_lineage_rows(store, affected, rows)
    return len(rows)
