"""The store: one object that opens DuckDB (the embedded default), runs transactions and bulk writes.

Tables are defined once, as SQLModel models in :mod:`graphcite.models`; their DDL is compiled here.
All DuckDB-specific SQL lives in this module (DDL tweaks, Arrow registration, lock detection), so a
SQL server URL can be added behind the same models later.

Bulk writes go through Arrow: ``INSERT INTO t SELECT ... FROM arrow_view`` runs at millions of rows per
second where ``executemany`` manages hundreds.

Opening checks what is there first: a DuckDB file that graphcite did not write is "not a graphcite
store" (and is never written to), a store from a newer graphcite is refused, and an older schema is
upgraded in place when opened for writing. Opening a current store writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from sqlalchemy import BigInteger
from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import SQLModel

from graphcite import models
from graphcite.errors import StoreError, StoreLockedError

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "Store", "arrow_schema", "open_store", "resolve_db_path", "utcnow"]

DEFAULT_DB = "graphcite.duckdb"
#: 2: offset, page and line columns became BIGINT (stores at 1 are upgraded when opened for writing).
SCHEMA_VERSION = 2
_META_TABLE = "graphcite_meta"

TABLES: dict[str, type[SQLModel]] = {
    "source": models.Source,
    "source_revision": models.SourceRevision,
    "evidence_unit": models.EvidenceUnit,
    "typed_value": models.TypedValue,
    "source_link": models.SourceLink,
    "term_posting": models.TermPosting,
    "answer": models.AnswerRecord,
    "claim": models.ClaimRecord,
    "citation": models.CitationRecord,
    "verification": models.VerificationRecord,
    "annotation": models.Annotation,
    "lemma_lookup": models.LemmaEntry,
}


def utcnow() -> dt.datetime:
    """Naive UTC now, second precision (the store keeps naive UTC timestamps)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


def resolve_db_path(db: str | os.PathLike[str] | None = None) -> str:
    """``db`` if given, else ``$GRAPHCITE_DB``, else ``./graphcite.duckdb``."""
    if db:
        return os.fspath(db)
    return os.environ.get("GRAPHCITE_DB") or DEFAULT_DB


def ddl_statements() -> list[str]:
    """CREATE TABLE / CREATE INDEX statements for every model, in dependency order (DuckDB dialect)."""
    statements: list[str] = []
    dialect = postgresql.dialect()
    for table in SQLModel.metadata.sorted_tables:
        if table.name not in TABLES:
            continue
        ddl = str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)).strip()
        ddl = ddl.replace("TIMESTAMP WITH TIME ZONE", "TIMESTAMP")
        ddl = re.sub(r"\bFLOAT\b", "DOUBLE", ddl)  # SQL FLOAT is 4 bytes in DuckDB: 4.2 would not stay 4.2
        statements.append(re.sub(r"\s+\n", "\n", ddl))
        for index in sorted(table.indexes, key=lambda ix: ix.name or ""):
            statements.append(str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect)).strip())
    return statements


def _arrow_type(annotation: Any) -> pa.DataType:
    import typing

    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    kind = args[0]
    if kind is dt.datetime:
        return pa.timestamp("us")
    if kind is dt.date:
        return pa.date32()
    if kind is bool:
        return pa.bool_()
    if kind is float:
        return pa.float64()
    if kind is int:
        return pa.int64()
    return pa.string()


