"""Batch verification on Ray: each worker opens the store read-only once and verifies chunks of
answers against it; the driver writes the records.

A PostgreSQL store is opened by its URL. A DuckDB store is a copy the driver made: on a local runtime
the workers open the file where the driver wrote it; joined to a cluster (``ship=True``), the driver
puts the copy's bytes in the object store once and each worker writes them to its own temporary
folder before opening them, so no shared filesystem is needed.

Each worker keeps the evidence it has read for the length of one batch (an evidence memo, see
:mod:`graphcite.store.queries.verify_memo`), so its later chunks read only sources and units that
earlier ones did not; a new batch (a new id) starts with an empty memo.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from graphcite.distributed.tasks import ray_ordered_map
from graphcite.store import Store
from graphcite.store.queries.verify_memo import evidence_memo
from graphcite.verify.batch import BatchItem, verify_items
from graphcite.verify.config import VerifierConfig

__all__ = ["verify_on_ray"]

# One open snapshot per worker process, by its token (a path, or the hash of shipped bytes).
_OPEN: dict[str, Store] = {}
# The evidence memo of the batch this worker serves: (batch id, the block that keeps it open).
_MEMO: list[tuple[str, contextlib.ExitStack]] = []


def _end_memo() -> None:
    while _MEMO:
        _MEMO.pop()[1].close()


def _close_all() -> None:
    _end_memo()
    for store in _OPEN.values():
        store.close()
    _OPEN.clear()


def _batch_store(batch: str, token: str, shipped: list[Any] | None) -> Store:
    """The worker's snapshot, with an evidence memo kept open for the whole of batch ``batch``."""
    store = _worker_store(token, shipped)
    if not _MEMO or _MEMO[0][0] != batch:
        _end_memo()
        stack = contextlib.ExitStack()
        stack.enter_context(evidence_memo(store))
        _MEMO.append((batch, stack))
    return store


atexit.register(_close_all)


def _worker_store(token: str, shipped: list[Any] | None) -> Store:
    """The snapshot this worker verifies against, opened read-only on first use."""
    store = _OPEN.get(token)
    if store is not None:
        return store
    _close_all()  # a new batch: the previous snapshot is gone
    path = token
    if shipped is not None:
        import ray

        folder = tempfile.mkdtemp(prefix="graphcite-worker-")
        atexit.register(shutil.rmtree, folder, True)
        path = os.path.join(folder, "snapshot.duckdb")
        with open(path, "wb") as handle:
            handle.write(ray.get(shipped[0]))
    store = Store(path, read_only=True)
    _OPEN[token] = store
    return store


def _verify_chunk(items: list[BatchItem], batch: str, token: str, shipped: list[Any] | None, config: VerifierConfig,
                  audience: str) -> list[dict[str, Any]]:
    return verify_items(_batch_store(batch, token, shipped), items, config, audience)


def verify_on_ray(snapshot: str, chunks: Sequence[list[BatchItem]], config: VerifierConfig, audience: str, *,
                  workers: int, ship: bool = False) -> Iterator[list[dict[str, Any]]]:
    """The results of :func:`verify_items` per chunk, in order, computed by Ray tasks."""
    import ray

    shipped: list[Any] | None = None
    token = snapshot
    if ship:
        with open(snapshot, "rb") as handle:
            data = handle.read()
        token = hashlib.sha256(data).hexdigest()
        shipped = [ray.put(data)]  # in a list, so tasks receive the ref and fetch it only once per worker
    config_ref = ray.put(config)
    batch = uuid.uuid4().hex  # only names the workers' memo; nothing in the results depends on it
    yield from ray_ordered_map(_verify_chunk, chunks, workers=workers,
                               args=(batch, token, shipped, config_ref, audience), describe=_describe)


def _describe(chunk: list[BatchItem]) -> str:
    """What a task does, for the error when Ray fails under it: ``verifying answer a1 (and 3 more)``."""
    more = f" (and {len(chunk) - 1:,} more)" if len(chunk) > 1 else ""
    return f"verifying answer {chunk[0].answer.answer_id}{more}" if chunk else "verifying answers"
