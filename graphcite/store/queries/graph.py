"""The graph stage's reads: what a question selects, and the rows its evidence graph is built from.

Every function takes the :class:`Store` first and runs on DuckDB and PostgreSQL alike. Sets of ids
reach SQL through :func:`ids_filter`: a few go into an ``IN`` list of placeholders, which both
engines answer from their indexes; many go in as one array parameter (``= ANY(?)``).

Point lookups keep the indexed column the only condition of their ``WHERE``: DuckDB 2 answers
``claim_id IN (?)`` from its ART index but falls back to a sequential scan of the whole table once
a second condition (``AND part IS NULL``) sits beside it, so such conditions are applied to the few
rows found (in an outer query or by the caller).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries import NEWEST_FIRST, RESTRICTED_KEYS_SQL

__all__ = [
    "IN_LIST_LIMIT",
    "REVISION_COLUMNS",
    "SOURCE_COLUMNS",
    "all_parent_claim_ids",
    "answer_claim_ids",
    "answer_ids_of",
    "claim_parents",
    "claim_ref",
    "claim_rows",
    "claims_about_source",
    "given_citations",
    "ids_filter",
    "latest_verification_rows",
    "links_from",
    "links_into",
    "newest_answer",
    "restricted_names",
    "restricted_revisions",
    "restricted_sources",
    "restricted_unit_ids",
    "revision_rows",
    "revision_source_keys",
    "rows_for_ids",
    "source_exists",
    "source_rows",
    "sources_of_ids",
    "unit_rows",
]

# ----------------------------------------------------------------------------------------------
# id filters
# ----------------------------------------------------------------------------------------------


#: Up to this many ids go into an ``IN`` list of placeholders; more become one array parameter.
IN_LIST_LIMIT = 256


@contextlib.contextmanager
def ids_filter(store: Store, column: str, ids: Iterable[str]) -> Iterator[tuple[str, list[Any]]]:
    """A ``column IN (...)`` SQL fragment and its parameters for a set of ids (``FALSE`` for none).

    A few ids go into an ``IN`` list (both engines answer it from their indexes; in DuckDB 2 it costs
    a little less CPU than an array parameter), many into one array parameter (``= ANY(?)``), which
    keeps the statement short to plan.
    """
    values = sorted(set(ids))
    if not values:
        yield "FALSE", []
        return
    if len(values) <= IN_LIST_LIMIT:
        yield f"{column} IN ({', '.join('?' * len(values))})", values
        return
    yield f"{column} = ANY(?::VARCHAR[])", [values]


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
# selection: references to claim ids
# ----------------------------------------------------------------------------------------------


def claim_ref(store: Store, claim_id: str, *, answer: bool = True) -> dict[str, Any] | None:
    """One claim (``parent_id`` and ``part`` say whether it is an atomic part) with its ``answer_id``, or None.

    Its other columns are those of :func:`claim_rows`, so a parent claim is read once; the answer id comes
    along in the same statement (both engines look the one answer revision up in its index). With
    ``answer`` false the row has no ``answer_id``: one index lookup instead of a join, which in DuckDB 2
    costs about 0.5 ms of CPU less at 1M claims (a support chain does not show the answer id).
    """
    if not answer:
        return store.row("SELECT claim_id, parent_id, part, answer_rev, ordinal, text, claim_type FROM claim "
                         "WHERE claim_id = ?", [claim_id])
    return store.row("""
        SELECT c.claim_id, c.parent_id, c.part, c.answer_rev, c.ordinal, c.text, c.claim_type, a.answer_id
        FROM claim c LEFT JOIN answer a ON a.answer_rev = c.answer_rev
        WHERE c.claim_id = ?""", [claim_id])


def newest_answer(store: Store, ref: str) -> dict[str, Any] | None:
    """``answer_rev`` and ``answer_id`` of an answer revision, or of an answer id's newest revision."""
    return store.row("SELECT answer_rev, answer_id FROM answer WHERE answer_rev = ?", [ref]) or store.row(
        "SELECT answer_rev, answer_id FROM answer WHERE answer_id = ? ORDER BY stored_at DESC, answer_rev LIMIT 1",
        [ref])


def answer_claim_ids(store: Store, answer_rev: str) -> list[str]:
    """The parent claim ids of one answer revision, in answer order."""
    rows = store.rows("SELECT claim_id, ordinal, part FROM claim WHERE answer_rev = ?", [answer_rev])
    return [r["claim_id"] for r in sorted((r for r in rows if r["part"] is None), key=lambda r: r["ordinal"])]


def claim_parents(store: Store, claim_ids: Iterable[str]) -> dict[str, str]:
    """claim id -> its parent claim id (itself for a parent) for every stored claim among ``claim_ids``."""
    return {r["claim_id"]: r["parent_id"] or r["claim_id"] for r in rows_for_ids(
        store, "SELECT claim_id, parent_id FROM claim WHERE {ids}", "claim_id", claim_ids)}


