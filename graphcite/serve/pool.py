"""Verification in worker processes: new answers decomposed and verified on more than one core.

Preparing a check of new text (decomposing its claims, running every rule on every part and
citation) is Python under the GIL: one server process verifies on one core however many threads it
has. :class:`VerifyPool` starts ``workers`` processes (``python -m graphcite.serve.pool``) when the
service warms up; each loads the language pipeline once and prepares checks it is sent, exactly as
the service would in a thread (:func:`graphcite.verify.check.prepare_check`), and sends back the
prepared check. Writing stays in the service: its group commit (:mod:`graphcite.serve.checks`)
writes what the workers prepared, in arrival order, as it writes its own.

A worker has no store of its own (a DuckDB file has one process that may open it): it reads through
a :class:`~graphcite.store.remote.RemoteStore`, whose every statement the service runs on a store view
it lends the worker for the length of the job. The worker keeps its own warm evidence reads, dropped
whenever the service's evidence generation moved (each job carries it), so a worker never reads older
evidence than a thread of the service would.

A check goes to a worker that is free; when none is, the service prepares it in its own thread (the
service's process is a worker too). A worker that fails a job, dies or runs over the time limit is
ended, the check is prepared in the service instead, and a new worker is started in its place, so
reports never depend on where they were prepared.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from graphcite.models import AtomicClaim, InputAnswer
from graphcite.store.remote import StoreShape, answer_call, store_shape
from graphcite.verify.check import PreparedCheck
from graphcite.verify.config import VerifierConfig

__all__ = ["Prepared", "VerifyPool", "worker_main"]

log = logging.getLogger("graphcite.serve")

#: seconds a worker may take to load the pipeline and warm up before it is given up
START_SECONDS = 120.0


@dataclass(slots=True)
class Prepared:
    """What a worker sends back for one answer: the prepared check, the parts it was verified with,
    whether the report read evidence only, and its JSON text when it did (and holds no inference)."""

    prepared: PreparedCheck
    parts: list[list[AtomicClaim]] | None
    pure: bool
    text: str | None


class _WorkerLost(Exception):
    """The worker died, failed the job or ran over: the job is done in the service instead."""


class _Worker:
    """One worker process and the service's end of its connection."""

    def __init__(self, shape: StoreShape, generation: int) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "graphcite.serve.pool", str(theirs.fileno())], pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL, env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")})
        theirs.close()
        self.link = Connection(ours.detach())
        self.link.send(("init", shape, generation))
        self.configs: set[str] = set()
        self.ready = False
        self.jobs = 0

    def wait_ready(self, lend: Any, deadline: float) -> bool:
        """Whether the worker warmed up and said it is ready before ``deadline`` (a monotonic time); its
        store calls meanwhile are answered on a view ``lend()`` lends (a context manager)."""
        if self.ready:
            return True
        try:
            with lend() as view:
                while self.link.poll(max(0.0, deadline - time.monotonic())):
                    message = self.link.recv()
                    if message[0] == "store":
                        self.link.send(answer_call(view, message[1], message[2]))
                    elif message[0] == "ready":
                        self.ready = True
                        return True
                    else:
                        log.warning("a verification worker failed to start: %s", message[1])
                        return False
        except (EOFError, OSError, ValueError):
            return False
        return False

    def run(self, view: Any, job: tuple[Any, ...], seconds: float) -> Prepared:
        """Send ``job``, answer the worker's store calls on ``view`` until it is done; the result."""
        deadline = time.monotonic() + seconds
        try:
            self.link.send(job)
            while True:
                if not self.link.poll(max(0.0, deadline - time.monotonic())):
                    raise _WorkerLost(f"a worker took longer than {seconds:g} s")
                message = self.link.recv()
                if message[0] == "store":
                    self.link.send(answer_call(view, message[1], message[2]))
                elif message[0] == "done":
                    self.jobs += 1
                    return message[1]  # type: ignore[no-any-return]
                else:
                    raise _WorkerLost(f"a worker failed a check: {message[1]}")
        except _WorkerLost:
            raise
        except Exception as exc:  # a closed connection, a message that does not unpickle
            raise _WorkerLost(f"a worker stopped: {type(exc).__name__}: {exc}") from None

    def stop(self, wait: float = 5.0) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.link.send(("stop",))
        with contextlib.suppress(OSError):
            self.link.close()
        try:
            self.process.wait(wait)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(wait)


