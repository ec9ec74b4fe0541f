"""The engine-neutral half of the store: opening by URL, transactions, bulk writes, reads, the schema.

``Store(db)`` opens DuckDB for a path (the embedded default) and PostgreSQL for a
``postgresql://`` URL; both are :class:`Store` objects with the same methods, and the code above
the store never asks which. An engine subclass supplies the connection, statement execution, the
bulk load of one Arrow table and its error translation.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from graphcite.errors import StoreError
from graphcite.store.columns import (
    COLUMNS,
    META_TABLE,
    PREPARED,
    REQUIRED,
    SCHEMA_VERSION,
    TABLE_NAMES,
    arrow_schema,
)
from graphcite.store.dialect import Dialect

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DEFAULT_DB", "Params", "Store", "copy_store", "is_arrow_table", "is_postgres_url", "open_store",
           "resolve_db_path"]

DEFAULT_DB = "graphcite.duckdb"
Params = Sequence[Any] | Mapping[str, Any] | None


def resolve_db_path(db: str | os.PathLike[str] | None = None) -> str:
    """``db`` if given, else ``$GRAPHCITE_DB``, else ``./graphcite.duckdb``."""
    if db:
        return os.fspath(db)
    return os.environ.get("GRAPHCITE_DB") or DEFAULT_DB


def is_postgres_url(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database (``postgresql://`` or ``postgres://``) rather than a file."""
    return db.startswith(("postgresql://", "postgres://"))


