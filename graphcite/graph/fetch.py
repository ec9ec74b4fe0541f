"""Selections and bulk reads: everything the evidence graph of a question needs, in a few queries.

A question names a claim, an answer, a source or the whole store; :func:`select` turns it into parent
claim ids and :func:`fetch` reads their latest verification records, the cited and contradicting
units, the sources above them and every revision of those sources. Few ids go into ``IN`` lists
(DuckDB answers them from its ART indexes), many through a registered Arrow view.

Lineage is followed upward from the cited sources with one recursive CTE whose UNION (set semantics)
ends the recursion when a cycle brings back a key it has seen, so cycles are never looped on; the
alternative walk, one index-driven query per lineage level with a visited set, gives the same links
(a test checks both against networkx) and is kept for comparison in the benchmark. A link counts
only while the revision that declared it is the current revision of its declaring source (always one
of the link's two ends); that check and the final closure are done in Python over the fetched links.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphcite.errors import InputError, NotFoundError
from graphcite.store import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL, newest_per_claim_sql

__all__ = [
    "IN_LIST_LIMIT",
    "LINEAGE_RELATIONS",
    "MAX_LINEAGE_LEVELS",
    "SOURCE_RELATIONS",
    "Fetched",
    "RestrictedSet",
    "Selection",
    "fetch",
    "ids_filter",
    "latest_verifications",
    "resolve_claims",
    "resolve_ref",
    "restricted_set",
    "rows_for_ids",
    "select",
]

LINEAGE_RELATIONS = ("derived_from", "quotes", "implements")
SOURCE_RELATIONS = (*LINEAGE_RELATIONS, "supersedes")
MAX_LINEAGE_LEVELS = 64
# Up to this many ids go into an IN list (DuckDB answers it from the ART index); more are joined
# through a registered Arrow view.
IN_LIST_LIMIT = 256
_view_counter = itertools.count()


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
    # one list parameter: registering an Arrow view costs ~30 ms per call in DuckDB 2, unnest ~1 ms
    yield f"{column} IN (SELECT unnest(?::VARCHAR[]))", [values]


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
        raise InputError("choose exactly one of --claim, --answer or --all" if not given
                             else f"{' and '.join(given)} cannot be combined", where="selection",
                             fix="pass one of --claim ID, --answer ID or --all", code="E106")
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
    rows = rows_for_ids(store, f"""
        SELECT claim_id, record_id, answer_rev, status, supported, result_json, config_hash,
               CAST(verified_at AS VARCHAR) AS verified_at
        FROM ({newest_per_claim_sql("{ids}")}) v
        WHERE newest = 1""",
                     "claim_id", claim_ids)
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        row["report"] = json.loads(row.pop("result_json"))
        out[row["claim_id"]] = row
    return out


@dataclass(slots=True)
class RestrictedSet:
    """Every restricted source of the store with its revisions and units (their ids and titles).

    A source counts as restricted when its current visibility is restricted or when any of its
    revisions was: the more restrictive reading wins, also for records made before a change.
    """

    keys: dict[str, str | None] = field(default_factory=dict)  # key -> title
    revisions: dict[str, str | None] = field(default_factory=dict)  # revision id -> title
    units: set[str] = field(default_factory=set)


def restricted_set(store: Store) -> RestrictedSet:
    """The store's restricted sources, revisions and units, in three queries (empty stores: one)."""
    found = RestrictedSet()
    keys = store.rows(f"""SELECT k.key, s.title FROM ({RESTRICTED_KEYS_SQL}) k LEFT JOIN source s ON s.key = k.key
                          ORDER BY k.key""")
    if not keys:
        return found
    found.keys = {r["key"]: r["title"] for r in keys}
    found.revisions = {r["revision_id"]: r["title"] for r in store.rows(
        f"SELECT revision_id, title FROM source_revision WHERE source_key IN ({RESTRICTED_KEYS_SQL})")}
    found.units = {r["unit_id"] for r in store.rows(
        f"SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})")}
    return found


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
    restricted: RestrictedSet | None = None  # filled for the public audience


def fetch(store: Store, selection: Selection, *, audience: str = "internal") -> Fetched:
    """The rows the graph of ``selection`` is built from: claims, latest verdicts, units, sources, lineage.

    For the public audience the store's restricted sources are read too (:func:`restricted_set`) and
    every link a restricted revision declares is left out, so a restricted document's own lineage
    (``derived_from: hidden-upstream.md``) is never walked or shown.
    """
    got = Fetched(restricted=restricted_set(store) if audience == "public" else None)
    ids = selection.claim_ids
    got.claims = rows_for_ids(store, """
        SELECT claim_id, answer_rev, ordinal, text, claim_type FROM claim
        WHERE {ids} AND part IS NULL ORDER BY answer_rev, ordinal""", "claim_id", ids)
    answer_ids = {r["answer_rev"]: r["answer_id"] for r in rows_for_ids(
        store, "SELECT answer_rev, answer_id FROM answer WHERE {ids}", "answer_rev",
        {c["answer_rev"] for c in got.claims})}
    for claim in got.claims:
        claim["answer_id"] = answer_ids.get(claim["answer_rev"])
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


_SOURCES_SQL = "SELECT key, title, kind, visibility, current_revision FROM source WHERE {ids}"
# the links a level of keys declares or receives: outgoing lineage and supersession, incoming supersession
_LEVEL_SQL = """
    SELECT from_key, to_key, relation, declared_in FROM source_link
    WHERE {ids} AND relation IN ('derived_from', 'quotes', 'implements', 'supersedes')
    UNION ALL
    SELECT from_key, to_key, relation, declared_in FROM source_link
    WHERE {ids} AND relation = 'supersedes'"""
