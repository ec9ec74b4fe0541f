"""Quotes with explicit transformations: verbatim pieces, ellipses, bracketed insertions, normalised matching.

A quote may leave text out with an ellipsis (``…``, ``...``, ``[…]``) and add an editor's clarification in
square brackets (``[the relay]``). Each is an explicit transformation: the quote is split into verbatim
pieces, every piece must occur in the cited text in the quoted order, and the quote shown is rebuilt from
the stored characters of each piece with the transformations kept as such (:meth:`QuoteMatch.render`).

Matching may ignore typographic differences (curly vs straight quotes, dashes, non-breaking spaces,
runs of whitespace) and Unicode's two ways of writing an accented letter (``é`` as one code point, or
``e`` and a combining accent: the quote and the source are compared composed, NFC), but never silently: :attr:`QuoteMatch.normalised` names what was needed, and the
offsets stay code points into the stored text, so ``text[start:end]`` is exactly what is shown.

Whether the pieces belong together (one unit, or adjacent units of one section) needs the evidence
units and is decided by :func:`scope_problem` once they are loaded.
"""

from __future__ import annotations

import json
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["COMPOSITION", "NORMALISATIONS", "Normalised", "ParsedQuote", "QuoteMatch", "QuotePiece", "QuoteProblem", "RenderedQuote",
           "Transformation", "match_quote", "normalise", "parse_quote", "scope_problem"]

