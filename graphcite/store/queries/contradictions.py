"""What the contradiction search reads: candidate units for many claim parts from the term index in one
grouped query, their typed values, and which sources are superseded. Used by
:mod:`graphcite.verify.contradictions`.

The grouped query takes the parts of several answers at once (an answer index per row), so a batch
finds every answer's candidates in one statement; inside
:func:`graphcite.store.queries.verify_memo.evidence_memo` the values and the superseded sources come
from memory after their first read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from graphcite.store.base import Store
from graphcite.store.queries import RESTRICTED_KEYS_SQL, rank_by_shared_terms
from graphcite.store.queries.verify_memo import memo_of

__all__ = ["CURRENT_UNIT", "PUBLIC_TERM_POSTINGS_OF_TERM", "PUBLIC_UNIT_COUNT", "TERM_POSTINGS_OF_TERM",
           "contradiction_candidates", "superseded_sources", "values_with_unit_start"]

Row = dict[str, Any]

#: Units of restricted sources (any revision ever restricted): a public search ranks and counts without them.
_RESTRICTED_UNITS = f"SELECT unit_id FROM evidence_unit WHERE source_key IN ({RESTRICTED_KEYS_SQL})"


def contradiction_candidates(store: Store, claims: Sequence[int], parts: Sequence[int], terms: Sequence[str], *,
                             per_part: int, common_share: float, answers: Sequence[int] | None = None,
                             public: bool = False) -> list[Row]:
    """The best current units for each (claim, part), by index terms shared, in one grouped query.

    ``claims``, ``parts`` and ``terms`` are parallel: one row per term of a part; ``answers`` (parallel
    too) adds an answer index, so the parts of many answers are searched at once (each row then has
    ``ai``). A term found in more than ``common_share`` of all units (and more than 50) does not
    count. Each row: ``ci, pi, unit_id, text, status, source_key, heading_path_json, page,
    revision_id, visibility, doc_status``; at most ``per_part`` per part, ordered by answer, part,
    terms shared (most first), unit id. ``public``: units of restricted sources are left out before
    anything is counted or ranked (the term counts, the common-term cap and the best ``per_part``), so
    the rows do not depend on restricted content at all.
    """
    if not terms:
        return []
    if answers is None and getattr(store, "point_reads", False):
        return _candidates_by_point_reads(store, claims, parts, terms, per_part=per_part, common_share=common_share,
                                          public=public)
    hidden = f"AND p.unit_id NOT IN ({_RESTRICTED_UNITS})" if public else ""
    counted = f"WHERE unit_id NOT IN ({_RESTRICTED_UNITS})" if public else ""
    answer_column = "unnest(?::INTEGER[]) AS ai, " if answers is not None else "0 AS ai, "
    params = ([list(answers)] if answers is not None else []) + [list(claims), list(parts), list(terms)]
    shown = "r.ai, " if answers is not None else ""
    return store.rows(f"""
        WITH _gc_claim_terms AS (
            SELECT {answer_column}unnest(?::INTEGER[]) AS ci, unnest(?::INTEGER[]) AS pi,
                   unnest(?::VARCHAR[]) AS term
        ), df AS (
            SELECT p.term, count(*) AS n FROM term_posting p
            WHERE p.term IN (SELECT DISTINCT term FROM _gc_claim_terms) {hidden} GROUP BY p.term
        ), cap AS (
            SELECT greatest(50, (SELECT count(*) FROM evidence_unit {counted}) * {float(common_share)}) AS n
        ), hits AS (
            SELECT t.ai, t.ci, t.pi, p.unit_id, count(*) AS shared
            FROM _gc_claim_terms t
            JOIN df ON df.term = t.term AND df.n <= (SELECT n FROM cap)
            JOIN term_posting p ON p.term = t.term {hidden}
            GROUP BY t.ai, t.ci, t.pi, p.unit_id
        ), ranked AS (
            SELECT *, row_number() OVER (PARTITION BY ai, ci, pi ORDER BY shared DESC, unit_id) AS rk FROM hits
        )
        SELECT {shown}r.ci, r.pi, u.unit_id, u.text, u.status, u.source_key, u.heading_path_json, u.page,
               u.revision_id, rev.visibility, rev.status AS doc_status
        FROM ranked r
        JOIN evidence_unit u ON u.unit_id = r.unit_id
        JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id
        JOIN source_revision rev ON rev.revision_id = u.revision_id
        WHERE r.rk <= {int(per_part)}
        ORDER BY r.ai, r.ci, r.pi, r.shared DESC, u.unit_id""", params)


#: One unit of a current revision with its document's visibility and status (the point-read search's
#: per-unit read; the service reads every unit's answer ahead, graphcite.store.queries.serve).
CURRENT_UNIT = """
    SELECT u.unit_id, u.text, u.status, u.source_key, u.heading_path_json, u.page, u.revision_id,
           rev.visibility, rev.status AS doc_status
    FROM evidence_unit u
    JOIN source s ON s.key = u.source_key AND s.current_revision = u.revision_id
    JOIN source_revision rev ON rev.revision_id = u.revision_id
    WHERE u.unit_id = ?"""

#: One term's units (the point-read search's per-term read; the service answers it without a read for a
#: term the index does not hold).
TERM_POSTINGS_OF_TERM = "SELECT unit_id FROM term_posting WHERE term = ?"

#: One term's units in sources that are not restricted: the public point-read search's per-term read, so a
#: public search reads no restricted posting (the service reads every term's answer ahead, as above).
PUBLIC_TERM_POSTINGS_OF_TERM = f"""
    SELECT p.unit_id FROM term_posting p JOIN evidence_unit u ON u.unit_id = p.unit_id
    WHERE p.term = ? AND u.source_key NOT IN ({RESTRICTED_KEYS_SQL})"""

#: How many units sources that are not restricted hold: the public search's count for the common-term cap.
PUBLIC_UNIT_COUNT = f"SELECT count(*) FROM evidence_unit WHERE source_key NOT IN ({RESTRICTED_KEYS_SQL})"


def _candidates_by_point_reads(store: Store, claims: Sequence[int], parts: Sequence[int], terms: Sequence[str], *,
                               per_part: int, common_share: float, public: bool = False) -> list[Row]:
    """The grouped query's rows from one read per term and per unit, ranked here.

    For a store that answers repeated reads from memory (the service's warm view, ``point_reads``):
    a new sentence shares most of its terms with sentences checked before, so its postings are
    already in memory, where the grouped query would run again for every new combination of terms.
    Same rows in the same order as the grouped query (a test compares them on both engines).
    """
    count, of_term = (PUBLIC_UNIT_COUNT, PUBLIC_TERM_POSTINGS_OF_TERM) if public else \
        ("SELECT count(*) FROM evidence_unit", TERM_POSTINGS_OF_TERM)
    cap = max(50, (store.scalar(count) or 0) * float(common_share))
    postings = {term: [row["unit_id"] for row in store.rows(of_term, [term])] for term in dict.fromkeys(terms)}
    usable = {term: found for term, found in postings.items() if len(found) <= cap}  # common terms count for nothing
    out: list[Row] = []
    for (ci, pi), best in rank_by_shared_terms(list(zip(claims, parts, strict=True)), terms, usable,
                                              per_part).items():
        for unit_id in best:
            unit = store.row(CURRENT_UNIT, [unit_id])
            if unit is not None:
                out.append({"ci": ci, "pi": pi, **unit})
    return out


def values_with_unit_start(store: Store, unit_ids: Iterable[str]) -> list[Row]:
    """Every typed value of these units with its unit's start offset (``unit_start``), by unit and start."""
    wanted = set(unit_ids)
    if not wanted:
        return []

    def read(ids: set[str]) -> list[Row]:
        return store.rows("SELECT t.*, u.start AS unit_start FROM typed_value t "
                          "JOIN evidence_unit u ON u.unit_id = t.unit_id "
                          "WHERE t.unit_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY t.unit_id, t.start, t.\"end\"",
                          [sorted(ids)])

    memo = memo_of(store)
    if memo is None:
        return read(wanted)

    def group(missing: set[str]) -> dict[str, list[Row]]:
        out: dict[str, list[Row]] = {k: [] for k in missing}
        for row in read(missing):
            out[row["unit_id"]].append(row)
        return out

    found = memo.by_key("unit values at", wanted, group)
    return [row for k in sorted(found) for row in found[k]]


def superseded_sources(store: Store, *, public: bool = False) -> dict[str, str]:
    """``{superseded key: superseding key}`` as current revisions declare it (the least key when several);
    ``public``: a restricted source's declarations are its own text, so they supersede nothing."""
    hidden = f"AND l.from_key NOT IN ({RESTRICTED_KEYS_SQL})" if public else ""

    def read() -> dict[str, str]:
        return {r["to_key"]: r["from_key"] for r in store.rows(f"""
            SELECT l.to_key, min(l.from_key) AS from_key FROM source_link l
            JOIN source_revision r ON r.revision_id = l.declared_in
            JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
            WHERE l.relation = 'supersedes' {hidden} GROUP BY l.to_key ORDER BY l.to_key""")}

    memo = memo_of(store)
    return memo.once(f"superseded sources, public {public}", read) if memo is not None else read()
