"""The DuckDB engine: one embedded file (or ``:memory:``), one writer process at a time.

Bulk writes register the Arrow table as a view and run ``INSERT ... SELECT`` from it (millions of
rows per second). A second process that wants the file waits up to ``$GRAPHCITE_LOCK_WAIT`` seconds
(default 30) for the lock, then gets a one-line "store is locked" error.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import duckdb

from graphcite.errors import CATALOGUE, StoreError, StoreLockedError
from graphcite.store.base import Params, Store, one_line, read_only_refused, resolve_db_path
from graphcite.store.columns import AUDIENCE_UPGRADE, BIGINT_COLUMNS, COLUMNS, SCHEMA_VERSION, TABLE_NAMES
from graphcite.store.dialect import DUCKDB, Dialect

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DEFAULT_LOCK_WAIT", "PARSED_LIMIT", "DuckDBStore", "lock_wait_seconds"]

DEFAULT_LOCK_WAIT = 30.0

#: Statements kept parsed per connection (the oldest goes first). Parsing is a fifth of DuckDB's CPU
#: for a point read; the store's statements come from a few dozen query texts (an ``IN`` list of n
#: placeholders is one text per n), so this holds all a process runs repeatedly.
PARSED_LIMIT = 256

#: The SQL type of each column kind's list parameter: the type the Arrow path gives the column
#: (:func:`graphcite.store.columns.arrow_schema`), so a few rows are stored exactly as a bulk load stores them.
_SQL_TYPES = {"string": "VARCHAR", "int64": "BIGINT", "float64": "DOUBLE", "bool": "BOOLEAN",
              "timestamp": "TIMESTAMP", "date": "DATE", "binary": "BLOB"}
#: Insert statements of plain rows, by table, columns and verb.
_UNNEST_SQL: dict[tuple[str, tuple[str, ...], bool], str] = {}


def lock_wait_seconds() -> float:
    """How long to wait for another process's lock: ``$GRAPHCITE_LOCK_WAIT`` seconds (default 30)."""
    try:
        return max(0.0, float(os.environ.get("GRAPHCITE_LOCK_WAIT", DEFAULT_LOCK_WAIT)))
    except ValueError:
        return DEFAULT_LOCK_WAIT