def all_parent_claim_ids(store: Store) -> list[str]:
    """Every parent claim id of the store, in answer order."""
    return [r["claim_id"] for r in store.rows(
        "SELECT claim_id FROM claim WHERE part IS NULL ORDER BY answer_rev, ordinal")]


def source_exists(store: Store, key: str) -> bool:
    return int(store.scalar("SELECT count(*) FROM source WHERE key = ?", [key]) or 0) > 0


def claims_about_source(store: Store, key: str) -> list[str]:
    """Parent claims that cite source ``key`` or were verified against one of its revisions, sorted."""
    revisions = [r["revision_id"] for r in store.rows(
        "SELECT revision_id FROM source_revision WHERE source_key = ?", [key])]
    ids = {r["claim_id"] for r in store.rows(
        "SELECT DISTINCT c.claim_id FROM citation c JOIN claim k ON k.claim_id = c.claim_id "
        "WHERE c.source_key = ? AND k.part IS NULL", [key])}
    revs = store.dialect.json_strings("v.evidence_revisions_json")
    with ids_filter(store, "r.rev", revisions) as (fragment, values):
        ids |= {r["claim_id"] for r in store.rows(f"""
            SELECT DISTINCT v.claim_id FROM verification v, {revs} AS r(rev)
            WHERE {fragment}""", values)}
    return sorted(ids)


# ----------------------------------------------------------------------------------------------
# the rows of a graph
# ----------------------------------------------------------------------------------------------


def latest_verification_rows(store: Store, claim_ids: Iterable[str], *, record: bool = True,
                             audience: str = "internal") -> list[dict[str, Any]]:
    """The newest verification record of each claim made for ``audience`` (``result_json`` still a string),
    unordered: a record made for another audience is never this audience's latest.

    The records come newest first and the first of each claim is kept here: in DuckDB 2 that costs
    less than a window function (1.75 against 2.15 ms of CPU per claim at 1M claims), and ordering by
    the claim too would cost about 0.15 ms more (DuckDB sorts on a key its ``IN`` list does not fix).
    ``record=False`` leaves out ``record_id`` and ``answer_rev``, which a graph does not show: each
    column is fetched from its own blocks, and the two cost about 0.3 ms of DuckDB CPU per chain at 1M claims.
    """
    extra = "record_id, answer_rev, " if record else ""
    newest: dict[str, dict[str, Any]] = {}
    for row in rows_for_ids(store, f"""
            SELECT claim_id, {extra}status, supported, result_json, config_hash,
                   CAST(verified_at AS VARCHAR) AS verified_at
            FROM verification WHERE audience = ? AND {{ids}} ORDER BY {NEWEST_FIRST}""", "claim_id", claim_ids,
            [audience]):
        newest.setdefault(row["claim_id"], row)
    return list(newest.values())


def restricted_sources(store: Store) -> list[dict[str, Any]]:
    """``key`` and ``title`` of every restricted source (itself or through a revision), by key."""
    return store.rows(f"""SELECT k.key, s.title FROM ({RESTRICTED_KEYS_SQL}) k LEFT JOIN source s ON s.key = k.key
                          ORDER BY k.key""")


def restricted_revisions(store: Store) -> list[dict[str, Any]]:
    """``revision_id`` and ``title`` of every revision of a restricted source."""
    return store.rows(
        f"SELECT revision_id, title FROM source_revision WHERE source_key IN ({RESTRICTED_KEYS_SQL})")


def restricted_unit_ids(store: Store) -> set[str]:
    """Every unit of a restricted source."""
    return {r["unit_id"] for r in store.rows(
        f"SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})")}


def restricted_names(store: Store) -> tuple[list[dict[str, Any]], set[str]]:
    """:func:`restricted_sources` (``key`` and ``title``, by key) and the titles restricted revisions hold
    that their source's own title is not (usually none), in one statement: every name of a restricted
    source a public output must scrub, without a row per revision."""
    rows = store.rows(f"""
        WITH rk AS ({RESTRICTED_KEYS_SQL})
        SELECT 0 AS part, k.key, s.title FROM rk k LEFT JOIN source s ON s.key = k.key
        UNION ALL
        SELECT DISTINCT 1 AS part, NULL AS key, r.title FROM source_revision r LEFT JOIN source s ON s.key = r.source_key
        WHERE r.source_key IN (SELECT key FROM rk) AND r.title IS NOT NULL AND (s.title IS NULL OR r.title <> s.title)""")
    keys = sorted(({"key": r["key"], "title": r["title"]} for r in rows if r["part"] == 0), key=lambda r: r["key"])
    return keys, {r["title"] for r in rows if r["part"] == 1}


