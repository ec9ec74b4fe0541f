"""The value reader now lives in :mod:`graphcite.language.values` (claims and evidence share it);
this name stays for ingest code and existing imports."""

from __future__ import annotations

from graphcite.language.values import extract_values, to_base, unit_from_header, ureg, values_agree
from graphcite.language.values.extract import _extract, values_in

__all__ = ["_extract", "extract_values", "to_base", "unit_from_header", "ureg", "values_agree", "values_in"]
