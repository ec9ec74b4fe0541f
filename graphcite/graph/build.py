"""Build the evidence graph of a claim, an answer, a source or the whole store with a few bulk queries.

The graph is a :class:`networkx.MultiDiGraph` whose nodes carry ``kind`` (claim, citation, unit,
revision, source) and whose edges carry ``kind`` (cites, points_to, in, of, revision_of,
contradicted_by and the lineage relations derived_from, quotes, implements, supersedes); the edge
kind is also the multigraph key. Claim verdicts come from the latest verification record of each
claim. Lineage is followed upward from the cited sources with one query per level and a visited set,
so a cycle in the declared lineage is reported (``G.graph["cycles"]``), never looped on; links to keys
that were never ingested become ``missing`` source nodes and are listed in ``G.graph["dangling"]``.

With ``audience="public"`` restricted sources keep their place in the graph under a placeholder
name, but their text, titles and identifiers are removed everywhere (see :class:`Redactor`) and the
claims that cited them are marked ``relies_on_restricted``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from graphcite.errors import GraphciteError, NotFoundError
from graphcite.store import Store

__all__ = [
    "AUDIENCES",
    "EDGE_KINDS",
    "LINEAGE_RELATIONS",
    "NODE_KINDS",
    "Fetched",
    "Redactor",
    "Selection",
    "build_graph",
    "claim_node",
    "edges_in",
    "edges_out",
    "fetch",
    "ids_filter",
    "latest_verifications",
    "node_id",
    "redactor_for",
    "resolve_claims",
    "resolve_ref",
    "rows_for_ids",
    "select",
]

NODE_KINDS = ("claim", "citation", "unit", "revision", "source")
LINEAGE_RELATIONS = ("derived_from", "quotes", "implements")
SOURCE_RELATIONS = (*LINEAGE_RELATIONS, "supersedes")
EDGE_KINDS = ("cites", "points_to", "in", "of", "revision_of", "contradicted_by", *SOURCE_RELATIONS)
AUDIENCES = ("public", "internal")
MAX_LINEAGE_LEVELS = 64
# Up to this many ids go into an IN list (DuckDB answers it from the ART index); more are joined
# through a registered Arrow view.
IN_LIST_LIMIT = 256
_view_counter = itertools.count()


def node_id(kind: str, ref: str) -> str:
    """The graph node id of a record: ``kind:ref`` (unit and revision ids could otherwise collide)."""
    return f"{kind}:{ref}"


def claim_node(claim_id: str) -> str:
    """Node id of a claim, accepting either the raw claim id or the node id."""
    return claim_id if claim_id.startswith("claim:") else node_id("claim", claim_id)


def edges_out(G: nx.MultiDiGraph, node: str, *, data: bool = False) -> list[tuple[Any, ...]]:
    """``G.out_edges(node, keys=True[, data=True])`` for one node, read straight from the adjacency.

    networkx's edge views cost tens of microseconds per call; a support chain makes hundreds of them.
    """
    if data:
        return [(node, v, k, d) for v, kd in G.succ[node].items() for k, d in kd.items()]
    return [(node, v, k) for v, kd in G.succ[node].items() for k in kd]


def edges_in(G: nx.MultiDiGraph, node: str) -> list[tuple[str, str, str]]:
    """``G.in_edges(node, keys=True)`` for one node, read straight from the adjacency."""
    return [(u, node, k) for u, kd in G.pred[node].items() for k in kd]


def check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise GraphciteError(f"unknown audience {audience!r}", where="--audience", fix="use public or internal")


# ----------------------------------------------------------------------------------------------
# id filters
# ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def ids_filter(store: Store, column: str, ids: Iterable[str]) -> Iterator[tuple[str, list[Any]]]:
    """A ``column IN (...)`` SQL fragment and its parameters for a set of ids."""
    values = sorted(set(ids))
    if not values:
        yield "FALSE", []
        return
    if len(values) <= IN_LIST_LIMIT:
        yield f"{column} IN ({', '.join('?' * len(values))})", values
        return
    view = store.with_ids(f"_gc_graph_ids_{next(_view_counter)}", values)
    try:
        yield f"{column} IN (SELECT id FROM {view})", []
    finally:
        with contextlib.suppress(Exception):
            store.con.unregister(view)


def rows_for_ids(store: Store, sql: str, column: str, ids: Iterable[str],
              params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Run ``sql`` filtered to ``ids``: each ``{ids}`` placeholder becomes ``column IN (...)``.

    No ids, no query: the result is empty.
    """
    ids = list(ids)
    if not ids:
        return []
    with ids_filter(store, column, ids) as (fragment, values):
        return store.rows(sql.replace("{ids}", fragment), [*params, *(values * sql.count("{ids}"))])


