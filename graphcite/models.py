"""SQLModel tables and the value types that flow between stages, in one place.

Tables (``table=True``) define the store's schema and validate single records; bulk loading goes
through Arrow in :mod:`graphcite.store`. Value types are frozen dataclasses passed between
ingest, claims and verify. List- and dict-valued fields are stored as JSON text so the same
models work on DuckDB and on a SQL server later.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from sqlalchemy import BigInteger
from sqlmodel import Field, SQLModel

__all__ = [
    "BLOCK_TYPES",
    "CLAIM_TYPES",
    "KINDS",
    "LINK_RELATIONS",
    "RELATIONS",
    "RELATION_DISPLAY",
    "STATUSES",
    "STATUS_DISPLAY",
    "STATUS_ORDER",
    "UNVERIFIED_DISPLAY",
    "Acceptance",
    "Annotation",
    "AnswerRecord",
    "AtomicClaim",
    "CheckReport",
    "CitationRecord",
    "CitationRef",
    "CitationVerdict",
    "ClaimRecord",
    "ClaimStatus",
    "ClaimVerdict",
    "EvidenceUnit",
    "ExtractedValue",
    "FindingOut",
    "InputAnswer",
    "InputClaim",
    "LemmaEntry",
    "ParsedDocument",
    "ParsedUnit",
    "PartVerdictOut",
    "Relation",
    "Reviewer",
    "Source",
    "SourceLink",
    "SourceRevision",
    "TermPosting",
    "TypedValue",
    "VerificationRecord",
]

STATUSES = ("current", "superseded", "historical", "proposal", "rejected", "forbidden", "draft")
KINDS = ("decision", "incident", "manual", "note", "post", "contract", "code", "test", "observation",
         "registry", "manifest")
BLOCK_TYPES = ("heading", "paragraph", "list_item", "table_row", "block_quote", "code")
LINK_RELATIONS = ("derived_from", "quotes", "implements", "supersedes", "revision_of", "supersedes_cycle")
RELATIONS = ("supports", "contradicts", "contextualizes", "mentions", "insufficient")
CLAIM_TYPES = ("direct", "synthesis", "inference", "proposal", "background")

ValueKind = Literal["quantity", "count", "percent", "money", "temperature", "duration", "date",
                    "version", "revision", "number"]
Bound = Literal["exact", "max", "min", "approx", "range"]


# --------------------------------------------------------------------------------------------
# Tables
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


# --------------------------------------------------------------------------------------------
# Value types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExtractedValue:
    """A typed value found by :func:`graphcite.extract_values`; end is exclusive (code points)."""

    start: int
    end: int
    surface: str
    magnitude: float | None
    unit: str | None = None
    dimensionality: str | None = None
    kind: str = "number"
    counted_noun: str | None = None
    bound: str = "exact"
    low: float | None = None
    high: float | None = None
    role: str | None = None
    measured: str | None = None

    def shifted(self, offset: int) -> ExtractedValue:
        """The same value with offsets moved by ``offset`` (unit -> document coordinates)."""
        from dataclasses import replace

        return replace(self, start=self.start + offset, end=self.end + offset)


@dataclass(frozen=True, slots=True)
class ParsedUnit:
    """A block found by a parser; offsets are code points into ParsedDocument.text."""

    start: int
    end: int
    block_type: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    symbol: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    table_headers: tuple[str, ...] | None = None
    cells: tuple[tuple[int, int], ...] | None = None  # table rows: document offsets of each cell's text


@dataclass(slots=True)
class ParsedDocument:
    """What a parser returns: the document text (never normalised) and its units."""

    text: str
    format: str
    units: list[ParsedUnit]
    metadata: dict[str, Any] = field(default_factory=dict)
    build_role: str | None = None


@dataclass(frozen=True, slots=True)
class CitationRef:
    """A citation as read from an answer, before resolution against the store."""

    source: str | None = None
    revision: str | None = None
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    role: str | None = None
    page: int | None = None
    page_end: int | None = None
    # why the citation cannot be used as written (a bad offset or page, a malformed marker); the answer
    # is still read, and verification marks this citation invalid (GC105) instead of refusing the answer
    defect: str | None = None
    # the text of the claim this citation was given for: what a citation without a span is located for
    # (set by the answer readers; not part of the citation's identity, so never compared or shown)
    claim: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class InputClaim:
    """A claim as given in an answer: its text, citations, declared type and premises."""

    text: str
    citations: tuple[CitationRef, ...] = ()
    claim_type: str | None = None
    premises: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class InputAnswer:
    """An answer in the one internal form every format reads into."""

    answer_id: str
    question: str | None
    claims: tuple[InputClaim, ...]
    format: str
    documents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AtomicClaim:
    """One proposition with its qualifiers made explicit; spans are offsets into the sentence."""

    text: str
    span: tuple[int, int]
    subject: str | None = None
    subject_span: tuple[int, int] | None = None
    predicate: str | None = None
    predicate_span: tuple[int, int] | None = None
    object: str | None = None
    object_span: tuple[int, int] | None = None
    negated: bool = False
    negation_cue: str | None = None
    modality: str = "asserted"
    modality_cue: str | None = None
    tense: str = "current"
    time_cue: str | None = None
    conditions: tuple[str, ...] = ()
    quantifier: str | None = None
    entity: str | None = None
    values: tuple[ExtractedValue, ...] = ()
    connective: str | None = None
    joins: tuple[int, int] | None = None
    claim_type: str = "direct"
    sentence: str | None = None  # the whole input claim this part came from


class LemmaEntry(SQLModel, table=True):
    """Word -> lookup lemma, loaded once from spacy-lookups-data so the term index lemmatises in SQL."""

    __tablename__ = "lemma_lookup"
    word: str = Field(primary_key=True)
    lemma: str


# --------------------------------------------------------------------------------------------
# Typed verification results: the engine builds these; JSON, the CLI and HTML read them
# --------------------------------------------------------------------------------------------


class ClaimStatus(StrEnum):
    """A claim's verdict, worst first in :data:`STATUS_ORDER` (supported is the only good one)."""

    SUPPORTED = "supported"
    INVALID = "invalid"
    CONTRADICTED = "contradicted"
    CONFLICT = "conflict"
    INSUFFICIENT = "insufficient"
    UNSUPPORTED = "unsupported"