class DuckDBStore(Store):
    """A graphcite store in a DuckDB file."""

    engine: ClassVar[str] = "duckdb"
    dialect: ClassVar[Dialect] = DUCKDB
    errors: ClassVar[tuple[type[BaseException], ...]] = (duckdb.Error,)

    def __init__(self, db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 threads: int | None = None) -> None:
        self.path = resolve_db_path(db)
        if self.path != ":memory:":
            parent = Path(self.path).expanduser().resolve().parent
            if not parent.is_dir():
                raise StoreError("folder does not exist", where=str(parent),
                                 fix="create it or pass --db with an existing folder")
            if read_only and not Path(self.path).exists():
                raise StoreError("no store here", where=self.path,
                                 fix="run `graphcite ingest PATH` first or pass --db")
        self.con = self._connect(read_only)
        self.read_only = read_only
        self._parsed: dict[str, duckdb.Statement | str] = {}
        self._depth = 0
        if threads is not None:
            if int(threads) < 1:
                self.close()
                raise StoreError(f"threads must be at least 1, not {threads}", where=self.path,
                                 fix="pass threads=1 or more, or leave it out")
            self.con.execute(f"SET threads = {int(threads)}")
        try:
            self._schema_version = 0 if self.path == ":memory:" else self._read_schema_version(self.table_names())
            if not read_only:
                self._create_schema()
        except BaseException:
            self.close()
            raise

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + lock_wait_seconds()
        pause = 0.05
        while True:
            try:
                return duckdb.connect(self.path, read_only=read_only)
            except duckdb.IOException as exc:
                message = str(exc)
                if "lock" not in message.lower():
                    raise StoreError(f"cannot open store: {message.splitlines()[0]}", where=self.path,
                                     fix="check the path and permissions") from exc
                if time.monotonic() >= deadline:
                    raise StoreLockedError("store is locked by another process", where=self.path,
                                           fix=CATALOGUE["E602"].fix) from exc
                time.sleep(pause)
                pause = min(pause * 2, 0.5)
            except duckdb.Error as exc:
                raise StoreError(f"not a graphcite store: {str(exc).splitlines()[0]}", where=self.path,
                                 fix="pass --db with a DuckDB file written by graphcite") from exc

    def close(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.close()

    def _statement(self, sql: str) -> duckdb.Statement | str:
        """``sql`` parsed once per connection and run again with new parameters; a text holding several
        statements (or none) stays text, which DuckDB parses each time as before."""
        statement = self._parsed.get(sql)
        if statement is None:
            parsed = self.con.extract_statements(sql)
            statement = parsed[0] if len(parsed) == 1 else sql
            if len(self._parsed) >= PARSED_LIMIT:
                del self._parsed[next(iter(self._parsed))]
            self._parsed[sql] = statement
        return statement

    def _run(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        try:
            cursor = self.con.execute(self._statement(sql), params or [])
        except duckdb.InvalidInputException as exc:
            if self.read_only and "read-only" in str(exc):
                raise read_only_refused(self, one_line(exc)) from None
            raise
        names = [d[0] for d in cursor.description or []]
        return names, cursor.fetchall()

    def _rollback(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.execute("ROLLBACK")

    def _load(self, table: str, arrow: pa.Table, *, or_ignore: bool) -> None:
        names = ", ".join(f'"{name}"' for name in arrow.column_names)
        view = f"_gc_bulk_{table}"
        self.con.register(view, arrow)
        try:
            verb = "INSERT OR IGNORE INTO" if or_ignore else "INSERT INTO"
            self._run(f"{verb} {table} ({names}) SELECT {names} FROM {view}", None)
        finally:
            with contextlib.suppress(duckdb.Error):
                self.con.unregister(view)

    def _insert_rows(self, table: str, names: Sequence[str], rows: list[tuple[Any, ...]], *, or_ignore: bool) -> bool:
        """One statement for all the rows: each column is one list parameter cast to the type Arrow would give
        it, unnested in step (``executemany`` runs the statement once per row: 13 rows cost 7 ms, this 1 ms)."""
        sql = self._unnest_insert(table, tuple(names), or_ignore)
        try:
            self.con.execute(self._statement(sql), [list(column) for column in zip(*rows, strict=True)])
        except duckdb.InvalidInputException as exc:
            if self.read_only and "read-only" in str(exc):
                raise read_only_refused(self, one_line(exc)) from None
            raise
        return True

    @staticmethod
    def _unnest_insert(table: str, names: tuple[str, ...], or_ignore: bool) -> str:
        found = _UNNEST_SQL.get((table, names, or_ignore))
        if found is None:
            kinds = {c.name: c.kind for c in COLUMNS[table]}
            columns = ", ".join(f'"{name}"' for name in names)
            lists = ", ".join(f"unnest(?::{_SQL_TYPES[kinds[name]]}[])" for name in names)
            verb = "INSERT OR IGNORE INTO" if or_ignore else "INSERT INTO"
            found = _UNNEST_SQL[(table, names, or_ignore)] = f"{verb} {table} ({columns}) SELECT {lists}"
        return found

    def with_ids(self, name: str, values: Iterable[str]) -> str:
        import pyarrow as pa

        return self.register(name, pa.table({"id": pa.array(sorted(set(values)), type=pa.string())}))

    def register(self, name: str, arrow: pa.Table) -> str:
        self.con.register(name, arrow)
        return name

    def release(self, name: str) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.unregister(name)

    def arrow(self, sql: str, params: Params = None, *, schema: pa.Schema | None = None) -> pa.Table:
        import pyarrow as pa

        relation = self.con.sql(sql, params=params or None)
        # DuckDB 2 calls it to_arrow_table; 1.x calls it arrow
        table = relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()
        return table.cast(pa.schema([schema.field(n) for n in table.column_names])) if schema is not None else table

    def cursor_view(self) -> DuckDBStore:
        """A view of this store on its own cursor, for another thread (transactions are per cursor)."""
        import copy

        view = copy.copy(self)
        view.con = self.con.cursor()
        view._depth = 0
        view._parsed = {}  # its own: a view runs on another thread
        return view

    # -- schema -------------------------------------------------------------------------------
    def _create_schema(self) -> None:
        """Create what is missing and upgrade an older schema; a current store is not written to at all."""
        if self._schema_version == SCHEMA_VERSION and set(TABLE_NAMES) <= self.table_names():
            return
        from graphcite.store.schema import ddl_statements

        with self.transaction():
            for statement in ddl_statements("duckdb"):
                self.con.execute(statement).fetchall()
            self._upgrade_integer_columns()
            self._add_audience()
            self._write_schema_version()
        self._schema_version = SCHEMA_VERSION

    def _upgrade_integer_columns(self) -> None:
        """Widen INTEGER columns the models now declare BIGINT (schema 1 -> 2) in place.

        DuckDB cannot alter a column of a table that has secondary indexes, so those are dropped
        first and created again from the DDL afterwards (primary keys may stay).
        """
        from graphcite.store.schema import ddl_statements

        wanted = BIGINT_COLUMNS
        stale: dict[str, list[str]] = {}
        for table, column, data_type in self.con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main'").fetchall():
            if column in wanted.get(table, set()) and data_type != "BIGINT":
                stale.setdefault(table, []).append(column)
        if not stale:
            return
        for table, columns in sorted(stale.items()):
            for (index,) in self.con.execute(
                    "SELECT index_name FROM duckdb_indexes() WHERE table_name = ?", [table]).fetchall():
                self.execute(f'DROP INDEX "{index}"')
            for column in columns:
                self.execute(f'ALTER TABLE {table} ALTER "{column}" TYPE BIGINT')
        for statement in ddl_statements("duckdb"):
            if statement.startswith("CREATE INDEX"):
                self.con.execute(statement).fetchall()

    def _add_audience(self) -> None:
        """Give ``verification`` its ``audience`` column (schema 3 -> 4) and mark the records of public checks
        (:data:`graphcite.store.columns.AUDIENCE_UPGRADE`). DuckDB cannot add a NOT NULL column to a table
        with an index, so an upgraded store's column is nullable; every write gives it."""
        if "audience" in self.columns_of("verification"):
            return
        self.execute("ALTER TABLE verification ADD COLUMN audience VARCHAR DEFAULT 'internal'")
        self.execute(AUDIENCE_UPGRADE)
