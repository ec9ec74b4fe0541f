"""What the verifier reads besides citations: locating evidence, restricted origins, reviews, batch state.

* locating (:mod:`graphcite.verify.locate`): a revision's units with their index terms, term
  frequencies and postings, and which units are current and visible;
* restricted origins (:mod:`graphcite.verify.origin`): restricted units ranked for many claims over
  the postings of restricted units, the terms some public unit holds, unit texts and typed values;
* declared claim types (:mod:`graphcite.verify.claim_types`): annotation labels and acceptances;
* check-batch (:mod:`graphcite.verify.batch`): which answers are stored and how many records each has.

Every function is one statement (or none for empty input) and runs on DuckDB and PostgreSQL alike.
Inside :func:`graphcite.store.queries.verify_memo.evidence_memo` the evidence reads by id or term and
the store-wide counts are answered from memory after their first read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from graphcite.store.base import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL, rank_by_shared_terms
from graphcite.store.queries.resolve import values_of_units
from graphcite.store.queries.verify_memo import memo_of

__all__ = [
    "RESTRICTED_POSTINGS_MAX",
    "accepted_claims",
    "annotation_labels",
    "checkpoint",
    "current_units",
    "defer_checkpoints",
    "evidence_unit_count",
    "has_restricted_sources",
    "public_term_frequencies",
    "public_term_postings",
    "public_terms",
    "public_unit_count",
    "record_counts",
    "restricted_candidates",
    "restricted_postings",
    "restricted_unit_count",
    "stored_answer_revs",
    "term_frequencies",
    "term_postings",
    "unit_contexts",
    "unit_texts",
    "units_with_terms",
    "values_by_unit",
]

Row = dict[str, Any]
V = TypeVar("V")


def _keyed(store: Store, kind: str, keys: Iterable[str], read: Callable[[set[str]], dict[str, V]]) -> dict[str, V]:
    """``read`` of the keys, in key order: through the memo when one is active (nothing for no keys)."""
    wanted = set(keys)
    if not wanted:
        return {}
    memo = memo_of(store)
    found = read(wanted) if memo is None else memo.by_key(kind, wanted, read)
    return {k: found[k] for k in sorted(found)}


# -- locating evidence ---------------------------------------------------------------------------
def units_with_terms(store: Store, revision_ids: Iterable[str]) -> list[Row]:
    """Every unit of these revisions (all columns) with ``_terms``: its index terms, sorted (None when it
    has none); in document order."""
    ids = set(revision_ids)
    if not ids:
        return []
    where, params = store.in_list("u.revision_id", ids)
    return store.rows(f"""
        SELECT u.*, (SELECT array_agg(p.term ORDER BY p.term) FROM term_posting p WHERE p.unit_id = u.unit_id)
               AS _terms
        FROM evidence_unit u WHERE {where} ORDER BY u.revision_id, u.start""", params)


def evidence_unit_count(store: Store) -> int:
    """How many evidence units the store holds (every revision)."""
    def read() -> int:
        return int(store.scalar("SELECT count(*) FROM evidence_unit") or 0)

    memo = memo_of(store)
    return memo.once("unit count", read) if memo is not None else read()


def term_frequencies(store: Store, terms: Iterable[str]) -> dict[str, int]:
    """``{term: units holding it}`` for the terms the index holds (the others are left out)."""
    def read(wanted: set[str]) -> dict[str, int]:
        where, params = store.in_list("p.term", wanted)
        return {r["term"]: int(r["n"]) for r in store.rows(
            f"SELECT p.term, count(*) AS n FROM term_posting p WHERE {where} GROUP BY p.term ORDER BY p.term",
            params)}

    return _keyed(store, "term count", terms, read)


def term_postings(store: Store, terms: Iterable[str]) -> dict[str, list[str]]:
    """``{term: unit ids holding it}``, each list sorted."""
    def read(wanted: set[str]) -> dict[str, list[str]]:
        where, params = store.in_list("p.term", wanted)
        postings: dict[str, list[str]] = {}
        for row in store.rows(f"SELECT p.term, p.unit_id FROM term_posting p WHERE {where} "
                              "ORDER BY p.term, p.unit_id", params):
            postings.setdefault(row["term"], []).append(row["unit_id"])
        return postings

    return _keyed(store, "term postings", terms, read)


def current_units(store: Store, unit_ids: Iterable[str], *, public: bool = False) -> dict[str, Row]:
    """``{unit_id: row}`` for the units among ``unit_ids`` that are current in their source's current
    revision (``public``: of a revision that is not restricted). Each row: ``unit_id, source_key, start,
    end, text, heading_path_json, table_headers_json, symbol, title``."""
    visible = "AND rev.visibility <> 'restricted'" if public else ""

    def read(ids: set[str]) -> dict[str, Row]:
        where, params = store.in_list("u.unit_id", ids)
        return {r["unit_id"]: r for r in store.rows(f"""
        SELECT u.unit_id, u.source_key, u.start, u."end", u.text, u.heading_path_json, u.table_headers_json,
               u.symbol, rev.title
        FROM evidence_unit u
        JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id
        JOIN source_revision rev ON rev.revision_id = u.revision_id
        WHERE {where} AND u.status = 'current' AND rev.status = 'current' {visible}
        ORDER BY u.unit_id""", params)}

    return _keyed(store, f"current units, public {public}", unit_ids, read)


# -- restricted origins --------------------------------------------------------------------------
def has_restricted_sources(store: Store) -> bool:
    """Whether any source is restricted, itself or through one of its revisions."""
    def read() -> bool:
        return bool(store.scalar(f"SELECT count(*) FROM ({RESTRICTED_KEYS_SQL}) restricted"))

    memo = memo_of(store)
    return memo.once("restricted", read) if memo is not None else read()


def restricted_postings(store: Store, terms: Iterable[str]) -> dict[str, list[str]]:
    """``{term: units of restricted sources holding it}``, each list sorted (terms no such unit holds
    are left out)."""
    def read(wanted: set[str]) -> dict[str, list[str]]:
        postings: dict[str, list[str]] = {}
        for row in store.rows(f"""
                SELECT p.term, p.unit_id FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
                WHERE p.term IN (SELECT unnest(?::VARCHAR[])) AND u.source_key IN ({RESTRICTED_KEYS_SQL})
                ORDER BY p.term, p.unit_id""", [sorted(wanted)]):
            postings.setdefault(row["term"], []).append(row["unit_id"])
        return postings

    return _keyed(store, "restricted postings", terms, read)


#: Restricted units up to which a batch ranks restricted-origin candidates over per-term postings kept
#: in its memo; a store with more ranks them in the database, one grouped query per call.
RESTRICTED_POSTINGS_MAX = 20_000


_RESTRICTED_POSTINGS_OF_TERM = f"""
    SELECT p.unit_id FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
    WHERE p.term = ? AND u.source_key IN ({RESTRICTED_KEYS_SQL}) ORDER BY p.unit_id"""


def _restricted_unit_count(store: Store) -> int:
    return int(store.scalar(f"SELECT count(*) FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})") or 0)


def restricted_unit_count(store: Store) -> int:
    """How many evidence units restricted sources hold (every revision): what a public count leaves out."""
    memo = memo_of(store)
    return memo.once("restricted units", lambda: _restricted_unit_count(store)) if memo is not None \
        else _restricted_unit_count(store)


def restricted_candidates(store: Store, queries: Sequence[int], terms: Sequence[str], *,
                          per_query: int) -> dict[int, list[str]]:
    """Units of restricted sources sharing the most index terms with each query, best first (ties by unit
    id), at most ``per_query`` each. ``queries`` and ``terms`` are parallel: one row per distinct term
    of a query. One statement: a grouped query, or inside a batch's memo (when the store holds at most
    :data:`RESTRICTED_POSTINGS_MAX` restricted units) the postings of the terms not read yet; on the
    service's warm view (``point_reads``) one read per term, answered from memory once seen."""
    if not terms:
        return {}
    memo = memo_of(store)
    if memo is not None and memo.once("restricted units", lambda: _restricted_unit_count(store)) \
            <= RESTRICTED_POSTINGS_MAX:
        return rank_by_shared_terms(queries, terms, restricted_postings(store, terms), per_query)
    if getattr(store, "point_reads", False) and _restricted_unit_count(store) <= RESTRICTED_POSTINGS_MAX:
        # the service's warm view: one read per term, kept in memory, so a new sentence reads only its new terms
        postings = {term: [row["unit_id"] for row in store.rows(_RESTRICTED_POSTINGS_OF_TERM, [term])]
                    for term in dict.fromkeys(terms)}
        return rank_by_shared_terms(queries, terms, postings, per_query)
    rows = store.rows(f"""
        WITH q AS (SELECT unnest(?::INTEGER[]) AS qi, unnest(?::VARCHAR[]) AS term),
        ru AS (SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})),
        hits AS (
            SELECT q.qi, p.unit_id, count(*) AS shared
            FROM q JOIN term_posting p ON p.term = q.term JOIN ru ON ru.unit_id = p.unit_id
            GROUP BY q.qi, p.unit_id),
        ranked AS (SELECT *, row_number() OVER (PARTITION BY qi ORDER BY shared DESC, unit_id) AS rk FROM hits)
        SELECT qi, unit_id FROM ranked WHERE rk <= {int(per_query)} ORDER BY qi, rk""", [list(queries), list(terms)])
    out: dict[int, list[str]] = {}
    for row in rows:
        out.setdefault(int(row["qi"]), []).append(row["unit_id"])
    return out


