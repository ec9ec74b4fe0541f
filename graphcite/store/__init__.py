"""The store: DuckDB (the embedded default) or PostgreSQL behind the same SQLModel tables.

``Store(db)`` / :func:`open_store` open a DuckDB file for a path and a PostgreSQL database for a
``postgresql://`` URL. Both run transactions, bulk writes (Arrow into DuckDB, ``COPY`` into
PostgreSQL) and the queries of every stage; where the engines' SQL differs, the difference sits in
:mod:`graphcite.store.dialect`.

Opening checks what is there first: a database that graphcite did not write is "not a graphcite
store" (and is never written to), a store from a newer graphcite is refused, and an older schema is
upgraded in place when opened for writing. Opening a current store writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphcite.store.base import DEFAULT_DB, Store, copy_store, is_postgres_url, open_store, resolve_db_path
from graphcite.store.columns import APPEND_ONLY, IMMUTABLE, SCHEMA_VERSION, arrow_schema, primary_key, utcnow

if TYPE_CHECKING:
    from graphcite.store.schema import TABLES, ddl_statements

__all__ = ["APPEND_ONLY", "DEFAULT_DB", "IMMUTABLE", "SCHEMA_VERSION", "TABLES", "Store", "arrow_schema",
           "constraint_errors", "copy_store", "ddl_statements", "is_postgres_url", "open_store", "primary_key",
           "resolve_db_path", "utcnow"]

#: Names that need the SQLModel tables, imported on first use (PEP 562): reading a store never does.
_FROM_SCHEMA = frozenset({"TABLES", "ddl_statements"})


def __getattr__(name: str) -> Any:
    if name in _FROM_SCHEMA:
        from graphcite.store import schema

        return getattr(schema, name)
    raise AttributeError(f"module 'graphcite.store' has no attribute {name!r}")


def constraint_errors() -> tuple[type[BaseException], ...]:
    """The exceptions either engine raises when a write breaks a key or a constraint."""
    import duckdb
    import psycopg

    return (duckdb.ConstraintException, psycopg.errors.IntegrityError, psycopg.errors.RestrictViolation)
