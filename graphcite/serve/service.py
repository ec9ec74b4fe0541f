"""The state one server process holds for its lifetime: the store, the write lock, limits and defaults.

DuckDB lets one process write a database file, and one connection object must not be used by two
threads at once. The server therefore opens the store once, for writing, when it starts and keeps it
until it stops; every request borrows a *cursor view* of that store (a :class:`~graphcite.store.Store`
whose connection is ``con.cursor()``, a second connection to the same database) from a small pool.
Reads run side by side on their own views (DuckDB releases the GIL while a query runs); every write
(``check_answer`` storing an answer and its verification records, ``annotate``) takes
:attr:`Service.write_lock` first, so writes are applied one at a time and never conflict. While the
server runs no other process can open the same file: stop the server to ingest. Answer checks go
through :class:`~graphcite.serve.checks.CheckDesk`: verified side by side from memory where the same
answer, sentence or claim/unit pair was seen under the same evidence, and written in groups.

Library functions are synchronous; :meth:`Service.call` runs one in a worker thread under the
per-request time limit. A call that runs over is abandoned (its thread finishes in the background,
a write still commits as one transaction) and the client gets a 504.
"""

from __future__ import annotations

import contextlib
import gc
import os
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from graphcite.claims.formats import AnswerLimits
from graphcite.errors import make_error
from graphcite.serve.checkpoint import Checkpointer
from graphcite.serve.checks import CheckDesk
from graphcite.serve.collector import Collector
from graphcite.serve.reviewers import ensure_reviewer_table
from graphcite.serve.warm import WarmReads, WarmView
from graphcite.store import Store, open_store
from graphcite.verify.check import AUDIENCES
from graphcite.verify.config import VerifierConfig

__all__ = ["MAX_VERIFY_WORKERS", "Service", "ServiceSettings", "ServiceTimeout", "verify_workers_from_env"]

T = TypeVar("T")

#: the most verification worker processes a service starts
MAX_VERIFY_WORKERS = 64


def verify_workers_from_env() -> int:
    """``$GRAPHCITE_VERIFY_WORKERS`` as a count of verification worker processes (unset or empty: 0)."""
    text = os.environ.get("GRAPHCITE_VERIFY_WORKERS", "").strip()
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_VERIFY_WORKERS:
        raise make_error("E101", where="GRAPHCITE_VERIFY_WORKERS",
                         detail=f"GRAPHCITE_VERIFY_WORKERS must be a whole number from 0 to {MAX_VERIFY_WORKERS}, "
                         f"not {text[:40]!r}", fix="set it to 0, 1, 2 ... or unset it")
    return value


class ServiceTimeout(TimeoutError):
    """A request ran over the per-request time limit (HTTP 504)."""

    def __init__(self, seconds: float, what: str = "the request") -> None:
        super().__init__(f"{what} took longer than {seconds:g} s")
        self.seconds = seconds


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """What ``graphcite serve`` was started with; every field has a command-line option."""

    db: str | os.PathLike[str] | None = None
    audience: str = "internal"
    config: VerifierConfig = field(default_factory=VerifierConfig)
    max_body_bytes: int = 5_000_000
    max_stream_bytes: int = 50_000_000
    max_claims: int = 1_000
    max_claim_chars: int = 10_000
    timeout: float = 30.0
    stream_workers: int = 64
    warm: bool = True
    #: reports, answer parts and earlier-check summaries kept in memory, checks written in groups
    #: (:mod:`graphcite.serve.checks`); False gives one transaction per check, for comparison
    memo: bool = True
    max_quote_chars: int = 500  # most code points of a source any page shows per excerpt
    #: processes that decompose and verify new answers besides the service's own (:mod:`graphcite.serve.pool`);
    #: 0 verifies in the service's threads only. Default: ``$GRAPHCITE_VERIFY_WORKERS``, else 0.
    verify_workers: int = field(default_factory=lambda: verify_workers_from_env())

    @property
    def limits(self) -> AnswerLimits:
        """The answer limits every request is read under (the body limit is also the answer limit)."""
        return AnswerLimits(max_bytes=self.max_body_bytes, max_claims=self.max_claims,
                            max_claim_chars=self.max_claim_chars)

    @property
    def max_line_bytes(self) -> int:
        """The longest ``/v1/gate`` line read; a longer one gets an E210 record and is skipped."""
        return min(self.max_body_bytes, 1_000_000)


