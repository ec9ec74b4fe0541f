"""Files -> source revisions, evidence units, heading status, typed values, lineage: one transaction.

The work per file (read, parse, cut units, extract values, index terms; :mod:`graphcite.ingest.prepare`)
is pure and runs in worker processes with ``jobs > 1``, or in Ray tasks with ``engine="ray"`` (a local
runtime, or a cluster at ``address``), which return each file's rows as Arrow tables. The main process
writes the rows as they arrive, in bulk batches, inside one transaction, so memory holds a few files at
a time and a failure or a kill leaves nothing half written. The SQL it runs besides those bulk writes
is in :mod:`graphcite.store.queries.ingest`.

Unchanged files (same content hash as the current revision) are a no-op; a changed file becomes a
new revision and the source's pointer moves to it. A file changed back to content stored earlier
does not make a new revision: the pointer moves back to that earlier revision (``reverted`` in the
report), so the current revision always follows the latest ingest.

Every id is a content hash and source, revision, unit and value rows are inserted with ``or_ignore``:
a file prepared twice (a Ray task retried after its worker died) or ingested by two processes at once
(on PostgreSQL) yields each row once.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from graphcite.distributed.runtime import check_engine, check_workers
from graphcite.errors import GraphciteError, IngestError, make_error
from graphcite.ingest import files as filesmod
from graphcite.ingest import frontmatter, lineage, values
from graphcite.ingest.prepare import PreparedFile, prepare_file, revision_id_for, unit_id_for
from graphcite.ingest.terms import content_terms
from graphcite.ingest.workers import ordered_map
from graphcite.models import KINDS
from graphcite.store import Store, utcnow
from graphcite.store.queries import ingest as queries

__all__ = ["IngestReport", "PreparedFile", "ProgressCallback", "ingest", "prepare_file", "revision_id_for", "unit_id_for"]

# Rows held before they are written (the transaction stays open; this only bounds memory).
_FLUSH_ROWS = 1_000_000
# Tables whose rows are written in key order: a composite text key goes into its index in order much faster.
_SORTED_WRITES = frozenset({"term_posting"})
_FLUSH_CHARS = 50_000_000
_SPILL_PREFIX = "graphcite-ingest-"

#: ``progress(key, size, units)`` after each file: its source key, its bytes, its evidence units.
ProgressCallback = Callable[[str, int, int], None]


@dataclass(slots=True)
class IngestReport:
    """What an ingest did; ``skipped_ext`` counts files left out by extension.

    ``reverted`` lists sources whose file went back to content stored earlier (also in ``updated``);
    ``warnings`` are one-line notes: skipped broken links, link loops, links out of the folder and
    special files, visibility conflicts, unknown metadata keys and kinds, supersession cycles,
    complaints of the PDF reader. ``refused`` are the files a non-strict ingest left out, each
    ``{"key", "code", "message"}`` (the message is the one line a strict ingest would raise).
    """

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)
    skipped_ext: dict[str, int] = field(default_factory=dict)
    units: int = 0
    values: int = 0
    links: int = 0
    postings: int = 0
    bytes: int = 0
    dangling: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when no file was refused, 1 when some were and others ingested, 2 when every file was refused."""
        if not self.refused:
            return 0
        return 1 if self.added or self.updated or self.unchanged else 2

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "reverted": self.reverted, "skipped_extensions": self.skipped_ext, "units": self.units,
            "values": self.values, "links": self.links, "term_postings": self.postings, "bytes": self.bytes,
            "dangling_links": self.dangling, "warnings": self.warnings, "refused": self.refused,
        }

    def refuse(self, key: str, error: GraphciteError) -> None:
        """Note a file left out by a non-strict ingest."""
        self.refused.append({"key": key, "code": error.code, "message": str(error)})


@dataclass(frozen=True, slots=True)
class _Refused:
    """A file whose preparation failed with a user-facing error (a non-strict ingest goes on without it).

    Plain fields, so it crosses from a worker process intact (an exception's ``where`` and ``fix``
    would be lost in pickling).
    """

    key: str
    size: int
    code: str
    cause: str
    where: str | None
    fix: str | None

    def error(self) -> IngestError:
        return IngestError(self.cause, where=self.where, fix=self.fix, code=self.code)


