"""The PostgreSQL engine: a shared database many processes write at once (psycopg 3).

Bulk writes stream Arrow-made CSV through ``COPY``; ``or_ignore`` copies into a temporary table
first and moves the rows over with ``INSERT ... ON CONFLICT DO NOTHING``, so two processes writing
the same content-addressed rows at the same moment end with one copy. Text columns use the "C"
collation, so ``ORDER BY`` sorts by code point exactly as DuckDB does and output stays byte-identical
across engines. Verification records and annotations are append-only and revisions, units and typed
values immutable, enforced by triggers: an ``UPDATE``, ``DELETE`` or ``TRUNCATE`` on them fails.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pyarrow as pa
import pyarrow.csv as pacsv
from psycopg.adapt import Loader

from graphcite.errors import StoreError, make_error
from graphcite.store.base import Params, Store, one_line, read_only_refused, resolve_db_path
from graphcite.store.columns import APPEND_ONLY, AUDIENCE_UPGRADE, IMMUTABLE, SCHEMA_VERSION, TABLE_NAMES
from graphcite.store.dialect import POSTGRES, Dialect

__all__ = ["PostgresStore", "mask_url", "postgres_ddl"]

_CSV = pacsv.WriteOptions(include_header=False)


class _QuietCleanup(logging.Filter):
    """Drop psycopg's "error ignored terminating ..." warning: the lost connection is reported once, as E605."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored")


logging.getLogger("psycopg").addFilter(_QuietCleanup())
_SCHEMA_LOCK = zlib.crc32(b"graphcite schema")


def mask_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``, safe to print."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class _NumericLoader(Loader):
    """``numeric`` (what PostgreSQL's sum and avg return) as int when whole, else float, like DuckDB."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode("ascii")
        if "." in text or "e" in text.lower() or "N" in text:
            return float(text)
        return int(text)


_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION graphcite_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'graphcite: % is append-only; % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation',
          HINT = 'append a new record instead; stored records are never changed';
END $$"""


def postgres_ddl() -> list[str]:
    """Tables (text in the "C" collation), indexes and the triggers that keep records unchanged."""
    from graphcite.models import Acceptance, Reviewer
    from graphcite.store.schema import ddl_statements, table_ddl

    statements = [*ddl_statements("postgresql"), _TRIGGER_FUNCTION]
    for model in (Acceptance, Reviewer):  # created on first use in DuckDB; here by the owner, up front
        statements.extend(table_ddl(model.__table__, "postgresql"))  # type: ignore[attr-defined]
    for table in (*APPEND_ONLY, *IMMUTABLE):
        statements.extend(guard_statements(table))
    return statements


def guard_statements(table: str) -> list[str]:
    """Triggers that refuse UPDATE, DELETE and TRUNCATE on ``table``."""
    return [f"CREATE OR REPLACE TRIGGER graphcite_unchanged BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION graphcite_refuse_change()",
            f"CREATE OR REPLACE TRIGGER graphcite_untruncated BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION graphcite_refuse_change()"]


def _pg_type(kind: pa.DataType) -> str:
    if pa.types.is_boolean(kind):
        return "BOOLEAN"
    if pa.types.is_integer(kind):
        return "BIGINT"
    if pa.types.is_floating(kind):
        return "DOUBLE PRECISION"
    if pa.types.is_timestamp(kind):
        return "TIMESTAMP"
    if pa.types.is_date(kind):
        return "DATE"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return "BYTEA"
    return 'TEXT COLLATE "C"'


def _bytea_as_text(arrow: pa.Table) -> pa.Table:
    """Binary columns as PostgreSQL's hex text (``\\x…``), which COPY's CSV reads into BYTEA (CSV has no bytes)."""
    for index, fld in enumerate(arrow.schema):
        if pa.types.is_binary(fld.type) or pa.types.is_large_binary(fld.type):
            column = pa.array([None if v is None else "\\x" + v.hex() for v in arrow.column(index).to_pylist()],
                              type=pa.string())
            arrow = arrow.set_column(index, fld.name, column)
    return arrow