class Relation(StrEnum):
    """What one citation does for one claim (the verdict insufficient included)."""

    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    CONTEXTUALIZES = "contextualizes"
    MENTIONS = "mentions"
    INSUFFICIENT = "insufficient"


STATUS_ORDER: tuple[ClaimStatus, ...] = (ClaimStatus.INVALID, ClaimStatus.CONTRADICTED, ClaimStatus.CONFLICT,
                                         ClaimStatus.INSUFFICIENT, ClaimStatus.UNSUPPORTED)
# One place for the words and symbols the CLI, the HTML page and the review app show for a status or a
# relation: a symbol and a word together, never colour alone. "unverified" is a claim not yet checked.
STATUS_DISPLAY: dict[str, tuple[str, str, str]] = {  # status -> (symbol, word, colour)
    ClaimStatus.SUPPORTED: ("✔", "supported", "green"),
    ClaimStatus.INVALID: ("⊘", "invalid", "red"),
    ClaimStatus.CONTRADICTED: ("✘", "contradicted", "red"),
    ClaimStatus.CONFLICT: ("⚠", "conflict", "yellow"),
    ClaimStatus.INSUFFICIENT: ("?", "insufficient", "magenta"),
    ClaimStatus.UNSUPPORTED: ("∅", "unsupported", "magenta"),
}
UNVERIFIED_DISPLAY: tuple[str, str, str] = ("…", "not verified", "white")
RELATION_DISPLAY: dict[str, tuple[str, str]] = {  # relation -> (symbol, word)
    Relation.SUPPORTS: ("✔", "supports"), Relation.CONTRADICTS: ("✘", "contradicts"),
    Relation.CONTEXTUALIZES: ("◐", "contextualizes"), Relation.MENTIONS: ("○", "mentions only"),
    Relation.INSUFFICIENT: ("?", "insufficient"),
}


@dataclass(frozen=True, slots=True)
class FindingOut:
    """One rule's conclusion as reported: code, rule name, pass/fail, detail."""

    code: str
    rule: str
    outcome: Literal["pass", "fail", "skip", "note"]
    detail: str = ""


