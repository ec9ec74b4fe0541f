"""The store: one object that opens DuckDB (the embedded default), runs transactions and bulk writes.

Tables are defined once, as SQLModel models in :mod:`graphcite.models`; their DDL is compiled here.
All DuckDB-specific SQL lives in this module (DDL tweaks, Arrow registration, lock detection), so a
SQL server URL can be added behind the same models later.

Bulk writes go through Arrow: ``INSERT INTO t SELECT ... FROM arrow_view`` runs at millions of rows per
second where ``executemany`` manages hundreds.
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
from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import SQLModel

from graphcite import models
from graphcite.errors import StoreError, StoreLockedError

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "Store", "open_store", "resolve_db_path", "utcnow"]

DEFAULT_DB = "graphcite.duckdb"
SCHEMA_VERSION = 1

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
        if not read_only:
            self._create_schema()

    # -- lifecycle --------------------------------------------------------------------------
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.close()

    def _create_schema(self) -> None:
        for statement in ddl_statements():
            self.con.execute(statement).fetchall()
        self.execute("CREATE TABLE IF NOT EXISTS graphcite_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
        self.execute("INSERT OR IGNORE INTO graphcite_meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])

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
                arrays.append(pa.array(values, type=fld.type))
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


def open_store(db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> Store:
    """Open (creating if needed) the store at ``db`` / ``$GRAPHCITE_DB`` / ``./graphcite.duckdb``."""
    return Store(db, read_only=read_only)