def _prepare_or_refuse(found: filesmod.FoundFile, max_bytes: int, spill_dir: str) -> PreparedFile | _Refused:
    """:func:`prepare_file`, or the user-facing error it raised as a :class:`_Refused` (runs in a worker)."""
    try:
        return prepare_file(found, max_bytes=max_bytes, spill_dir=spill_dir)
    except GraphciteError as exc:
        try:
            size = os.stat(found.path).st_size
        except OSError:
            size = 0
        return _Refused(found.key, size, exc.code, exc.cause, exc.where, exc.fix)


class _Writer:
    """Rows of prepared files, written to the store whenever enough have piled up."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.revisions: list[dict[str, Any]] = []
        self.tables: dict[str, list[pa.Table]] = {"evidence_unit": [], "typed_value": [], "term_posting": []}
        self.links: list[dict[str, Any]] = []
        self.rows = 0
        self.chars = 0

    def add(self, revision: dict[str, Any], prepared: PreparedFile, links: list[dict[str, Any]]) -> None:
        self.revisions.append(revision)
        self.links.extend(links)
        self.chars += len(revision["text"])
        for name, batches in prepared.tables():
            for table in batches.tables():
                self.tables[name].append(table)
                self.rows += table.num_rows
                if self.rows >= _FLUSH_ROWS:
                    self.flush()
        if self.chars >= _FLUSH_CHARS:
            self.flush()

    def flush(self) -> None:
        store = self.store
        store.bulk_insert("source_revision", self.revisions, or_ignore=True)
        for name, tables in self.tables.items():
            if tables:
                rows = pa.concat_tables(tables)
                # one contiguous chunk per column: DuckDB inserts it about a quarter faster than a
                # small chunk per file (in key order, the sort already makes it one)
                rows = _in_key_order(rows) if name in _SORTED_WRITES else rows.combine_chunks()
                store.bulk_insert(name, rows, or_ignore=True)
            tables.clear()
        store.bulk_insert("source_link", self.links, or_ignore=True)
        self.revisions, self.links = [], []
        self.rows = self.chars = 0


def _in_key_order(rows: pa.Table) -> pa.Table:
    """``rows`` (two text columns, as ``term_posting``) sorted by the first column, then the second: the
    order ``sort_by`` gives, at about a quarter of its cost. Each column is dictionary-encoded and
    replaced by the rank of its value among the distinct values, and the two ranks make one integer
    key (first rank * distinct seconds + second rank, below 2**64 for any table that fits in memory),
    so the sort compares single integers."""
    if rows.num_rows == 0:
        return rows
    first, second = rows.column_names
    ranks = []
    for name in (first, second):
        encoded = pc.dictionary_encode(rows[name]).combine_chunks()
        ranks.append((pc.take(pc.rank(encoded.dictionary, sort_keys="ascending"), encoded.indices),
                      len(encoded.dictionary)))
    (major, _), (minor, distinct) = ranks
    key = pc.add(pc.multiply(major.cast(pa.uint64()), pa.scalar(distinct, pa.uint64())), minor.cast(pa.uint64()))
    return rows.take(pc.array_sort_indices(key))


def _check_arguments(paths: Sequence[str | os.PathLike[str]], jobs: int, engine: str,
                     workers: int | None, address: str | None) -> None:
    if not paths:
        raise IngestError("no files or folders given", where="PATH", fix="pass at least one file or folder")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise IngestError(f"the number of worker processes must be a whole number >= 1, got {jobs!r}",
                          where="--jobs", fix="pass --jobs 1 (no workers) or more")
    check_engine(engine)
    check_workers(workers)
    if engine == "local" and (workers is not None or address):
        raise make_error("E106", where="--engine", detail="--workers and --address need --engine ray",
                         fix="add --engine ray, or use --jobs N for local worker processes")


def _prepare_all(found: Sequence[filesmod.FoundFile], jobs: int, max_bytes: int, spill_dir: str,
                 progress: ProgressCallback | None, ray_workers: int | None,
                 strict: bool = True) -> Iterable[PreparedFile | _Refused]:
    results: Iterable[PreparedFile | _Refused]
    prepare: Callable[..., PreparedFile | _Refused] = prepare_file if strict else _prepare_or_refuse
    if ray_workers is not None:
        from graphcite.distributed.ingest import prepare_on_ray

        results = prepare_on_ray(found, max_bytes=max_bytes, workers=ray_workers)
    elif jobs <= 1 or len(found) < 2:
        results = map(functools.partial(prepare, max_bytes=max_bytes, spill_dir=spill_dir), found)
    else:
        results = ordered_map(functools.partial(prepare, max_bytes=max_bytes, spill_dir=spill_dir), found,
                              jobs=min(jobs, len(found)))
    for prepared in results:
        if progress:
            units = 0 if isinstance(prepared, _Refused) else prepared.units.num_rows
            progress(prepared.key, prepared.size, units)
        yield prepared


def _remove_stale_spill_dirs() -> None:
    """Delete spill folders left by ingests that were killed (their process no longer exists)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_SPILL_PREFIX}*"):
        pid = folder.name.removeprefix(_SPILL_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue  # alive, but another user's


@contextlib.contextmanager
def _long_lived_left_alone() -> Iterator[None]:
    """Load the language tables, then keep everything alive so far out of the cyclic collector's scans
    while the ingest runs (``gc.freeze``; undone at the end).

    Parsing a corpus allocates millions of short-lived objects, and each full collection would walk the
    lemma tables and the unit registry again (about 5% of a whole ingest). Left as it is when the caller
    froze objects itself.
    """
    if gc.get_freeze_count():
        yield
        return
    content_terms("warm")
    values.values_in("warm up 1 day")
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _check_sizes(found: Sequence[filesmod.FoundFile], max_bytes: int,
                 report: IngestReport | None = None) -> list[filesmod.FoundFile]:
    """Refuse an oversized file before any work starts (each reader checks again as it reads).

    With a ``report`` (a non-strict ingest) such a file is noted there and left out of the list returned.
    """
    kept: list[filesmod.FoundFile] = []
    for item in found:
        try:
            try:
                size = os.stat(item.path).st_size
            except OSError as exc:
                raise IngestError(f"cannot read file: {exc.strerror or exc}", where=item.key,
                                  fix="check the path and permissions") from exc
            filesmod.check_size(size, max_bytes=max_bytes, where=item.key)
        except IngestError as exc:
            if report is None:
                raise
            report.refuse(item.key, exc)
            continue
        kept.append(item)
    return kept


def ingest(store: Store, paths: Sequence[str | os.PathLike[str]], *, prefix: str = "", jobs: int = 1,
           max_file_mb: float = 100.0, engine: str = "local", workers: int | None = None,
           address: str | None = None, progress: ProgressCallback | None = None, strict: bool = True,
           follow_symlinks: bool = False) -> IngestReport:
    """Ingest files and folders into ``store`` in one transaction.

    ``strict`` (the default): nothing is written if any file fails, and its error is raised. Without
    it, a file that cannot be ingested (bad YAML, a syntax error, empty, too large, a failed metadata
    declaration) is left out and listed in ``report.refused``, and the rest is ingested, still in one
    transaction; ``report.exit_code`` is 1 then, or 2 when every file was refused. (With
    ``engine="ray"`` a failing file still refuses the whole ingest.)

    ``max_file_mb`` is the one size limit every reader honours, in MB of 1,000,000 bytes; it must
    be a positive finite number. ``jobs`` worker processes parse in parallel (1: none); they end
    with this process even when it is killed. ``engine="ray"`` sends the per-file work to Ray tasks
    instead: ``workers`` of them at once on a local runtime, or on the cluster at ``address``; the
    rows are the same as in-process. ``follow_symlinks`` follows links out of a folder given (by
    default they are skipped with a warning; see :func:`graphcite.ingest.files.discover`).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    _check_arguments(paths, jobs, engine, workers, address)
    max_bytes = filesmod.max_bytes_for(max_file_mb)
    report = IngestReport()
    found, skipped = filesmod.discover(list(paths), prefix=prefix, warnings=report.warnings,
                                       follow_symlinks=follow_symlinks)
    report.skipped_ext = dict(sorted(skipped.items()))
    found = _check_sizes(found, max_bytes, None if strict else report)
    _remove_stale_spill_dirs()
    with contextlib.ExitStack() as stack:
        ray_workers = None
        if engine == "ray" and found:
            from graphcite.distributed.runtime import ray_runtime

            ray_workers = stack.enter_context(ray_runtime(address, workers))
        spill_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"{_SPILL_PREFIX}{os.getpid()}-"))
        stack.enter_context(store.transaction())
        if found:
            stack.enter_context(_long_lived_left_alone())
        run = _Run(store, report)
        for prepared in _prepare_all(found, jobs, max_bytes, spill_dir, progress, ray_workers, strict):
            if isinstance(prepared, _Refused):
                report.refuse(prepared.key, prepared.error())
                continue
            try:
                run.take(prepared)
            except GraphciteError as exc:
                if strict:
                    raise
                report.refuse(prepared.key, exc)
            finally:
                prepared.discard()
        run.finish()
    report.dangling = lineage.dangling_links(store)
    return report


def _some(keys: Sequence[str], shown: int = 5) -> str:
    """``a.md, b.md`` or ``a.md, ... (and 12 more)``: a warning names a few documents, not thousands."""
    more = f" (and {len(keys) - shown:,} more)" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


class _Run:
    """One ingest inside its transaction: decides what each prepared file is and writes it."""

    def __init__(self, store: Store, report: IngestReport) -> None:
        self.store = store
        self.report = report
        self.now = utcnow()
        self.latest = {r["key"]: r for r in queries.current_revisions(store)}
        self.writer = _Writer(store)
        self.new_sources: list[dict[str, Any]] = []
        self.moved: list[dict[str, Any]] = []
        self.unknown_keys: dict[str, list[str]] = {}
        self.unknown_kinds: dict[str, list[str]] = {}

    def take(self, prepared: PreparedFile) -> None:
        """Unchanged: nothing; earlier content: move the pointer back; else queue a new revision.

        A file is checked before anything of it is queued, so a refused one leaves nothing behind.
        """
        if prepared.revision["format"] == "text":
            frontmatter.refuse_unread_front_matter(prepared.revision["text"], where=prepared.key)
        unknown, kind = frontmatter.metadata_notes(prepared.metadata)
        for name in unknown:
            self.unknown_keys.setdefault(name, []).append(prepared.key)
        if kind is not None:
            self.unknown_kinds.setdefault(kind, []).append(prepared.key)
        report = self.report
        report.bytes += prepared.size
        report.warnings.extend(prepared.warnings)
        key = prepared.key
        previous = self.latest.get(key)
        if previous and previous["content_hash"] == prepared.content_hash:
            report.unchanged.append(key)
            return
        rev = dict(prepared.revision, ingested_at=self.now)
        if previous and queries.revision_stored(self.store, rev["revision_id"]):
            self._move(key, rev)
            report.updated.append(key)
            report.reverted.append(key)
            return
        rev["seq"] = (previous["last_seq"] + 1) if previous else 1
        rev["previous_revision"] = previous["current_revision"] if previous else None
        links = lineage.links_from_metadata(key, rev["revision_id"], prepared.metadata)
        report.links += len(links)
        if previous:
            links.append({
                "link_id": hashlib.sha256(f"rev\0{rev['revision_id']}".encode()).hexdigest()[:16],
                "from_key": rev["revision_id"], "to_key": previous["current_revision"],
                "relation": "revision_of", "declared_in": rev["revision_id"]})
            self._move(key, rev)
            report.updated.append(key)
        else:
            self.new_sources.append({"key": key, "title": rev["title"], "kind": rev["kind"],
                                     "visibility": rev["visibility"], "current_revision": rev["revision_id"],
                                     "first_ingested_at": self.now})
            report.added.append(key)
        self.writer.add(rev, prepared, links)
        report.units += prepared.units.num_rows
        report.values += prepared.values.num_rows
        report.postings += prepared.postings.num_rows

    def _metadata_warnings(self) -> list[str]:
        """One line per unknown metadata key and per kind outside the vocabulary, naming its documents."""
        lines = []
        for name, keys in sorted(self.unknown_keys.items()):
            lines.append(f"metadata key {name!r} is not one graphcite reads (kept as written; the nearest known "
                         f"key is {frontmatter.nearest_known_key(name)!r}) in {_some(keys)}")
        for kind, keys in sorted(self.unknown_kinds.items()):
            lines.append(f"kind {kind!r} is not in the vocabulary ({', '.join(KINDS)}): stored as written and "
                         f"read as a general document, in {_some(keys)}")
        return lines

    def _move(self, key: str, rev: dict[str, Any]) -> None:
        self.moved.append({"key": key, "current_revision": rev["revision_id"], "title": rev["title"],
                           "kind": rev["kind"], "visibility": rev["visibility"]})

    def finish(self) -> None:
        """Write what is queued, move source pointers, label supersession cycles and bring the lineage
        table up to date for the sources this ingest wrote (added, or given a new or earlier revision:
        naming them spares a scan of every source for stale rows)."""
        store = self.store
        self.report.warnings.extend(self._metadata_warnings())
        self.writer.flush()
        store.bulk_insert("source", self.new_sources, or_ignore=True)
        queries.point_sources_at(store, self.moved)
        self.report.warnings.extend(lineage.mark_supersession_cycles(
            store, written=[*self.report.added, *self.report.updated]))