_INTO_SQL = """
    SELECT from_key, to_key, relation, declared_in FROM source_link
    WHERE {ids} AND relation IN ('derived_from', 'quotes', 'implements', 'supersedes')"""

# The walk as one recursive CTE (UNION gives set semantics, so a cycle adds no row and ends the
# recursion). It scans the link table at each level where the level-by-level walk uses the indexes,
# but it is one round trip instead of one per level: faster on the 10k and 100k benchmark stores.
_CLOSURE_SQL = """
    WITH RECURSIVE up(key) AS (
        SELECT unnest(CAST(? AS VARCHAR[]))
        UNION
        SELECT l.to_key FROM up JOIN source_link l ON l.from_key = up.key
        WHERE l.relation IN ('derived_from', 'quotes', 'implements'))
    SELECT from_key, to_key, relation, declared_in FROM source_link
    WHERE relation IN ('derived_from', 'quotes', 'implements', 'supersedes')
      AND (from_key IN (SELECT key FROM up) OR (relation = 'supersedes' AND to_key IN (SELECT key FROM up))
           OR to_key = ?)"""

# "recursive" (one recursive CTE, the default) or "levels" (index-driven, one query per lineage level).
LINEAGE_QUERY = "recursive"


def _walk_levels(store: Store, got: Fetched, start: set[str], downstream: str | None) -> list[dict[str, Any]]:
    """Every link declared by or about the keys reachable from ``start`` (in force or not)."""
    found: list[dict[str, Any]] = []
    visited: set[str] = set()
    frontier = set(start)
    if downstream:
        found += rows_for_ids(store, _INTO_SQL, "to_key", [downstream])
    level = 0
    while frontier:
        if level >= MAX_LINEAGE_LEVELS:
            got.truncated = True
            break
        level += 1
        visited |= frontier
        with ids_filter(store, "from_key", frontier) as (out_sql, out_values), \
                ids_filter(store, "to_key", frontier) as (in_sql, in_values):
            sql = _LEVEL_SQL.replace("{ids}", out_sql, 1).replace("{ids}", in_sql, 1)
            rows = store.rows(sql, [*out_values, *in_values])
        found += rows
        frontier = {r["to_key"] for r in rows if r["relation"] in LINEAGE_RELATIONS and r["from_key"] in frontier}
        frontier -= visited
    return found


def _walk_recursive(store: Store, got: Fetched, start: set[str], downstream: str | None) -> list[dict[str, Any]]:
    # "" names no source (keys are paths); a NULL parameter would slow DuckDB's plan down threefold
    return store.rows(_CLOSURE_SQL, [sorted(start), downstream or ""])


def _in_force(found: list[dict[str, Any]], start: set[str], sources: dict[str, dict[str, Any]],
              downstream: str | None) -> set[tuple[str, str, str]]:
    """The links in force (declared by the current revision of one of their ends), walked again from ``start``.

    The walk in SQL follows every declared link; a link whose declaring revision is no longer current
    must neither count nor lead anywhere, so the closure is recomputed here over links in force.
    """
    current = {row["current_revision"] for row in sources.values()}
    valid = {(r["from_key"], r["to_key"], r["relation"]) for r in found if r["declared_in"] in current}
    parents: dict[str, set[str]] = {}
    for f, t, r in valid:
        if r in LINEAGE_RELATIONS:
            parents.setdefault(f, set()).add(t)
    reach, stack = set(start), list(start)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in reach:
                reach.add(parent)
                stack.append(parent)
    return {(f, t, r) for f, t, r in valid
            if f in reach or (r == "supersedes" and t in reach) or (downstream is not None and t == downstream)}


def _fetch_lineage(store: Store, got: Fetched, start: set[str], *, downstream: str | None = None) -> None:
    """Sources, revisions and links in force upward from ``start``; every key is visited once."""
    walk = _walk_recursive if LINEAGE_QUERY == "recursive" else _walk_levels
    found = walk(store, got, set(start), downstream) if start else []
    if got.restricted is not None and got.restricted.revisions:
        found = [r for r in found if r["declared_in"] not in got.restricted.revisions]
    keys = set(start) | {k for r in found for k in (r["from_key"], r["to_key"])}
    for row in rows_for_ids(store, _SOURCES_SQL, "key", keys - set(got.sources)):
        got.sources[row["key"]] = row
    links = _in_force(found, set(start), got.sources, downstream)
    unreached = set(got.sources) - set(start) - {k for link in links for k in link[:2]}
    for key in unreached:  # reached only through links no longer in force
        del got.sources[key]
    got.links = [{"from_key": f, "to_key": t, "relation": r} for f, t, r in sorted(links)]
    got.dangling = [link for link in got.links
                    if link["from_key"] not in got.sources or link["to_key"] not in got.sources]
    for row in rows_for_ids(store, """
            SELECT revision_id, source_key, seq, status, CAST(effective AS VARCHAR) AS effective, visibility,
                   previous_revision, title
            FROM source_revision WHERE {ids} ORDER BY source_key, seq""", "source_key", got.sources):
        got.revisions[row["revision_id"]] = row
    for source in got.sources.values():
        current = got.revisions.get(source["current_revision"], {})
        source["status"], source["effective"] = current.get("status"), current.get("effective")