# ----------------------------------------------------------------------------------------------
# selection
# ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Selection:
    """What a question is about: parent claim ids in answer order, plus the answer when there is one."""

    kind: str  # claim, answer, source, all
    claim_ids: list[str]
    answer_rev: str | None = None
    answer_id: str | None = None
    source_key: str | None = None


def resolve_ref(store: Store, ref: str) -> Selection:
    """A claim id (parent or atomic part), an answer revision or an answer id (its latest revision)."""
    ref = ref.strip()
    row = store.row("SELECT claim_id, parent_id, part FROM claim WHERE claim_id = ?", [ref])
    if row is not None:
        return Selection("claim", [row["parent_id"] if row["part"] is not None else row["claim_id"]])
    answer = store.row("SELECT answer_rev, answer_id FROM answer WHERE answer_rev = ?", [ref]) or store.row(
        "SELECT answer_rev, answer_id FROM answer WHERE answer_id = ? ORDER BY stored_at DESC, answer_rev LIMIT 1",
        [ref])
    if answer is not None:
        ids = [r["claim_id"] for r in store.rows(
            "SELECT claim_id FROM claim WHERE answer_rev = ? AND part IS NULL ORDER BY ordinal",
            [answer["answer_rev"]])]
        return Selection("answer", ids, answer["answer_rev"], answer["answer_id"])
    raise NotFoundError(f"no claim or answer {ref!r}", where="ID",
                        fix="take a claim_id from `graphcite check --json` or an answer id from `graphcite answers`")


def resolve_claims(store: Store, refs: Iterable[str]) -> list[str]:
    """Parent claim ids for claim ids (atomic parts map to their parent), in the given order; one query."""
    wanted = list(dict.fromkeys(r.strip() for r in refs))
    found = {r["claim_id"]: r["parent_id"] or r["claim_id"] for r in rows_for_ids(
        store, "SELECT claim_id, parent_id FROM claim WHERE {ids}", "claim_id", wanted)}
    missing = [r for r in wanted if r not in found]
    if missing:
        raise NotFoundError(f"no claim {missing[0]!r}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
                            where="CLAIM", fix="take a claim_id from `graphcite check --json`")
    return list(dict.fromkeys(found[r] for r in wanted))


def select(store: Store, *, claim: str | None = None, answer: str | None = None, source: str | None = None,
           all: bool = False) -> Selection:
    """Exactly one of claim, answer, source or all, resolved to parent claim ids."""
    given = [name for name, value in (("--claim", claim), ("--answer", answer), ("--source", source),
                                      ("--all", all)) if value]
    if len(given) != 1:
        raise GraphciteError("choose exactly one of --claim, --answer or --all" if not given
                             else f"{' and '.join(given)} cannot be combined", where="selection",
                             fix="pass one of --claim ID, --answer ID or --all")
    if claim:
        try:
            selection = resolve_ref(store, claim)
        except NotFoundError:
            selection = Selection("none", [])
        if selection.kind != "claim":
            raise NotFoundError(f"no claim {claim!r}", where="--claim",
                                fix="take a claim_id from `graphcite check --json`; use --answer for answers")
        return selection
    if answer:
        try:
            selection = resolve_ref(store, answer)
        except NotFoundError:
            selection = Selection("none", [])
        if selection.kind != "answer":
            raise NotFoundError(f"no answer {answer!r}", where="--answer",
                                fix="run `graphcite answers` to list stored answers; use --claim for claims")
        return selection
    if source:
        return _source_selection(store, source)
    ids = [r["claim_id"] for r in store.rows(
        "SELECT claim_id FROM claim WHERE part IS NULL ORDER BY answer_rev, ordinal")]
    return Selection("all", ids)


