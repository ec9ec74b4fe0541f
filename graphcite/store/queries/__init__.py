"""Queries several stages share, written once for both engines.

Verification records are appended, never changed: a claim's current verdict is its newest record,
newest by ``verified_at`` and, within one second, by insertion order (``rowid``; ``ctid`` on
PostgreSQL, see :mod:`graphcite.store.dialect`).
"""

from __future__ import annotations

from typing import Any

from graphcite.store.base import Store

__all__ = ["NEWEST_FIRST", "RESTRICTED_KEYS_SQL", "latest_verification", "newest_per_claim_sql"]

#: ORDER BY for verification records, newest first.
NEWEST_FIRST = "verified_at DESC, rowid DESC"

#: Keys of sources that are restricted themselves or through any of their revisions.
RESTRICTED_KEYS_SQL = """
    SELECT key FROM source WHERE visibility = 'restricted'
    UNION SELECT source_key FROM source_revision WHERE visibility = 'restricted'"""


def latest_verification(store: Store, claim_id: str, columns: str = "*") -> dict[str, Any] | None:
    """The newest verification record of one claim (``columns`` of it), or None if it was never verified."""
    return store.row(f"SELECT {columns} FROM verification WHERE claim_id = ? ORDER BY {NEWEST_FIRST} LIMIT 1",
                     [claim_id])


def newest_per_claim_sql(where: str, columns: str = "*") -> str:
    """SQL for every verification record matching ``where``, with ``newest`` = 1 on each claim's latest one."""
    return (f"SELECT {columns}, row_number() OVER (PARTITION BY claim_id ORDER BY {NEWEST_FIRST}) AS newest "
            f"FROM verification WHERE {where}")