class PgConnection:
    """One psycopg connection (``raw``), with the small DuckDB-like surface callers of ``store.con`` use.

    ``cursor()`` opens a new connection, as a DuckDB cursor is an independent session: a thread that
    takes ``store.con.cursor()`` gets transactions of its own (the service's per-thread views).
    A ``read_only`` session makes every transaction read-only by default, so the server itself refuses
    a write to any table (only the store's own scratch tables are written, see :meth:`PostgresStore.scratch`).
    """

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = url
        self.read_only = read_only
        try:
            self.raw: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True, connect_timeout=10,
                                                                application_name="graphcite")
        except (psycopg.Error, ValueError) as exc:
            raise make_error("E604", where=mask_url(url), detail=_reason(exc)) from None
        self.raw.adapters.register_loader("numeric", _NumericLoader)
        self.raw.execute("SET TIME ZONE 'UTC'")
        if read_only:
            self.raw.execute("SET default_transaction_read_only = on")

    def cursor(self) -> PgConnection:
        return PgConnection(self.url, read_only=self.read_only)

    def execute(self, sql: str, params: Any = None) -> psycopg.Cursor[Any]:
        return self.raw.execute(POSTGRES.sql(sql, has_params=bool(params)), params or None)  # type: ignore[arg-type]

    def close(self) -> None:
        self.raw.close()


