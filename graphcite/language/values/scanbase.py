"""The state every reader of the value scanner shares: one number's sides (:class:`Side`), emitting a
value with the words around it read, and the small helpers about a number's position."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from graphcite.language.values.numbers import NumberToken
from graphcite.language.values.patterns import TOKEN_REST
from graphcite.language.values.unitwords import (
    _dimensionality,
    read_context,
)
from graphcite.models import ExtractedValue

__all__ = ["ScannerBase", "Side", "is_year", "line_start"]


@dataclass(slots=True)
class Side:
    """One number of a value (or of a range) with what is attached to it."""

    start: int
    num_end: int
    end: int
    value: float
    token: NumberToken
    currency: str | None = None
    unit: str | None = None
    kind: str | None = None
    counted_noun: str | None = None
    bound: str | None = None
    measured: str | None = None
    factor: float = 1.0


class ScannerBase:
    """The state of one scan and how values are emitted; ``floor`` keeps values from overlapping."""

    __slots__ = ("default_unit", "fast", "floor", "last_end", "out", "text")

    def __init__(self, text: str, default_unit: str | None, *, fast: bool = True) -> None:
        self.text = text
        self.default_unit = default_unit
        self.fast = fast
        self.floor = 0
        self.last_end = -10
        self.out: list[ExtractedValue] = []

    def emit(self, start: int, end: int, magnitude: float | None, *, unit: str | None, kind: str,
             low: float | None = None, high: float | None = None, bound: str | None = None,
             counted_noun: str | None = None, measured: str | None = None, context: bool = True) -> None:
        text = self.text
        role = None
        if context:
            ctx_bound, role, ctx_measured = read_context(text, start, end, kind)
            if bound is None:
                bound = ctx_bound
            measured = measured or ctx_measured
        dims = None
        if unit is not None:
            dims = _dimensionality(unit)
        elif kind in ("count", "number"):
            dims = "dimensionless"
        elif kind == "temperature":
            dims = "[temperature]"
        self.out.append(ExtractedValue(start, end, text[start:end], magnitude, unit, dims, kind, counted_noun,
                                       bound or "exact", low, high, role, measured))
        self.floor = end
        self.last_end = end

    def emit_date(self, start: int, end: int, first: dt.date, last: dt.date | None = None,
                  bound: str | None = None) -> None:
        """A date or a period: low/high are the day ordinals of its first and last day."""
        low = float(first.toordinal())
        high = float((last or first).toordinal())
        self.emit(start, end, None if bound == "range" else low, unit=None, kind="date", low=low, high=high,
                  bound=bound, context=False)

    def skip_token(self, pos: int) -> None:
        match = TOKEN_REST.match(self.text, pos)
        self.floor = max(self.floor, match.end() if match else pos + 1)


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def is_year(side: Side) -> bool:
    token = side.token
    return (not token.words and token.integer and not token.scaled and side.unit is None
            and side.currency is None and token.end - token.start == 4 and 1000 <= side.value <= 2999)