def _source_selection(store: Store, key: str) -> Selection:
    if store.scalar("SELECT count(*) FROM source WHERE key = ?", [key]) == 0:
        raise NotFoundError(f"no source {key!r}", where="SOURCE", fix="run `graphcite sources` to list the keys")
    revisions = [r["revision_id"] for r in store.rows(
        "SELECT revision_id FROM source_revision WHERE source_key = ?", [key])]
    ids = {r["claim_id"] for r in store.rows(
        "SELECT DISTINCT c.claim_id FROM citation c JOIN claim k ON k.claim_id = c.claim_id "
        "WHERE c.source_key = ? AND k.part IS NULL", [key])}
    with ids_filter(store, "r.rev", revisions) as (fragment, values):
        ids |= {r["claim_id"] for r in store.rows(f"""
            SELECT DISTINCT v.claim_id
            FROM verification v, unnest(CAST(json(v.evidence_revisions_json) AS VARCHAR[])) AS r(rev)
            WHERE {fragment}""", values)}
    return Selection("source", sorted(ids), source_key=key)


# ----------------------------------------------------------------------------------------------
# fetching
# ----------------------------------------------------------------------------------------------


def latest_verifications(store: Store, claim_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The latest verification record of each claim (records are appended; the newest one counts)."""
    rows = rows_for_ids(store, """
        SELECT claim_id, record_id, answer_rev, status, supported, result_json, config_hash,
               CAST(verified_at AS VARCHAR) AS verified_at
        FROM verification WHERE {ids}
        QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY verified_at DESC, rowid DESC) = 1""",
                     "claim_id", claim_ids)
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        row["report"] = json.loads(row.pop("result_json"))
        out[row["claim_id"]] = row
    return out


@dataclass(slots=True)
class Fetched:
    """Everything the graph of a selection needs, fetched in bulk."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    given_citations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    units: dict[str, dict[str, Any]] = field(default_factory=dict)
    revisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[dict[str, str]] = field(default_factory=list)
    dangling: list[dict[str, str]] = field(default_factory=list)
    truncated: bool = False


def fetch(store: Store, selection: Selection) -> Fetched:
    """The rows the graph of ``selection`` is built from: claims, latest verdicts, units, sources, lineage."""
    got = Fetched()
    ids = selection.claim_ids
    got.claims = rows_for_ids(store, """
        SELECT c.claim_id, c.answer_rev, c.ordinal, c.text, c.claim_type, a.answer_id
        FROM claim c LEFT JOIN answer a ON a.answer_rev = c.answer_rev
        WHERE {ids} AND c.part IS NULL ORDER BY c.answer_rev, c.ordinal""", "c.claim_id", ids)
    got.verdicts = latest_verifications(store, ids)
    unverified = [c["claim_id"] for c in got.claims if c["claim_id"] not in got.verdicts]
    for row in rows_for_ids(store, "SELECT * FROM citation WHERE {ids} ORDER BY claim_id, ordinal",
                         "claim_id", unverified):
        got.given_citations.setdefault(row["claim_id"], []).append(row)
    unit_ids: set[str] = set()
    revision_ids: set[str] = set()
    keys: set[str] = set()
    for verdict in got.verdicts.values():
        report = verdict["report"]
        for cit in report.get("citations", []):
            unit_ids.update([cit["unit_id"]] if cit.get("unit_id") else [])
            revision_ids.update([cit["revision"]] if cit.get("revision") else [])
            keys.update([cit["source"]] if cit.get("source") else [])
        for item in report.get("contradicting_evidence", []):
            unit_ids.add(item["unit_id"])
    for cits in got.given_citations.values():
        for cit in cits:
            unit_ids.update([cit["chunk_id"]] if cit.get("chunk_id") else [])
            keys.update([cit["source_key"]] if cit.get("source_key") else [])
    if selection.source_key:
        keys.add(selection.source_key)
    for row in rows_for_ids(store, """
            SELECT unit_id, revision_id, source_key, ordinal, start, "end", text, block_type, heading_path_json,
                   status, page, symbol
            FROM evidence_unit WHERE {ids}""", "unit_id", unit_ids):
        got.units[row["unit_id"]] = row
        keys.add(row["source_key"])
    revision_ids -= {u["revision_id"] for u in got.units.values()}
    for row in rows_for_ids(store, "SELECT DISTINCT source_key FROM source_revision WHERE {ids}",
                         "revision_id", revision_ids):
        keys.add(row["source_key"])
    _fetch_lineage(store, got, keys, downstream=selection.source_key)
    return got


