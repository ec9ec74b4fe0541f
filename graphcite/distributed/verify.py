"""Batch verification on Ray: each worker opens the store read-only once and verifies chunks of
answers against it; the driver writes the records.

A PostgreSQL store is opened by its URL. A DuckDB store is a copy the driver made: on a local runtime
the workers open the file where the driver wrote it; joined to a cluster (``ship=True``), the driver
puts the copy's bytes in the object store once and each worker writes them to its own temporary
folder before opening them, so no shared filesystem is needed.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

from graphcite.distributed.tasks import ray_ordered_map
from graphcite.store import Store
from graphcite.verify.batch import BatchItem, verify_items
from graphcite.verify.config import VerifierConfig

__all__ = ["verify_on_ray"]

# One open snapshot per worker process, by its token (a path, or the hash of shipped bytes).
_OPEN: dict[str, Store] = {}


def _close_all() -> None:
    for store in _OPEN.values():
        store.close()
    _OPEN.clear()


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


def _verify_chunk(items: list[BatchItem], token: str, shipped: list[Any] | None, config: VerifierConfig,
                  audience: str) -> list[dict[str, Any]]:
    return verify_items(_worker_store(token, shipped), items, config, audience)


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
    yield from ray_ordered_map(_verify_chunk, chunks, workers=workers, args=(token, shipped, config_ref, audience))