class VerifyPool:
    """``workers`` verification processes for one :class:`~graphcite.serve.service.Service`."""

    def __init__(self, service: Any, workers: int) -> None:
        self.service = service
        self.size = workers
        self._shape = store_shape(service.store)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self.closed = False
        #: checks prepared by a worker, prepared in the service because none was free, and workers replaced
        self.remote = 0
        self.local = 0
        self.replaced = 0
        for _ in range(workers):
            self._all.append(_Worker(self._shape, service.warm.generation))

    @contextlib.contextmanager
    def _lend(self) -> Iterator[Any]:
        with self.service.reader() as view:
            yield view.unwrapped

    def wait_ready(self, seconds: float = START_SECONDS) -> int:
        """Wait for the workers to load the pipeline and warm up; returns how many are ready (the rest are
        ended)."""
        deadline = time.monotonic() + seconds
        ready = []
        for worker in list(self._all):
            if worker.wait_ready(self._lend, deadline):
                ready.append(worker)
            else:
                log.warning("a verification worker did not start; checks are prepared in the service")
                self._drop(worker)
        with self._lock:
            self._idle.extend(ready)
        return len(ready)

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers running now."""
        return [w.process.pid for w in self._all]

    def _drop(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        worker.stop(wait=1.0)

    def _replace(self, worker: _Worker) -> None:
        """End a worker that failed and start another in its place (ready in the background)."""
        self._drop(worker)
        if self.closed:
            return
        self.replaced += 1
        fresh = _Worker(self._shape, self.service.warm.generation)
        with self._lock:
            self._all.append(fresh)

        def wait() -> None:
            if fresh.wait_ready(self._lend, time.monotonic() + START_SECONDS) and not self.closed:
                with self._lock:
                    self._idle.append(fresh)
            else:
                self._drop(fresh)

        threading.Thread(target=wait, name="graphcite-pool-start", daemon=True).start()

    def prepare(self, answer: InputAnswer, rev: str, *, config: VerifierConfig, audience: str,
                model: str | None, generation: int) -> Prepared | None:
        """``answer`` (a revision this service has not stored) prepared by a free worker, or None when no
        worker is free or the one given it failed (the caller prepares it itself then)."""
        with self._lock:
            worker = self._idle.pop() if self._idle and not self.closed else None
        if worker is None:
            self.local += 1
            return None
        try:
            sent = config if config.hash not in worker.configs else None
            with self.service.reader() as view:
                store = view.unwrapped
                try:
                    result = worker.run(store, ("job", answer, rev, config.hash, sent, audience, model, generation),
                                        self.service.settings.timeout)
                except BaseException:
                    store._rollback()  # (whatever the worker left open on this view)
                    raise
            worker.configs.add(config.hash)
        except _WorkerLost as exc:
            log.warning("%s; the check is prepared in the service and the worker replaced", exc)
            self._replace(worker)
            self.local += 1
            return None
        with self._lock:
            if self.closed:
                worker.stop(wait=1.0)
            else:
                self._idle.append(worker)
        self.remote += 1
        return result

    def close(self) -> None:
        """Stop every worker (waiting a little for each), once."""
        self.closed = True
        with self._lock:
            workers, self._all, self._idle = list(self._all), [], []
        for worker in workers:
            worker.stop()


# -- the worker process ---------------------------------------------------------------------------------
def _warm_up(store: Any, warm: Any) -> None:
    """What :meth:`Service.warm_up` does for the service: the pipeline, lexicon and rule tables loaded, the
    evidence read ahead."""
    from graphcite.claims.formats import load_answer
    from graphcite.serve.warm import WarmView
    from graphcite.verify.check import verify_answer

    view = WarmView(store, warm)
    warm.revalidate(view)
    answer = load_answer({"answer_id": "warm-up", "claims": [
        {"text": "The service reads two sentences before it starts.", "citations": []}]}, format="native")
    verify_answer(view, answer)
    warm.prewarm(view)


def _job(store: Any, warm: Any, configs: dict[str, VerifierConfig], message: tuple[Any, ...]) -> Prepared:
    from graphcite.serve.jsontext import json_text
    from graphcite.serve.warm import WarmView
    from graphcite.verify.check import prepare_check
    from graphcite.verify.engine import verify_claims

    _, answer, _rev, config_hash, sent, audience, model, _generation = message
    if sent is not None:
        configs[config_hash] = sent
    config = configs[config_hash]
    view = WarmView(store, warm)
    warm.revalidate(view)
    used: list[list[list[AtomicClaim]]] = []
    pure = [True]

    def verifier(on: Any, given: InputAnswer, parts: list[list[AtomicClaim]], *args: Any,
                 **kwargs: Any) -> dict[str, Any]:
        reads = on.passthrough_reads
        used.append(parts)
        report = verify_claims(on, given, parts, *args, **kwargs)
        pure[0] = on.passthrough_reads == reads
        return report

    prepared = prepare_check(view, answer, config=config, audience=audience, model=model, verifier=verifier,
                             stored=lambda _store, _rev: False)
    report = prepared.report
    assert report is not None
    text = json_text(report) if pure[0] and not any(c.get("inference") for c in report["claims"]) else None
    return Prepared(prepared, used[0] if used else None, pure[0], text)


def worker_main(fd: int) -> int:
    """The worker: read through the service's store, prepare each check it is sent, until told to stop."""
    import gc

    from graphcite.serve.warm import WarmReads
    from graphcite.store.remote import RemoteStore

    link = Connection(fd)
    try:
        message = link.recv()
        store = RemoteStore(link, message[1])
        warm = WarmReads()
        _warm_up(store, warm)
    except (EOFError, OSError):
        return 0
    except Exception as exc:
        link.send(("failed", f"{type(exc).__name__}: {exc}"[:500]))
        return 1
    gc.collect()
    gc.freeze()  # (as the service does: the pipeline and tables are never collected)
    link.send(("ready", os.getpid()))
    configs: dict[str, VerifierConfig] = {}
    generation = message[2]  # the service's evidence generation before this worker read anything
    while True:
        try:
            message = link.recv()
        except (EOFError, OSError):
            return 0
        if message[0] != "job":
            return 0
        if message[-1] != generation:
            warm.clear()  # the service's evidence moved on: what this worker read is old
        generation = message[-1]
        try:
            result = _job(store, warm, configs, message)
        except Exception as exc:  # the service prepares it itself and says why in its log
            link.send(("failed", f"{type(exc).__name__}: {exc}"[:500]))
            continue
        link.send(("done", result))


if __name__ == "__main__":  # (run by name, so what it sends back unpickles as graphcite.serve.pool's classes)
    from graphcite.serve.pool import worker_main as _main

    sys.exit(_main(int(sys.argv[1])))