_SOURCE_SQL = """
    SELECT s.key, s.title, s.kind, s.visibility, s.current_revision, r.status, CAST(r.effective AS VARCHAR) AS effective
    FROM source s JOIN source_revision r ON r.revision_id = s.current_revision WHERE {ids}"""
_LINKS_SQL = """
    SELECT DISTINCT l.from_key, l.to_key, l.relation
    FROM source_link l
    JOIN source_revision r ON r.revision_id = l.declared_in
    JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
    WHERE {ids} AND l.relation IN ('derived_from', 'quotes', 'implements', 'supersedes')"""


_CURRENT_LINKS_CTE = """
    cur AS (
        SELECT DISTINCT l.from_key, l.to_key, l.relation
        FROM source_link l
        JOIN source_revision r ON r.revision_id = l.declared_in
        JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
        WHERE l.relation IN ('derived_from', 'quotes', 'implements', 'supersedes'))"""

# One query for the whole upward closure. UNION (not UNION ALL) gives the recursion set semantics, so
# a key reached twice adds no row and a cycle ends the recursion instead of looping.
_CLOSURE_SQL = f"""
    WITH RECURSIVE {_CURRENT_LINKS_CTE},
    up(key) AS (
        SELECT unnest(CAST(? AS VARCHAR[]))
        UNION
        SELECT c.to_key FROM up JOIN cur c ON c.from_key = up.key
        WHERE c.relation IN ('derived_from', 'quotes', 'implements'))
    SELECT c.from_key, c.to_key, c.relation FROM cur c
    WHERE c.from_key IN (SELECT key FROM up)
       OR (c.relation = 'supersedes' AND c.to_key IN (SELECT key FROM up))
       OR c.to_key = ?
    ORDER BY 1, 2, 3"""

# "recursive" (one recursive CTE) or "iterative" (one round of IN-list queries per lineage level);
# both stop on cycles. The benchmark compares them.
LINEAGE_QUERY = "recursive"


def _lineage_links_recursive(store: Store, start: set[str], downstream: str | None) -> set[tuple[str, str, str]]:
    rows = store.con.execute(_CLOSURE_SQL, [sorted(start), downstream or "\0"]).fetchall()
    return {(f, t, r) for f, t, r in rows}


def _lineage_links_iterative(store: Store, start: set[str], downstream: str | None,
                             got: Fetched) -> set[tuple[str, str, str]]:
    visited: set[str] = set()
    frontier = set(start)
    links: set[tuple[str, str, str]] = set()
    level = 0
    while frontier:
        if level >= MAX_LINEAGE_LEVELS:
            got.truncated = True
            break
        level += 1
        visited |= frontier
        found = rows_for_ids(store, _LINKS_SQL, "l.from_key", frontier)
        found += [r for r in rows_for_ids(store, _LINKS_SQL, "l.to_key", frontier) if r["relation"] == "supersedes"]
        following: set[str] = set()
        for row in found:
            links.add((row["from_key"], row["to_key"], row["relation"]))
            if row["relation"] in LINEAGE_RELATIONS and row["from_key"] in frontier:
                following.add(row["to_key"])
        frontier = following - visited
    if downstream:
        for row in rows_for_ids(store, _LINKS_SQL, "l.to_key", [downstream]):
            links.add((row["from_key"], row["to_key"], row["relation"]))
    return links


def _fetch_lineage(store: Store, got: Fetched, start: set[str], *, downstream: str | None = None) -> None:
    """Sources, revisions and links in force upward from ``start``; every key is visited once."""
    if not start:
        links: set[tuple[str, str, str]] = set()
    elif LINEAGE_QUERY == "recursive":
        links = _lineage_links_recursive(store, start, downstream)
    else:
        links = _lineage_links_iterative(store, start, downstream, got)
    keys = set(start) | {k for link in links for k in link[:2]}
    for row in rows_for_ids(store, _SOURCE_SQL, "s.key", keys):
        got.sources[row["key"]] = row
    got.links = [{"from_key": f, "to_key": t, "relation": r} for f, t, r in sorted(links)]
    got.dangling = [link for link in got.links
                    if link["from_key"] not in got.sources or link["to_key"] not in got.sources]
    for row in rows_for_ids(store, """
            SELECT revision_id, source_key, seq, status, CAST(effective AS VARCHAR) AS effective, visibility,
                   previous_revision, title
            FROM source_revision WHERE {ids} ORDER BY source_key, seq""", "source_key", got.sources):
        got.revisions[row["revision_id"]] = row


