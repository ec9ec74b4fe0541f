"""What the lifecycle stage reads: stale claims, what changed under them, summaries' sources, answerability.

Staleness is one set-based statement over the append-only ``verification`` table (:func:`stale_sql`);
the other functions fetch what explains a stale claim (superseding sources, unit texts, cited units)
for the few claims found, and what :mod:`graphcite.lifecycle.summary` and
:mod:`graphcite.lifecycle.answerable` need. Used by :mod:`graphcite.lifecycle`; acceptances and
adoptions are in :mod:`graphcite.store.queries.lifecycle_accept`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from graphcite.store.base import Store
from graphcite.store.dialect import DUCKDB, Dialect
from graphcite.store.queries import RESTRICTED_KEYS_SQL

__all__ = [
    "STALE_SQL",
    "acceptance_evidence",
    "current_revision",
    "revision_of_source",
    "revision_texts",
    "revision_units",
    "search_units",
    "stale_rows",
    "stale_sql",
    "superseders",
    "unit_texts",
    "verification_count",
    "verification_results",
    "verified_claims",
]

Row = dict[str, Any]

_RELIED = """
    SELECT claim_id, '{kind}' AS relied, {id} AS relied_id, {at} AS relied_at, row_order,
           {revisions} AS revision_id
    FROM {table}"""


# the latest unexpired acceptance per claim, task and destination (a re-acceptance replaces the old one)
_LATEST_ACCEPTANCES = """(
        SELECT * FROM (
            SELECT *, rowid AS row_order,
                   row_number() OVER (PARTITION BY claim_id, task, destination
                                      ORDER BY accepted_at DESC, rowid DESC) AS newest
            FROM acceptance WHERE expires IS NULL OR expires > current_date) a
        WHERE newest = 1) latest"""


def stale_sql(with_acceptances: bool, dialect: Dialect = DUCKDB) -> str:
    """The staleness query; acceptances join in once the store has an ``acceptance`` table.

    Candidates first: the few source revisions that are no longer the current one, belong to a source
    now restricted, or to a source some other source supersedes. Every record's evidence revisions are
    joined against them (a hash join on a small table), and only then is each hit kept if it is its
    claim's latest verification record (NOT EXISTS a later one, ties broken by insertion order).
    Acceptances count per scope: the latest unexpired acceptance of each claim, task and destination.
    """
    revisions = dialect.json_strings("evidence_revisions_json")
    relied = _RELIED.format(kind="verification", id="record_id", at="verified_at", revisions=revisions,
                            table="(SELECT *, rowid AS row_order FROM verification WHERE audience = 'internal') v")
    if with_acceptances:
        relied += "\n    UNION ALL" + _RELIED.format(kind="acceptance", id="acceptance_id", at="accepted_at",
                                                    revisions=revisions, table=_LATEST_ACCEPTANCES)
    return f"""
WITH candidate AS (
    SELECT sr.revision_id, sr.source_key, s.current_revision AS new_revision,
           s.current_revision <> sr.revision_id AS revised,
           (s.visibility = 'restricted' AND sr.visibility <> 'restricted') AS restricted,
           sup.last_at AS superseded_last_at
    FROM source_revision sr JOIN source s ON s.key = sr.source_key
    LEFT JOIN (SELECT l.to_key, max(r.ingested_at) AS last_at FROM source_link l
               JOIN source_revision r ON r.revision_id = l.declared_in
               WHERE l.relation = 'supersedes' GROUP BY l.to_key) sup ON sup.to_key = sr.source_key
    WHERE s.current_revision <> sr.revision_id OR s.visibility = 'restricted' OR sup.last_at IS NOT NULL
), relied AS ({relied}
), hit AS (
    SELECT v.*, c.source_key, c.new_revision, c.revised, c.restricted,
           coalesce(c.superseded_last_at > v.relied_at, false) AS superseded
    FROM relied v JOIN candidate c ON c.revision_id = v.revision_id
    WHERE c.revised OR c.restricted OR c.superseded_last_at > v.relied_at
)
SELECT h.claim_id, h.relied, h.relied_id, h.relied_at, h.revision_id AS old_revision, h.source_key,
       h.new_revision, h.revised, h.restricted, h.superseded
FROM hit h
WHERE h.relied = 'acceptance' OR NOT EXISTS (
    SELECT 1 FROM verification w WHERE w.claim_id = h.claim_id AND w.audience = 'internal'
      AND (w.verified_at > h.relied_at OR (w.verified_at = h.relied_at AND w.rowid > h.row_order)))
