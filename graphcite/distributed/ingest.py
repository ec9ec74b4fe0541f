"""Ingest's per-file work as Ray tasks: consecutive files grouped into tasks of about a megabyte.

One task per file costs Ray a few milliseconds of CPU each on this machine (scheduling, a result
object, a worker round trip), as much as parsing a small file, so files travel in groups; each
group's rows come back as Arrow batches inside :class:`PreparedFile` objects, in input order.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence

from graphcite.distributed.tasks import ray_ordered_map
from graphcite.ingest.files import FoundFile
from graphcite.ingest.prepare import PreparedFile, prepare_file

__all__ = ["GROUP_BYTES", "GROUP_FILES", "prepare_on_ray"]

GROUP_BYTES = 1_000_000
GROUP_FILES = 64


def prepare_group(group: list[FoundFile], max_bytes: int) -> list[PreparedFile]:
    """:func:`prepare_file` for each file of a group, rows kept in memory (no spill folder: the
    worker may run on another machine, so the rows travel in the result)."""
    return [prepare_file(found, max_bytes, None) for found in group]


def _size(item: FoundFile) -> int:
    with contextlib.suppress(OSError):  # prepare_file reports it, at this file
        return os.stat(item.path).st_size
    return 0


def _groups(found: Sequence[FoundFile], workers: int) -> Iterator[list[FoundFile]]:
    """Consecutive files in groups of up to :data:`GROUP_BYTES` (less for a small corpus, so that
    every worker gets about four groups) and :data:`GROUP_FILES`."""
    sizes = [_size(item) for item in found]
    target = max(1, min(GROUP_BYTES, sum(sizes) // (4 * workers)))
    group: list[FoundFile] = []
    total = 0
    for item, size in zip(found, sizes, strict=True):
        group.append(item)
        total += size
        if total >= target or len(group) >= GROUP_FILES:
            yield group
            group, total = [], 0
    if group:
        yield group


def _describe(group: list[FoundFile]) -> str:
    """What a task does, for the error when Ray fails under it: ``preparing a.md (and 5 more files)``."""
    more = f" (and {len(group) - 1:,} more file{'s' if len(group) > 2 else ''})" if len(group) > 1 else ""
    return f"preparing {group[0].key}{more}"


def prepare_on_ray(found: Sequence[FoundFile], *, max_bytes: int, workers: int) -> Iterator[PreparedFile]:
    """The prepared files, in input order, computed by Ray tasks ``workers`` at a time."""
    for prepared in ray_ordered_map(prepare_group, _groups(found, workers), workers=workers, args=(max_bytes,),
                                    describe=_describe):
        yield from prepared