# ----------------------------------------------------------------------------------------------
# redaction
# ----------------------------------------------------------------------------------------------


class Redactor:
    """Placeholders for restricted sources, revisions and units (public audience); identity otherwise.

    Placeholders are numbered in sorted order so the same store gives the same names; ``scrub``
    replaces any restricted identifier that appears inside a free-text string (finding details).
    """

    def __init__(self, restricted_keys: Iterable[str] = (), restricted_revisions: Iterable[str] = (),
                 restricted_units: Iterable[str] = (), titles: Iterable[str] = ()) -> None:
        self.keys = {k: f"restricted-source-{i}" for i, k in enumerate(sorted(set(restricted_keys)), 1)}
        self.revisions = {r: f"restricted-revision-{i}" for i, r in enumerate(sorted(set(restricted_revisions)), 1)}
        self.units = {u: f"restricted-unit-{i}" for i, u in enumerate(sorted(set(restricted_units)), 1)}
        self.titles = sorted({t for t in titles if t and len(t) > 3}, key=len, reverse=True)
        mapping = {**self.keys, **self.revisions, **self.units}
        mapping.update({t: "[restricted]" for t in self.titles})
        self._mapping = mapping
        self._pattern = (re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))
                         if mapping else None)

    @property
    def active(self) -> bool:
        return bool(self.keys or self.revisions or self.units)

    def key(self, key: str | None) -> str | None:
        return self.keys.get(key, key) if key else key

    def revision(self, revision: str | None) -> str | None:
        return self.revisions.get(revision, revision) if revision else revision

    def unit(self, unit_id: str | None) -> str | None:
        return self.units.get(unit_id, unit_id) if unit_id else unit_id

    def is_restricted(self, *, key: str | None = None, revision: str | None = None, unit: str | None = None) -> bool:
        return bool((key and key in self.keys) or (revision and revision in self.revisions)
                    or (unit and unit in self.units))

    def scrub(self, text: Any) -> Any:
        """Replace restricted identifiers and titles inside a string; other values unchanged."""
        if not isinstance(text, str) or self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self._mapping[m.group(0)], text)


def redactor_for(got: Fetched, audience: str) -> Redactor:
    """The redactor for an audience: restricted sources, their revisions and units for ``public``."""
    if audience != "public":
        return Redactor()
    revisions_by_key: dict[str, list[str]] = {}
    for rev in got.revisions.values():
        revisions_by_key.setdefault(rev["source_key"], []).append(rev["revision_id"])
    keys = {k for k, s in got.sources.items() if s["visibility"] == "restricted"}
    keys |= {r["source_key"] for r in got.revisions.values() if r["visibility"] == "restricted"}
    revisions = {r for k in keys for r in revisions_by_key.get(k, [])}
    units = {u for u, row in got.units.items() if row["source_key"] in keys}
    titles = {got.sources[k]["title"] for k in keys if k in got.sources}
    titles |= {r["title"] for r in got.revisions.values() if r["source_key"] in keys}
    return Redactor(keys, revisions, units, titles)


# ----------------------------------------------------------------------------------------------
# graph
# ----------------------------------------------------------------------------------------------


def _short_findings(findings: Sequence[Mapping[str, Any]]) -> str:
    failed = [f for f in findings if f.get("outcome") == "fail"]
    return "; ".join(f"{f['code']} {f['rule']}" + (f": {f['detail']}" if f.get("detail") else "")
                     for f in failed)


def _heading(path: Any) -> str:
    if isinstance(path, str):
        path = json.loads(path or "[]")
    return " > ".join(path or [])


def build_graph(store: Store, *, claims: Iterable[str] | None = None, answer: str | None = None,
                source: str | None = None, all: bool = False, audience: str = "internal",
                selection: Selection | None = None) -> nx.MultiDiGraph:
    """The evidence graph of some claims, an answer, a source's neighbourhood, or every claim (``all``)."""
    check_audience(audience)
    if selection is None:
        if claims is not None:
            selection = Selection("claims", resolve_claims(store, claims))
        else:
            selection = select(store, answer=answer, source=source, all=all)
    got = fetch(store, selection)
    return _assemble(got, selection, redactor_for(got, audience), audience)


