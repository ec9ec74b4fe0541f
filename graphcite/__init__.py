"""graphcite: check what a cited sentence really rests on.

The public API, in data-flow order: open a store, ingest files, load and decompose answers, check
them, query and export the evidence graph, evaluate the verifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphcite.errors import (
    AnswerFormatError,
    GraphciteError,
    IngestError,
    NotFoundError,
    StoreError,
    StoreLockedError,
)

if TYPE_CHECKING:
    from graphcite.claims.answers import add_answer
    from graphcite.claims.decompose import decompose
    from graphcite.claims.formats import load_answer
    from graphcite.ingest import ingest
    from graphcite.ingest.values import extract_values
    from graphcite.lifecycle import answerable
    from graphcite.rag import evaluate_rag, store_passages
    from graphcite.store import Store, open_store
    from graphcite.verify.check import check_answer, verify_answer

__all__ = [
    "AnswerFormatError",
    "GraphciteError",
    "IngestError",
    "NotFoundError",
    "Store",
    "StoreError",
    "StoreLockedError",
    "__version__",
    "add_answer",
    "answerable",
    "check_answer",
    "decompose",
    "evaluate_rag",
    "extract_values",
    "ingest",
    "load_answer",
    "open_store",
    "store_passages",
    "verify_answer",
]

__version__ = "0.1.0"

_LAZY = {
    "Store": ("graphcite.store", "Store"),
    "open_store": ("graphcite.store", "open_store"),
    "ingest": ("graphcite.ingest", "ingest"),
    "extract_values": ("graphcite.ingest.values", "extract_values"),
    "load_answer": ("graphcite.claims.formats", "load_answer"),
    "decompose": ("graphcite.claims.decompose", "decompose"),
    "add_answer": ("graphcite.claims.answers", "add_answer"),
    "answerable": ("graphcite.lifecycle", "answerable"),
    "check_answer": ("graphcite.verify.check", "check_answer"),
    "verify_answer": ("graphcite.verify.check", "verify_answer"),
    "evaluate_rag": ("graphcite.rag", "evaluate_rag"),
    "store_passages": ("graphcite.rag", "store_passages"),
}


def __getattr__(name: str) -> Any:
    """Import the store (SQLModel, pyarrow) and the heavy stages (spaCy, pint) only when first used.

    ``import graphcite`` (which every ``graphcite`` command does) then costs little more than the error
    catalogue, and ``graphcite --help`` imports neither.
    """
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'graphcite' has no attribute {name!r}")