#: Postings of the wanted terms (one array parameter) in units of sources that are not restricted: a public
#: search counts and ranks over these, so no restricted posting is read into Python.
_PUBLIC_POSTINGS = f"""
    SELECT p.term, p.unit_id FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
    WHERE p.term IN (SELECT unnest(?::VARCHAR[])) AND u.source_key NOT IN ({RESTRICTED_KEYS_SQL})"""


def public_unit_count(store: Store) -> int:
    """How many evidence units sources that are not restricted hold (every revision): a public search's total."""
    def read() -> int:
        return int(store.scalar(
            f"SELECT count(*) FROM evidence_unit WHERE source_key NOT IN ({RESTRICTED_KEYS_SQL})") or 0)

    memo = memo_of(store)
    return memo.once("public unit count", read) if memo is not None else read()


def public_term_frequencies(store: Store, terms: Iterable[str]) -> dict[str, int]:
    """``{term: units of sources that are not restricted holding it}`` (terms no such unit holds are left
    out): :func:`term_frequencies` as a store without its restricted sources would answer it."""
    def read(wanted: set[str]) -> dict[str, int]:
        return {r["term"]: int(r["n"]) for r in store.rows(
            f"SELECT term, count(*) AS n FROM ({_PUBLIC_POSTINGS}) hits GROUP BY term ORDER BY term", [sorted(wanted)])}

    return _keyed(store, "public term count", terms, read)