class Store:
    """An open graphcite store: a DuckDB file (or ``:memory:``) or a PostgreSQL database.

    Use as a context manager or call :meth:`close`. Writes happen inside :meth:`transaction`; one
    ingest, one answer, one verification run = one transaction, so a failure leaves nothing half written.
    """

    engine: ClassVar[str] = "generic"
    dialect: ClassVar[Dialect]
    path: str
    read_only: bool
    con: Any

    def __new__(cls, db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                threads: int | None = None) -> Store:
        if cls is Store:
            if is_postgres_url(resolve_db_path(db)):
                from graphcite.store.postgres import PostgresStore

                cls = PostgresStore
            else:
                from graphcite.store.duck import DuckDBStore

                cls = DuckDBStore
        return super().__new__(cls)

    def __init__(self, db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 threads: int | None = None) -> None:
        raise NotImplementedError  # pragma: no cover - engines define it

    # -- engine hooks -------------------------------------------------------------------------
    def _run(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one statement (already in the engine's dialect); column names and all rows."""
        raise NotImplementedError

    def _load(self, table: str, arrow: pa.Table, *, or_ignore: bool) -> None:
        """Append an Arrow table whose columns are a subset of ``table``'s, in one bulk operation."""
        raise NotImplementedError

    def _insert_rows(self, table: str, names: Sequence[str], rows: list[tuple[Any, ...]], *, or_ignore: bool) -> bool:
        """Append a few rows of plain values (see :func:`_plain_rows`) without Arrow; False when the engine
        leaves it to :meth:`_load`."""
        return False

    def _begin(self) -> None:
        self._run("BEGIN TRANSACTION", None)

    def _commit(self) -> None:
        self._run("COMMIT", None)

    def _rollback(self) -> None:
        raise NotImplementedError

    def table_names(self) -> set[str]:
        """The tables in the store's schema."""
        return {row["table_name"] for row in self.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}

    def columns_of(self, table: str) -> set[str]:
        """The columns ``table`` has in the store (empty when there is no such table)."""
        return {row["column_name"] for row in self.rows(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ?", [table])}

    def close(self) -> None:
        raise NotImplementedError

    def with_ids(self, name: str, values: Iterable[str]) -> str:
        """A one-column (``id``) table of distinct ids named ``name`` for joins; :meth:`release` drops it."""
        raise NotImplementedError

    def register(self, name: str, arrow: pa.Table) -> str:
        """An Arrow table made queryable as ``name`` for this connection; :meth:`release` drops it."""
        raise NotImplementedError

    def release(self, name: str) -> None:
        """Drop what :meth:`with_ids` or :meth:`register` made (no error when it is gone already)."""
        raise NotImplementedError

    def arrow(self, sql: str, params: Params = None, *, schema: pa.Schema | None = None) -> pa.Table:
        """A query's result as an Arrow table (``schema`` fixes the column types when given)."""
        import pyarrow as pa

        names, found = self._run(self._sql(sql, params), params)
        columns = list(zip(*found, strict=True)) if found else [() for _ in names]
        if schema is not None:
            return pa.table({name: pa.array(list(col), type=schema.field(name).type)
                             for name, col in zip(names, columns, strict=True)})
        return pa.table({name: list(col) for name, col in zip(names, columns, strict=True)})

    # -- shared -------------------------------------------------------------------------------
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _sql(self, sql: str, params: Params) -> str:
        return self.dialect.sql(sql, has_params=bool(params))

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
        self._begin()
        self._depth = 1
        try:
            yield self
        except BaseException:
            self._depth = 0
            self._rollback()
            raise
        self._depth = 0
        self._commit()

    @contextlib.contextmanager
    def temporary(self, name: str, data: pa.Table | Iterable[str]) -> Iterator[str]:
        """``name`` queryable for the block: an Arrow table, or ids as a one-column ``id`` table."""
        if is_arrow_table(data):
            self.register(name, data)  # type: ignore[arg-type]
        else:
            self.with_ids(name, data)
        try:
            yield name
        finally:
            self.release(name)

    def bulk_insert(self, table: str, rows: Sequence[Mapping[str, Any]] | pa.Table | Mapping[str, list[Any]],
                    *, or_ignore: bool = False) -> int:
        """Insert many rows through one Arrow table; returns the number of rows given.

        ``rows`` is a list of dicts, a dict of columns, or a pyarrow Table with the model's column names.
        Missing columns get the model's defaults (None where there is none). ``or_ignore`` skips rows
        whose primary key is already stored (a concurrent or repeated write of the same content).
        """
        if not is_arrow_table(rows) and not isinstance(rows, Mapping) and len(rows) <= SMALL_WRITE:
            plain = _plain_rows(table, rows)  # type: ignore[arg-type]
            if plain is not None and self._insert_rows(table, *plain, or_ignore=or_ignore):
                return len(plain[1])
        arrow = rows if is_arrow_table(rows) else _to_arrow(table, rows)  # type: ignore[arg-type]
        if arrow.num_rows == 0:
            return 0
        self._load(table, arrow, or_ignore=or_ignore)
        return arrow.num_rows

    def add(self, record: Any) -> None:
        """Validate and insert one record (for small tables: answers, annotations)."""
        table = type(record).__tablename__
        data = type(record).model_validate(record.model_dump()).model_dump()
        self.bulk_insert(table, [data])

    def execute(self, sql: str, params: Params = None) -> None:
        """Run a statement and drain its result."""
        self._run(self._sql(sql, params), params)

    def rows(self, sql: str, params: Params = None) -> list[dict[str, Any]]:
        """Run a query and return its rows as dicts."""
        names, found = self._run(self._sql(sql, params), params)
        return [dict(zip(names, row)) for row in found]  # noqa: B905 - a row has one value per name

    def row(self, sql: str, params: Params = None) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def tuples(self, sql: str, params: Params = None) -> list[tuple[Any, ...]]:
        """Run a query and return its rows as tuples."""
        return self._run(self._sql(sql, params), params)[1]

    def scalar(self, sql: str, params: Params = None) -> Any:
        found = self._run(self._sql(sql, params), params)[1]
        return found[0][0] if found else None

    def in_list(self, column: str, values: Iterable[Any], *, cast: str = "VARCHAR") -> tuple[str, list[Any]]:
        """A ``column IN (...)`` fragment and its parameters.

        Up to :data:`IN_LIST_MAX` values become placeholders (answered from the indexes); more become one
        array parameter (``unnest``), which stays one round trip on both engines and, past a few dozen
        values, runs faster than a long list (DuckDB: 250 ids 11-14 ms as placeholders, 5-8 ms as an array).
        """
        items = sorted(set(values))
        if not items:
            return "FALSE", []
        if len(items) <= IN_LIST_MAX:
            return f"{column} IN ({', '.join('?' * len(items))})", items
        return f"{column} IN (SELECT unnest(?::{cast}[]))", [items]

    def analyze(self) -> None:
        """Refresh the planner's statistics after a large load (PostgreSQL; DuckDB keeps its own)."""

    def counts(self) -> dict[str, int]:
        """Row count per table, for summaries (kept analyses, :data:`~graphcite.store.columns.PREPARED`, are
        not content: a check that keeps a parse changes no count)."""
        return {table: int(self.scalar(f"SELECT count(*) FROM {table}")) for table in TABLE_NAMES
                if table not in PREPARED}

    @property
    def in_transaction(self) -> bool:
        """Whether a :meth:`transaction` block of this store is open (a write now joins it)."""
        return bool(self._depth)

    @property
    def schema_version(self) -> int:
        """The schema this open store has: :data:`SCHEMA_VERSION` once opened for writing, else what it was
        written with (a read-only open of an older store lacks what later versions added)."""
        return int(self._schema_version)

    # -- schema -------------------------------------------------------------------------------
    def ensure_table(self, model: Any) -> None:
        """Create a model's table (and indexes) that stores written before it existed lack."""
        from graphcite.store.schema import table_ddl

        table = model.__table__
        if table.name in self.table_names():
            return
        with self.transaction():
            for statement in table_ddl(table, self.engine):
                self.execute(statement)
            self._guard(table.name)

    def _guard(self, table: str) -> None:
        """Make ``table`` refuse changes where the engine can express it (PostgreSQL triggers)."""

    def _read_schema_version(self, tables: set[str]) -> int:
        """The version graphcite wrote (0 for a new store); refuses foreign and newer stores."""
        where = self.shown_path
        fix = "pass --db with a store written by `graphcite ingest`, or a new database"
        if META_TABLE not in tables:
            if self.read_only or tables & set(TABLE_NAMES) or (tables and self.engine == "duckdb"):
                shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
                held = f" (it holds other tables: {shown})" if tables else " (it has no graphcite tables)"
                raise StoreError(f"not a graphcite store{held}", where=where, fix=fix)
            return 0
        try:
            written = self.rows(f"SELECT value FROM {META_TABLE} WHERE key = 'schema_version'")
            version = int(written[0]["value"]) if written else 0
        except (self.errors, ValueError, TypeError) as exc:
            raise StoreError("not a graphcite store (its graphcite_meta table is damaged)", where=where,
                             fix=fix) from exc
        if version > SCHEMA_VERSION:
            raise StoreError(f"store has schema version {version}; this graphcite reads up to {SCHEMA_VERSION}",
                             where=where, fix="upgrade graphcite")
        missing = sorted(set(TABLE_NAMES) - tables - set(PREPARED))  # an analysis not kept is made again
        if self.read_only and missing:
            raise StoreError(f"incomplete graphcite store (no table {missing[0]})", where=where,
                             fix="open it once for writing (e.g. `graphcite ingest`) to upgrade it")
        if self.read_only and version < 4 and "audience" not in self.columns_of("verification"):
            raise StoreError(f"store has schema version {version}: its verification records lack their audience",
                             where=where, fix="open it once for writing (e.g. `graphcite ingest`) to upgrade it")
        return version

    def _ddl(self) -> list[str]:
        from graphcite.store.schema import ddl_statements

        return ddl_statements(self.engine)

    def _write_schema_version(self) -> None:
        self.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR)")
        self.execute(f"INSERT INTO {META_TABLE} VALUES ('schema_version', ?) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [str(SCHEMA_VERSION)])

    @property
    def shown_path(self) -> str:
        """Where the store is, safe to print (a URL's password masked)."""
        return self.path

    errors: ClassVar[tuple[type[BaseException], ...]] = ()


#: Up to this many values, :meth:`Store.in_list` writes placeholders; more go as one array (measured on the
#: 5 MB benchmark store: the two cross between 64 and 128 values).
IN_LIST_MAX = 64
#: Up to this many rows, a write of plain values skips Arrow (a check appends a few records; importing
#: pyarrow costs a tenth of a second and 26 MiB of a process that writes nothing else).
SMALL_WRITE = 256
_INT64 = (-(2**63), 2**63 - 1)


def is_arrow_table(data: object) -> bool:
    """Whether ``data`` is a pyarrow Table (without importing pyarrow: if it is not loaded, it is not one)."""
    arrow = sys.modules.get("pyarrow")
    return arrow is not None and isinstance(data, arrow.Table)


def _plain(kind: str, value: Any) -> bool:
    """Whether ``value`` stores in a column of ``kind`` exactly as Arrow would store it, with no conversion
    to decide (anything else goes through Arrow, which converts it or refuses it in one line)."""
    if value is None:
        return True
    if kind == "string":
        if type(value) is not str:
            return False
        if value.isascii():
            return True
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if kind == "int64":
        return type(value) is int and _INT64[0] <= value <= _INT64[1]
    if kind == "float64":
        return type(value) is float
    if kind == "bool":
        return type(value) is bool
    if kind == "timestamp":
        return type(value) is dt.datetime and value.tzinfo is None
    if kind == "date":
        return type(value) is dt.date
    if kind == "binary":
        return type(value) is bytes
    return False


def _plain_rows(table: str, rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[tuple[Any, ...]]] | None:
    """``rows`` as column names and tuples in model order, defaults filled as :func:`_to_arrow` fills them;
    None when a value needs Arrow's conversion or a required column is missing (the Arrow path decides then)."""
    if not rows:
        return None
    present = set().union(*(row.keys() for row in rows))
    columns = [c for c in COLUMNS[table] if c.name in present or c.default is not REQUIRED]
    if any(c.default is REQUIRED and c.name not in present for c in COLUMNS[table]):
        return None
    out: list[tuple[Any, ...]] = []
    for row in rows:
        values = tuple(row.get(c.name) if c.name in present else c.default for c in columns)
        if not all(_plain(c.kind, v) for c, v in zip(columns, values, strict=True)):
            return None
        out.append(values)
    return [c.name for c in columns], out


def _to_arrow(table: str, rows: Sequence[Mapping[str, Any]] | Mapping[str, list[Any]]) -> pa.Table:
    import pyarrow as pa

    schema = arrow_schema(table)
    defaults = {c.name: c.default for c in COLUMNS[table]}
    if isinstance(rows, Mapping):
        columns = dict(rows)
        count = len(next(iter(columns.values()))) if columns else 0
    else:
        count = len(rows)
        present = set().union(*(row.keys() for row in rows)) if rows else set()
        columns = {name: [row.get(name) for row in rows] for name in schema.names if name in present}
    if count == 0:
        return pa.table({})
    arrays = []
    for fld in schema:
        if fld.name in columns:
            values = columns[fld.name]
        else:
            default = defaults[fld.name]
            if default is REQUIRED:
                raise StoreError(f"cannot store {table}.{fld.name}: the column is required and was not given",
                                 where=table, fix=f"give {fld.name} in every {table} row")
            values = [default] * count
        try:
            arrays.append(pa.array(values, type=fld.type))
        except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
            raise StoreError(f"cannot store {table}.{fld.name}: {one_line(exc)}", where=table,
                             fix="integers must lie in -2^63..2^63-1 and text must be valid Unicode") from exc
    return pa.Table.from_arrays(arrays, schema=schema)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def copy_store(source: Store, target: Store, *, batch_rows: int = 200_000) -> dict[str, int]:
    """Copy every row of every graphcite table from ``source`` into ``target`` (e.g. DuckDB to PostgreSQL).

    Rows whose key ``target`` already holds are skipped, so a copy can be rerun; one transaction.
    Returns the rows read per table (kept analyses are copied and not counted, as in :meth:`Store.counts`).
    """
    copied: dict[str, int] = {}
    present = source.table_names()
    with target.transaction():
        for table in TABLE_NAMES:
            if table not in present:
                continue
            names = ", ".join(f'"{c.name}"' for c in COLUMNS[table])
            total = int(source.scalar(f"SELECT count(*) FROM {table}"))
            for offset in range(0, total, batch_rows):
                chunk = source.arrow(f"SELECT {names} FROM {table} ORDER BY rowid LIMIT {batch_rows} OFFSET {offset}",
                                     schema=arrow_schema(table))
                target.bulk_insert(table, chunk, or_ignore=True)
            if table not in PREPARED:  # kept analyses travel with the copy but are no content (see counts)
                copied[table] = total
    target.analyze()
    return copied


def read_only_refused(store: Store, detail: str) -> StoreError:
    """The one error for a write attempted through a store opened read-only (both engines)."""
    return StoreError(f"the store was opened read-only; refused: {detail}", where=store.shown_path,
                      fix="open it for writing (this command only reads)")


def open_store(db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
               threads: int | None = None) -> Store:
    """Open (creating if needed) the store at ``db`` / ``$GRAPHCITE_DB`` / ``./graphcite.duckdb``.

    ``db`` is a DuckDB file path or a ``postgresql://USER[:PASSWORD]@HOST:PORT/DB`` URL. ``threads``
    sets DuckDB's worker threads (1 suits a few point reads, such as one chain: no hand-offs to the
    worker pool). DuckDB keeps it per open database, not per connection: a second open of the same file
    in one process changes it for the first too. PostgreSQL ignores it (one backend per connection).
    """
    return Store(db, read_only=read_only, threads=threads)
