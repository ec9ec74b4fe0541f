"""DuckDB checkpoints off the request path: the write-ahead log is folded into the file when the service
is idle, not by whichever group commit crosses DuckDB's 16 MB default.

Each answer check appends about 50 KB (its verification records keep every verdict as JSON text),
so under load a commit checkpointed every few batches; a checkpoint rewrites the changed row groups
and the tables' indexes and held that batch's requests for 0.1-0.8 s, and many small checkpoints
cost more CPU in all than one large one. :class:`Checkpointer` raises the threshold for the service's
store (a longer log only bounds how much a commit under sustained load folds in at once) and
checkpoints once no check has been written for ``idle`` seconds. PostgreSQL checkpoints on its own.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from graphcite.store.queries.verify import checkpoint, defer_checkpoints

__all__ = ["Checkpointer"]

#: the write-ahead log a commit may leave before it checkpoints (MiB; DuckDB's default is 16 MB)
THRESHOLD_MIB = 128


class Checkpointer:
    """A daemon thread that checkpoints the service's DuckDB store after ``idle`` seconds without writes."""

    def __init__(self, service: Any, *, idle: float = 1.0, threshold_mib: int = THRESHOLD_MIB) -> None:
        self.service = service
        self.idle = idle
        self.checkpoints = 0
        self.failures = 0
        defer_checkpoints(service.store, threshold_mib)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="graphcite-checkpoint", daemon=True)
        self._thread.start()

    def writes(self) -> int:
        """Checks and other records written by this service so far (both only ever grow)."""
        desk = self.service.desk
        return (desk.checks if desk is not None else 0) + self.service.warm.record_writes

    def _run(self) -> None:
        folded = last = self.writes()
        since = time.monotonic()
        while not self._stop.wait(self.idle / 2):
            now = self.writes()
            if now != last:
                last, since = now, time.monotonic()
            elif now != folded and time.monotonic() - since >= self.idle and self.checkpoint_now():
                folded = now

    def checkpoint_now(self) -> bool:
        """Checkpoint unless a write is under way (then False: the next idle moment tries again)."""
        if not self.service.write_lock.acquire(blocking=False):
            return False
        try:
            with self.service.reader() as view:
                checkpoint(view.unwrapped)
            self.checkpoints += 1
            return True
        except Exception:  # another connection's transaction: not idle after all, try again later
            self.failures += 1
            return False
        finally:
            self.service.write_lock.release()

    def stop(self) -> None:
        """Stop the thread (the store checkpoints itself when it is closed)."""
        self._stop.set()
        with contextlib.suppress(RuntimeError):
            self._thread.join(timeout=30)