@dataclass(frozen=True, slots=True)
class QuotePieceOut:
    """One verbatim piece of a transformed quote: code-point offsets into the revision and its stored text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class QuoteTransformationOut:
    """An explicit change a quote makes: an ellipsis (text left out) or an editor's bracketed insertion.

    ``at`` is the index of the piece it stands before (the number of pieces when it ends the quote).
    """

    kind: Literal["ellipsis", "insertion"]
    text: str
    at: int


@dataclass(slots=True)
class CitationVerdict:
    """One citation of a claim as reported: where it points, whether it is valid, what it does."""

    index: int
    source: str | None
    chunk_id: str | None
    revision: str | None
    unit_id: str | None
    start: int | None
    end: int | None
    quote: str | None
    page: int | None
    symbol: str | None
    heading_path: list[str]
    unit_status: str | None
    role: str | None
    valid: bool
    relation: Relation
    support_score: float
    findings: list[FindingOut]
    slots: dict[str, str] | None = None  # which claim slots this citation covered in joint support
    located: bool = False  # the citation named no span: graphcite located the evidence in the cited source
    rank_score: float | None = None  # how well the located span matched the claim (0-1)
    located_spans: list[dict[str, Any]] | None = None  # every unit used when a located claim needed several
    supported_elsewhere: dict[str, Any] | None = None  # an uncited unit that holds the claim (never support)
    quote_pieces: list[QuotePieceOut] | None = None  # a transformed quote: its verbatim pieces, in order
    quote_transformations: list[QuoteTransformationOut] | None = None  # ... and its ellipses and insertions

    def __post_init__(self) -> None:
        # a transformed quote arrives as a string that carries its pieces (verify.quotes.RenderedQuote)
        pieces = getattr(self.quote, "pieces", None)
        if pieces is not None and self.quote_pieces is None:
            self.quote_pieces = [QuotePieceOut(p["start"], p["end"], p["text"]) for p in pieces]
            self.quote_transformations = [QuoteTransformationOut(t["kind"], t["text"], t["at"])
                                          for t in getattr(self.quote, "transformations", [])]
        if self.quote is not None and type(self.quote) is not str:
            self.quote = str(self.quote)


@dataclass(slots=True)
class PartVerdictOut:
    """One atomic part of a compound claim as reported."""

    text: str
    span: list[int]
    status: ClaimStatus
    supported: bool
    qualifiers: dict[str, Any]
    note: str
    citations: list[dict[str, Any]]


@dataclass(slots=True)
class InferenceOut:
    """An explicit inference: the claims it rests on (0-based indexes, and ids once stored), their
    statuses, whether all of them are supported, and whether a person has reviewed the step itself
    (the rules check premises, never the step from them to the conclusion)."""

    premises: list[int]
    premise_status: list[str]
    premises_supported: bool
    review_state: str = "unreviewed"
    premise_ids: list[str] | None = None


@dataclass(slots=True)
class ClaimVerdict:
    """One claim of an answer: its status, its citations, its parts or qualifiers."""

    index: int
    text: str
    type: str
    status: ClaimStatus
    supported: bool
    citations: list[CitationVerdict]
    contradicting_evidence: list[dict[str, Any]]
    premises: list[str] | None = None
    parts: list[PartVerdictOut] | None = None
    qualifiers: dict[str, Any] | None = None
    note: str | None = None
    claim_id: str | None = None
    inference: InferenceOut | None = None


@dataclass(slots=True)
class CheckReport:
    """The report of one check: deterministic (no timestamps), claims in input order."""

    answer_id: str
    question: str | None
    audience: str
    verifier: dict[str, Any]
    claims: list[ClaimVerdict]
    metrics: dict[str, Any]
    answer_rev: str | None = None
    earlier: dict[str, Any] | None = None  # checks of this answer revision made before this one

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; optional keys that are unset are left out."""
        return _plain(self)


def _plain(value: Any) -> Any:
    """Typed report -> plain data without deep copies (dataclasses.asdict copies every leaf)."""
    if isinstance(value, StrEnum):
        return str(value)
    fields_ = getattr(type(value), "__dataclass_fields__", None)
    if fields_ is not None:
        out = {}
        for name in fields_:
            item = getattr(value, name)
            if item is None and name in _OPTIONAL_KEYS:
                continue
            out[name] = _plain(item)
        return out
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


_OPTIONAL_KEYS = frozenset({"premises", "parts", "qualifiers", "note", "claim_id", "answer_rev", "slots", "earlier",
                            "rank_score", "located_spans", "supported_elsewhere",
                            "quote_pieces", "quote_transformations", "inference", "premise_ids"})


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
