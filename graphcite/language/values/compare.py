"""Comparing typed values: both sides in base units (pint), so 14 days meets 2 weeks and a day meets
the month that contains it. The same functions compare a claim's values with its evidence's."""

from __future__ import annotations

import math

from graphcite.language.values.unitwords import _base_factor, _dimensionality
from graphcite.models import ExtractedValue

__all__ = ["to_base", "values_agree"]


def to_base(value: ExtractedValue) -> tuple[float | None, float | None, str | None]:
    """(low, high) in base units and the dimensionality, so 14 days and 2 weeks compare equal.

    Exact values have low == high. Dates give proleptic day ordinals of the period named ("date"),
    money stays in its currency ("currency:USD"), percents become fractions, counts and plain numbers
    are "dimensionless"; versions and revisions give their magnitude. A value whose unit pint cannot
    convert (a temperature in bare "degrees") has dimensionality None.
    """
    low = value.low if value.magnitude is None or value.kind == "date" else value.magnitude
    high = value.high if value.magnitude is None or value.kind == "date" else value.magnitude
    if value.kind == "date":
        if low is None:
            low = high = value.magnitude
        return low, high, "date"
    if value.kind in ("version", "revision"):
        return value.magnitude, value.magnitude, value.kind
    if value.kind == "money":
        return low, high, f"currency:{value.unit}" if value.unit else None
    if value.unit is None:
        if value.kind in ("count", "number"):
            return low, high, "dimensionless"
        return low, high, None
    factor = _base_factor(value.unit)
    if factor is None:
        return low, high, None
    scale, offset = factor
    dims = _dimensionality(value.unit)
    return (None if low is None else low * scale + offset, None if high is None else high * scale + offset, dims)


def _family(value: ExtractedValue) -> str:
    if value.kind in ("count", "number"):
        return "plain"
    if value.kind == "percent":
        return f"percent:{value.unit}"
    return value.kind


def values_agree(a: ExtractedValue, b: ExtractedValue, rel_tol: float = 1e-9) -> bool | None:
    """Do two values state the same number after unit conversion? None when not comparable.

    Purely numeric: bounds and roles are left to the rule engine. Two points agree when close; a
    point agrees with a range that contains it; two ranges agree when their ends do; for dates, a
    day agrees with the month or year that contains it.
    """
    if _family(a) != _family(b):
        return None
    la, ha, da = to_base(a)
    lb, hb, db = to_base(b)
    if da != db or (da is None and (a.unit != b.unit or a.kind != b.kind)):
        return None
    if la is None or ha is None or lb is None or hb is None:
        return None

    def close(x: float, y: float) -> bool:
        return math.isclose(x, y, rel_tol=rel_tol, abs_tol=1e-12)

    point_a, point_b = close(la, ha), close(lb, hb)
    if a.kind == "date":
        return (la <= lb and hb <= ha) or (lb <= la and ha <= hb)
    if point_a and point_b:
        return close(la, lb)
    if point_a:
        return lb - abs(lb) * rel_tol <= la <= hb + abs(hb) * rel_tol
    if point_b:
        return la - abs(la) * rel_tol <= lb <= ha + abs(ha) * rel_tol
    return close(la, lb) and close(ha, hb)
