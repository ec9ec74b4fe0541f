"""Worker processes for ingest: results in input order, a bounded backlog, and no orphans.

``ProcessPoolExecutor.map`` submits every item at once, so results pile up in the parent when it
writes more slowly than the workers parse; :func:`ordered_map` keeps at most ``2 * jobs`` items in
flight. Workers must not outlive the parent: after ``kill -9`` of ``graphcite ingest --jobs 2`` they
would otherwise parse on for minutes. On Linux each worker asks the kernel for SIGKILL when its
parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread in each worker exits the
process as soon as the parent's pid changes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

__all__ = ["die_with_parent", "ordered_map"]

_PR_SET_PDEATHSIG = 1
_In = TypeVar("_In")
_Out = TypeVar("_Out")


def die_with_parent(parent_pid: int) -> None:
    """Make this process end when ``parent_pid`` (its parent) ends; call it first thing in a worker."""
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                         name="graphcite-parent-watch").start()


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


def ordered_map(function: Callable[[_In], _Out], items: Iterable[_In], *, jobs: int) -> Iterator[_Out]:
    """``function`` over ``items`` in ``jobs`` worker processes, yielding results in input order.

    At most ``2 * jobs`` items are submitted ahead of the consumer. A worker's exception is raised
    here, at that item; the remaining work is cancelled.
    """
    pending: deque[Future[_Out]] = deque()
    source = iter(items)
    with ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        try:
            for item in source:
                pending.append(pool.submit(function, item))
                if len(pending) >= 2 * jobs:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
