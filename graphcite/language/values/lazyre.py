"""Regular expressions compiled on first use, so importing the value reader compiles none of its ~55 tables.

A command that reads no value (``graphcite show``, a check whose claims hold no number) never pays for
them; one that does compiles each table the first time it is matched, exactly as ``re.compile`` would
have at import. After that first use the compiled pattern's methods are attributes of the object
itself, so ``PATTERN.match(text, pos)`` costs what it costs on a compiled pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["LazyPattern", "lazy"]

_FORWARDED = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner", "pattern",
              "flags", "groups", "groupindex")


class LazyPattern:
    """A ``re.Pattern`` stand-in: ``source`` (a string, or a function building it) is compiled on first use."""

    def __init__(self, source: str | Callable[[], str], flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if this is its first use)."""
        if self._compiled is None:
            source = self._source() if callable(self._source) else self._source
            pattern = re.compile(source, self._flags)
            for name in _FORWARDED:  # later lookups find these on the instance; __getattr__ is not called again
                setattr(self, name, getattr(pattern, name))
            self._compiled = pattern
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        shown = self._source if isinstance(self._source, str) else f"<{self._source.__name__}()>"
        return f"LazyPattern({shown!r})"


def lazy(source: str | Callable[[], str], flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled on first use (typed as the pattern it stands for)."""
    return LazyPattern(source, flags)  # type: ignore[return-value]