class PostgresStore(Store):
    """A graphcite store in a PostgreSQL database, named by a ``postgresql://`` URL."""

    engine: ClassVar[str] = "postgresql"
    dialect: ClassVar[Dialect] = POSTGRES
    errors: ClassVar[tuple[type[BaseException], ...]] = (psycopg.Error,)

    def __init__(self, db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 threads: int | None = None) -> None:
        del threads  # DuckDB's worker pool size; a PostgreSQL backend is one process
        self.path = resolve_db_path(db)
        self.read_only = read_only
        self._depth = 0
        self.con = self._connect()
        try:
            self._schema_version = self._read_schema_version(self.table_names())
            if not read_only:
                self._create_schema()
        except BaseException:
            self.close()
            raise

    @property
    def shown_path(self) -> str:
        return mask_url(self.path)

    def _connect(self) -> PgConnection:
        return PgConnection(self.path, read_only=self.read_only)

    def close(self) -> None:
        with contextlib.suppress(psycopg.Error):
            self.con.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        """As :meth:`Store.transaction`; a connection lost anywhere inside it is one E605 error."""
        outer = not self._depth
        try:
            with super().transaction() as store:
                yield store
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            if self._is_lost(exc):
                raise self._lost(exc, rolled=outer) from None
            raise

    def _lost(self, exc: BaseException, *, rolled: bool | None = None) -> StoreError:
        rolled = bool(self._depth) if rolled is None else rolled
        rolled_text = "; its open transaction was rolled back, nothing of it is stored" if rolled else ""
        return make_error("E605", where=self.shown_path, detail=_reason(exc), rolled=rolled_text)

    def _run(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        try:
            with self.con.raw.cursor() as cursor:
                cursor.execute(sql, params or None)  # type: ignore[arg-type]
                if cursor.description is None:
                    return [], []
                return [d.name for d in cursor.description], cursor.fetchall()
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            raise read_only_refused(self, _reason(exc)) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            if self._is_lost(exc):
                raise self._lost(exc) from None
            raise

    def analyze(self) -> None:
        self._run("ANALYZE", None)

    def table_names(self) -> set[str]:
        # pg_tables lists every table; information_schema only those this role may read
        return {row[0] for row in self._run("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
                                            None)[1]}

    def _is_lost(self, exc: BaseException) -> bool:
        """The connection is gone (closed, broken, or the server shutting down), not a failed statement."""
        state = getattr(exc, "sqlstate", None) or ""
        return self.con.raw.closed or self.con.raw.broken or state.startswith(("08", "57P"))

    def _rollback(self) -> None:
        if self.con.raw.closed or self.con.raw.broken:
            return
        with contextlib.suppress(psycopg.Error):
            self.con.raw.execute("ROLLBACK")

    def _copy(self, table: str, arrow: pa.Table) -> None:
        names = ", ".join(f'"{name}"' for name in arrow.column_names)
        buffer = io.BytesIO()
        pacsv.write_csv(_bytea_as_text(arrow), buffer, _CSV)
        try:
            with self.con.raw.cursor() as cursor, cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT CSV)") as copy:
                view = buffer.getbuffer()
                for start in range(0, len(view), 1 << 20):
                    copy.write(view[start:start + (1 << 20)])
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            raise read_only_refused(self, _reason(exc)) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            if self._is_lost(exc):
                raise self._lost(exc) from None
            raise

    def _load(self, table: str, arrow: pa.Table, *, or_ignore: bool) -> None:
        if not or_ignore:
            self._copy(table, arrow)
            return
        stage = f"_gc_stage_{table}"
        names = ", ".join(f'"{name}"' for name in arrow.column_names)
        with self.transaction():
            self._run(f"CREATE TEMP TABLE IF NOT EXISTS {stage} (LIKE {table})", None)
            self._run(f"TRUNCATE {stage}", None)
            self._copy(stage, arrow)
            self._run(f"INSERT INTO {table} ({names}) SELECT {names} FROM {stage} ON CONFLICT DO NOTHING", None)
            self._run(f"TRUNCATE {stage}", None)

    @contextlib.contextmanager
    def scratch(self) -> Iterator[None]:
        """Writes to this session's temporary tables, even on a read-only open.

        A read-only session's transactions are read-only, and PostgreSQL refuses CREATE even of a
        temporary table in them; outside a transaction the block runs in its own ``BEGIN READ WRITE``
        that touches nothing but ``pg_temp``. Inside a read-only transaction it cannot, and says so.
        """
        if not self.read_only:
            yield
            return
        if self._depth:
            raise StoreError("a read-only store cannot make a temporary table inside a transaction",
                             where=self.shown_path, fix="register the table before the transaction starts")
        self._run("BEGIN READ WRITE", None)
        try:
            yield
        except BaseException:
            self._rollback()
            raise
        self._run("COMMIT", None)

    def with_ids(self, name: str, values: Iterable[str]) -> str:
        return self.register(name, pa.table({"id": pa.array(sorted(set(values)), type=pa.string())}))

    def register(self, name: str, arrow: pa.Table) -> str:
        columns = ", ".join(f'"{f.name}" {_pg_type(f.type)}' for f in arrow.schema)
        with self.scratch():
            self._run(f"DROP TABLE IF EXISTS pg_temp.{name}", None)
            self._run(f"CREATE TEMP TABLE {name} ({columns})", None)
            if arrow.num_rows:
                self._copy(f"pg_temp.{name}", arrow)
            if "id" in arrow.column_names and arrow.num_rows > 1000:
                self._run(f"ANALYZE pg_temp.{name}", None)
        return name

    def release(self, name: str) -> None:
        if self.con.raw.closed or self.con.raw.broken:
            return
        with contextlib.suppress(psycopg.Error, StoreError), self.scratch():
            self._run(f"DROP TABLE IF EXISTS pg_temp.{name}", None)

    def _guard(self, table: str) -> None:
        if table in APPEND_ONLY or table in IMMUTABLE:
            self._run(_TRIGGER_FUNCTION, None)
            for statement in guard_statements(table):
                self._run(statement, None)

    def cursor_view(self) -> PostgresStore:
        """Another connection to the same database, for another thread."""
        return PostgresStore(self.path, read_only=self.read_only)

    # -- schema -------------------------------------------------------------------------------
    def _create_schema(self) -> None:
        """Create what is missing (once, under an advisory lock, when several processes start at once)."""
        if self._schema_version == SCHEMA_VERSION and set(TABLE_NAMES) <= self.table_names():
            return
        with self.transaction():
            self._run(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK})", None)
            for statement in postgres_ddl():
                self._run(statement, None)
            self._add_audience()
            self._write_schema_version()
        self._schema_version = SCHEMA_VERSION

    def _add_audience(self) -> None:
        """Give ``verification`` its ``audience`` column (schema 3 -> 4) and mark the records of public checks
        (:data:`graphcite.store.columns.AUDIENCE_UPGRADE`); the append-only trigger is lifted for that one
        statement, inside the schema transaction."""
        if "audience" in self.columns_of("verification"):
            return
        self._run("ALTER TABLE verification ADD COLUMN audience VARCHAR COLLATE \"C\" NOT NULL DEFAULT 'internal'",
                  None)
        self._run("ALTER TABLE verification DISABLE TRIGGER graphcite_unchanged", None)
        self._run(AUDIENCE_UPGRADE, None)
        self._run("ALTER TABLE verification ENABLE TRIGGER graphcite_unchanged", None)


def _reason(exc: BaseException) -> str:
    """The first line of a driver error, without the connection string psycopg sometimes repeats."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for prefix in (r"^connection failed: ", r'^connection to server at "[^"]*"(?: \([^)]*\))?, port \d+ failed: ',
                   r"^(?:FATAL|ERROR):\s+"):
        text = re.sub(prefix, "", text)
    return one_line(Exception(re.sub(r"(password=)\S+", r"\1***", text)))