class Service:
    """One open store shared by all requests: pooled cursor views for reads, one lock for writes."""

    def __init__(self, settings: ServiceSettings, store: Store | None = None, *, close_store: bool = False) -> None:
        if settings.audience not in AUDIENCES:
            raise ValueError(f"audience must be one of {AUDIENCES}")
        if not 0 <= settings.verify_workers <= MAX_VERIFY_WORKERS:
            raise ValueError(f"verify_workers must be from 0 to {MAX_VERIFY_WORKERS}")
        self.settings = settings
        self._owns_store = store is None or close_store
        self.store = store if store is not None else open_store(settings.db)
        if not self.store.read_only:
            ensure_reviewer_table(self.store)
        #: signs the review app's session cookies; made anew by each process, so a restart signs everyone out
        self.session_key = secrets.token_bytes(32)
        self.write_lock = threading.Lock()
        self._pool_lock = threading.Lock()
        self._free: list[Store] = []
        self._views: list[Store] = []
        self.stream_limiter = anyio.CapacityLimiter(settings.stream_workers)
        #: evidence-query answers shared by every view: a check reads its cited units from memory
        self.warm = WarmReads()
        self.desk = CheckDesk(self) if settings.memo else None
        #: checkpoints a DuckDB store this service owns (opened, or was handed to close) when it is idle
        self.checkpointer = (Checkpointer(self) if self.desk is not None and self._owns_store
                             and self.store.engine == "duckdb" and not self.store.read_only else None)
        #: verification worker processes (:mod:`graphcite.serve.pool`), started by :meth:`warm_up`
        self.pool: Any = None
        #: views borrowed, checks and gate lines received so far (the collector's sign of activity)
        self.activity = 0
        self.collector: Collector | None = None
        self.closed = False

    # -- store views ------------------------------------------------------------------------------
    def _new_view(self) -> Store:
        view = self.store.cursor_view()  # DuckDB: a cursor of its own; PostgreSQL: a connection of its own
        self._views.append(view)
        return view

    @contextlib.contextmanager
    def reader(self) -> Iterator[Store]:
        """A store view for this thread's exclusive use until the block ends (reads only)."""
        with self._pool_lock:
            view = self._free.pop() if self._free else self._new_view()
            self.activity += 1
        try:
            self.warm.revalidate(view)
            yield WarmView(view, self.warm)  # type: ignore[misc]  # reads evidence from memory once warm
        finally:
            if view._depth:  # an interrupted transaction: never hand a view in that state out again
                with contextlib.suppress(Exception):
                    view.con.execute("ROLLBACK")
                view._depth = 0
            with self._pool_lock:
                self._free.append(view)

    @contextlib.contextmanager
    def writer(self) -> Iterator[Store]:
        """A store view to write through, holding :attr:`write_lock` until the block ends."""
        with self.write_lock, self.reader() as view:
            yield view

    # -- running library code -----------------------------------------------------------------------
    async def call(self, fn: Callable[..., T], *args: Any, timeout: float | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker thread, abandoned after the time limit (ServiceTimeout)."""
        limit = self.settings.timeout if timeout is None else timeout
        try:
            with anyio.fail_after(limit):
                return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs), abandon_on_cancel=True)
        except TimeoutError:
            raise ServiceTimeout(limit) from None

    async def within(self, work: Awaitable[T]) -> T:
        """``await work`` under the per-request time limit (ServiceTimeout); the work's own threads and
        writes are abandoned, not stopped, when it runs over."""
        limit = self.settings.timeout
        try:
            with anyio.fail_after(limit):
                return await work
        except TimeoutError:
            raise ServiceTimeout(limit) from None

    async def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(store, *args, **kwargs)`` on a pooled read view, in a worker thread, under the time limit."""
        def run() -> T:
            with self.reader() as store:
                return fn(store, *args, **kwargs)
        return await self.call(run)

    async def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(store, *args, **kwargs)`` holding the write lock, in a worker thread, under the time limit."""
        def run() -> T:
            with self.writer() as store:
                return fn(store, *args, **kwargs)
        return await self.call(run)

    # -- lifecycle ----------------------------------------------------------------------------------
    @property
    def verifier(self) -> Any:
        """The ``verify_claims`` reads go through: the report memo, or None for the plain function."""
        return self.desk.memo.verify_claims if self.desk is not None else None

    def warm_up(self) -> None:
        """Load the language pipeline, lexicon and rule tables once, so the first request is not slow."""
        from graphcite.claims.formats import load_answer
        from graphcite.verify.check import verify_answer

        answer = load_answer({"answer_id": "warm-up", "claims": [
            {"text": "The service reads two sentences before it starts.", "citations": []}]}, format="native")
        with self.reader() as store:
            verify_answer(store, answer, config=self.settings.config, audience=self.settings.audience,
                          verifier=self.verifier)
        if self.desk is not None:  # (memo=False keeps the first-round service as it was, for comparison)
            # read ahead what fits the warm bounds (vocabulary, postings, current units, values), so the
            # first unseen sentences cost no store reads; before the freeze, so those rows are frozen too
            with self.reader() as store:
                self.warm.prewarm(store)
            if self.settings.verify_workers and self.pool is None and not self.closed:
                from graphcite.serve.pool import VerifyPool

                self.pool = VerifyPool(self, self.settings.verify_workers)
                self.pool.wait_ready()
            # the pipeline, lexicon and rule tables live as long as the process: moved out of the
            # collector's sight, a full collection no longer walks them all (it paused a request for
            # tens of milliseconds)
            gc.collect()
            gc.freeze()
            if self.collector is None:  # and what survives each full collection from now on
                self.collector = Collector(lambda: self.activity)

    def close(self) -> None:
        """Close every view, then the store (when the service opened it)."""
        if self.closed:
            return
        self.closed = True
        if self.collector is not None:
            self.collector.stop()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        if self.pool is not None:
            self.pool.close()
        for view in self._views:
            with contextlib.suppress(Exception):
                view.con.close()
        self._views.clear()
        self._free.clear()
        if self._owns_store:
            self.store.close()
