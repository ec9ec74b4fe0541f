"""One file -> the rows it contributes (revision, evidence units, typed values), without the store.

:func:`prepare_file` is pure and runs in worker processes with ``jobs > 1``. It reads the file once
(a regular file within the size limit), hashes exactly the bytes it parses, cuts oversized blocks
into bounded units, and returns units and values as Arrow record batches (:class:`RowBatches`):
a few dozen bytes per value instead of a Python dict each, and past :data:`MEMORY_ROWS` rows the
batches are spilled to a file, so a dense file with millions of values stays within bounded memory.
It also refuses metadata that names the source itself as its own lineage (``supersedes: self``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from graphcite.errors import IngestError
from graphcite.ingest import files as filesmod
from graphcite.ingest import frontmatter, status, values
from graphcite.ingest.bounds import bounded_units
from graphcite.ingest.lineage import LINEAGE_KEYS
from graphcite.ingest.terms import content_terms
from graphcite.models import ParsedDocument
from graphcite.store import arrow_schema

__all__ = ["MEMORY_ROWS", "PreparedFile", "RowBatches", "prepare_file", "revision_id_for", "unit_id_for"]

FORMAT_KINDS = {"python": "code"}
_BATCH_ROWS = 8_192
_POSTING_BATCH_ROWS = 65_536
#: Rows of one table kept in memory per file before further rows are spilled to disk.
MEMORY_ROWS = 100_000


def unit_id_for(revision_id: str, start: int, end: int) -> str:
    """Stable 16-hex id of a unit: the same file under the same key gives the same ids everywhere."""
    return hashlib.sha256(f"{revision_id}:{start}:{end}".encode()).hexdigest()[:16]


def revision_id_for(key: str, content_hash: str) -> str:
    """Stable 16-hex id of a revision: the source key and the sha256 of its bytes."""
    return hashlib.sha256(f"{key}\0{content_hash}".encode()).hexdigest()[:16]


@dataclass(slots=True)
class PreparedFile:
    """Everything one file contributes, computed without touching the store.

    ``units``, ``values`` and ``postings`` hold the ``evidence_unit``, ``typed_value`` and ``term_posting``
    rows as Arrow batches; ``warnings`` are one-line notes for the ingest report (a PDF reader's
    complaints, a visibility conflict between front matter and sidecar).
    """

    key: str
    path: str
    content_hash: str
    revision: dict[str, Any]
    units: RowBatches
    values: RowBatches
    postings: RowBatches
    metadata: dict[str, Any]
    size: int
    warnings: list[str] = field(default_factory=list)

    def tables(self) -> Iterator[tuple[str, RowBatches]]:
        """(table name, rows) for each table this file adds rows to, in the order they are written."""
        yield "evidence_unit", self.units
        yield "typed_value", self.values
        yield "term_posting", self.postings

    def discard(self) -> None:
        """Drop the rows and remove their spill files."""
        for _, batches in self.tables():
            batches.discard()


class RowBatches:
    """Rows of one table as Arrow record batches: the first in memory, the rest spilled to a file.

    A file can yield millions of typed values; past :data:`MEMORY_ROWS` rows further batches go to
    an Arrow IPC file in the spill folder, so neither the worker nor the writer holds them all.
    Picklable (it crosses from worker to parent); :meth:`tables` reads the spill file back batch
    by batch and :meth:`discard` removes it.
    """

    def __init__(self, schema: pa.Schema, spill_dir: str | None = None) -> None:
        self.schema = schema
        # the rows convert as one struct array: one conversion call per batch instead of one per column
        self._struct = pa.struct(list(schema))
        self.spill_dir = spill_dir
        self.batches: list[pa.RecordBatch] = []
        self.spill_path: str | None = None
        self.num_rows = 0
        self._pending: list[tuple[Any, ...]] = []
        self._in_memory = 0
        self._writer: pa.ipc.RecordBatchFileWriter | None = None

    def append(self, row: tuple[Any, ...]) -> None:
        """Add one row, its items in schema order."""
        self._pending.append(row)
        if len(self._pending) >= _BATCH_ROWS:
            self._flush()

    def extend(self, rows: list[tuple[Any, ...]]) -> None:
        """Add rows, each a tuple of items in schema order (after the rows appended so far)."""
        self._pending.extend(rows)
        if len(self._pending) >= _BATCH_ROWS:
            self._flush()

    def add_batch(self, batch: pa.RecordBatch) -> None:
        """Add rows already made into an Arrow batch of this schema (after the rows appended so far)."""
        self._flush()
        if batch.num_rows:
            self._keep(batch)

    def _flush(self) -> None:
        if not self._pending:
            return
        rows = pa.array(self._pending, type=self._struct)  # a tuple of the wrong length raises ArrowInvalid
        self._pending = []
        self._keep(pa.RecordBatch.from_struct_array(rows))

    def _keep(self, batch: pa.RecordBatch) -> None:
        self.num_rows += batch.num_rows
        if self.spill_dir is not None and self._in_memory + batch.num_rows > MEMORY_ROWS:
            if self._writer is None:
                handle, self.spill_path = tempfile.mkstemp(suffix=".arrow", dir=self.spill_dir)
                os.close(handle)
                self._writer = pa.ipc.new_file(self.spill_path, self.schema)
            self._writer.write_batch(batch)
        else:
            self.batches.append(batch)
            self._in_memory += batch.num_rows

    def finish(self) -> RowBatches:
        """Write out what is pending and close the spill file; returns self."""
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        return self

    def tables(self) -> Iterator[pa.Table]:
        """The rows as Arrow tables of bounded size: the in-memory part, then each spilled batch."""
        if self.batches:
            yield pa.Table.from_batches(self.batches, schema=self.schema)
        if self.spill_path is not None:
            with pa.OSFile(self.spill_path) as source:
                reader = pa.ipc.open_file(source)
                for index in range(reader.num_record_batches):
                    yield pa.Table.from_batches([reader.get_batch(index)], schema=self.schema)

    def discard(self) -> None:
        """Drop the rows and remove the spill file."""
        self.batches = []
        if self._writer is not None:
            with contextlib.suppress(OSError, pa.ArrowException):
                self._writer.close()
            self._writer = None
        if self.spill_path is not None:
            with contextlib.suppress(OSError):
                os.remove(self.spill_path)
            self.spill_path = None

    def __getstate__(self) -> dict[str, Any]:
        if self._writer is not None or self._pending:
            raise RuntimeError("RowBatches must be finished before it is sent")
        return {"schema": self.schema, "spill_dir": self.spill_dir, "batches": self.batches,
                "spill_path": self.spill_path, "num_rows": self.num_rows}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["schema"], state["spill_dir"])  # type: ignore[misc]
        self.batches = state["batches"]
        self.spill_path = state["spill_path"]
        self.num_rows = state["num_rows"]


_UNIT_SCHEMA = arrow_schema("evidence_unit")
_VALUE_SCHEMA = arrow_schema("typed_value")
_POSTING_SCHEMA = arrow_schema("term_posting")
# The column order the row tuples of _add_rows are written in (a tuple is cheaper than a dict per row).
_UNIT_COLUMNS = ("unit_id", "revision_id", "source_key", "ordinal", "start", "end", "text", "block_type",
                 "heading_path_json", "status", "status_cue", "page", "symbol", "line_start", "line_end",
                 "table_headers_json")
_VALUE_COLUMNS = ("value_id", "unit_id", "revision_id", "start", "end", "surface", "magnitude", "low", "high",
                  "unit", "dimensionality", "kind", "counted_noun", "measured", "bound", "role")
_POSTING_COLUMNS = ("term", "unit_id")
for _schema, _columns in ((_UNIT_SCHEMA, _UNIT_COLUMNS), (_VALUE_SCHEMA, _VALUE_COLUMNS),
                          (_POSTING_SCHEMA, _POSTING_COLUMNS)):
    if tuple(_schema.names) != _columns:
        raise RuntimeError(f"prepare.py builds rows as {_columns}, but the table has columns {_schema.names}")


def _parse(found: filesmod.FoundFile, data: bytes, where: str) -> tuple[ParsedDocument, list[str]]:
    from graphcite.ingest import html, markdown, pdf, python_code, text

    if found.format == "pdf":
        doc, notes = pdf.parse_with_notes(data, where=where)
        return doc, [f"{where}: PDF reader: {note}" for note in notes]
    body = filesmod.decode_text(data, where=where)
    if found.format == "markdown":
        return markdown.parse(body, where=where), []
    if found.format == "html":
        return html.parse(body, where=where), []
    if found.format == "python":
        return python_code.parse(body, where=where, path=found.key), []
    return text.parse(body, where=where), []


_HEADER_ROLES = (
    (re.compile(r"\b(limit|max(?:imum)?|cap|ceiling|at most|budget)\b", re.I), "limit"),
    (re.compile(r"\b(target|objective|slo)\b", re.I), "target"),  # not "goal": "Goal difference", "Goals"
    (re.compile(r"\b(observed|measured|actual|peak|seen)\b", re.I), "observed"),
    (re.compile(r"\b(default)\b", re.I), "default"),
)


def _header_subject(header: str) -> str | None:
    words = re.sub(r"[\(\[].*?[\)\]]", " ", header).strip().lower()
    return words or None


def _header_role(header: str) -> str | None:
    for pattern, role in _HEADER_ROLES:
        if pattern.search(header):
            return role
    return None


def _metadata(found: filesmod.FoundFile, doc: ParsedDocument, where: str) -> tuple[dict[str, Any], list[str]]:
    """The document's metadata merged with its sidecar's, validated; self-links refused."""
    meta = frontmatter.normalise_metadata(dict(doc.metadata), where=where)
    notes: list[str] = []
    if found.sidecar is not None:
        side_where = f"{where} (sidecar {found.sidecar.name})"
        sidecar = frontmatter.normalise_metadata(frontmatter.load_sidecar(found.sidecar, where=side_where),
                                                 where=side_where)
        meta, notes = frontmatter.merge_metadata(meta, sidecar, where=where, sidecar_name=found.sidecar.name)
    for meta_key in LINEAGE_KEYS:
        if found.key in meta.get(meta_key, ()):
            raise IngestError(f"metadata key {meta_key!r} names this source itself", where=where,
                              fix=f"remove {found.key} from {meta_key}; a source cannot be its own lineage")
    return meta, notes


def prepare_file(found: filesmod.FoundFile, max_bytes: int = filesmod.DEFAULT_MAX_BYTES,
                 spill_dir: str | None = None) -> PreparedFile:
    """Read, parse and extract one file (pure; runs in a worker process).

    With ``spill_dir``, rows beyond :data:`MEMORY_ROWS` per table go to files there (see
    :class:`RowBatches`); the caller removes them with :meth:`RowBatches.discard`.
    """
    where = found.key
    data = filesmod.read_file_bytes(Path(found.path), max_bytes=max_bytes, where=where)
    content_hash = hashlib.sha256(data).hexdigest()
    size = len(data)
    doc, notes = _parse(found, data, where)
    del data  # the parsed text is all that is needed from here on
    meta, merge_notes = _metadata(found, doc, where)
    revision_id = revision_id_for(found.key, content_hash)
    doc_status = meta.get("status")
    kind = meta.get("kind") or (
        "test" if doc.build_role == "test" else FORMAT_KINDS.get(doc.format, "note"))
    git_commit = filesmod.git_commit_for(Path(found.path)) if doc.format == "python" else None
    revision = {
        "revision_id": revision_id, "source_key": found.key, "content_hash": content_hash,
        "text": doc.text, "format": doc.format, "effective": meta.get("effective"),
        "status": doc_status or "current", "title": meta.get("title") or _first_heading(doc) or found.key,
        "kind": kind, "visibility": meta.get("visibility") or "public",
        "metadata_json": frontmatter.metadata_json(meta, where=where),
        "path": found.key, "git_commit": git_commit, "build_role": doc.build_role,
    }
    units = RowBatches(_UNIT_SCHEMA, spill_dir)
    value_rows = RowBatches(_VALUE_SCHEMA, spill_dir)
    postings = RowBatches(_POSTING_SCHEMA, spill_dir)
    try:
        _add_rows(found.key, revision_id, doc, doc_status, units, value_rows, postings)
        return PreparedFile(found.key, str(found.path), content_hash, revision, units.finish(),
                            value_rows.finish(), postings.finish(), meta, size, [*notes, *merge_notes])
    except BaseException:
        for batches in (units, value_rows, postings):
            batches.discard()
        raise


#: (heading path, document status) -> (status, cue, heading path JSON): pure, and a corpus repeats its
#: headings from file to file; emptied past :data:`_PATHS_HELD` entries so memory stays bounded.
_PATH_FIELDS: dict[tuple[tuple[str, ...], str | None], tuple[str, str | None, str]] = {}
_PATHS_HELD = 50_000


def _path_fields(path: tuple[str, ...], doc_status: str | None) -> tuple[str, str | None, str]:
    if len(_PATH_FIELDS) >= _PATHS_HELD:
        _PATH_FIELDS.clear()
    fields = _PATH_FIELDS[path, doc_status] = (
        *status.status_for(path, doc_status), json.dumps(list(path), ensure_ascii=False))
    return fields


def _add_rows(key: str, revision_id: str, doc: ParsedDocument, doc_status: str | None,
              units: RowBatches, value_rows: RowBatches, postings: RowBatches) -> None:
    """Append the bounded units of ``doc``, their typed values and their index terms as rows.

    A heading path's status and JSON are computed once per corpus, a table header's JSON, unit and
    meaning once per file. This loop runs once per unit of the corpus, so it calls no helper it can do
    without: the ids are :func:`unit_id_for` and the value id written out, a unit's text is sliced once
    for its terms and its values, and rows gather in plain lists handed over every :data:`_BATCH_ROWS`.
    """
    text = doc.text
    path_fields = _PATH_FIELDS
    headers_json: dict[tuple[str, ...], str] = {}
    header_units: dict[str, str | None] = {}
    header_meaning: dict[str, tuple[str | None, str | None]] = {}
    sha256 = hashlib.sha256
    values_in = values.values_in
    terms = _Postings(postings)
    add_terms = terms.add
    unit_rows: list[tuple[Any, ...]] = []
    value_list: list[tuple[Any, ...]] = []
    add_unit = unit_rows.append
    add_value = value_list.append
    for ordinal, unit in enumerate(bounded_units(text, doc.units)):
        start, end, path, headers = unit.start, unit.end, unit.heading_path, unit.table_headers
        known = path_fields.get((path, doc_status))
        if known is None:
            known = _path_fields(path, doc_status)
        uid = sha256(f"{revision_id}:{start}:{end}".encode()).hexdigest()[:16]  # unit_id_for
        unit_text = text[start:end]
        add_terms(uid, content_terms(unit_text))
        header_json = None
        if headers:
            header_json = headers_json.get(headers)
            if header_json is None:
                header_json = headers_json[headers] = json.dumps(list(headers), ensure_ascii=False)
        add_unit((uid, revision_id, key, ordinal, start, end, unit_text, unit.block_type, known[2], known[0],
                  known[1], unit.page, unit.symbol, unit.line_start, unit.line_end, header_json))
        cells = unit.cells
        if unit.block_type == "table_row" and cells and headers:
            # a cell takes its column header's unit, and its measured thing and role when it has none
            for index, (cell_start, cell_end) in enumerate(cells):
                header = headers[index] if index < len(headers) else ""
                if header and header not in header_units:
                    header_units[header] = values.unit_from_header(header)
                    header_meaning[header] = (_header_subject(header), _header_role(header))
                found = values_in(text[cell_start:cell_end], (header_units[header] or None) if header else None)
                for value in found:
                    value_start, value_end = value.start + cell_start, value.end + cell_start
                    measured, role = value.measured, value.role
                    if header:
                        subject, header_role = header_meaning[header]
                        measured = measured if measured is not None else subject
                        role = role if role is not None else header_role
                    add_value((sha256(f"{uid}:{value_start}:{value_end}".encode()).hexdigest()[:16], uid,
                               revision_id, value_start, value_end, value.surface, value.magnitude, value.low,
                               value.high, value.unit, value.dimensionality, value.kind, value.counted_noun,
                               measured, value.bound, role))
        else:
            for value in values_in(unit_text):
                value_start, value_end = value.start + start, value.end + start
                add_value((sha256(f"{uid}:{value_start}:{value_end}".encode()).hexdigest()[:16], uid,
                           revision_id, value_start, value_end, value.surface, value.magnitude, value.low,
                           value.high, value.unit, value.dimensionality, value.kind, value.counted_noun,
                           value.measured, value.bound, value.role))
        if len(value_list) >= _BATCH_ROWS or len(unit_rows) >= _BATCH_ROWS:  # bounded memory on a huge file
            units.extend(unit_rows)
            value_rows.extend(value_list)
            unit_rows.clear()
            value_list.clear()
    units.extend(unit_rows)
    value_rows.extend(value_list)
    terms.flush()


class _Postings:
    """A file's ``term_posting`` rows as two columns: each term, and the id of the unit it belongs to
    (lists extended per unit and converted once per batch, instead of a tuple per row)."""

    def __init__(self, into: RowBatches) -> None:
        self.into = into
        self.terms: list[str] = []
        self.unit_ids: list[str] = []

    def add(self, unit_id: str, terms: list[str]) -> None:
        self.terms.extend(terms)
        self.unit_ids.extend([unit_id] * len(terms))
        if len(self.terms) >= _POSTING_BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.terms:
            self.into.add_batch(pa.RecordBatch.from_arrays(
                [pa.array(self.terms, type=pa.string()), pa.array(self.unit_ids, type=pa.string())],
                schema=_POSTING_SCHEMA))
        self.terms, self.unit_ids = [], []


def _first_heading(doc: ParsedDocument) -> str | None:
    for unit in doc.units:
        if unit.block_type == "heading":
            return doc.text[unit.start:unit.end].lstrip("#").strip() or None
    return None
