"""Ray tasks over a sequence, results in input order, a bounded backlog, retried when a worker dies.

A task that dies with its worker process (killed, out of memory) is run again by Ray up to
:data:`MAX_RETRIES` times; the work graphcite ships is pure (it reads files or a read-only store and
returns rows whose ids are content hashes), so a retry yields the same result and the driver sees
each result once. An exception raised by the work itself is not retried: it is raised here, as the
original exception, at that item, and the tasks still queued are cancelled. A runtime that fails
under the work (a worker that died on every try, a dead raylet or node) is one E010 line naming the
item (:func:`graphcite.distributed.runtime.ray_failure`).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from graphcite.distributed.runtime import local_raylet_died, ray_failure, runtime_failures

__all__ = ["MAX_RETRIES", "ray_ordered_map"]

MAX_RETRIES = 3
_In = TypeVar("_In")
_Out = TypeVar("_Out")
_REMOTE: dict[Callable[..., Any], Any] = {}
_POLL_SECONDS = 1.0


def _remote(function: Callable[..., Any]) -> Any:
    import ray

    if function not in _REMOTE:
        _REMOTE[function] = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(function)
    return _REMOTE[function]


def _get(ref: Any, doing: str | None) -> Any:
    import ray

    try:
        while not ray.wait([ref], timeout=_POLL_SECONDS, fetch_local=False)[0]:
            if local_raylet_died():  # Ray's core would soon end this process without a word
                raise ray.exceptions.LocalRayletDiedError()
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, runtime_failures()):
            raise ray_failure(cause, doing) from None
        if isinstance(cause, BaseException):
            raise cause from None
        raise
    except runtime_failures() as exc:
        raise ray_failure(exc, doing) from None


def ray_ordered_map(function: Callable[..., _Out], items: Iterable[_In], *, workers: int,
                    args: tuple[Any, ...] = (), describe: Callable[[_In], str] | None = None) -> Iterator[_Out]:
    """``function(item, *args)`` as Ray tasks, yielding results in input order.

    At most ``2 * workers`` tasks are submitted ahead of the consumer, so the driver never holds more
    than that many results. ``args`` may hold object refs (put once, shared by every task).
    ``describe(item)`` says what a task does (``"preparing a.md"``) in the error when Ray fails under it.
    """
    import ray

    remote = _remote(function)
    pending: deque[tuple[Any, _In]] = deque()

    def take() -> _Out:
        ref, item = pending.popleft()
        return _get(ref, describe(item) if describe else None)  # type: ignore[no-any-return]

    try:
        for item in items:
            try:
                pending.append((remote.remote(item, *args), item))
            except runtime_failures() as exc:
                raise ray_failure(exc, describe(item) if describe else None) from None
            if len(pending) >= 2 * workers:
                yield take()
        while pending:
            yield take()
    finally:
        for ref, _ in pending:
            with contextlib.suppress(Exception):  # a dead runtime cannot cancel; it is shut down next
                ray.cancel(ref, force=False)
