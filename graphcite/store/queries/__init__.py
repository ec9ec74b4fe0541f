"""Queries several stages share, written once for both engines.

Verification records are appended, never changed: a claim's current verdict is its newest record,
newest by ``verified_at`` and, within one second, by insertion order (``rowid``; ``ctid`` on
PostgreSQL, see :mod:`graphcite.store.dialect`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from graphcite.store.base import Store
from graphcite.store.columns import RESTRICTED_KEYS_SQL  # written once, beside the upgrade that reads it

__all__ = ["NEWEST_FIRST", "RESTRICTED_KEYS_SQL", "latest_verification", "newest_per_claim_sql", "rank_by_shared_terms"]

#: ORDER BY for verification records, newest first.
NEWEST_FIRST = "verified_at DESC, rowid DESC"



def latest_verification(store: Store, claim_id: str, columns: str = "*", *,
                        audience: str = "internal") -> dict[str, Any] | None:
    """The newest verification record of one claim made for ``audience`` (``columns`` of it), or None if it
    was never verified for that audience (a record made for another audience is never this one's latest)."""
    return store.row(f"SELECT {columns} FROM verification WHERE claim_id = ? AND audience = ? "
                     f"ORDER BY {NEWEST_FIRST} LIMIT 1", [claim_id, audience])


def newest_per_claim_sql(where: str, columns: str = "*") -> str:
    """SQL for every verification record matching ``where``, with ``newest`` = 1 on each claim's latest one
    per audience (a record made for one audience is never another audience's latest)."""
    return (f"SELECT {columns}, row_number() OVER (PARTITION BY claim_id, audience ORDER BY {NEWEST_FIRST}) "
            f"AS newest FROM verification WHERE {where}")


Key = TypeVar("Key", bound=Hashable)


def rank_by_shared_terms(keys: Sequence[Key], terms: Sequence[str], postings: Mapping[str, Sequence[str]],
                         per_key: int) -> dict[Key, list[str]]:
    """The units sharing the most terms with each key, best first (ties by unit id), at most ``per_key``.

    ``keys`` and ``terms`` are parallel (one row per term of a key); ``postings`` gives each term's
    units (a term left out or empty counts for nothing). The same ranking as the grouped term-index
    queries (``count(*)`` per key and unit, ``row_number() ... ORDER BY shared DESC, unit_id``), for
    postings read one term at a time; keys without a hit are left out, the rest come in key order.
    """
    shared: dict[Key, dict[str, int]] = {}
    for key, term in zip(keys, terms, strict=True):
        counts = shared.setdefault(key, {})
        for unit_id in postings.get(term, ()):
            counts[unit_id] = counts.get(unit_id, 0) + 1
    return {key: [unit for unit, _ in sorted(counts.items(), key=lambda hit: (-hit[1], hit[0]))[:per_key]]
            for key, counts in sorted(shared.items()) if counts}

