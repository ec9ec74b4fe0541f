"""The store's columns as plain data: what reading and bulk writing need, without building SQLModel metadata.

Opening a store, running queries and appending records (a check's verification rows) need only the
table names, each column's name, Arrow type and default, and the primary keys. Importing the SQLModel
tables for that costs a third of a second of every process (SQLAlchemy's metadata), so this module
keeps a snapshot of them; :mod:`graphcite.store.schema` compiles the models to DDL when a schema is
created or upgraded. ``tests/store/test_columns.py`` keeps the snapshot equal to the models.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["APPEND_ONLY", "AUDIENCE_UPGRADE", "BIGINT_COLUMNS", "COLUMNS", "DERIVED", "IMMUTABLE", "META_TABLE", "PREPARED",
           "PRIMARY_KEYS", "REQUIRED", "RESTRICTED_KEYS_SQL", "SCHEMA_VERSION", "TABLE_NAMES", "Column", "arrow_schema", "column_names",
           "primary_key", "utcnow"]

#: 2: offset, page and line columns became BIGINT (stores at 1 are upgraded when opened for writing).
#: 3: the source_lineage table (stores at 2 get it empty when opened for writing; their next ingest fills it,
#: and until then the graph reads what a missing row would hold from the base tables).
#: 4: verification.audience (stores at 3 get the column when opened for writing; each old record is
#: attributed by what it proves, see :data:`AUDIENCE_UPGRADE`).
#: 5: the unit_parse table (stores at 4 or older get it empty when opened for writing; a check fills it
#: with the parses it makes, and until then parses as before).
SCHEMA_VERSION: Final = 5
META_TABLE: Final = "graphcite_meta"

#: Records that are appended and never changed: verification runs, reviewers' judgements, acceptances.
APPEND_ONLY: Final = ("verification", "annotation", "acceptance")
#: Content-addressed rows: a revision, its units and their values never change once written.
IMMUTABLE: Final = ("source_revision", "evidence_unit", "typed_value")
#: Rows computed from other tables and rewritten by ingest (see graphcite.ingest.lineage).
DERIVED: Final = ("source_lineage",)
#: Analyses kept so they are made once (keyed by what they were made by; rows of an old version are ignored).
PREPARED: Final = ("unit_parse",)


#: Keys of sources that are restricted themselves or through any of their revisions.
RESTRICTED_KEYS_SQL: Final = """
    SELECT key FROM source WHERE visibility = 'restricted'
    UNION SELECT source_key FROM source_revision WHERE visibility = 'restricted'"""


def _public_mark(v: str) -> str:
    """What only a public check wrote in record ``v`` before records carried their audience: a restricted
    citation's GC104, or the origin test's GC953 with its detail withheld."""
    return (f"({v}.result_json LIKE '%\"GC104\"%' "
            f"OR ({v}.result_json LIKE '%\"GC953\"%' AND {v}.result_json LIKE '%(withheld)%'))")


def _internal_mark(v: str) -> str:
    """What only an internal check wrote in record ``v`` (unless the public mark is there too): an origin
    finding, a restricted revision among the evidence, a restricted key named in the result."""
    return (f"({v}.result_json LIKE '%\"GC953\"%' "
            f"OR EXISTS (SELECT 1 FROM source_revision r WHERE r.source_key IN ({RESTRICTED_KEYS_SQL}) "
            f"AND position('\"' || r.revision_id || '\"' IN {v}.evidence_revisions_json) > 0) "
            f"OR EXISTS (SELECT 1 FROM ({RESTRICTED_KEYS_SQL}) k "
            f"WHERE position('\"' || k.key || '\"' IN {v}.result_json) > 0))")


#: When the store first held restricted content (NULL when it never did): a check made before gave every
#: audience the same verdict.
_FIRST_RESTRICTED = ("(SELECT min(r.ingested_at) FROM source_revision r WHERE r.visibility = 'restricted' "
                     "OR r.source_key IN (SELECT key FROM source WHERE visibility = 'restricted'))")

#: Schema 3 -> 4, run once after ``ADD COLUMN audience ... DEFAULT 'internal'`` (one statement: the only
#: UPDATE of a kept table). A record written before records carried their audience is attributed by what
#: it proves, and the internal audience keeps every verdict of its own it can be shown:
#:
#: * ``public`` when it bears the public mark (never an internal verdict for the public);
#: * ``internal`` when it bears an internal mark; when it was made before the store held any restricted
#:   content (both audiences then got the same verdict); or when no record of its claim bears an internal
#:   mark (the internal audience would otherwise be left without any verdict of the claim);
#: * ``unattributed`` otherwise: an unmarked record of a claim whose internal check found restricted
#:   content could be a public verdict without the restricted finding the internal audience gets. It is
#:   kept and shown in the internal audience's history, but it is no audience's latest: the internal
#:   audience's latest is then its own marked record.
AUDIENCE_UPGRADE: Final = (
    "UPDATE verification SET audience = CASE "
    f"WHEN {_public_mark('verification')} THEN 'public' "
    f"WHEN {_internal_mark('verification')} THEN 'internal' "
    f"WHEN verification.verified_at < {_FIRST_RESTRICTED} THEN 'internal' "
    "WHEN verification.claim_id IN (SELECT w.claim_id FROM verification w WHERE "
    f"NOT {_public_mark('w')} AND {_internal_mark('w')}) THEN 'unattributed' "
    "ELSE 'internal' END")


class _Required:
    """The default of a column every write must give (the model field has no default)."""

    _instance: _Required | None = None

    def __new__(cls) -> _Required:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name, its Arrow type (``string``, ``int64``, ``float64``, ``bool``, ``timestamp``
    for microsecond timestamps, ``date``, ``binary`` for bytes), its default (:data:`REQUIRED` when a write
    must give it) and whether the model declares it 64-bit in SQL (BIGINT; older stores may hold it as INTEGER)."""

    name: str
    kind: str = "string"
    default: Any = None
    bigint: bool = False