# What matching may ignore, by the name a report gives it. Whitespace runs are handled apart.
NORMALISATIONS: dict[str, dict[str, str]] = {
    "curly quotes": {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                     "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'},
    "dashes": {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
               "\u2212": "-"},
    "non-breaking spaces": {"\u00a0": " ", "\u202f": " ", "\u2007": " ", "\u2009": " ", "\u200a": " "},
}
WHITESPACE = "runs of whitespace"
#: composed and decomposed Unicode (``\u00e9`` and ``e\u0301``) compared as the same text (NFC)
COMPOSITION = "Unicode composition"
KINDS: tuple[str, ...] = (*NORMALISATIONS, WHITESPACE, COMPOSITION)
_MARKER = re.compile(r"\[\s*(?:…|\.{3,})\s*\]|…|\.{3,}|\[([^\[\]]*)\]")
MAX_STARTS = 64  # occurrences of the first piece tried; more means the quote is too common to place
MAX_SILENT_GAP = 40  # source text an insertion may stand in for without an ellipsis (a pronoun, a name)


@dataclass(frozen=True, slots=True)
class Transformation:
    """An explicit change a quote makes: ``ellipsis`` (text left out) or ``insertion`` (an editor's words).

    ``at`` is the index of the piece it stands before (``len(pieces)`` when it ends the quote); ``text``
    is the marker or the bracketed words as the answer wrote them.
    """

    kind: str
    text: str
    at: int


@dataclass(frozen=True, slots=True)
class ParsedQuote:
    """A quote split at its transformations: verbatim pieces and, between them, the markers."""

    pieces: tuple[str, ...]
    transformations: tuple[Transformation, ...]
    layout: tuple[tuple[str, str], ...]  # ("piece" | "raw", text) in quote order: how to rebuild it

    @property
    def transformed(self) -> bool:
        return bool(self.transformations)


@dataclass(frozen=True, slots=True)
class QuotePiece:
    """One verbatim piece: code-point offsets into the cited text."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class QuoteMatch:
    """Where every piece of a quote is, what the quote changed, and what matching had to normalise."""

    parsed: ParsedQuote
    pieces: tuple[QuotePiece, ...]
    normalised: tuple[str, ...]

    @property
    def start(self) -> int:
        return self.pieces[0].start

    @property
    def end(self) -> int:
        return self.pieces[-1].end

    def shifted(self, offset: int) -> QuoteMatch:
        return QuoteMatch(self.parsed, tuple(QuotePiece(p.start + offset, p.end + offset) for p in self.pieces),
                          self.normalised)

    def render(self, text: str, offset: int = 0) -> str:
        """The quote rebuilt from ``text`` (whose first code point is at ``offset``): stored pieces, same markers."""
        out, pieces = [], iter(self.pieces)
        for kind, raw in self.parsed.layout:
            if kind == "piece":
                piece = next(pieces)
                out.append(text[piece.start - offset:piece.end - offset])
            else:
                out.append(raw)
        return "".join(out)


@dataclass(frozen=True, slots=True)
class QuoteProblem:
    """Why a quote cannot stand: an integrity code (GC106, GC107 or GC109) and a one-line detail."""

    code: str
    detail: str


class RenderedQuote(str):
    """A transformed quote as shown (rendered from the stored text) that carries its pieces and changes.

    The report's citation record reads ``pieces`` and ``transformations`` from it and keeps a plain string.
    """

    pieces: list[dict[str, Any]]
    transformations: list[dict[str, Any]]

    def __new__(cls, shown: str, pieces: list[dict[str, Any]],
                transformations: list[dict[str, Any]]) -> RenderedQuote:
        made = super().__new__(cls, shown)
        made.pieces, made.transformations = pieces, transformations
        return made

    @classmethod
    def of(cls, match: QuoteMatch, text: str, offset: int = 0) -> RenderedQuote:
        """The quote of ``match`` rendered from ``text`` (whose first code point is at ``offset``)."""
        pieces = [{"start": p.start, "end": p.end, "text": text[p.start - offset:p.end - offset]}
                  for p in match.pieces]
        changes = [{"kind": t.kind, "text": t.text, "at": t.at} for t in match.parsed.transformations]
        return cls(match.render(text, offset), pieces, changes)

    def __reduce__(self) -> tuple[Any, ...]:
        return (RenderedQuote, (str(self), self.pieces, self.transformations))


def parse_quote(quote: str) -> ParsedQuote:
    """Split ``quote`` at ellipses and bracketed insertions; a quote without them is one piece."""
    pieces: list[str] = []
    transformations: list[Transformation] = []
    layout: list[tuple[str, str]] = []

    def add_text(chunk: str) -> None:
        stripped = chunk.strip()
        if not stripped:
            if chunk:
                layout.append(("raw", chunk))
            return
        lead = chunk[:len(chunk) - len(chunk.lstrip())]
        trail = chunk[len(chunk.rstrip()):]
        if lead:
            layout.append(("raw", lead))
        layout.append(("piece", stripped))
        pieces.append(stripped)
        if trail:
            layout.append(("raw", trail))

    at = 0
    for marker in _MARKER.finditer(quote):
        inserted = marker.group(1)
        if inserted is not None and not inserted.strip():
            continue  # "[]" or "[ ]" is text, not a transformation
        add_text(quote[at:marker.start()])
        kind = "ellipsis" if inserted is None else "insertion"
        transformations.append(Transformation(kind, marker.group(0) if inserted is None else inserted.strip(),
                                              len(pieces)))
        layout.append(("raw", marker.group(0)))
        at = marker.end()
    add_text(quote[at:])
    if not transformations:
        return ParsedQuote((quote,), (), (("piece", quote),))
    return ParsedQuote(tuple(pieces), tuple(transformations), tuple(layout))


@dataclass(frozen=True, slots=True)
class Normalised:
    """A text after normalisation, and the way back: :meth:`origin` maps a position to the original's.

    Composition (NFC) may turn several code points into one; ``runs`` then hold, for each run of the
    original that composes on its own, where it starts in the composed text and in the original.
    """

    text: str
    breaks: tuple[int, ...] = ()  # positions just after a collapsed run of whitespace
    removed: tuple[int, ...] = ()  # code points removed up to and including each such run
    composed_starts: tuple[int, ...] = ()  # run starts in the composed text (empty: nothing composed)
    original_starts: tuple[int, ...] = ()  # the same run starts in the original text
    length: int = 0  # the original's length (when composed)

    def _uncollapsed(self, at: int) -> int:
        k = bisect_right(self.breaks, at)
        return at + (self.removed[k - 1] if k else 0)

    def origin(self, at: int) -> int:
        """The original position of the character at ``at`` (the start of its composed run)."""
        at = self._uncollapsed(at)
        if not self.composed_starts:
            return at
        return self.original_starts[bisect_right(self.composed_starts, at) - 1]

    def origin_end(self, end: int) -> int:
        """The original position just after a match ending (exclusive) at ``end``."""
        after = self._uncollapsed(end - 1) + 1
        if not self.composed_starts:
            return after
        k = bisect_left(self.composed_starts, after)
        return self.original_starts[k] if k < len(self.original_starts) else self.length


_RUNS = re.compile(r"[ \t\n\r\f\v]{2,}|[\t\n\r\f\v]")


@lru_cache(maxsize=1)
def _composing_starters() -> frozenset[str]:
    """Characters of combining class 0 that can still compose with what precedes them (Hangul vowels
    and final consonants, some Indic vowel signs): a run never starts at one of them."""
    found = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}
    for code in range(0x30000):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            second = chr(int(parts[1], 16))
            if unicodedata.combining(second) == 0:
                found.add(second)
    return frozenset(found)


def _compose(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """``text`` composed (NFC) and its run starts (composed, original); no runs when it already was NFC.

    Runs start at each character that can neither combine with nor compose onto the one before, so
    each run composes on its own; the joined runs are checked against NFC of the whole text, and on a
    mismatch (a script this cutting does not handle) the text is left uncomposed, never misplaced.
    """
    if unicodedata.is_normalized("NFC", text):
        return text, (), ()
    starters = _composing_starters()
    composed_starts: list[int] = []
    original_starts: list[int] = []
    parts: list[str] = []
    at = composed = 0
    for i in range(1, len(text) + 1):
        if i < len(text) and (unicodedata.combining(text[i]) or text[i] in starters):
            continue
        piece = unicodedata.normalize("NFC", text[at:i])
        composed_starts.append(composed)
        original_starts.append(at)
        parts.append(piece)
        composed += len(piece)
        at = i
    joined = "".join(parts)
    if joined != unicodedata.normalize("NFC", text):
        return text, (), ()
    return joined, tuple(composed_starts), tuple(original_starts)


@lru_cache(maxsize=16)
def _table(kinds: frozenset[str]) -> dict[int, str]:
    return {ord(k): v for kind in sorted(kinds) for k, v in NORMALISATIONS.get(kind, {}).items()}


def normalise(text: str, kinds: frozenset[str]) -> Normalised:
    """``text`` with the ``kinds`` of normalisation applied (see :data:`NORMALISATIONS`), mapped back by offsets.

    A long text (a cited document) is normalised once and kept for the next quotes into it.
    """
    return _normalise_long(text, kinds) if len(text) > 2_000 else _normalise(text, kinds)


@lru_cache(maxsize=8)
def _normalise_long(text: str, kinds: frozenset[str]) -> Normalised:
    return _normalise(text, kinds)


def _normalise(text: str, kinds: frozenset[str]) -> Normalised:
    composed_starts: tuple[int, ...] = ()
    original_starts: tuple[int, ...] = ()
    length = len(text)
    if COMPOSITION in kinds:
        text, composed_starts, original_starts = _compose(text)
    table = _table(kinds)
    mapped = text.translate(table) if table else text  # one code point for one: offsets unchanged
    if WHITESPACE not in kinds:
        return Normalised(mapped, composed_starts=composed_starts, original_starts=original_starts, length=length)
    parts: list[str] = []
    breaks: list[int] = []
    removed: list[int] = []
    at = gone = 0
    for run in _RUNS.finditer(mapped):
        parts += [mapped[at:run.start()], " "]
        gone += run.end() - run.start() - 1
        breaks.append(run.start() - (gone - (run.end() - run.start() - 1)) + 1)
        removed.append(gone)
        at = run.end()
    parts.append(mapped[at:])
    return Normalised("".join(parts), tuple(breaks), tuple(removed), composed_starts, original_starts, length)


def _chains(haystack: str, pieces: Sequence[str]) -> tuple[list[list[tuple[int, int]]], bool]:
    """Every placement of the pieces in order: from each occurrence of the first, the earliest of each next.

    The flag says whether the first piece occurs more often than :data:`MAX_STARTS`.
    """
    chains: list[list[tuple[int, int]]] = []
    at = haystack.find(pieces[0])
    starts = 0
    while at != -1 and starts < MAX_STARTS:
        starts += 1
        chain = [(at, at + len(pieces[0]))]
        for piece in pieces[1:]:
            found = haystack.find(piece, chain[-1][1])
            if found == -1:
                break
            chain.append((found, found + len(piece)))
        if len(chain) == len(pieces):
            chains.append(chain)
        at = haystack.find(pieces[0], at + 1)
    return chains, at != -1


def _placements(text: str, pieces: Sequence[str], kinds: frozenset[str]) -> tuple[list[tuple[QuotePiece, ...]], bool]:
    if not kinds:
        chains, crowded = _chains(text, pieces)
        return [tuple(QuotePiece(s, e) for s, e in chain) for chain in chains], crowded
    norm = normalise(text, kinds)
    wanted = [normalise(p, kinds).text for p in pieces]
    if not all(wanted):
        return [], False
    chains, crowded = _chains(norm.text, wanted)
    return [tuple(QuotePiece(norm.origin(s), norm.origin_end(e)) for s, e in chain) for chain in chains], crowded


def _needed(pieces: Sequence[str], stored: Sequence[str]) -> tuple[str, ...]:
    """The kinds of normalisation without which some piece would not equal its stored text."""
    every = frozenset(KINDS)

    def present(kind: str, text: str) -> bool:
        if kind == COMPOSITION:
            return not unicodedata.is_normalized("NFC", text)
        return bool(_RUNS.search(text)) if kind == WHITESPACE else any(c in text for c in NORMALISATIONS[kind])

    return tuple(kind for kind in KINDS
                 if any((present(kind, p) or present(kind, s))
                        and normalise(p, every - {kind}).text != normalise(s, every - {kind}).text
                        for p, s in zip(pieces, stored, strict=True)))


def _silent_gap(parsed: ParsedQuote, text: str, placed: Sequence[QuotePiece]) -> str | None:
    """Source text left out between two pieces with no ellipsis between them (an insertion alone)."""
    ellipsis_before = {t.at for t in parsed.transformations if t.kind == "ellipsis"}
    for i in range(1, len(placed)):
        if i in ellipsis_before:
            continue
        gap = text[placed[i - 1].end:placed[i].start]
        words = gap.strip()
        if words and (len(words) > MAX_SILENT_GAP or any(c in words for c in ".!?;\n")):
            return words
    return None


def match_quote(text: str, quote: str, start: int | None = None,
                end: int | None = None) -> QuoteMatch | QuoteProblem | None:
    """Place ``quote`` in ``text`` (offsets are code points into ``text``).

    None when the quote has no transformation and does not occur even after normalisation (the caller
    reports that as it reports any quote that is not verbatim). A :class:`QuoteProblem` names a piece
    that does not occur (GC107), pieces that occur only out of order (GC109), a placement that is not
    at the given offsets or leaves text out without an ellipsis (GC106), or a quote that fits several
    places (GC107).
    """
    parsed = parse_quote(quote)
    if not parsed.pieces:
        return QuoteProblem("GC106", "the quote has transformations but no verbatim text")
    placements, crowded = _placements(text, parsed.pieces, frozenset())
    if not placements:
        placements, crowded = _placements(text, parsed.pieces, frozenset(KINDS))
    if not placements:
        if not parsed.transformed:
            return None
        every = frozenset(KINDS)
        for n, piece in enumerate(parsed.pieces, 1):
            if not _placements(text, [piece], every)[0]:
                return QuoteProblem("GC107", f"piece {n} of the quote ({_short(piece)!r}) does not occur in the "
                                             "cited text (paraphrased, or from another document?)")
        return QuoteProblem("GC109", "every piece occurs in the cited text, but not in the quoted order")
    if start is not None or end is not None:
        fitting = [p for p in placements
                   if (start is None or p[0].start == start) and (end is None or p[-1].end == end)]
        if not fitting:
            if not parsed.transformed:
                return None  # a plain quote elsewhere: reported as drift by the caller
            first = placements[0]
            return QuoteProblem("GC106", f"quote drifted: its pieces are at {first[0].start}-{first[-1].end}, not at "
                                         f"{start if start is not None else '?'}-{end if end is not None else '?'}")
        placements = fitting
    else:
        tightest: dict[int, tuple[QuotePiece, ...]] = {}
        for placed in placements:  # of placements ending together, the one that starts last is the quote
            known = tightest.get(placed[-1].end)
            if known is None or placed[0].start > known[0].start:
                tightest[placed[-1].end] = placed
        if len(tightest) > 1 or crowded:
            return QuoteProblem("GC107", f"the quote fits {len(tightest)}{'+' if crowded else ''} places; "
                                         "give start and end to pick one")
        placements = list(tightest.values())
    placed = placements[0]
    gap = _silent_gap(parsed, text, placed)
    if gap is not None:
        return QuoteProblem("GC106", f"the quote leaves out {_short(gap)!r} without an ellipsis")
    stored = [text[p.start:p.end] for p in placed]
    normalised = () if list(parsed.pieces) == stored else _needed(parsed.pieces, stored)
    return QuoteMatch(parsed, placed, normalised)


def scope_problem(pieces: Sequence[QuotePiece], units: Sequence[Mapping[str, Any]]) -> str | None:
    """Why the pieces do not belong together, or None when they lie in one unit or adjacent units of one section.

    ``units`` are the evidence units (rows) that overlap the whole span from the first piece to the last,
    in document order: each must hold a piece (no unit is skipped), and all must share one heading path.
    """
    touched: list[str] = []
    for n, piece in enumerate(pieces, 1):
        inside = [u["unit_id"] for u in units if u["start"] < piece.end and u["end"] > piece.start]
        if not inside:
            return f"piece {n} lies between evidence units"
        touched += [u for u in inside if u not in touched]
    sections = list(dict.fromkeys(u["heading_path_json"] or "[]" for u in units if u["unit_id"] in touched))
    if len(sections) > 1:
        names = [" > ".join(json.loads(s)) or "(no heading)" for s in sections[:2]]
        return f"the pieces join different sections ({names[0]!r} and {names[1]!r})"
    skipped = [u for u in units if u["unit_id"] not in touched]
    if skipped:
        return (f"the pieces skip {len(skipped)} unit{'s' if len(skipped) > 1 else ''} "
                f"({_short(skipped[0]['text'])!r}): they are not in one unit or adjacent units")
    return None


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
