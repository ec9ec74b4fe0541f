"""What scoped acceptance and adoption read and append: acceptances, adoptions, and the revisions they pin.

Both tables are append-only records (an acceptance or an adoption is never updated); stores written
before them lack the tables, and the callers check :meth:`Store.table_names` before reading. Used by
:mod:`graphcite.lifecycle.accept` and :mod:`graphcite.lifecycle.adopt`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphcite.models import Acceptance
from graphcite.store.base import Store
from graphcite.store.queries import newest_per_claim_sql

__all__ = [
    "ACCEPTANCE_COLUMNS",
    "ADOPTION_COLUMNS",
    "acceptance_count",
    "acceptance_rows",
    "adopted_citations",
    "adoption_rows",
    "insert_acceptance",
    "insert_adoption",
    "latest_results",
    "not_current_revisions",
    "source_with_hash",
    "unit_with_text",
]

Row = dict[str, Any]

#: The acceptance columns (the model's fields) :func:`acceptance_rows` returns, in this order.
ACCEPTANCE_COLUMNS = tuple(Acceptance.model_fields)
#: The adoption columns :func:`adoption_rows` returns, in this order.
ADOPTION_COLUMNS = ("adoption_id", "claim_id", "answer_rev", "acceptance_id", "source_key", "revision_id", "unit_id",
                    "text", "evidence_json", "reviewer", "adopted_at")


def _insert(store: Store, table: str, row: Mapping[str, Any], columns: Sequence[str]) -> None:
    names = ", ".join(f'"{c}"' for c in columns)
    store.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})",
                  [row[c] for c in columns])


# -- acceptances ------------------------------------------------------------------------------


def acceptance_count(store: Store, claim_id: str) -> int:
    """How many acceptances a claim has had (0 when none, or before the table exists)."""
    if "acceptance" not in store.table_names():
        return 0
    return int(store.scalar("SELECT count(*) FROM acceptance WHERE claim_id = ?", [claim_id]))


def insert_acceptance(store: Store, row: Mapping[str, Any]) -> None:
    """Append one acceptance (every column of :data:`ACCEPTANCE_COLUMNS`); the table must exist."""
    _insert(store, "acceptance", row, ACCEPTANCE_COLUMNS)


def acceptance_rows(store: Store, claim_id: str, *, task: str | None = None) -> list[Row]:
    """:data:`ACCEPTANCE_COLUMNS` of every acceptance of a claim (only ``task``'s when given), oldest
    first (ties by insertion order); the table must exist."""
    names = ", ".join(f'"{c}"' for c in ACCEPTANCE_COLUMNS)
    sql = f"SELECT {names} FROM acceptance WHERE claim_id = ?"
    params: list[Any] = [claim_id]
    if task is not None:
        sql += " AND task = ?"
        params.append(task)
    return store.rows(sql + " ORDER BY accepted_at, rowid", params)


def not_current_revisions(store: Store, revision_ids: Iterable[str]) -> list[Row]:
    """``revision_id, source_key`` of the revisions of ``revision_ids`` whose source now has another
    current revision, by source then revision."""
    ids = set(revision_ids)
    if not ids:
        return []
    where, params = store.in_list("r.revision_id", ids)
    return store.rows(f"SELECT r.revision_id, r.source_key FROM source_revision r JOIN source s ON s.key = r.source_key "
                      f"WHERE {where} AND s.current_revision <> r.revision_id ORDER BY 2, 1", params)


# -- adoptions --------------------------------------------------------------------------------


def source_with_hash(store: Store, key: str) -> Row | None:
    """``key, current_revision, content_hash`` of a source's current revision, or None for no such source."""
    return store.row("SELECT s.key, s.current_revision, r.content_hash FROM source s "
                     "JOIN source_revision r ON r.revision_id = s.current_revision WHERE s.key = ?", [key])


def unit_with_text(store: Store, revision_id: str, text: str) -> str | None:
    """The id of the first unit (by offset) of a revision whose text is exactly ``text``, or None."""
    found = store.scalar("SELECT unit_id FROM evidence_unit WHERE revision_id = ? AND text = ? "
                         "ORDER BY start, unit_id LIMIT 1", [revision_id, text])
    return None if found is None else str(found)


def insert_adoption(store: Store, row: Mapping[str, Any]) -> None:
    """Append one adoption record (every column of :data:`ADOPTION_COLUMNS`); the table must exist."""
    _insert(store, "adoption", row, ADOPTION_COLUMNS)


def adoption_rows(store: Store, *, claim_id: str | None = None, unit_ids: Iterable[str] | None = None) -> list[Row]:
    """:data:`ADOPTION_COLUMNS` of the adoptions of one claim, or of the given units, or all; oldest first.

    Empty when the store has no ``adoption`` table yet, or ``unit_ids`` is empty."""
    if "adoption" not in store.table_names():
        return []
    sql = f"SELECT {', '.join(ADOPTION_COLUMNS)} FROM adoption"
    params: list[Any] = []
    if claim_id is not None:
        sql += " WHERE claim_id = ?"
        params.append(claim_id)
    elif unit_ids is not None:
        units = set(unit_ids)
        if not units:
            return []
        where, params = store.in_list("unit_id", units)
        sql += f" WHERE {where}"
    return store.rows(sql + " ORDER BY adopted_at, adoption_id", params)


def adopted_citations(store: Store) -> list[Row]:
    """Every citation of a destination document (by source key, or of the adopted unit by ``chunk_id``) by a
    claim of the answer whose sentence was adopted into it.

    The answer is matched by ``answer_id``, so every revision of it counts (the adopted claim itself
    included). Each row: the adoption (``adoption_id, adopted_claim_id, adopted_answer_rev, source_key,
    revision_id, unit_id, text``) and the citation (``claim_id, answer_rev, citation_index, chunk_id,
    cited_revision``); by citing claim, citation and adoption. Empty before any adoption.
    Whether the citation lands on the adopted unit is for the caller to decide (the stored
    ``chunk_id``, or the units its verification located).
    """
    if "adoption" not in store.table_names():
        return []
    return store.rows("""
        SELECT d.adoption_id, d.claim_id AS adopted_claim_id, d.answer_rev AS adopted_answer_rev, d.source_key,
               d.revision_id, d.unit_id, d.text, c.claim_id, c.answer_rev, ct.ordinal AS citation_index,
               ct.chunk_id, ct.revision AS cited_revision
        FROM adoption d
        JOIN answer adopted ON adopted.answer_rev = d.answer_rev
        JOIN answer citing ON citing.answer_id = adopted.answer_id
        JOIN claim c ON c.answer_rev = citing.answer_rev AND c.part IS NULL
        JOIN citation ct ON ct.claim_id = c.claim_id AND (ct.source_key = d.source_key OR ct.chunk_id = d.unit_id)
        ORDER BY c.claim_id, ct.ordinal, d.adoption_id""")


def latest_results(store: Store, claim_ids: Iterable[str]) -> dict[str, str]:
    """Claim id -> ``result_json`` of its newest internal verification record, for the claims ever verified
    (a public check's record is never the verdict a maintained document is built on)."""
    ids = set(claim_ids)
    if not ids:
        return {}
    where, params = store.in_list("claim_id", ids)
    where = f"audience = 'internal' AND {where}"
    return {r["claim_id"]: r["result_json"] for r in store.rows(
        f"SELECT claim_id, result_json FROM ({newest_per_claim_sql(where, 'claim_id, result_json')}) v "
        "WHERE newest = 1 ORDER BY claim_id", params)}
