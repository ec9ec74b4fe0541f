"""Start a quiet local Ray runtime, or join a cluster; refuse an unreachable address in one line.

Without an address a local runtime starts with ``workers`` CPUs, no dashboard, a small object store
and worker output kept away from the driver's terminal; it is shut down when the work is done, also
when the work failed, and no process of it outlives the command (Ray's agents survive a dead GCS:
they are ended here). With an address graphcite joins that cluster and leaves it running. When Ray
is already initialised in this process (a notebook, a test session) that runtime is used as it is.

A runtime that fails under the work (a worker, the raylet or the GCS dies) is :func:`ray_failure`:
one E010 line saying what died and what to do, not an internal error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import time
from collections.abc import Iterator
from typing import Any

from graphcite.errors import GraphciteError, make_error

__all__ = ["ENGINES", "LOCAL_SYSTEM_CONFIG", "OBJECT_STORE_BYTES", "check_address", "check_engine", "check_workers",
           "local_raylet_died", "ray_failure", "ray_runtime", "runtime_failures"]

ENGINES = ("local", "ray")
#: Object store of a local runtime: rows of a few files in flight, not a cache of the corpus.
OBJECT_STORE_BYTES = 256 * 1024 * 1024
_CONNECT_TIMEOUT = 3.0
#: Ray runs task workers at nice 15, as background work beside a service; a local runtime's workers
#: are the job the user is waiting for, so they compete for the cores like the driver does.
LOCAL_SYSTEM_CONFIG = {"worker_niceness": 0}
#: Ray's errors that say its runtime failed under the work (by class name, looked up along the MRO);
#: any other Ray error is graphcite's bug and stays one (E009).
_WHAT_DIED = {
    "WorkerCrashedError": "a Ray worker process died",
    "OutOfMemoryError": "a Ray worker was killed for lack of memory",
    "LocalRayletDiedError": "the local Ray raylet died",
    "NodeDiedError": "a Ray node died",
    "OwnerDiedError": "a result was lost with the Ray process that held it",
    "ObjectLostError": "a result was lost with the Ray worker or node that held it",
    "ObjectStoreFullError": "the Ray object store is full",
    "OutOfDiskError": "the Ray node is out of disk space",
    "TaskUnschedulableError": "Ray cannot schedule the work on this cluster",
    "RpcError": "Ray's processes stopped answering each other",
    "GetTimeoutError": "Ray's processes stopped answering each other",
    "RaySystemError": "Ray's runtime failed",
}
_FIX = ("rerun the command; if it fails again, use fewer --workers, free memory, or omit --engine ray "
        "(the default engine ingests and verifies in this process)")
_GRACE_SECONDS = 2.0
_LOG = logging.getLogger(__name__)
#: The raylet of the local runtime this process started, as (pid, start time); empty when joined to a
#: cluster or using a runtime started elsewhere.
_LOCAL_RAYLET: list[tuple[int, str]] = []


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


def runtime_failures() -> tuple[type[BaseException], ...]:
    """The exception classes :func:`ray_failure` turns into one line (Ray must be importable)."""
    import ray.exceptions

    return tuple(getattr(ray.exceptions, name) for name in _WHAT_DIED if hasattr(ray.exceptions, name))


def ray_failure(exc: BaseException, doing: str | None = None) -> GraphciteError:
    """E010 for a Ray runtime that failed under the work: what died, ``doing`` what (``"preparing a.md"``), the fix.

    Everything graphcite runs on Ray is written by the driver in one transaction after the results
    come back, so nothing has been written when this is raised.
    """
    name = next((cls.__name__ for cls in type(exc).__mro__ if cls.__name__ in _WHAT_DIED), "")
    what = _WHAT_DIED.get(name, "Ray's runtime failed")
    if name == "WorkerCrashedError":
        from graphcite.distributed.tasks import MAX_RETRIES

        what = f"a Ray worker process died {MAX_RETRIES + 1} times"
    detail = f"{what}{f' {doing}' if doing else ''} ({type(exc).__name__}); nothing was written"
    return make_error("E010", where="--engine ray", detail=detail, fix=_FIX)


def _start_failure(exc: BaseException) -> GraphciteError:
    first = " ".join(str(exc).split(". ")[0].split())[:120]
    detail = f"the local Ray runtime did not start ({type(exc).__name__}: {first}); nothing was written"
    return make_error("E010", where="--engine ray", detail=detail, fix=_FIX)


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (field 22 of /proc/PID/stat), which tells a reused pid apart;
    None when it is gone or a zombie (it has exited; its parent has not collected it yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 and fields[0] not in {"Z", "X"} else None


def _ray_processes() -> set[tuple[int, str]]:
    """This process's descendants that belong to Ray (titled ``ray::...`` or a program under ``ray/``),
    as (pid, start time); empty where there is no /proc."""
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError), \
                        open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: set[tuple[int, str]] = set()
    todo = list(children.get(os.getpid(), ()))
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read(4096)
        except OSError:
            continue
        started = _start_time(pid)
        if started is not None and (command.startswith(b"ray::") or b"/ray/" in command):
            found.add((pid, started))
    return found


def _alive(processes: set[tuple[int, str]]) -> set[tuple[int, str]]:
    return {(pid, started) for pid, started in processes if _start_time(pid) == started}


def local_raylet_died() -> bool:
    """Whether the raylet of the local runtime this process started has died.

    A driver whose raylet died may wait for a lost result until Ray's core ends the whole process
    with exit code 1 and no message; the tasks' waits ask this every second so the command can say
    so in one line first. False when there is no such raylet (a cluster, a runtime started elsewhere).
    """
    return bool(_LOCAL_RAYLET) and not _alive(set(_LOCAL_RAYLET))


def _find_raylet(processes: set[tuple[int, str]]) -> list[tuple[int, str]]:
    found = []
    for pid, started in processes:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as handle:
            if handle.read(4096).split(b"\0")[0].endswith(b"/raylet"):
                found.append((pid, started))
    return found


def _end_processes(processes: set[tuple[int, str]]) -> None:
    """Wait a moment for ``processes`` to exit, then SIGTERM, then SIGKILL the ones still running."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            for pid, _ in _alive(processes):
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
        deadline = time.monotonic() + _GRACE_SECONDS
        while _alive(processes) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _alive(processes):
            return


