"""The graphcite exception hierarchy.

Every error a user can cause is a :class:`GraphciteError`; the CLI prints its one-line message and
exits 2. Errors also inherit a stdlib type (pint-style) so callers can catch ``ValueError`` etc.
Structured fields are kept so the message is built in ``__str__``.
"""

from __future__ import annotations

__all__ = [
    "AnswerFormatError",
    "GraphciteError",
    "IngestError",
    "NotFoundError",
    "OutputError",
    "StoreError",
    "StoreLockedError",
]


class GraphciteError(Exception):
    """Base class: a user-facing error with a location, a cause and a fix."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.where = where
        self.fix = fix

    def __str__(self) -> str:
        parts = []
        if self.where:
            parts.append(f"{self.where}: {self.cause}")
        else:
            parts.append(self.cause)
        if self.fix:
            parts.append(f"({self.fix})")
        return " ".join(parts).replace("\n", " ")


class IngestError(ValueError, GraphciteError):
    """A file could not be ingested: missing, unreadable, binary, bad encoding, bad front matter."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        GraphciteError.__init__(self, cause, where=where, fix=fix)


class AnswerFormatError(ValueError, GraphciteError):
    """An answer file does not match any accepted format; ``where`` is the JSON path."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        GraphciteError.__init__(self, cause, where=where, fix=fix)


class StoreError(RuntimeError, GraphciteError):
    """The store cannot be opened or written."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        GraphciteError.__init__(self, cause, where=where, fix=fix)


class StoreLockedError(StoreError):
    """Another process holds the DuckDB write lock."""


class NotFoundError(KeyError, GraphciteError):
    """An id (unit, claim, answer, source, rule) does not exist in the store."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        GraphciteError.__init__(self, cause, where=where, fix=fix)

    def __str__(self) -> str:  # KeyError would quote the message
        return GraphciteError.__str__(self)


class OutputError(OSError, GraphciteError):
    """An output path cannot be written."""

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None) -> None:
        GraphciteError.__init__(self, cause, where=where, fix=fix)

    def __str__(self) -> str:
        return GraphciteError.__str__(self)
