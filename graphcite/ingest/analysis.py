"""An evidence unit is analysed once: the parse of what a check reads from it is kept in the store with
the pipeline's version, and later checks hand the kept parses to the parser instead of parsing again.

A check calls :func:`prepare_parses` with its cited units and quotes once the citations are resolved
(one read: every kept parse of those units made by this pipeline), lets the rules parse as they always
do (:func:`graphcite.language.parse.parse` uses a handed-over parse of exactly its text), then
:meth:`PreparedParses.keep` writes what the pipeline had to parse, in one bulk write. A kept parse is
the same document the pipeline gives for that text (every token attribute, checked by the tests), so a
verdict never depends on whether it was kept.

Parsing happens on a unit's first check, not at ingest: the pipeline reads ~30 KB of text per CPU
second, so parsing every unit would make an ingest some 60 times slower than its 2 MB/s per core, for
units most of which are never cited (``benchmarks/ingest.py``, the "parse at ingest" row).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from graphcite.language.parse import (
    fresh_parse,
    layout,
    memoised,
    pipeline_version,
    prepare,
    text_key,
)
from graphcite.store.base import Store
from graphcite.store.queries.parses import keep_unit_parses, unit_parses

__all__ = ["PreparedParses", "evidence_texts", "keeping_off", "prepare_parses", "prepared_parses_off"]

_OFF = [False]
_KEEPING: ContextVar[bool] = ContextVar("graphcite_keep_parses", default=True)


@contextlib.contextmanager
def keeping_off() -> Iterator[None]:
    """Read kept parses but write none inside the block: a check that promises to write nothing (a scratch
    check of an unauthenticated client) still gains from what other checks kept."""
    token = _KEEPING.set(False)
    try:
        yield
    finally:
        _KEEPING.reset(token)


@contextlib.contextmanager
def prepared_parses_off() -> Iterator[None]:
    """Neither read nor keep parses inside the block (every text is parsed by the pipeline): what a check
    without prepared analyses does, for comparing the two."""
    before = _OFF[0]
    _OFF[0] = True
    try:
        yield
    finally:
        _OFF[0] = before


def _plain(store: Store) -> Store:
    """The store under a view (the service's warm view): a kept parse is not evidence a verdict depends on, so
    its reads and writes stay out of the view's accounting (a report made with them may still be memoised)."""
    return getattr(store, "unwrapped", store)


def evidence_texts(quote: str) -> tuple[str, ...]:
    """The texts the readers parse for an evidence quote: its flat copy (frames, measurements) and, when
    the quote has runs of white space, the quote as written (which one rule parses)."""
    flat = layout(quote).flat
    return (flat,) if flat == quote else (flat, quote)


@dataclass(frozen=True, slots=True)
class PreparedParses:
    """What :func:`prepare_parses` found: how many kept parses it handed over, and the ``(unit_id, text)``
    pairs it found none for (those the check parses are kept by :meth:`keep`)."""

    handed: int = 0
    missing: tuple[tuple[str, str], ...] = ()

    def keep(self, store: Store) -> int:
        """Write the parses the pipeline made of the missing texts, in one bulk write (nothing for a text the
        check never parsed, or on a read-only store); returns the rows written."""
        if _OFF[0] or not _KEEPING.get() or not self.missing:
            return 0
        rows = []
        for unit_id, text in self.missing:
            data = fresh_parse(text)
            if data is not None:
                rows.append((unit_id, text_key(text), data))
        return keep_unit_parses(_plain(store), rows, pipeline_version())


def prepare_parses(store: Store, cited: Iterable[tuple[str, str]]) -> PreparedParses:
    """Hand the kept parses of the cited units (``(unit_id, quote)`` pairs) to the parser, in one read."""
    if _OFF[0]:
        return PreparedParses()
    # a text whose parse this process holds needs none from the store (the holder hands it out as it is)
    wanted = {(unit_id, text) for unit_id, quote in cited if unit_id and quote for text in evidence_texts(quote)
              if not memoised(text)}
    if not wanted:
        return PreparedParses()
    version = pipeline_version()
    kept = unit_parses(_plain(store), {unit_id for unit_id, _text in wanted}, version)
    found = {key for key, _data in kept}
    missing = tuple(sorted((u, t) for u, t in wanted if text_key(t) not in found))
    handed = prepare(kept, version, wanted=(text_key(t) for _u, t in missing))
    return PreparedParses(handed, missing)
