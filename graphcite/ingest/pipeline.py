"""Files -> source revisions, evidence units, heading status, typed values, lineage: one transaction.

The work per file (read, parse, cut units, extract values) is pure and runs in worker processes with
``jobs > 1``; the main process then writes everything in one transaction with Arrow bulk inserts and
builds the term index with one ``INSERT ... SELECT``. Unchanged files (same content hash as the current
revision) are a no-op; a changed file becomes a new revision and the source's pointer moves.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphcite.errors import IngestError
from graphcite.ingest import files as filesmod
from graphcite.ingest import frontmatter, lineage, status, terms, values
from graphcite.models import ExtractedValue, ParsedDocument, ParsedUnit
from graphcite.store import Store, utcnow

__all__ = ["IngestReport", "PreparedFile", "ingest", "prepare_file", "unit_id_for"]

FORMAT_KINDS = {"python": "code"}


def unit_id_for(revision_id: str, start: int, end: int) -> str:
    """Stable 16-hex id of a unit: the same file under the same key gives the same ids everywhere."""
    return hashlib.sha256(f"{revision_id}:{start}:{end}".encode()).hexdigest()[:16]


def revision_id_for(key: str, content_hash: str) -> str:
    return hashlib.sha256(f"{key}\0{content_hash}".encode()).hexdigest()[:16]


@dataclass(slots=True)
class PreparedFile:
    """Everything one file contributes, computed without touching the store."""

    key: str
    path: str
    content_hash: str
    revision: dict[str, Any]
    units: list[dict[str, Any]]
    values: list[dict[str, Any]]
    metadata: dict[str, Any]
    size: int


@dataclass(slots=True)
class IngestReport:
    """What an ingest did; ``skipped_ext`` counts files left out by extension."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped_ext: dict[str, int] = field(default_factory=dict)
    units: int = 0
    values: int = 0
    links: int = 0
    postings: int = 0
    bytes: int = 0
    dangling: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "skipped_extensions": self.skipped_ext, "units": self.units, "values": self.values,
            "links": self.links, "term_postings": self.postings, "bytes": self.bytes,
            "dangling_links": self.dangling,
        }


def _parse(found: filesmod.FoundFile, where: str) -> ParsedDocument:
    from graphcite.ingest import html, markdown, pdf, python_code, text

    if found.format == "pdf":
        try:
            data = Path(found.path).read_bytes()
        except OSError as exc:
            raise IngestError(f"cannot read file: {exc.strerror}", where=where,
                              fix="check the file's permissions") from exc
        return pdf.parse(data, where=where)
    body = filesmod.read_text_file(Path(found.path))
    if found.format == "markdown":
        return markdown.parse(body, where=where)
    if found.format == "html":
        return html.parse(body, where=where)
    if found.format == "python":
        return python_code.parse(body, where=where, path=found.key)
    return text.parse(body, where=where)


def _unit_values(doc_text: str, unit: ParsedUnit) -> list[ExtractedValue]:
    """Typed values of one unit in document offsets; table cells take their header's unit."""
    cells = getattr(unit, "cells", None)
    if unit.block_type == "table_row" and cells and unit.table_headers:
        found: list[ExtractedValue] = []
        for index, (start, end) in enumerate(cells):
            header = unit.table_headers[index] if index < len(unit.table_headers) else ""
            header_unit = values.unit_from_header(header) if header else None
            for value in values.extract_values(doc_text[start:end], default_unit=header_unit):
                shifted = value.shifted(start)
                if header:
                    shifted = _with_header_meaning(shifted, header)
                found.append(shifted)
        return found
    return [v.shifted(unit.start) for v in values.extract_values(doc_text[unit.start:unit.end])]


_HEADER_ROLES = (
    (re.compile(r"\b(limit|max(?:imum)?|cap|ceiling|at most|budget)\b", re.I), "limit"),
    (re.compile(r"\b(target|objective|slo|goal)\b", re.I), "target"),
    (re.compile(r"\b(observed|measured|actual|peak|seen)\b", re.I), "observed"),
    (re.compile(r"\b(default)\b", re.I), "default"),
)