ORDER BY h.claim_id, h.relied, h.source_key, h.relied_id, h.revision_id
"""


#: The staleness query on DuckDB for a store without acceptances.
STALE_SQL = stale_sql(False)


def stale_rows(store: Store, *, with_acceptances: bool) -> list[Row]:
    """One row per (stale claim, what it relied on, old revision): ``claim_id, relied, relied_id,
    relied_at, old_revision, source_key, new_revision, revised, restricted, superseded``, by claim, what
    it relied on, source, record and revision.

    ``with_acceptances`` only when the store has an ``acceptance`` table."""
    return store.rows(stale_sql(with_acceptances, store.dialect))


def superseders(store: Store, keys: Iterable[str]) -> list[Row]:
    """``to_key, by_key, ingested_at, on_date`` for every declaration that another source supersedes one
    of ``keys``, earliest first; ``on_date`` is the declaring revision's effective date, else its ingest day."""
    wanted = set(keys)
    if not wanted:
        return []
    where, params = store.in_list("l.to_key", wanted)
    return store.rows(f"""
        SELECT l.to_key, l.from_key AS by_key, r.ingested_at,
               CAST(coalesce(r.effective, CAST(r.ingested_at AS DATE)) AS VARCHAR) AS on_date
        FROM source_link l JOIN source_revision r ON r.revision_id = l.declared_in
        WHERE l.relation = 'supersedes' AND {where} ORDER BY r.ingested_at, l.from_key, l.to_key""", params)


def revision_units(store: Store, revision_id: str) -> list[Row]:
    """``unit_id, text, heading_path_json, status, status_cue, block_type`` of one revision's units, in
    document order (empty for an unknown revision)."""
    return store.rows("SELECT unit_id, text, heading_path_json, status, status_cue, block_type "
                      "FROM evidence_unit WHERE revision_id = ? ORDER BY ordinal", [revision_id])


def revision_texts(store: Store, revision_ids: Iterable[str]) -> dict[str, str]:
    """Revision id -> its full text, for the known ids of ``revision_ids``."""
    ids = set(revision_ids)
    if not ids:
        return {}
    where, params = store.in_list("revision_id", ids)
    return {r["revision_id"]: r["text"] for r in store.rows(
        f"SELECT revision_id, text FROM source_revision WHERE {where} ORDER BY revision_id", params)}


def verification_results(store: Store, record_ids: Iterable[str]) -> list[Row]:
    """``record_id, claim_id, result_json`` of these verification records, by claim and record id."""
    ids = set(record_ids)
    if not ids:
        return []
    where, params = store.in_list("record_id", ids)
    return store.rows(f"SELECT record_id, claim_id, result_json FROM verification WHERE {where} "
                      "ORDER BY claim_id, record_id", params)


def acceptance_evidence(store: Store, acceptance_ids: Iterable[str]) -> list[Row]:
    """``acceptance_id, claim_id, evidence_json`` of these acceptances, by claim and acceptance id (the
    caller knows the store has an ``acceptance`` table)."""
    ids = set(acceptance_ids)
    if not ids:
        return []
    where, params = store.in_list("acceptance_id", ids)
    return store.rows(f"SELECT acceptance_id, claim_id, evidence_json FROM acceptance WHERE {where} "
                      "ORDER BY claim_id, acceptance_id", params)


def unit_texts(store: Store, unit_ids: Iterable[str]) -> dict[str, Row]:
    """Unit id -> ``unit_id, revision_id, text`` for the known ids of ``unit_ids``."""
    ids = set(unit_ids)
    if not ids:
        return {}
    where, params = store.in_list("u.unit_id", ids)
    return {u["unit_id"]: u for u in store.rows(
        f"SELECT u.unit_id, u.revision_id, u.text FROM evidence_unit u WHERE {where} ORDER BY u.unit_id", params)}


def verified_claims(store: Store, claim_ids: Iterable[str]) -> list[Row]:
    """``verified_id, answer_rev`` per claim of ``claim_ids``: an atomic part is verified as its input claim
    (its parent), so ``verified_id`` is the parent's id for a part and the claim's own otherwise."""
    ids = set(claim_ids)
    if not ids:
        return []
    where, params = store.in_list("claim_id", ids)
    return store.rows(f"SELECT coalesce(parent_id, claim_id) AS verified_id, answer_rev FROM claim "
                      f"WHERE {where} ORDER BY claim_id", params)


