"""Start a quiet local Ray runtime, or join a cluster; refuse an unreachable address in one line.

Without an address a local runtime starts with ``workers`` CPUs, no dashboard, a small object store
and worker output kept away from the driver's terminal; it is shut down when the work is done. With
an address graphcite joins that cluster and leaves it running. When Ray is already initialised in
this process (a notebook, a test session) that runtime is used as it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Iterator
from typing import Any

from graphcite.errors import make_error

__all__ = ["ENGINES", "LOCAL_SYSTEM_CONFIG", "OBJECT_STORE_BYTES", "check_address", "check_engine", "check_workers", "ray_runtime"]

ENGINES = ("local", "ray")
#: Object store of a local runtime: rows of a few files in flight, not a cache of the corpus.
OBJECT_STORE_BYTES = 256 * 1024 * 1024
_CONNECT_TIMEOUT = 3.0
#: Ray runs task workers at nice 15, as background work beside a service; a local runtime's workers
#: are the job the user is waiting for, so they compete for the cores like the driver does.
LOCAL_SYSTEM_CONFIG = {"worker_niceness": 0}


def check_engine(engine: str) -> str:
    """``engine`` when it is one graphcite knows; else E105 naming the choices."""
    if engine not in ENGINES:
        raise make_error("E105", where="--engine", what="engine", value=engine, choices=", ".join(ENGINES))
    return engine


def check_workers(workers: int | None) -> int | None:
    """``workers`` when it is None or a whole number >= 1; else E103 naming --workers."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise make_error("E103", where="--workers", option="--workers", expected="an integer of at least 1",
                         value=workers)
    return workers


def _host_port(address: str) -> tuple[str, int] | None:
    """Host and port of ``host:port`` or ``ray://host:port``; None for ``auto`` and other forms."""
    text = address.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def _unreachable(address: str, detail: str) -> Exception:
    return make_error("E101", where=f"--address {address}", detail=f"no Ray cluster answers at {address}: {detail}",
                      fix="start one with `ray start --head`, correct the address, set RAY_AUTH_TOKEN when "
                          "the cluster uses token authentication, or omit --address for a local runtime")


def check_address(address: str | None) -> None:
    """Fail fast (seconds, not Ray's minute of retries) when nothing listens at the address."""
    if not address:
        return
    where = _host_port(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=_CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise _unreachable(address, exc.strerror or type(exc).__name__) from None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - ray is a dependency; this guards a slimmed install
        raise make_error("E401", where="--engine ray", detail="Ray is not installed",
                         fix="pip install 'graphcite[scale]'") from exc
    return ray


@contextlib.contextmanager
def ray_runtime(address: str | None = None, workers: int | None = None) -> Iterator[int]:
    """Ray ready for tasks; yields how many tasks may run at once (``workers``, else the cluster's CPUs)."""
    check_workers(workers)
    ray = _import_ray()
    if ray.is_initialized():
        yield workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # no C++ warnings on the user's terminal
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    if address:
        check_address(address)
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
            raise _unreachable(address, " ".join(str(exc).split())[:160]) from None
    else:
        # "local": a private runtime even when RAY_ADDRESS is set or `ray start` left a cluster running
        ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                 object_store_memory=OBJECT_STORE_BYTES, _system_config=LOCAL_SYSTEM_CONFIG, **quiet)
    try:
        yield workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        ray.shutdown()
