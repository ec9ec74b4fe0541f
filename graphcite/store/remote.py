"""A store held by another process: every statement is sent to that process, which runs it and answers.

A DuckDB file has one process that may open it, so ``graphcite serve`` cannot give a verification
worker process a store of its own. :class:`RemoteStore` is the worker's store: the engine hooks every
query and write goes through (:meth:`~graphcite.store.Store._run`, the bulk loads, the registered
tables) are sent over a :class:`~multiprocessing.connection.Connection` to the process that holds the
store, which runs each one on a store view of its own (:func:`answer_call`) and sends the result back.
Everything above the hooks (transactions, ``rows``, ``bulk_insert`` and every query module) is the
ordinary :class:`~graphcite.store.Store` code, so a worker reads exactly what the holder would read.

A worker's store sees the holder's store as it is at each statement: nothing is copied ahead. Memory
in front of it (the service's warm reads) lives in the worker, as it does in the holder.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from graphcite.errors import StoreError
from graphcite.store.base import Params, Store, one_line
from graphcite.store.dialect import Dialect

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["CALLS", "Link", "RemoteStore", "StoreShape", "answer_call", "store_shape"]

#: The store methods a :class:`RemoteStore` sends; :func:`answer_call` runs no other.
CALLS = frozenset({"_run", "_load", "_insert_rows", "_rollback", "with_ids", "register", "release", "arrow",
                   "table_names", "columns_of"})


class Link(Protocol):
    """Either end of a duplex pickling connection (:func:`multiprocessing.Pipe` or a wrapped socket)."""

    def send(self, obj: Any) -> None: ...

    def recv(self) -> Any: ...


#: What a worker needs to know of the holder's store to read through it: engine, shown path, read-only,
#: schema version.
StoreShape = tuple[str, str, bool, int]


def store_shape(store: Store) -> StoreShape:
    """The :data:`StoreShape` of ``store`` (sent to a worker when it starts)."""
    unwrapped = getattr(store, "unwrapped", store)
    return unwrapped.engine, unwrapped.shown_path, bool(unwrapped.read_only), int(unwrapped.schema_version)


class _Detached:
    """The ``con`` of a remote store: there is no connection in this process to close."""

    def close(self) -> None:
        """Nothing to close."""


def _engine_class(engine: str) -> type[Store]:
    if engine == "duckdb":
        from graphcite.store.duck import DuckDBStore

        return DuckDBStore
    if engine == "postgresql":
        from graphcite.store.postgres import PostgresStore

        return PostgresStore
    raise StoreError(f"unknown store engine {engine!r}", where="worker", fix="restart the service")


class RemoteStore(Store):
    """The store of the process at the other end of ``link``, read and written through it."""

    engine: ClassVar[str] = "remote"

    def __new__(cls, link: Link, shape: StoreShape) -> RemoteStore:
        return object.__new__(cls)

    def __init__(self, link: Link, shape: StoreShape) -> None:
        engine, path, read_only, schema_version = shape
        base = _engine_class(engine)
        self.engine = engine  # type: ignore[misc]  # the holder's engine: queries pick its dialect by it
        self.dialect: Dialect = base.dialect  # type: ignore[misc]
        self.errors = (*base.errors, StoreError)  # type: ignore[misc]
        self.path = path
        self.read_only = read_only
        self._schema_version = schema_version
        self._depth = 0
        self.con = _Detached()
        self._link = link

    def _call(self, method: str, *args: Any) -> Any:
        self._link.send(("store", method, args))
        kind, value = self._link.recv()
        if kind == "error":
            raise value
        return value

    # -- engine hooks, sent ------------------------------------------------------------------------
    def _run(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self._call("_run", sql, params)  # type: ignore[no-any-return]

    def _load(self, table: str, arrow: pa.Table, *, or_ignore: bool) -> None:
        self._call("_load", table, arrow, or_ignore)

    def _insert_rows(self, table: str, names: Sequence[str], rows: list[tuple[Any, ...]], *, or_ignore: bool) -> bool:
        return bool(self._call("_insert_rows", table, list(names), rows, or_ignore))

    def _rollback(self) -> None:
        self._call("_rollback")

    def with_ids(self, name: str, values: Iterable[str]) -> str:
        return self._call("with_ids", name, sorted(set(values)))  # type: ignore[no-any-return]

    def register(self, name: str, arrow: pa.Table) -> str:
        return self._call("register", name, arrow)  # type: ignore[no-any-return]

    def release(self, name: str) -> None:
        self._call("release", name)

    def arrow(self, sql: str, params: Params = None, *, schema: pa.Schema | None = None) -> pa.Table:
        return self._call("arrow", sql, params, schema)

    def table_names(self) -> set[str]:
        return self._call("table_names")  # type: ignore[no-any-return]

    def columns_of(self, table: str) -> set[str]:
        return self._call("columns_of", table)  # type: ignore[no-any-return]

    def cursor_view(self) -> RemoteStore:
        """Itself: the holder gives each worker one view of its own for the length of a job."""
        return self

    def close(self) -> None:
        """Nothing to close here: the holder's store stays open."""


def answer_call(store: Store, method: str, args: Sequence[Any]) -> tuple[str, Any]:
    """Run one call a :class:`RemoteStore` sent on ``store`` (the holder's view for that worker): the reply,
    ``("ok", result)`` or ``("error", exception)`` (an exception that cannot travel becomes a StoreError)."""
    if method not in CALLS:
        return "error", StoreError(f"a worker asked the store for {method!r}", where="worker",
                                   fix="restart the service")
    try:
        if method in ("_load", "_insert_rows"):
            *positional, or_ignore = args
            return "ok", getattr(store, method)(*positional, or_ignore=or_ignore)
        if method == "arrow":
            sql, params, schema = args
            return "ok", store.arrow(sql, params, schema=schema)
        return "ok", getattr(store, method)(*args)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            return "error", StoreError(one_line(exc), where=store.shown_path, fix="see the service log")
        return "error", exc
