"""SQLModel tables, value types and typed reports: what flows between stages, one module each.

``tables`` defines the store's schema, ``values`` the frozen value types passed between ingest,
claims and verify, ``reports`` the typed verification results, ``vocabulary`` the closed word lists
they use. Import from here: ``from graphcite.models import Source, CheckReport`` (the tables are imported
on first use, so a process that only reads a store never builds SQLAlchemy metadata).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphcite.models.reports import (
    RELATION_DISPLAY,
    STATUS_DISPLAY,
    STATUS_ORDER,
    UNVERIFIED_DISPLAY,
    CheckReport,
    CitationVerdict,
    ClaimStatus,
    ClaimVerdict,
    DecisionOut,
    DecisionTermOut,
    FindingOut,
    InferenceOut,
    Outcome,
    PartVerdictOut,
    QuotePieceOut,
    QuoteTransformationOut,
    Relation,
)
from graphcite.models.values import (
    AtomicClaim,
    CitationRef,
    ExtractedValue,
    InputAnswer,
    InputClaim,
    ParsedDocument,
    ParsedUnit,
    Passage,
)
from graphcite.models.vocabulary import (
    BLOCK_TYPES,
    CLAIM_TYPES,
    KINDS,
    LINEAGE_RELATIONS,
    LINK_RELATIONS,
    RELATIONS,
    SOURCE_RELATIONS,
    STATUSES,
    Bound,
    ValueKind,
)

if TYPE_CHECKING:
    from graphcite.models.tables import (
        Acceptance,
        Annotation,
        AnswerRecord,
        CitationRecord,
        ClaimRecord,
        EvidenceUnit,
        LemmaEntry,
        Reviewer,
        Source,
        SourceLink,
        SourceRevision,
        TermPosting,
        TypedValue,
        VerificationRecord,
    )

__all__ = [
    "BLOCK_TYPES",
    "CLAIM_TYPES",
    "KINDS",
    "LINEAGE_RELATIONS",
    "LINK_RELATIONS",
    "RELATIONS",
    "RELATION_DISPLAY",
    "SOURCE_RELATIONS",
    "STATUSES",
    "STATUS_DISPLAY",
    "STATUS_ORDER",
    "UNVERIFIED_DISPLAY",
    "Acceptance",
    "Annotation",
    "AnswerRecord",
    "AtomicClaim",
    "Bound",
    "CheckReport",
    "CitationRecord",
    "CitationRef",
    "CitationVerdict",
    "ClaimRecord",
    "ClaimStatus",
    "ClaimVerdict",
    "DecisionOut",
    "DecisionTermOut",
    "EvidenceUnit",
    "ExtractedValue",
    "FindingOut",
    "InferenceOut",
    "InputAnswer",
    "InputClaim",
    "LemmaEntry",
    "Outcome",
    "ParsedDocument",
    "ParsedUnit",
    "PartVerdictOut",
    "Passage",
    "QuotePieceOut",
    "QuoteTransformationOut",
    "Relation",
    "Reviewer",
    "Source",
    "SourceLink",
    "SourceRevision",
    "TermPosting",
    "TypedValue",
    "ValueKind",
    "VerificationRecord",
]

#: The SQLModel tables, imported on first use (PEP 562): building their SQLAlchemy metadata costs a third
#: of a second, and a process that only reads a store never needs them (graphcite.store.columns).
_TABLES = frozenset({"Acceptance", "Annotation", "AnswerRecord", "CitationRecord", "ClaimRecord", "EvidenceUnit",
                     "LemmaEntry", "Reviewer", "Source", "SourceLink", "SourceRevision", "TermPosting", "TypedValue",
                     "VerificationRecord"})


def __getattr__(name: str) -> Any:
    if name in _TABLES or name == "tables":
        import importlib

        tables = importlib.import_module("graphcite.models.tables")  # not `from . import`: that asks this hook
        return tables if name == "tables" else getattr(tables, name)
    raise AttributeError(f"module 'graphcite.models' has no attribute {name!r}")
