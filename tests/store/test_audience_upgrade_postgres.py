"""Schema 3 -> 4 on PostgreSQL: ``verification.audience`` is added, the records of public checks marked.

The DuckDB side is tests/store/test_audience_upgrade.py. On PostgreSQL verification records are
append-only (a trigger refuses UPDATE), so the upgrade lifts the trigger for its one statement inside
the schema transaction; afterwards the records are as unchangeable as before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from graphcite.errors import StoreError
from graphcite.store import SCHEMA_VERSION, Store, constraint_errors
from graphcite.verify import check_answer

ANSWERS = Path(__file__).resolve().parents[2] / "graphcite" / "examples" / "answers"


def _schema3(url: str) -> dict[str, str]:
    """Make the store at ``url`` look as schema 3 left it; returns record id -> the audience it was made for."""
    with Store(url) as store:
        check_answer(store, str(ANSWERS / "traps.json"), audience="internal")
        check_answer(store, str(ANSWERS / "traps.json"), audience="public")
        truth = {r["record_id"]: r["audience"] for r in store.rows("SELECT record_id, audience FROM verification")}
        one_public = min(k for k, v in truth.items() if v == "public")
        store.execute("ALTER TABLE verification DISABLE TRIGGER graphcite_unchanged")
        # schema 3 wrote GC104 where a public check of a restricted citation now says GC101; GC104 alone tells
        # an old public record, so every other public record reads as internal after the upgrade
        store.execute("UPDATE verification SET result_json = result_json || ' \"GC104\"' WHERE record_id = ?",
                      [one_public])
        store.execute("ALTER TABLE verification ENABLE TRIGGER graphcite_unchanged")
        store.execute("ALTER TABLE verification DROP COLUMN audience")
        store.execute("UPDATE graphcite_meta SET value = '3' WHERE key = 'schema_version'")
    return {k: "public" if k == one_public else "internal" for k in truth}


def test_a_schema3_postgres_store_gains_the_audience_column(new_pg_database: Callable[..., str]) -> None:
    url = new_pg_database("gc_corpus")
    expected = _schema3(url)
    with pytest.raises(StoreError, match="lack their audience"):
        Store(url, read_only=True)  # refused in one line until opened for writing
    with Store(url) as store:
        assert "audience" in store.columns_of("verification")
        assert store.scalar("SELECT value FROM graphcite_meta WHERE key = 'schema_version'") == str(SCHEMA_VERSION)
        found = {r["record_id"]: r["audience"] for r in store.rows("SELECT record_id, audience FROM verification")}
        assert found == expected and "public" in found.values()
        with pytest.raises((StoreError, *constraint_errors()), match="append-only"):
            store.execute("UPDATE verification SET audience = 'internal'")  # the trigger is back
