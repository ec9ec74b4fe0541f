"""Typed values as people write them, read the same way in claims and evidence: quantities with units,
counts, percents, money, dates, versions and revisions.

Split by concern: :mod:`.numbers` reads one number (digits or words) and holds the pint registry;
:mod:`.units` turns unit spellings into pint units (``data/units.txt`` first, then pint itself);
:mod:`.unitwords` reads the cue words around a value; :mod:`.extract` scans a text for values with
exact spans, helped by :mod:`.unitreading` (what is written around one number), :mod:`.datereading`
(dates, versions, revisions), :mod:`.scanbase` (shared scan state) and :mod:`.patterns` (the compiled
patterns); :mod:`.compare` compares two values in base units.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphcite.language.values.compare import to_base, values_agree
from graphcite.language.values.extract import extract_values, unit_from_header
from graphcite.language.values.numbers import unit_registry

if TYPE_CHECKING:
    import pint

    ureg: pint.UnitRegistry

__all__ = ["extract_values", "to_base", "unit_from_header", "ureg", "values_agree"]


def __getattr__(name: str) -> object:
    if name == "ureg":  # the pint registry, built (and pint imported) on first use
        return unit_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