def _arrow_schema(model: type[SQLModel]) -> pa.Schema:
    return pa.schema([(name, _arrow_type(f.annotation)) for name, f in model.model_fields.items()])


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema :meth:`Store.bulk_insert` uses for ``table`` (columns in model order)."""
    return _arrow_schema(TABLES[table])


def _bigint_columns() -> dict[str, set[str]]:
    """Table -> columns the models declare 64-bit (older stores may hold them as INTEGER)."""
    wanted: dict[str, set[str]] = {}
    for name, model in TABLES.items():
        table = model.__table__  # type: ignore[attr-defined]
        wanted[name] = {column.name for column in table.columns if isinstance(column.type, BigInteger)}
    return wanted


class Store:
    """An open graphcite store (a DuckDB file, or ``:memory:``).

    Use as a context manager or call :meth:`close`. Writes happen inside :meth:`transaction`; one
    ingest, one answer, one verification run = one transaction, so a failure leaves nothing half written.
    """

    def __init__(self, db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> None:
        self.path = resolve_db_path(db)
        if self.path != ":memory:":
            parent = Path(self.path).expanduser().resolve().parent
            if not parent.is_dir():
                raise StoreError("folder does not exist", where=str(parent),
                                 fix="create it or pass --db with an existing folder")
            if read_only and not Path(self.path).exists():
                raise StoreError("no store here", where=self.path,
                                 fix="run `graphcite ingest PATH` first or pass --db")
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc)
            if "lock" in message.lower():
                raise StoreLockedError("store is locked by another process", where=self.path,
                                       fix="wait for the other graphcite command to finish") from exc
            raise StoreError(f"cannot open store: {message.splitlines()[0]}", where=self.path,
                             fix="check the path and permissions") from exc
        except duckdb.Error as exc:
            raise StoreError(f"not a graphcite store: {str(exc).splitlines()[0]}", where=self.path,
                             fix="pass --db with a DuckDB file written by graphcite") from exc
        self.read_only = read_only
        self._depth = 0
        try:
            self._check_is_graphcite_store()
            if not read_only:
                self._create_schema()
        except BaseException:
            self.close()
            raise

    # -- lifecycle --------------------------------------------------------------------------
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.close()

    def _table_names(self) -> set[str]:
        return {row[0] for row in self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}

    def _check_is_graphcite_store(self) -> None:
        """Refuse a DuckDB file graphcite did not write (or a newer graphcite wrote) before any query fails.

        A new, empty database is fine when opened for writing: the schema is created in it.
        """
        self._schema_version = 0
        if self.path == ":memory:":
            return
        fix = "pass --db with a store written by `graphcite ingest`, or a new file name"
        tables = self._table_names()
        if _META_TABLE not in tables:
            if self.read_only or tables:
                shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
                held = f" (it holds other tables: {shown})" if tables else " (it has no graphcite tables)"
                raise StoreError(f"not a graphcite store{held}", where=self.path, fix=fix)
            return
        try:
            written = self.con.execute(f"SELECT value FROM {_META_TABLE} WHERE key = 'schema_version'").fetchall()
            version = int(written[0][0]) if written else 0
        except (duckdb.Error, ValueError, TypeError) as exc:
            raise StoreError("not a graphcite store (its graphcite_meta table is damaged)", where=self.path,
                             fix=fix) from exc
        self._schema_version = version
        if version > SCHEMA_VERSION:
            raise StoreError(f"store has schema version {version}; this graphcite reads up to {SCHEMA_VERSION}",
                             where=self.path, fix="upgrade graphcite")
        missing = sorted(set(TABLES) - tables)
        if self.read_only and missing:
            raise StoreError(f"incomplete graphcite store (no table {missing[0]})", where=self.path,
                             fix="open it once for writing (e.g. `graphcite ingest`) to upgrade it")

    def _create_schema(self) -> None:
        """Create what is missing and upgrade an older schema; a current store is not written to at all."""
        if self._schema_version == SCHEMA_VERSION and set(TABLES) <= self._table_names():
            return
        with self.transaction():
            for statement in ddl_statements():
                self.con.execute(statement).fetchall()
            self.execute(f"CREATE TABLE IF NOT EXISTS {_META_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR)")
            self._upgrade_integer_columns()
            self.execute(f"INSERT OR REPLACE INTO {_META_TABLE} VALUES ('schema_version', ?)",
                         [str(SCHEMA_VERSION)])
        self._schema_version = SCHEMA_VERSION

    def _upgrade_integer_columns(self) -> None:
        """Widen INTEGER columns the models now declare BIGINT (schema 1 -> 2) in place.

        DuckDB cannot alter a column of a table that has secondary indexes, so those are dropped
        first and created again from the DDL afterwards (primary keys may stay).
        """
        wanted = _bigint_columns()
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
        for statement in ddl_statements():
            if statement.startswith("CREATE INDEX"):
                self.con.execute(statement).fetchall()

    # -- transactions -----------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        """Run the block in one transaction; nested calls join the outer one."""
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self.con.execute("BEGIN TRANSACTION").fetchall()
        self._depth = 1
        try:
            yield self
        except BaseException:
            self._depth = 0
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            raise
        self._depth = 0
        self.con.execute("COMMIT").fetchall()

    # -- writes -----------------------------------------------------------------------------
    def bulk_insert(self, table: str, rows: Sequence[Mapping[str, Any]] | pa.Table | Mapping[str, list[Any]],
                    *, or_ignore: bool = False) -> int:
        """Insert many rows through one Arrow table; returns the number of rows given.

        ``rows`` is a list of dicts, a dict of columns, or a pyarrow Table with the model's column names.
        Missing columns get the model's defaults (None where there is none).
        """
        model = TABLES[table]
        schema = _arrow_schema(model)
        if isinstance(rows, pa.Table):
            arrow = rows
        else:
            if isinstance(rows, Mapping):
                columns = dict(rows)
                count = len(next(iter(columns.values()))) if columns else 0
            else:
                count = len(rows)
                present = set().union(*(row.keys() for row in rows)) if rows else set()
                columns = {name: [row.get(name) for row in rows] for name in schema.names if name in present}
            if count == 0:
                return 0
            arrays = []
            for fld in schema:
                if fld.name in columns:
                    values = columns[fld.name]
                else:
                    default = model.model_fields[fld.name].get_default(call_default_factory=True)
                    values = [default] * count
                try:
                    arrays.append(pa.array(values, type=fld.type))
                except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
                    raise StoreError(f"cannot store {table}.{fld.name}: {_one_line(exc)}", where=table,
                                     fix="integers must lie in -2^63..2^63-1 and text must be valid Unicode"
                                     ) from exc
            arrow = pa.Table.from_arrays(arrays, schema=schema)
        if arrow.num_rows == 0:
            return 0
        names = ", ".join(f'"{name}"' for name in arrow.column_names)
        view = f"_gc_bulk_{table}"
        self.con.register(view, arrow)
        try:
            verb = "INSERT OR IGNORE INTO" if or_ignore else "INSERT INTO"
            self.con.execute(f"{verb} {table} ({names}) SELECT {names} FROM {view}").fetchall()
        finally:
            with contextlib.suppress(duckdb.Error):
                self.con.unregister(view)
        return arrow.num_rows

    def add(self, record: SQLModel) -> None:
        """Validate and insert one record (for small tables: answers, annotations)."""
        table = type(record).__tablename__  # type: ignore[attr-defined]
        data = type(record).model_validate(record.model_dump()).model_dump()
        self.bulk_insert(table, [data])

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> None:
        """Run a statement and drain its result (DuckDB wants results consumed before the next call)."""
        self.con.execute(sql, params or []).fetchall()

    # -- reads ------------------------------------------------------------------------------
    def rows(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a query and return its rows as dicts."""
        cursor = self.con.execute(sql, params or [])
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def row(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        result = self.con.execute(sql, params or []).fetchall()
        return result[0][0] if result else None

    def in_list(self, column: str, values: Iterable[Any], *, cast: str = "VARCHAR") -> tuple[str, list[Any]]:
        """A ``column IN (...)`` fragment and its parameters.

        Up to 1,000 values become placeholders, which DuckDB answers from its indexes in well under a
        millisecond; more become one list parameter (``unnest``), which scans but stays one round trip.
        """
        items = sorted(set(values))
        if not items:
            return "FALSE", []
        if len(items) <= 1000:
            return f"{column} IN ({', '.join('?' * len(items))})", items
        return f"{column} IN (SELECT unnest(?::{cast}[]))", [items]

    def with_ids(self, name: str, values: Iterable[str]) -> str:
        """Register a one-column Arrow table of ids as view ``name`` for joins; returns the view name."""
        self.con.register(name, pa.table({"id": pa.array(sorted(set(values)), type=pa.string())}))
        return name

    def counts(self) -> dict[str, int]:
        """Row count per table, for summaries."""
        return {table: int(self.scalar(f"SELECT count(*) FROM {table}")) for table in TABLES}


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def open_store(db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> Store:
    """Open (creating if needed) the store at ``db`` / ``$GRAPHCITE_DB`` / ``./graphcite.duckdb``."""
    return Store(db, read_only=read_only)