def public_term_postings(store: Store, terms: Iterable[str]) -> dict[str, list[str]]:
    """``{term: units of sources that are not restricted holding it}``, each list sorted: :func:`term_postings`
    as a store without its restricted sources would answer it (no restricted posting is read into Python)."""
    def read(wanted: set[str]) -> dict[str, list[str]]:
        postings: dict[str, list[str]] = {}
        for row in store.rows(f"{_PUBLIC_POSTINGS} ORDER BY p.term, p.unit_id", [sorted(wanted)]):
            postings.setdefault(row["term"], []).append(row["unit_id"])
        return postings

    return _keyed(store, "public term postings", terms, read)


def public_terms(store: Store, terms: Iterable[str]) -> set[str]:
    """The terms that some unit of a source that is not restricted contains."""
    def read(wanted: set[str]) -> dict[str, bool]:
        return {r["term"]: True for r in store.rows(f"""
            SELECT DISTINCT p.term FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
            WHERE p.term IN (SELECT unnest(?::VARCHAR[])) AND u.source_key NOT IN ({RESTRICTED_KEYS_SQL})""",
                                                 [sorted(wanted)])}

    return set(_keyed(store, "public terms", terms, read))


def unit_texts(store: Store, unit_ids: Iterable[str]) -> dict[str, str]:
    """``{unit_id: text}`` for the units among ``unit_ids`` the store holds."""
    def read(ids: set[str]) -> dict[str, str]:
        return {r["unit_id"]: r["text"] for r in store.rows(
            "SELECT unit_id, text FROM evidence_unit WHERE unit_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY unit_id",
            [sorted(ids)])}

    return _keyed(store, "unit text", unit_ids, read)