def _header_subject(header: str) -> str | None:
    words = re.sub(r"[\(\[].*?[\)\]]", " ", header).strip().lower()
    return words or None


def _with_header_meaning(value: ExtractedValue, header: str) -> ExtractedValue:
    """A table cell's value takes what its column header says: the measured thing and the role."""
    changes: dict[str, Any] = {}
    if value.measured is None:
        measured = _header_subject(header)
        if measured:
            changes["measured"] = measured
    if value.role is None:
        for pattern, role in _HEADER_ROLES:
            if pattern.search(header):
                changes["role"] = role
                break
    return replace(value, **changes) if changes else value


def prepare_file(found: filesmod.FoundFile) -> PreparedFile:
    """Read, parse and extract one file (pure; runs in a worker process)."""
    where = found.key
    doc = _parse(found, where)
    meta: dict[str, Any] = dict(doc.metadata)
    if found.sidecar is not None:
        meta = {**meta, **frontmatter.load_sidecar(found.sidecar)}
    meta = frontmatter.normalise_metadata(meta, where=where)
    raw = Path(found.path).read_bytes()
    content_hash = hashlib.sha256(raw).hexdigest()
    revision_id = revision_id_for(found.key, content_hash)
    doc_status = meta.get("status")
    kind = meta.get("kind") or (
        "test" if doc.build_role == "test" else FORMAT_KINDS.get(doc.format, "note"))
    effective = meta.get("effective")
    git_commit = filesmod.git_commit_for(Path(found.path)) if doc.format == "python" else None
    revision = {
        "revision_id": revision_id, "source_key": found.key, "content_hash": content_hash,
        "text": doc.text, "format": doc.format, "effective": effective,
        "status": doc_status or "current", "title": meta.get("title") or _first_heading(doc) or found.key,
        "kind": kind, "visibility": meta.get("visibility") or "public",
        "metadata_json": json.dumps(meta, sort_keys=True, default=str, ensure_ascii=False),
        "path": found.key, "git_commit": git_commit, "build_role": doc.build_role,
    }
    units: list[dict[str, Any]] = []
    value_rows: list[dict[str, Any]] = []
    for ordinal, unit in enumerate(doc.units):
        unit_status, cue = status.status_for(unit.heading_path, doc_status)
        uid = unit_id_for(revision_id, unit.start, unit.end)
        units.append({
            "unit_id": uid, "revision_id": revision_id, "source_key": found.key, "ordinal": ordinal,
            "start": unit.start, "end": unit.end, "text": doc.text[unit.start:unit.end],
            "block_type": unit.block_type,
            "heading_path_json": json.dumps(list(unit.heading_path), ensure_ascii=False),
            "status": unit_status, "status_cue": cue, "page": unit.page, "symbol": unit.symbol,
            "line_start": unit.line_start, "line_end": unit.line_end,
            "table_headers_json": json.dumps(list(unit.table_headers), ensure_ascii=False)
            if unit.table_headers else None,
        })
        for value in _unit_values(doc.text, unit):
            value_rows.append({
                "value_id": hashlib.sha256(f"{uid}:{value.start}:{value.end}".encode()).hexdigest()[:16],
                "unit_id": uid, "revision_id": revision_id, "start": value.start, "end": value.end,
                "surface": value.surface, "magnitude": value.magnitude, "low": value.low, "high": value.high,
                "unit": value.unit, "dimensionality": value.dimensionality, "kind": value.kind,
                "counted_noun": value.counted_noun, "measured": value.measured, "bound": value.bound,
                "role": value.role,
            })
    return PreparedFile(found.key, str(found.path), content_hash, revision, units, value_rows, meta, len(raw))


def _first_heading(doc: ParsedDocument) -> str | None:
    for unit in doc.units:
        if unit.block_type == "heading":
            return doc.text[unit.start:unit.end].lstrip("#").strip() or None
    return None


