"""The tables as SQLModel models compiled to DDL for each engine (used only to create or upgrade a schema).

Reading and bulk writing need none of this: :mod:`graphcite.store.columns` holds the column snapshot
they use (a test keeps it equal to these models), so a process that only reads a store never builds
SQLAlchemy metadata.
"""

from __future__ import annotations

import datetime as dt
import re
import typing
from typing import TYPE_CHECKING, Any

from sqlalchemy import BigInteger
from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Field, SQLModel

from graphcite import models

if TYPE_CHECKING:
    import pyarrow as pa
from graphcite.store.columns import (
    APPEND_ONLY,
    DERIVED,
    IMMUTABLE,
    META_TABLE,
    SCHEMA_VERSION,
    arrow_schema,
    primary_key,
    utcnow,
)

__all__ = ["APPEND_ONLY", "DERIVED", "IMMUTABLE", "META_TABLE", "SCHEMA_VERSION", "TABLES", "SourceLineage", "UnitParse",
           "arrow_schema", "bigint_columns", "ddl_statements", "model_arrow_schema", "primary_key", "table_ddl",
           "utcnow"]


class SourceLineage(SQLModel, table=True):
    """Derived from source, source_revision and source_link, and kept by ingest: one row per source key and
    per key a link names, so a support chain reads its sources and their lineage with two index lookups.

    ``source_json`` is the source's row and every revision of it (null for a key never ingested);
    ``links_json`` is every derived_from / quotes / implements / supersedes link declared by a key reachable
    upward from this one (any revision's declaration, at most 63 levels up) with its level, and every
    supersedes link into such a key (level -1). ``current_revision`` tells ingest which rows are stale.
    """

    __tablename__ = "source_lineage"
    key: str = Field(primary_key=True)
    current_revision: str | None = None
    source_json: str | None = None
    links_json: str = "[]"


class UnitParse(SQLModel, table=True):
    """An evidence unit's analysis, made once and kept: the parse of a text read from the unit (its cited
    quote as the readers see it), as the serialised spaCy document the language pipeline gives back.

    ``text_key`` is the digest of the exact text parsed and ``pipeline_version`` what parsed it; a row of
    another version is never used (the text is parsed again and a row of the current version added).
    Written on a unit's first check, in bulk; nothing else depends on it, so a store without it only
    parses more.
    """

    __tablename__ = "unit_parse"
    unit_id: str = Field(primary_key=True)
    text_key: str = Field(primary_key=True)
    pipeline_version: str = Field(primary_key=True)
    parse: bytes


#: Table name -> its SQLModel model (:data:`graphcite.store.columns.COLUMNS` is their column snapshot).
TABLES: dict[str, type[SQLModel]] = {
    "source": models.Source,
    "source_revision": models.SourceRevision,
    "evidence_unit": models.EvidenceUnit,
    "typed_value": models.TypedValue,
    "source_link": models.SourceLink,
    "term_posting": models.TermPosting,
    "answer": models.AnswerRecord,
    "claim": models.ClaimRecord,
    "citation": models.CitationRecord,
    "verification": models.VerificationRecord,
    "annotation": models.Annotation,
    "lemma_lookup": models.LemmaEntry,
    "source_lineage": SourceLineage,
    "unit_parse": UnitParse,
}


def ddl_statements(engine: str = "duckdb") -> list[str]:
    """CREATE TABLE / CREATE INDEX statements for every model, in dependency order.

    Compiled with SQLAlchemy's PostgreSQL dialect; for DuckDB (the snapshot in schema/ddl.sql)
    timestamps lose their zone and FLOAT becomes DOUBLE (SQL FLOAT is 4 bytes in DuckDB). On
    PostgreSQL a FLOAT is already 8 bytes and timestamps are kept naive UTC as in DuckDB.
    """
    statements: list[str] = []
    for table in SQLModel.metadata.sorted_tables:
        if table.name in TABLES:
            statements.extend(table_ddl(table, engine))
    return statements


def table_ddl(table: Any, engine: str = "duckdb") -> list[str]:
    """CREATE TABLE and CREATE INDEX for one SQLAlchemy table (a model's ``__table__``)."""
    dialect = postgresql.dialect()
    ddl = str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)).strip()
    ddl = ddl.replace("TIMESTAMP WITH TIME ZONE", "TIMESTAMP")
    if engine == "duckdb":
        ddl = re.sub(r"\bFLOAT\b", "DOUBLE", ddl)
    else:
        ddl = re.sub(r"\bFLOAT\b", "DOUBLE PRECISION", ddl)
        ddl = re.sub(r"\bVARCHAR\b", 'VARCHAR COLLATE "C"', ddl)
    statements = [re.sub(r"\s+\n", "\n", ddl)]
    for index in sorted(table.indexes, key=lambda ix: ix.name or ""):
        statements.append(str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect)).strip())
    return statements


def _arrow_type(annotation: Any) -> pa.DataType:
    import pyarrow as pa

    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    kind = args[0]
    if kind is dt.datetime:
        return pa.timestamp("us")
    if kind is dt.date:
        return pa.date32()
    if kind is bool:
        return pa.bool_()
    if kind is float:
        return pa.float64()
    if kind is int:
        return pa.int64()
    if kind is bytes:
        return pa.binary()
    return pa.string()


def model_arrow_schema(model: type[SQLModel]) -> pa.Schema:
    """The Arrow schema of a model's fields (what :func:`graphcite.store.columns.arrow_schema` snapshots)."""
    import pyarrow as pa

    return pa.schema([(name, _arrow_type(f.annotation)) for name, f in model.model_fields.items()])


def bigint_columns() -> dict[str, set[str]]:
    """Table -> columns the models declare 64-bit (older stores may hold them as INTEGER)."""
    wanted: dict[str, set[str]] = {}
    for name, model in TABLES.items():
        table = model.__table__  # type: ignore[attr-defined]
        wanted[name] = {column.name for column in table.columns if isinstance(column.type, BigInteger)}
    return wanted
