"""Ingest: files -> source revisions, evidence units with heading lineage and status, typed values, lineage.

The public names load their stage on first use (PEP 562), so a command that only lists sources or
reads lineage does not import spaCy or pint.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphcite.ingest.catalog import list_sources, show_unit
    from graphcite.ingest.pipeline import IngestReport, ingest, unit_id_for
    from graphcite.ingest.values import extract_values

__all__ = ["IngestReport", "extract_values", "ingest", "list_sources", "show_unit", "unit_id_for"]

_LAZY = {"list_sources": "graphcite.ingest.catalog", "show_unit": "graphcite.ingest.catalog",
         "IngestReport": "graphcite.ingest.pipeline", "ingest": "graphcite.ingest.pipeline",
         "unit_id_for": "graphcite.ingest.pipeline", "extract_values": "graphcite.ingest.values"}


def __getattr__(name: str) -> Any:
    """Import the stage that defines ``name`` when it is first asked for, and keep it."""
    if name not in _LAZY:
        raise AttributeError(f"module 'graphcite.ingest' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
