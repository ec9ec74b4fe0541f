"""Ingest: files -> source revisions, evidence units with heading lineage and status, typed values, lineage."""

from __future__ import annotations

from graphcite.ingest.catalog import list_sources, show_unit
from graphcite.ingest.pipeline import IngestReport, ingest, unit_id_for
from graphcite.ingest.values import extract_values

__all__ = ["IngestReport", "extract_values", "ingest", "list_sources", "show_unit", "unit_id_for"]