def _prepare_all(found: Sequence[filesmod.FoundFile], jobs: int,
                 progress: Callable[[str, int], None] | None) -> Iterable[PreparedFile]:
    if jobs <= 1 or len(found) < 2:
        for item in found:
            prepared = prepare_file(item)
            if progress:
                progress(item.key, prepared.size)
            yield prepared
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for prepared in pool.map(prepare_file, found, chunksize=max(1, min(16, len(found) // (jobs * 4) or 1))):
            if progress:
                progress(prepared.key, prepared.size)
            yield prepared


def ingest(store: Store, paths: Sequence[str | Path], *, prefix: str = "", jobs: int = 1,
           max_file_mb: float = 100.0,
           progress: Callable[[str, int], None] | None = None) -> IngestReport:
    """Ingest files and folders into ``store`` in one transaction; nothing is written if any file fails."""
    found, skipped = filesmod.discover([Path(p) for p in paths], prefix=prefix)
    report = IngestReport(skipped_ext=dict(sorted(skipped.items())))
    limit = int(max_file_mb * 1024 * 1024)
    for item in found:
        size = Path(item.path).stat().st_size
        if size > limit:
            raise IngestError(f"file too large ({size / 1e6:.1f} MB > {max_file_mb:g} MB limit)",
                              where=item.key, fix="split it or raise --max-file-mb")
    current = {r["key"]: r for r in store.rows(
        "SELECT s.key, s.current_revision, r.content_hash, r.seq FROM source s "
        "JOIN source_revision r ON r.revision_id = s.current_revision")}
    now = utcnow()
    rev_rows: list[dict[str, Any]] = []
    unit_rows: list[dict[str, Any]] = []
    value_rows: list[dict[str, Any]] = []
    link_rows: list[dict[str, Any]] = []
    new_sources: list[dict[str, Any]] = []
    moved: list[tuple[str, str, dict[str, Any]]] = []
    for prepared in _prepare_all(found, jobs, progress):
        report.bytes += prepared.size
        previous = current.get(prepared.key)
        if previous and previous["content_hash"] == prepared.content_hash:
            report.unchanged.append(prepared.key)
            continue
        rev = dict(prepared.revision, ingested_at=now)
        rev["seq"] = (previous["seq"] + 1) if previous else 1
        rev["previous_revision"] = previous["current_revision"] if previous else None
        existing = store.scalar("SELECT count(*) FROM source_revision WHERE revision_id = ?",
                                [rev["revision_id"]]) if previous else 0
        if existing:  # the file went back to an earlier content: point at that revision again
            moved.append((prepared.key, rev["revision_id"], rev))
            report.updated.append(prepared.key)
            continue
        rev_rows.append(rev)
        unit_rows.extend(prepared.units)
        value_rows.extend(prepared.values)
        link_rows.extend(lineage.links_from_metadata(prepared.key, rev["revision_id"], prepared.metadata))
        if previous:
            link_rows.append({
                "link_id": hashlib.sha256(f"rev\0{rev['revision_id']}".encode()).hexdigest()[:16],
                "from_key": rev["revision_id"], "to_key": previous["current_revision"],
                "relation": "revision_of", "declared_in": rev["revision_id"]})
            moved.append((prepared.key, rev["revision_id"], rev))
            report.updated.append(prepared.key)
        else:
            new_sources.append({"key": prepared.key, "title": rev["title"], "kind": rev["kind"],
                                "visibility": rev["visibility"], "current_revision": rev["revision_id"],
                                "first_ingested_at": now})
            report.added.append(prepared.key)
    with store.transaction():
        terms.ensure_lemma_table(store)
        store.bulk_insert("source_revision", rev_rows)
        store.bulk_insert("evidence_unit", unit_rows)
        store.bulk_insert("typed_value", value_rows)
        store.bulk_insert("source_link", link_rows, or_ignore=True)
        store.bulk_insert("source", new_sources)
        for key, revision_id, rev in moved:
            store.execute("UPDATE source SET current_revision = ?, title = ?, kind = ?, visibility = ? "
                          "WHERE key = ?", [revision_id, rev["title"], rev["kind"], rev["visibility"], key])
        report.postings = terms.index_revisions(store, [r["revision_id"] for r in rev_rows])
    report.units = len(unit_rows)
    report.values = len(value_rows)
    report.links = len([r for r in link_rows if r["relation"] != "revision_of"])
    report.dangling = lineage.dangling_links(store)
    return report