def unit_contexts(store: Store, unit_ids: Iterable[str]) -> dict[str, Row]:
    """``{unit_id: row}`` with ``text``, ``heading_path_json`` and ``table_headers_json`` for the units among
    ``unit_ids`` the store holds: what a unit says together with where it says it (a table row's headers)."""
    def read(ids: set[str]) -> dict[str, Row]:
        return {r["unit_id"]: r for r in store.rows(
            "SELECT unit_id, text, heading_path_json, table_headers_json FROM evidence_unit "
            "WHERE unit_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY unit_id", [sorted(ids)])}

    return _keyed(store, "unit context", unit_ids, read)


def values_by_unit(store: Store, unit_ids: Iterable[str]) -> dict[str, list[Row]]:
    """``{unit_id: typed value rows}``, each list by start offset (units without values are left out)."""
    out: dict[str, list[Row]] = {}
    for row in values_of_units(store, unit_ids):
        out.setdefault(row["unit_id"], []).append(row)
    return out


# -- reviews of declared inferences --------------------------------------------------------------
def annotation_labels(store: Store, claim_ids: Iterable[str]) -> dict[str, set[str]]:
    """``{claim_id: labels reviewers gave its citations}`` for the claims that have any."""
    ids = set(claim_ids)
    if not ids:
        return {}
    where, params = store.in_list("claim_id", ids)
    labels: dict[str, set[str]] = {}
    for row in store.rows(f"SELECT claim_id, label FROM annotation WHERE {where} ORDER BY claim_id, label", params):
        labels.setdefault(row["claim_id"], set()).add(row["label"])
    return labels


def accepted_claims(store: Store, claim_ids: Iterable[str]) -> set[str]:
    """The claims among ``claim_ids`` a reviewer accepted for some use (none before the first acceptance
    creates the table)."""
    ids = set(claim_ids)
    if not ids or "acceptance" not in store.table_names():
        return set()
    where, params = store.in_list("claim_id", ids)
    return {r["claim_id"] for r in store.rows(f"SELECT DISTINCT claim_id FROM acceptance WHERE {where}", params)}


# -- check-batch ---------------------------------------------------------------------------------
def stored_answer_revs(store: Store, answer_revs: Iterable[str]) -> set[str]:
    """The answer revisions among ``answer_revs`` that are stored."""
    revs = set(answer_revs)
    if not revs:
        return set()
    where, params = store.in_list("answer_rev", revs)
    return {r["answer_rev"] for r in store.rows(f"SELECT answer_rev FROM answer WHERE {where}", params)}


def record_counts(store: Store, answer_revs: Iterable[str]) -> dict[str, int]:
    """``{answer_rev: verification records}`` for the revisions among ``answer_revs`` checked before."""
    revs = set(answer_revs)
    if not revs:
        return {}
    where, params = store.in_list("answer_rev", revs)
    return {r["answer_rev"]: int(r["n"]) for r in store.rows(
        f"SELECT answer_rev, count(*) AS n FROM verification WHERE {where} GROUP BY answer_rev", params)}


def defer_checkpoints(store: Store, mebibytes: int) -> None:
    """DuckDB: let the write-ahead log grow to ``mebibytes`` MiB before a commit checkpoints it (a
    long-running writer checkpoints when idle, :mod:`graphcite.serve.checkpoint`); PostgreSQL: nothing."""
    if store.engine == "duckdb" and not store.read_only:
        store.execute(f"SET checkpoint_threshold = '{int(mebibytes)}MiB'")


def checkpoint(store: Store) -> None:
    """DuckDB: fold the write-ahead log into the database file now; PostgreSQL: nothing."""
    if store.engine == "duckdb" and not store.read_only:
        store.execute("CHECKPOINT")
