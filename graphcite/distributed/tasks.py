"""Ray tasks over a sequence, results in input order, a bounded backlog, retried when a worker dies.

A task that dies with its worker process (killed, out of memory) is run again by Ray up to
:data:`MAX_RETRIES` times; the work graphcite ships is pure (it reads files or a read-only store and
returns rows whose ids are content hashes), so a retry yields the same result and the driver sees
each result once. An exception raised by the work itself is not retried: it is raised here, as the
original exception, at that item, and the tasks still queued are cancelled.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["MAX_RETRIES", "ray_ordered_map"]

MAX_RETRIES = 3
_In = TypeVar("_In")
_Out = TypeVar("_Out")
_REMOTE: dict[Callable[..., Any], Any] = {}


def _remote(function: Callable[..., Any]) -> Any:
    import ray

    if function not in _REMOTE:
        _REMOTE[function] = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(function)
    return _REMOTE[function]


def _get(ref: Any) -> Any:
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, BaseException):
            raise cause from None
        raise


def ray_ordered_map(function: Callable[..., _Out], items: Iterable[_In], *, workers: int,
                    args: tuple[Any, ...] = ()) -> Iterator[_Out]:
    """``function(item, *args)`` as Ray tasks, yielding results in input order.

    At most ``2 * workers`` tasks are submitted ahead of the consumer, so the driver never holds more
    than that many results. ``args`` may hold object refs (put once, shared by every task).
    """
    import ray

    remote = _remote(function)
    pending: deque[Any] = deque()
    try:
        for item in items:
            pending.append(remote.remote(item, *args))
            if len(pending) >= 2 * workers:
                yield _get(pending.popleft())
        while pending:
            yield _get(pending.popleft())
    finally:
        for ref in pending:
            ray.cancel(ref, force=False)