def _assemble(got: Fetched, selection: Selection, red: Redactor, audience: str) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph(audience=audience, selection=selection.kind, answer_rev=selection.answer_rev or "",
                        answer_id=selection.answer_id or "", source_key=red.key(selection.source_key) or "")
    G.graph["claim_order"] = [c["claim_id"] for c in got.claims]
    for key, row in got.sources.items():
        restricted = red.is_restricted(key=key)
        G.add_node(node_id("source", red.key(key) or key), kind="source", key=red.key(key),
                   title=None if restricted else row["title"], source_kind=row["kind"],
                   visibility=row["visibility"] if not restricted else "restricted", status=row["status"],
                   effective=row["effective"], current_revision=red.revision(row["current_revision"]),
                   missing=False, restricted=restricted, label=red.key(key))
    for link in got.links:
        for end in (link["from_key"], link["to_key"]):
            if end not in got.sources:
                G.add_node(node_id("source", end), kind="source", key=end, title=None, source_kind=None,
                           visibility=None, status=None, effective=None, current_revision=None, missing=True,
                           restricted=False, label=end)
        G.add_edge(node_id("source", red.key(link["from_key"]) or ""), node_id("source", red.key(link["to_key"]) or ""),
                   key=link["relation"], kind=link["relation"])
    current = {row["current_revision"] for row in got.sources.values()}
    for rev_id, row in got.revisions.items():
        rid = red.revision(rev_id) or rev_id
        G.add_node(node_id("revision", rid), kind="revision", revision_id=rid, source_key=red.key(row["source_key"]),
                   seq=row["seq"], status=row["status"], effective=row["effective"], current=rev_id in current,
                   visibility=row["visibility"], restricted=red.is_restricted(revision=rev_id),
                   label=f"{red.key(row['source_key'])}@{row['seq']}")
        G.add_edge(node_id("revision", rid), node_id("source", red.key(row["source_key"]) or ""), key="of", kind="of")
    for rev_id, row in got.revisions.items():
        previous = row["previous_revision"]
        if previous and previous in got.revisions:
            G.add_edge(node_id("revision", red.revision(rev_id) or rev_id),
                       node_id("revision", red.revision(previous) or previous), key="revision_of", kind="revision_of")
    for unit_id, row in got.units.items():
        restricted = red.is_restricted(unit=unit_id)
        uid = red.unit(unit_id) or unit_id
        G.add_node(node_id("unit", uid), kind="unit", unit_id=uid, source_key=red.key(row["source_key"]),
                   revision_id=red.revision(row["revision_id"]), text=None if restricted else row["text"],
                   heading_path=None if restricted else _heading(row["heading_path_json"]), status=row["status"],
                   page=None if restricted else row["page"], symbol=None if restricted else row["symbol"],
                   start=None if restricted else row["start"], end=None if restricted else row["end"],
                   block_type=row["block_type"], ordinal=row["ordinal"], restricted=restricted,
                   label=f"{red.key(row['source_key'])}#{row['ordinal']}")
        G.add_edge(node_id("unit", uid), node_id("revision", red.revision(row["revision_id"]) or ""), key="in",
                   kind="in")
    for claim in got.claims:
        _add_claim(G, claim, got, red)
    G.graph["dangling"] = [{k: red.key(v) if k != "relation" else v for k, v in link.items()}
                           for link in got.dangling]
    G.graph["cycles"] = lineage_cycles(G)
    G.graph["truncated"] = got.truncated
    for n, data in G.nodes(data=True):
        if data["kind"] == "source":
            data["primary"] = not data["missing"] and not any(
                k in LINEAGE_RELATIONS for _, _, k in edges_out(G, n))
    return G


