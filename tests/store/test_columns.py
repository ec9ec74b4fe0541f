"""The column snapshot that reading and bulk writing use is the SQLModel tables' own, column for column.

:mod:`graphcite.store.columns` exists so a process that only reads a store (and appends records) never
builds SQLAlchemy metadata; these tests keep it equal to the models and show that such a process never
imports SQLAlchemy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic_core import PydanticUndefined

from graphcite.errors import StoreError
from graphcite.store import Store, columns
from graphcite.store.schema import TABLES, bigint_columns, model_arrow_schema


def test_the_snapshot_names_every_table_in_model_order() -> None:
    assert tuple(TABLES) == columns.TABLE_NAMES
    for table, model in TABLES.items():
        assert columns.column_names(table) == tuple(model.model_fields), table


def test_the_snapshot_types_defaults_and_keys_are_the_models() -> None:
    wide = bigint_columns()
    for table, model in TABLES.items():
        assert columns.arrow_schema(table) == model_arrow_schema(model), table
        for column in columns.COLUMNS[table]:
            default = model.model_fields[column.name].get_default(call_default_factory=True)
            expected = columns.REQUIRED if default is PydanticUndefined else default
            assert column.default == expected, (table, column.name)
        assert columns.primary_key(table) == [c.name for c in model.__table__.primary_key.columns], table
        assert columns.BIGINT_COLUMNS[table] == wide[table], table


def test_a_missing_required_column_is_refused_in_one_line(store: Store) -> None:
    with pytest.raises(StoreError, match=r"cannot store source_link\.declared_in: the column is required"):
        store.bulk_insert("source_link", [{"link_id": "l1", "from_key": "a", "to_key": "b", "relation": "quotes"}])


READER = r"""
import json, sys
from graphcite.store import Store, utcnow
with Store(sys.argv[1]) as store:
    store.bulk_insert("verification", [{"record_id": "r1", "claim_id": "c1", "answer_rev": "a1", "config_hash": "h",
                                        "config_json": "{}", "evidence_revisions_json": "[]", "verified_at": utcnow(),
                                        "status": "supported", "supported": True, "result_json": "{}"}])
    rows = store.rows("SELECT record_id, audience, supported FROM verification")
print(json.dumps({"rows": rows, "loaded": sorted(m for m in ("sqlalchemy", "sqlmodel", "graphcite.models.tables")
                                                 if m in sys.modules)}))
"""


def test_reading_and_appending_records_never_imports_sqlalchemy(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db):
        pass  # created (with the DDL) here, so the child opens a current store
    done = subprocess.run([sys.executable, "-c", READER, str(db)], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["rows"] == [{"record_id": "r1", "audience": "internal", "supported": True}]  # the default filled
    assert found["loaded"] == []


def test_the_tables_are_still_importable_from_models() -> None:
    import graphcite.models as models

    assert models.Source.__tablename__ == "source"
    assert models.VerificationRecord is TABLES["verification"]
    assert "Reviewer" in models.__all__


def _sample(kind: str, i: int) -> object:
    """A value of each column kind, the edges included: 64-bit ints, non-ASCII text, dates, missing values."""
    import datetime as dt

    if i % 5 == 4:
        return None
    return {"string": ["plain", "naïve ✓ 日本", "", "x" * 3000][i % 4],
            "int64": [0, 2**63 - 1, -(2**63), 2**31][i % 4],
            "float64": [0.1, -1e300, 5e-324, 3.0][i % 4],
            "bool": [True, False][i % 2],
            "timestamp": dt.datetime(2024, 2, 29, 23, 59, 58, 123456 * (i % 2)),
            "date": dt.date(1999, 12, 31 - i),
            "binary": [b"", b"\x00\xff raw", bytes(range(256)) * 40, b"x"][i % 4]}[kind]


@pytest.mark.parametrize("table", columns.TABLE_NAMES)
def test_a_small_write_stores_what_the_arrow_write_stores(table: str, tmp_path: Path) -> None:
    """A few plain rows skip Arrow (:data:`graphcite.store.base.SMALL_WRITE`); every column must read back
    exactly as the Arrow path stores it, defaults filled the same way."""
    from graphcite.store.base import _to_arrow

    keys = columns.primary_key(table)

    def value(column: columns.Column, i: int) -> object:
        if column.name in keys:
            return f"k{i}" if column.kind == "string" else i
        found = _sample(column.kind, i)
        if column.kind == "int64" and not column.bigint and found is not None:
            found = int(found) % 2**31  # an INTEGER column in SQL
        nullable = column.default is None
        return found if found is not None or nullable else _sample(column.kind, 0)

    full = [{c.name: value(c, i) for c in columns.COLUMNS[table]} for i in range(5)]
    required = [{c.name: value(c, i) for c in columns.COLUMNS[table] if c.default is columns.REQUIRED}
                for i in range(5, 8)]  # the defaults are filled in
    order = ", ".join(f'"{k}"' for k in keys)
    with Store(tmp_path / "small.duckdb") as small, Store(tmp_path / "arrow.duckdb") as arrow:
        for given in (full, required):
            assert small.bulk_insert(table, given) == len(given)
            assert arrow.bulk_insert(table, _to_arrow(table, given)) == len(given)
        found = small.rows(f"SELECT * FROM {table} ORDER BY {order}")
        assert len(found) == 8 and found == arrow.rows(f"SELECT * FROM {table} ORDER BY {order}")


def test_a_value_the_small_write_cannot_take_goes_through_arrow(store: Store) -> None:
    row = {"citation_id": "c", "claim_id": "q", "ordinal": 0, "quote": "bad \ud800 surrogate"}
    with pytest.raises(StoreError, match=r"cannot store citation\.quote"):
        store.bulk_insert("citation", [row])
    store.bulk_insert("citation", [{**row, "quote": "fine", "start": 7.0}])  # a float offset: Arrow converts it
    assert store.rows("SELECT quote, start FROM citation") == [{"quote": "fine", "start": 7}]
