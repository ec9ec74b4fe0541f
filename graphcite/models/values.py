"""Value types passed between ingest, claims and verify (immutable dataclasses; offsets are code points)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AtomicClaim",
    "CitationRef",
    "ExtractedValue",
    "InputAnswer",
    "InputClaim",
    "ParsedDocument",
    "ParsedUnit",
    "Passage",
]


@dataclass(slots=True, unsafe_hash=True)
class ExtractedValue:
    """A typed value found by :func:`graphcite.extract_values`; end is exclusive (code points).

    Treated as immutable and hashable like the frozen records here, but not declared frozen: a frozen
    dataclass sets each field through ``object.__setattr__``, which made constructing one about six
    times slower, and ingest builds one per value of the corpus. Never assign to a field.
    """

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


@dataclass(slots=True, unsafe_hash=True)
class ParsedUnit:
    """A block found by a parser; offsets are code points into ParsedDocument.text.

    Immutable by convention, not declared frozen, for the same reason as :class:`ExtractedValue`
    (one per block of the corpus); use ``dataclasses.replace`` for a changed copy.
    """

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
    # the index into InputAnswer.passages of the passage text this citation came with (None: no text)
    passage: int | None = None


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
    passages: tuple[Passage, ...] = ()
    # sentences of the answer that assert nothing ("I hope this helps.", a question back): kept and
    # shown, never verified, outside the metrics
    not_claims: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage of text that came with an answer (a retrieved document, an ALCE doc, a RAGAS context).

    ``key`` is the content-addressed source key it is stored under (the same text is stored once);
    ``name``, ``url``, ``title`` and ``start_index`` are what the producer said of the document it came
    from, so it can be matched to that document when the store holds it.
    """

    key: str
    text: str
    name: str | None = None
    url: str | None = None
    title: str | None = None
    start_index: int | None = None


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
