"""SQLModel tables: the store's schema (bulk loading goes through Arrow in :mod:`graphcite.store`).

List- and dict-valued fields are stored as JSON text, so the same models work on DuckDB and PostgreSQL.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger
from sqlmodel import Field, SQLModel

__all__ = [
    "Acceptance",
    "Annotation",
    "AnswerRecord",
    "CitationRecord",
    "ClaimRecord",
    "EvidenceUnit",
    "LemmaEntry",
    "Reviewer",
    "Source",
    "SourceLink",
    "SourceRevision",
    "TermPosting",
    "TypedValue",
    "VerificationRecord",
]


# --------------------------------------------------------------------------------------------


class Source(SQLModel, table=True):
    """A document as a whole: its key is stable across revisions."""

    __tablename__ = "source"
    key: str = Field(primary_key=True, description="path relative to the ingested folder, posix")
    title: str | None = None
    kind: str = Field(default="note", description="decision, incident, manual, note, post, contract, code, ...")
    visibility: str = Field(default="public", description="public or restricted")
    current_revision: str = Field(description="revision_id of the current revision")
    first_ingested_at: dt.datetime


class SourceRevision(SQLModel, table=True):
    """One immutable revision of a source: the exact text as read from disk."""

    __tablename__ = "source_revision"
    revision_id: str = Field(primary_key=True, description="16 hex: hash of source key + content hash")
    source_key: str = Field(index=True)
    seq: int = Field(description="1 for the first revision of a source, then 2, 3, ...")
    content_hash: str = Field(description="sha256 of the file bytes, hex")
    text: str = Field(description="the document text; offsets are code points into it")
    format: str = Field(description="markdown, text, html, pdf, python")
    ingested_at: dt.datetime
    effective: dt.date | None = None
    status: str = Field(default="current")
    title: str | None = None
    kind: str = Field(default="note")
    visibility: str = Field(default="public")
    metadata_json: str = Field(default="{}", description="front matter / sidecar keys, JSON")
    path: str | None = Field(default=None, description="file path as given at ingest")
    git_commit: str | None = None
    build_role: str | None = Field(default=None, description="code: source or test")
    previous_revision: str | None = None


class EvidenceUnit(SQLModel, table=True):
    """A block of a revision (heading, paragraph, list item, table row, block quote, code)."""

    __tablename__ = "evidence_unit"
    unit_id: str = Field(primary_key=True, description="16 hex: hash of revision content hash + start + end")
    revision_id: str = Field(index=True)
    source_key: str = Field(index=True)
    ordinal: int
    start: int = Field(description="code-point offset into the revision text", sa_type=BigInteger)
    end: int = Field(sa_type=BigInteger)
    text: str
    block_type: str
    heading_path_json: str = Field(default="[]", description="JSON list of enclosing headings")
    status: str = Field(default="current")
    status_cue: str | None = Field(default=None, description="the heading or front matter that set status")
    page: int | None = Field(default=None, sa_type=BigInteger)
    symbol: str | None = None
    line_start: int | None = Field(default=None, sa_type=BigInteger)
    line_end: int | None = Field(default=None, sa_type=BigInteger)
    table_headers_json: str | None = None


class TypedValue(SQLModel, table=True):
    """A number with its unit found in a unit; offsets are into the revision text."""

    __tablename__ = "typed_value"
    value_id: str = Field(primary_key=True)
    unit_id: str = Field(index=True)
    revision_id: str
    start: int = Field(sa_type=BigInteger)
    end: int = Field(sa_type=BigInteger)
    surface: str
    magnitude: float | None = None
    low: float | None = None
    high: float | None = None
    unit: str | None = None
    dimensionality: str | None = None
    kind: str
    counted_noun: str | None = None
    measured: str | None = None
    bound: str = "exact"
    role: str | None = None


class SourceLink(SQLModel, table=True):
    """Lineage between sources, declared by the revision that names it."""

    __tablename__ = "source_link"
    link_id: str = Field(primary_key=True)
    from_key: str = Field(index=True)
    to_key: str = Field(index=True)
    relation: str
    declared_in: str = Field(description="revision_id whose metadata declared the link")


class TermPosting(SQLModel, table=True):
    """Term index for candidate lookup (contradictions in the store): one row per term per unit."""

    __tablename__ = "term_posting"
    term: str = Field(primary_key=True)
    unit_id: str = Field(primary_key=True)


class AnswerRecord(SQLModel, table=True):
    """A stored, immutable answer revision."""

    __tablename__ = "answer"
    answer_rev: str = Field(primary_key=True, description="16 hex hash of answer id + canonical content")
    answer_id: str = Field(index=True)
    question: str | None = None
    format: str
    content_json: str
    stored_at: dt.datetime
    corrects: str | None = Field(default=None, description="answer_rev this revision corrects")
    correction_rationale: str | None = None
    missing_evidence: str | None = None


class ClaimRecord(SQLModel, table=True):
    """An input claim (parent) or one of its atomic parts."""

    __tablename__ = "claim"
    claim_id: str = Field(primary_key=True, description="16 hex hash of answer_rev + ordinal path")
    answer_rev: str = Field(index=True)
    ordinal: int
    part: int | None = Field(default=None, description="None for the input claim, 0.. for its atomic parts")
    parent_id: str | None = None
    text: str
    claim_type: str = "direct"
    atomic_json: str = Field(default="{}", description="AtomicClaim fields as JSON")


class CitationRecord(SQLModel, table=True):
    """A citation of an input claim, as given."""

    __tablename__ = "citation"
    citation_id: str = Field(primary_key=True)
    claim_id: str = Field(index=True)
    ordinal: int
    source_key: str | None = None
    revision: str | None = None
    chunk_id: str | None = None
    start: int | None = Field(default=None, sa_type=BigInteger)
    end: int | None = Field(default=None, sa_type=BigInteger)
    quote: str | None = None
    role: str | None = None
    page: int | None = Field(default=None, sa_type=BigInteger)


class VerificationRecord(SQLModel, table=True):
    """One verification of one claim: appended on every run, never updated."""

    __tablename__ = "verification"
    record_id: str = Field(primary_key=True)
    claim_id: str = Field(index=True)
    answer_rev: str
    config_hash: str
    config_json: str
    evidence_revisions_json: str
    verified_at: dt.datetime
    status: str
    supported: bool
    result_json: str
    audience: str = "internal"  # the audience the verdict was made for (graphcite.audience)


class Annotation(SQLModel, table=True):
    """A human judgement of one citation of a claim, or an adjudication of several."""

    __tablename__ = "annotation"
    annotation_id: str = Field(primary_key=True)
    claim_id: str = Field(index=True)
    citation_index: int
    label: str
    rationale: str
    reviewer: str
    created_at: dt.datetime
    source_revision: str | None = None
    claim_revision: str | None = None
    adjudication: bool = False




class LemmaEntry(SQLModel, table=True):
    """Word -> lookup lemma, loaded once from spacy-lookups-data so the term index lemmatises in SQL."""

    __tablename__ = "lemma_lookup"
    word: str = Field(primary_key=True)
    lemma: str


class Reviewer(SQLModel, table=True):
    """A person who may record judgements through ``graphcite serve``; only a hash of their token is kept.

    ``token_hash`` is scrypt of the token with the per-token ``salt`` (both hex), so a copy of the store
    does not let anyone sign in (see :mod:`graphcite.serve.reviewers`).
    """

    __tablename__ = "reviewer"
    name: str = Field(primary_key=True)
    token_hash: str
    salt: str
    created_at: dt.datetime


class Acceptance(SQLModel, table=True):
    """A reviewer's acceptance of one claim for one use (task and destination), never a global verdict.

    Append-only. It pins what was accepted: the answer revision, the claim's text hash, the exact
    evidence set (unit ids and source revisions) and the verification record it relied on, and when
    it lapses: an expiry date, or ``while_current`` (lapsed once a cited revision is no longer current).
    """

    __tablename__ = "acceptance"
    acceptance_id: str = Field(primary_key=True)
    claim_id: str = Field(index=True)
    answer_rev: str
    claim_revision: str = Field(description="16 hex sha256 of the claim text as accepted")
    task: str
    destination: str
    evidence_json: str = Field(default="[]", description="JSON list of {unit_id, revision_id, source_key}")
    evidence_revisions_json: str = Field(default="[]", description="JSON list of the source revisions relied on")
    verification_record: str = Field(description="record_id of the verification record relied on")
    verification_status: str
    expires: dt.date | None = None
    while_current: bool = False
    reviewer: str | None = None
    note: str | None = None
    accepted_at: dt.datetime