def _req(name: str, kind: str = "string", *, bigint: bool = False) -> Column:
    return Column(name, kind, REQUIRED, bigint)


#: Every table of :data:`graphcite.store.schema.TABLES`, its columns in model order.
COLUMNS: Final[dict[str, tuple[Column, ...]]] = {
    "source": (
        _req("key"), Column("title"), Column("kind", default="note"), Column("visibility", default="public"),
        _req("current_revision"), _req("first_ingested_at", "timestamp"),
    ),
    "source_revision": (
        _req("revision_id"), _req("source_key"), _req("seq", "int64"), _req("content_hash"), _req("text"),
        _req("format"), _req("ingested_at", "timestamp"), Column("effective", "date"),
        Column("status", default="current"), Column("title"), Column("kind", default="note"),
        Column("visibility", default="public"), Column("metadata_json", default="{}"), Column("path"),
        Column("git_commit"), Column("build_role"), Column("previous_revision"),
    ),
    "evidence_unit": (
        _req("unit_id"), _req("revision_id"), _req("source_key"), _req("ordinal", "int64"),
        _req("start", "int64", bigint=True), _req("end", "int64", bigint=True), _req("text"), _req("block_type"),
        Column("heading_path_json", default="[]"), Column("status", default="current"), Column("status_cue"),
        Column("page", "int64", bigint=True), Column("symbol"), Column("line_start", "int64", bigint=True),
        Column("line_end", "int64", bigint=True), Column("table_headers_json"),
    ),
    "typed_value": (
        _req("value_id"), _req("unit_id"), _req("revision_id"), _req("start", "int64", bigint=True),
        _req("end", "int64", bigint=True), _req("surface"), Column("magnitude", "float64"),
        Column("low", "float64"), Column("high", "float64"), Column("unit"), Column("dimensionality"),
        _req("kind"), Column("counted_noun"), Column("measured"), Column("bound", default="exact"), Column("role"),
    ),
    "source_link": (
        _req("link_id"), _req("from_key"), _req("to_key"), _req("relation"), _req("declared_in"),
    ),
    "term_posting": (_req("term"), _req("unit_id")),
    "answer": (
        _req("answer_rev"), _req("answer_id"), Column("question"), _req("format"), _req("content_json"),
        _req("stored_at", "timestamp"), Column("corrects"), Column("correction_rationale"),
        Column("missing_evidence"),
    ),
    "claim": (
        _req("claim_id"), _req("answer_rev"), _req("ordinal", "int64"), Column("part", "int64"), Column("parent_id"),
        _req("text"), Column("claim_type", default="direct"), Column("atomic_json", default="{}"),
    ),
    "citation": (
        _req("citation_id"), _req("claim_id"), _req("ordinal", "int64"), Column("source_key"), Column("revision"),
        Column("chunk_id"), Column("start", "int64", bigint=True), Column("end", "int64", bigint=True),
        Column("quote"), Column("role"), Column("page", "int64", bigint=True),
    ),
    "verification": (
        _req("record_id"), _req("claim_id"), _req("answer_rev"), _req("config_hash"), _req("config_json"),
        _req("evidence_revisions_json"), _req("verified_at", "timestamp"), _req("status"), _req("supported", "bool"),
        _req("result_json"), Column("audience", default="internal"),
    ),
    "annotation": (
        _req("annotation_id"), _req("claim_id"), _req("citation_index", "int64"), _req("label"), _req("rationale"),
        _req("reviewer"), _req("created_at", "timestamp"), Column("source_revision"), Column("claim_revision"),
        Column("adjudication", "bool", False),
    ),
    "lemma_lookup": (_req("word"), _req("lemma")),
    "source_lineage": (_req("key"), Column("current_revision"), Column("source_json"), Column("links_json", default="[]")),
    "unit_parse": (_req("unit_id"), _req("text_key"), _req("pipeline_version"), _req("parse", "binary")),
}

