"""The value reader now lives in :mod:`graphcite.language.values` (claims and evidence share it);
this name stays for ingest code and existing imports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphcite.language.values import extract_values, to_base, unit_from_header, values_agree
from graphcite.language.values.extract import _extract, values_in
from graphcite.language.values.numbers import unit_registry

if TYPE_CHECKING:
    import pint

    ureg: pint.UnitRegistry

__all__ = ["_extract", "extract_values", "to_base", "unit_from_header", "ureg", "values_agree", "values_in"]


def __getattr__(name: str) -> object:
    if name == "ureg":  # the pint registry, built (and pint imported) on first use
        return unit_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