def verification_count(store: Store, claim_id: str) -> int:
    """How many verification records a claim has (0 for a claim never verified or unknown)."""
    return int(store.scalar("SELECT count(*) FROM verification WHERE claim_id = ?", [claim_id]))


def current_revision(store: Store, key: str) -> str | None:
    """The current revision id of source ``key``, or None when there is no such source."""
    found = store.scalar("SELECT current_revision FROM source WHERE key = ?", [key])
    return None if found is None else str(found)


def revision_of_source(store: Store, key: str, revision: str) -> str | None:
    """The revision of source ``key`` named by ``revision`` (its id or its number), or None."""
    found = store.scalar("SELECT revision_id FROM source_revision WHERE source_key = ? AND "
                         "(revision_id = ? OR CAST(seq AS VARCHAR) = ?) ORDER BY revision_id LIMIT 1",
                         [key, revision, revision])
    return None if found is None else str(found)


_SEARCH_SQL = """
WITH q AS (SELECT unnest(?::INTEGER[]) AS qi, unnest(?::VARCHAR[]) AS term),
hidden AS ({hidden}),
df AS (SELECT p.term, count(*) AS n FROM term_posting p WHERE p.term IN (SELECT DISTINCT term FROM q)
       AND p.unit_id NOT IN (SELECT unit_id FROM hidden) GROUP BY p.term),
total AS (SELECT count(*) AS n FROM evidence_unit WHERE unit_id NOT IN (SELECT unit_id FROM hidden)),
hits AS (SELECT q.qi, p.unit_id, sum(ln(1 + (t.n - df.n + 0.5) / (df.n + 0.5))) AS weight
         FROM q JOIN df ON df.term = q.term CROSS JOIN total t JOIN term_posting p ON p.term = q.term
         WHERE p.unit_id NOT IN (SELECT unit_id FROM hidden)
         GROUP BY q.qi, p.unit_id),
ranked AS (SELECT *, row_number() OVER (PARTITION BY qi ORDER BY weight DESC, unit_id) AS rk FROM hits)
SELECT r.qi, r.weight, u.unit_id, u.source_key, u.revision_id, u.start, u."end", u.text, u.status AS unit_status,
       u.heading_path_json, rev.status AS revision_status, rev.title, rev.kind, rev.visibility,
       s.current_revision = u.revision_id AS latest,
       EXISTS (SELECT 1 FROM source_link l WHERE l.to_key = u.source_key AND l.relation = 'supersedes'
               AND l.declared_in NOT IN (SELECT revision_id FROM hidden_revisions)) AS superseded_by_link
FROM ranked r JOIN evidence_unit u ON u.unit_id = r.unit_id
JOIN source_revision rev ON rev.revision_id = u.revision_id
JOIN source s ON s.key = u.source_key
WHERE r.rk <= ?
ORDER BY r.qi, r.weight DESC, u.unit_id"""


# for the public audience the units, revisions (and the supersessions they declare) of restricted sources do
# not exist: they neither rank, nor weigh a term, nor mark a public unit superseded
_HIDDEN_UNITS = f"SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})"
_HIDDEN_REVISIONS = f"SELECT revision_id FROM source_revision WHERE source_key IN ({RESTRICTED_KEYS_SQL})"
_NOTHING_UNITS = "SELECT unit_id FROM evidence_unit WHERE false"
_NOTHING_REVISIONS = "SELECT revision_id FROM source_revision WHERE false"


def search_units(store: Store, query_index: Sequence[int], terms: Sequence[str], limit: int, *,
                 public: bool = False) -> list[Row]:
    """The best ``limit`` units per query by BM25-style term weight over the term index.

    ``query_index[i]`` names the query that ``terms[i]`` belongs to (the two lists run in parallel).
    Each row: ``qi, weight``, the unit (``unit_id, source_key, revision_id, start, end, text,
    unit_status, heading_path_json``), its revision (``revision_status, title, kind, visibility``),
    ``latest`` (the revision is its source's current one) and ``superseded_by_link``; ordered by query,
    then weight, then unit id. ``public``: restricted sources are left out of everything, weights included.
    """
    if not terms:
        return []
    sql = _SEARCH_SQL.replace("{hidden}", _HIDDEN_UNITS if public else _NOTHING_UNITS).replace(
        "hidden_revisions", f"({_HIDDEN_REVISIONS if public else _NOTHING_REVISIONS}) hr")
    return store.rows(sql, [list(query_index), list(terms), limit])
