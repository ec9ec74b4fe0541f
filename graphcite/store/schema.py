"""The tables: SQLModel models compiled to DDL for each engine, their Arrow schemas, and timestamps."""

from __future__ import annotations

import datetime as dt
import re
import typing
from typing import Any

import pyarrow as pa
from sqlalchemy import BigInteger
from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Field, SQLModel

from graphcite import models

__all__ = ["APPEND_ONLY", "DERIVED", "IMMUTABLE", "META_TABLE", "SCHEMA_VERSION", "TABLES", "SourceLineage",
           "arrow_schema", "bigint_columns", "ddl_statements", "primary_key", "table_ddl", "utcnow"]

#: 2: offset, page and line columns became BIGINT (stores at 1 are upgraded when opened for writing).
#: 3: the source_lineage table (stores at 2 get it empty when opened for writing; their next ingest fills it,
#: and until then the graph reads what a missing row would hold from the base tables).
SCHEMA_VERSION = 3
META_TABLE = "graphcite_meta"


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
}

#: Records that are appended and never changed: verification runs, reviewers' judgements, acceptances.
APPEND_ONLY = ("verification", "annotation", "acceptance")
#: Content-addressed rows: a revision, its units and their values never change once written.
IMMUTABLE = ("source_revision", "evidence_unit", "typed_value")
#: Rows computed from other tables and rewritten by ingest (see graphcite.ingest.lineage).
DERIVED = ("source_lineage",)


def utcnow() -> dt.datetime:
    """Naive UTC now, second precision (the store keeps naive UTC timestamps)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


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
    return pa.string()


def model_arrow_schema(model: type[SQLModel]) -> pa.Schema:
    return pa.schema([(name, _arrow_type(f.annotation)) for name, f in model.model_fields.items()])


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema :meth:`Store.bulk_insert` uses for ``table`` (columns in model order)."""
    return model_arrow_schema(TABLES[table])


def primary_key(table: str) -> list[str]:
    """The primary-key columns of ``table``."""
    return [column.name for column in TABLES[table].__table__.primary_key.columns]  # type: ignore[attr-defined]


def bigint_columns() -> dict[str, set[str]]:
    """Table -> columns the models declare 64-bit (older stores may hold them as INTEGER)."""
    wanted: dict[str, set[str]] = {}
    for name, model in TABLES.items():
        table = model.__table__  # type: ignore[attr-defined]
        wanted[name] = {column.name for column in table.columns if isinstance(column.type, BigInteger)}
    return wanted