#: The tables a graphcite store holds (``reviewer`` and ``acceptance`` are created on first use).
TABLE_NAMES: Final = tuple(COLUMNS)

PRIMARY_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "source": ("key",), "source_revision": ("revision_id",), "evidence_unit": ("unit_id",),
    "typed_value": ("value_id",), "source_link": ("link_id",), "term_posting": ("term", "unit_id"),
    "answer": ("answer_rev",), "claim": ("claim_id",), "citation": ("citation_id",),
    "verification": ("record_id",), "annotation": ("annotation_id",), "lemma_lookup": ("word",),
    "source_lineage": ("key",), "unit_parse": ("unit_id", "text_key", "pipeline_version"),
}

#: Table -> the columns the models declare 64-bit.
BIGINT_COLUMNS: Final[dict[str, frozenset[str]]] = {
    table: frozenset(c.name for c in columns if c.bigint) for table, columns in COLUMNS.items()}


def column_names(table: str) -> tuple[str, ...]:
    """The columns of ``table`` in model order."""
    return tuple(c.name for c in COLUMNS[table])


def primary_key(table: str) -> list[str]:
    """The primary-key columns of ``table``."""
    return list(PRIMARY_KEYS[table])


def _arrow_type(kind: str) -> pa.DataType:
    import pyarrow as pa

    return {"string": pa.string, "int64": pa.int64, "float64": pa.float64, "bool": pa.bool_,
            "timestamp": lambda: pa.timestamp("us"), "date": pa.date32, "binary": pa.binary}[kind]()


@cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema :meth:`graphcite.store.Store.bulk_insert` uses for ``table`` (columns in model order)."""
    import pyarrow as pa

    return pa.schema([(c.name, _arrow_type(c.kind)) for c in COLUMNS[table]])


def utcnow() -> dt.datetime:
    """Naive UTC now, second precision (the store keeps naive UTC timestamps)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