def _shutdown(ray: Any, before: set[tuple[int, str]]) -> None:
    """``ray.shutdown()``, then end the local runtime's processes that outlived it (agents of a dead GCS)."""
    started = _ray_processes() - before
    with contextlib.suppress(Exception):  # a runtime that half died may fail to shut down; its processes end below
        ray.shutdown()
    _end_processes(started | (_ray_processes() - before))


@contextlib.contextmanager
def _ray_messages_logged(ray: Any) -> Iterator[None]:
    """Send the raylet's messages to the driver ("Task prepare_group failed. There are 3 retries remaining
    ...", many lines each) to this module's log instead of stdout, where `--json` output goes.

    Ray prints them from a thread of the driver through ``ray._private.worker.print_to_stdstream``
    with no option to turn them off; where that function is missing (another Ray) nothing changes.
    """
    module = getattr(getattr(ray, "_private", None), "worker", None)
    original = getattr(module, "print_to_stdstream", None)
    if original is None:
        yield
        return

    def to_log(data: dict[str, Any], ignore_prefix: bool = False) -> None:
        for line in data.get("lines") or ():
            _LOG.info("ray %s: %s", data.get("pid"), " ".join(str(line).split()))

    module.print_to_stdstream = to_log
    try:
        yield
    finally:
        module.print_to_stdstream = original


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
        try:
            with _ray_messages_logged(ray):
                yield workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        finally:
            with contextlib.suppress(Exception):  # leaving a cluster that failed must not hide why
                ray.shutdown()
        return
    # "local": a private runtime even when RAY_ADDRESS is set or `ray start` left a cluster running
    before = _ray_processes()
    try:
        try:
            ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     object_store_memory=OBJECT_STORE_BYTES, _system_config=LOCAL_SYSTEM_CONFIG, **quiet)
            slots = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        except Exception as exc:  # Ray raises a bare Exception when its raylet or GCS dies while starting
            raise _start_failure(exc) from None
        _LOCAL_RAYLET[:] = _find_raylet(_ray_processes() - before)
        with _ray_messages_logged(ray):
            yield slots
    finally:
        _LOCAL_RAYLET.clear()
        _shutdown(ray, before)