def _add_claim(G: nx.MultiDiGraph, claim: Mapping[str, Any], got: Fetched, red: Redactor) -> None:
    claim_id = claim["claim_id"]
    verdict = got.verdicts.get(claim_id)
    report = verdict["report"] if verdict else {}
    cnode = node_id("claim", claim_id)
    parts = [{"text": p["text"], "status": p["status"]} for p in report.get("parts", [])]
    G.add_node(cnode, kind="claim", claim_id=claim_id, text=claim["text"], answer_rev=claim["answer_rev"],
               answer_id=claim["answer_id"], ordinal=claim["ordinal"], claim_type=claim["claim_type"],
               status=verdict["status"] if verdict else "unverified",
               supported=bool(verdict["supported"]) if verdict else False,
               verified_at=verdict["verified_at"] if verdict else None,
               config_hash=verdict["config_hash"] if verdict else None,
               note=report.get("note"), parts=parts, relies_on_restricted=False, restricted_citations=0,
               label=claim["text"][:60])
    citations = report.get("citations") if verdict else None
    if citations is None:
        citations = [{"index": c["ordinal"], "source": c["source_key"], "revision": c["revision"],
                      "unit_id": c["chunk_id"] if c["chunk_id"] in got.units else None, "start": c["start"],
                      "end": c["end"], "quote": c["quote"], "page": c["page"], "role": c["role"], "valid": None,
                      "relation": "unchecked", "support_score": None, "findings": [], "symbol": None,
                      "heading_path": [], "unit_status": None}
                     for c in got.given_citations.get(claim_id, [])]
    restricted_count = 0
    for cit in citations:
        unit_id = cit.get("unit_id")
        key = cit.get("source") or (got.units[unit_id]["source_key"] if unit_id in got.units else None)
        restricted = red.is_restricted(key=key, revision=cit.get("revision"), unit=unit_id)
        restricted_count += restricted
        findings = cit.get("findings") or []
        if restricted:
            findings = [{"code": f["code"], "rule": f["rule"], "outcome": f["outcome"], "detail": ""} for f in findings]
        else:
            findings = [{**f, "detail": red.scrub(f.get("detail") or "")} for f in findings]
        nid = node_id("citation", f"{claim_id}-{cit['index']}")
        G.add_node(nid, kind="citation", claim_id=claim_id, index=cit["index"], relation=cit.get("relation"),
                   role=cit.get("role"), valid=cit.get("valid"), support_score=cit.get("support_score"),
                   findings=_short_findings(findings), findings_list=findings, source=red.key(key),
                   revision=red.revision(cit.get("revision")), unit_id=red.unit(unit_id),
                   quote=None if restricted else cit.get("quote"),
                   start=None if restricted else cit.get("start"), end=None if restricted else cit.get("end"),
                   page=None if restricted else cit.get("page"), symbol=None if restricted else cit.get("symbol"),
                   heading_path=None if restricted else _heading(cit.get("heading_path") or []),
                   unit_status=cit.get("unit_status"), restricted=restricted,
                   label=f"[{cit['index'] + 1}] {cit.get('relation')}")
        G.add_edge(cnode, nid, key="cites", kind="cites")
        target = None
        if unit_id and unit_id in got.units:
            target = node_id("unit", red.unit(unit_id) or unit_id)
        elif cit.get("revision") and cit["revision"] in got.revisions:
            target = node_id("revision", red.revision(cit["revision"]) or cit["revision"])
        elif key and key in got.sources:
            target = node_id("source", red.key(key) or key)
        if target:
            G.add_edge(nid, target, key="points_to", kind="points_to", relation=cit.get("relation"),
                       valid=cit.get("valid"))
    for item in report.get("contradicting_evidence", []):
        unit_id = item["unit_id"]
        if unit_id not in got.units:
            continue
        restricted = red.is_restricted(unit=unit_id)
        restricted_count += restricted
        G.add_edge(cnode, node_id("unit", red.unit(unit_id) or unit_id), key="contradicted_by",
                   kind="contradicted_by", status=item.get("status"),
                   reason=None if restricted else red.scrub(item.get("reason")),
                   superseded_by=red.key(item.get("superseded_by")))
    G.nodes[cnode]["restricted_citations"] = restricted_count
    G.nodes[cnode]["relies_on_restricted"] = restricted_count > 0


def lineage_cycles(G: nx.MultiDiGraph) -> list[list[str]]:
    """Source keys of every cycle in the lineage (derived_from, quotes, implements), sorted."""
    sub = nx.DiGraph()
    for u, v, k in G.edges(keys=True):
        if k in LINEAGE_RELATIONS:
            sub.add_edge(u, v)
    cycles = []
    for component in nx.strongly_connected_components(sub):
        if len(component) > 1 or any(sub.has_edge(n, n) for n in component):
            cycles.append(sorted(G.nodes[n]["key"] for n in component))
    return sorted(cycles)