def sources_of_ids(store: Store, ids: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Of ``ids``, the revisions and the units the store holds, each with its source key (``{id: key}``), in
    one statement (none for no ids): a public output asks about the ids it names, and one is restricted
    exactly when its source is, instead of reading every restricted unit."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}, {}
    revisions: dict[str, str] = {}
    units: dict[str, str] = {}
    with ids_filter(store, "revision_id", wanted) as (by_revision, values):
        by_unit = by_revision.replace("revision_id", "unit_id", 1)
        for row in store.rows(f"""
                SELECT 1 AS unit, revision_id AS id, source_key FROM source_revision WHERE {by_revision}
                UNION ALL
                SELECT 2 AS unit, unit_id AS id, source_key FROM evidence_unit WHERE {by_unit}""", [*values, *values]):
            (units if row["unit"] == 2 else revisions)[row["id"]] = row["source_key"]
    return revisions, units


def claim_rows(store: Store, claim_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The parent claims among ``claim_ids`` (text, type, answer and place), in answer order."""
    rows = rows_for_ids(store, "SELECT claim_id, answer_rev, ordinal, text, claim_type, part FROM claim WHERE {ids}",
                        "claim_id", claim_ids)
    parents = [r for r in rows if r.pop("part") is None]
    return sorted(parents, key=lambda r: (r["answer_rev"], r["ordinal"]))


def answer_ids_of(store: Store, answer_revs: Iterable[str]) -> dict[str, str]:
    """answer revision -> answer id."""
    return {r["answer_rev"]: r["answer_id"] for r in rows_for_ids(
        store, "SELECT answer_rev, answer_id FROM answer WHERE {ids}", "answer_rev", answer_revs)}


def given_citations(store: Store, claim_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Every citation row of ``claim_ids``, by claim and ordinal."""
    return rows_for_ids(store, "SELECT * FROM citation WHERE {ids} ORDER BY claim_id, ordinal",
                        "claim_id", claim_ids)


def unit_rows(store: Store, unit_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The evidence units a graph shows (text, offsets, heading path, status, page, symbol), unordered."""
    return rows_for_ids(store, """
        SELECT unit_id, revision_id, source_key, ordinal, start, "end", text, block_type, heading_path_json,
               status, page, symbol
        FROM evidence_unit WHERE {ids}""", "unit_id", unit_ids)


def revision_source_keys(store: Store, revision_ids: Iterable[str]) -> set[str]:
    """The sources some revisions belong to."""
    return {r["source_key"] for r in rows_for_ids(
        store, "SELECT DISTINCT source_key FROM source_revision WHERE {ids}", "revision_id", revision_ids)}


#: The columns of a source a graph shows (also what graphcite.ingest.lineage keeps in source_lineage).
SOURCE_COLUMNS = "key, title, kind, visibility, current_revision"
#: The columns of a revision a graph shows (the date as text, the same on both engines).
REVISION_COLUMNS = """revision_id, source_key, seq, status, CAST(effective AS VARCHAR) AS effective, visibility,
               previous_revision, title"""


def source_rows(store: Store, keys: Iterable[str]) -> list[dict[str, Any]]:
    """``key``, ``title``, ``kind``, ``visibility`` and ``current_revision`` of some sources, unordered."""
    return rows_for_ids(store, f"SELECT {SOURCE_COLUMNS} FROM source WHERE {{ids}}", "key", keys)


def revision_rows(store: Store, source_keys: Iterable[str]) -> list[dict[str, Any]]:
    """Every revision of some sources, by source and sequence (sorted here: an ORDER BY costs DuckDB more)."""
    rows = rows_for_ids(store, f"SELECT {REVISION_COLUMNS} FROM source_revision WHERE {{ids}}", "source_key",
                        source_keys)
    return sorted(rows, key=lambda r: (r["source_key"], r["seq"]))


# ----------------------------------------------------------------------------------------------
# lineage
# ----------------------------------------------------------------------------------------------

_LINK_COLUMNS = "from_key, to_key, relation, declared_in"
_FOLLOWED = ("derived_from", "quotes", "implements", "supersedes")


def links_from(store: Store, keys: Iterable[str]) -> list[dict[str, Any]]:
    """The lineage and supersession links some keys declare (one level of the upward walk), unordered.

    The key column is the query's only condition, so DuckDB answers it from its ART index (a second
    condition would turn it into a scan of the whole table); the relations are picked here.
    """
    rows = rows_for_ids(store, f"SELECT {_LINK_COLUMNS} FROM source_link WHERE {{ids}}", "from_key", keys)
    return [row for row in rows if row["relation"] in _FOLLOWED]


def links_into(store: Store, keys: Iterable[str], downstream: str | None = None) -> list[dict[str, Any]]:
    """The supersession links into ``keys``, and the lineage and supersession links into ``downstream``."""
    keys = set(keys)
    rows = rows_for_ids(store, f"SELECT {_LINK_COLUMNS} FROM source_link WHERE {{ids}}", "to_key",
                        keys | ({downstream} if downstream else set()))
    return [row for row in rows if (row["relation"] == "supersedes" and row["to_key"] in keys)
            or (row["to_key"] == downstream and row["relation"] in _FOLLOWED)]
