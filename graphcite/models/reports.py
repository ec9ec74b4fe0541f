"""Typed verification results: the engine builds them; JSON, the CLI, HTML and the service read them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "RELATION_DISPLAY",
    "STATUS_DISPLAY",
    "STATUS_ORDER",
    "UNVERIFIED_DISPLAY",
    "CheckReport",
    "CitationVerdict",
    "ClaimStatus",
    "ClaimVerdict",
    "DecisionOut",
    "DecisionTermOut",
    "FindingOut",
    "InferenceOut",
    "Outcome",
    "PartVerdictOut",
    "QuotePieceOut",
    "QuoteTransformationOut",
    "Relation",
]


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


class Outcome(StrEnum):
    """What one rule concluded about one citation: it passed, failed, only notes something (a failure
    the configuration reports without effect), or did not apply."""

    PASS = "pass"
    FAIL = "fail"
    NOTE = "note"
    SKIP = "skip"


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
    """One rule's conclusion as reported: code, rule name, pass/fail, detail, and for a soft finding
    (the support decision GC201 and the notes) its contribution to the decision in log-odds."""

    code: str
    rule: str
    outcome: Outcome
    detail: str = ""
    contribution: float | None = None


@dataclass(frozen=True, slots=True)
class DecisionTermOut:
    """One term of the calibrated decision: a feature, its value and weight x value (log-odds)."""

    feature: str
    value: float
    contribution: float


@dataclass(frozen=True, slots=True)
class DecisionOut:
    """The calibrated support decision for a citation (for a compound claim, of the part it does least
    for): the model's probability of support, the threshold it must reach, and every term."""

    probability: float
    threshold: float
    terms: list[DecisionTermOut]


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
    decision: DecisionOut | None = None  # the calibrated support decision and its terms
    evidence_kind: str | None = None  # "answer-passage": the evidence is a passage that came with the answer

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
    not_claims: list[str] | None = None  # the answer's sentences that assert nothing: kept, never counted

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; optional keys that are unset are left out."""
        return _plain(self)


_SCALARS = frozenset({str, int, float, bool, type(None)})
#: Per dataclass type: (field name, left out when None) in field order; filled on first use.
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _plain(value: Any) -> Any:
    """Typed report -> plain data without deep copies (dataclasses.asdict copies every leaf).

    Dispatches on the exact type first (a report is mostly strings, numbers, lists and a few
    dataclass types) and takes a scalar field or list item as it is without a call, so a report
    converts in about a third of the generic path's time and half of one call per value.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else _plain(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _SCALARS else _plain(v) for k, v in value.items()}
    names = _FIELDS.get(kind)
    if names is None:
        if isinstance(value, StrEnum):
            return value._value_  # what str() gives a StrEnum member
        fields_ = getattr(kind, "__dataclass_fields__", None)
        if fields_ is None:
            if isinstance(value, dict):
                return {k: _plain(v) for k, v in value.items()}
            if isinstance(value, list | tuple):
                return [_plain(v) for v in value]
            return value
        names = _FIELDS[kind] = tuple((name, name in _OPTIONAL_KEYS) for name in fields_)
    out = {}
    for name, optional in names:
        item = getattr(value, name)
        if item is None:
            if not optional:
                out[name] = None
        else:
            out[name] = item if type(item) in _SCALARS else _plain(item)
    return out


_OPTIONAL_KEYS = frozenset({"premises", "parts", "qualifiers", "note", "claim_id", "answer_rev", "slots", "earlier",
                            "rank_score", "located_spans", "supported_elsewhere",
                            "quote_pieces", "quote_transformations", "inference", "premise_ids",
                            "contribution", "decision", "evidence_kind", "not_claims"})
