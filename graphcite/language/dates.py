"""Dates, years, times of day and ordinals as typed values, read the same way from claims and evidence.

A date keeps only the parts the text states: "1998" is (1998, None, None), "May 2004" is
(2004, 5, None). Two dates agree when every part both state is equal, so "released in 2011" agrees
with "on 4 March 2011" and not with "2013"; "March 3" and "March 13" differ. A decade ("the 1990s")
and a century ("the 20th century", "the nineteenth century") are year ranges: a year agrees with the
ones that hold it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graphcite.language.words import _data

__all__ = ["DatePart", "Ordinal", "TimeOfDay", "dates_agree", "dates_in", "ordinals_in", "share_a_part", "times_in"]

_MONTHS = {name: i for i, name in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1\d{3}|20\d{2})"
_PATTERNS = [
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
    re.compile(r"\b(?P<year>1\d{3}|20\d{2})-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!\s*(?:%|percent|[a-z]))"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b"),
    re.compile(r"\b(?P<decade>1\d{2}0|20[0-9]0)s\b"),
    re.compile(r"(?<![\d.,$£€])\b(?P<year>1[0-9]{3}|20\d{2})\b(?![.,]?\d|\s*(?:%|percent|per|[a-zµ°]))"),
]
_ORDINAL_WORD = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|" \
                r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth)"
_CENTURY = re.compile(rf"\b(?:(?P<n>\d{{1,2}})(?:st|nd|rd|th)|(?P<word>(?:twenty[- ])?{_ORDINAL_WORD}))[\s-]+century\b",
                      re.I)
_TENS = {"twenty": 20}
_TIME = re.compile(r"\b(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)\s*(?P<ap>[ap]\.?m\.?)?(?![\d:])|"
                   r"\b(?P<h2>1[0-2]|[1-9])\s*(?P<ap2>[ap]\.?m\.?)(?![a-z])", re.I)
_ORDINAL_NUM = re.compile(r"\b(?P<n>\d+)(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:January|February|March|April|May|"
                          r"June|July|August|September|October|November|December))")


@dataclass(frozen=True, slots=True)
class DatePart:
    """A date with the parts the text states (None = not stated); decades as a year range."""

    surface: str
    start: int
    year: int | None
    month: int | None
    day: int | None
    decade: int | None = None
    century: int | None = None  # the 20th century: the years 1901-2000 (1900 too, as people count)


@dataclass(frozen=True, slots=True)
class TimeOfDay:
    surface: str
    start: int
    minutes: int  # minutes after midnight


@dataclass(frozen=True, slots=True)
class Ordinal:
    surface: str
    start: int
    value: int


def _month(text: str | None) -> int | None:
    return _MONTHS.get(text.lower().rstrip(".")) if text else None


@lru_cache(maxsize=32_768)
def dates_in(text: str) -> tuple[DatePart, ...]:
    """Dates in ``text``, longest reading first; a span is used by one pattern only."""
    taken: list[tuple[int, int]] = []
    out: list[DatePart] = []
    for m in _CENTURY.finditer(text):
        number = int(m.group("n")) if m.group("n") else _ordinal_word(m.group("word"))
        if number is not None and 1 <= number <= 99:
            out.append(DatePart(m.group(0), m.start(), None, None, None, century=number))
            taken.append((m.start(), m.end()))
    for pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            groups = m.groupdict()
            if groups.get("month") == "May" and not groups.get("year") and not groups.get("day"):
                continue
            day = int(groups["day"]) if groups.get("day") else None
            if day is not None and not 1 <= day <= 31:
                continue
            month = _month(groups.get("month")) or (int(groups["mnum"]) if groups.get("mnum") else None)
            if groups.get("decade"):
                out.append(DatePart(m.group(0), m.start(), None, None, None, int(groups["decade"])))
            else:
                out.append(DatePart(m.group(0), m.start(), int(groups["year"]) if groups.get("year") else None,
                                    month, day))
            taken.append((m.start(), m.end()))
    return tuple(sorted(out, key=lambda d: d.start))


def _ordinal_word(text: str) -> int | None:
    """The number an ordinal word or a two-word ordinal names: "nineteenth" 19, "twenty-first" 21."""
    words: dict[str, int] = _data()["ordinals"]
    parts = text.lower().replace("-", " ").split()
    if len(parts) == 1:
        return words.get(parts[0])
    tens, unit = _TENS.get(parts[0]), words.get(parts[1])
    return tens + unit if tens is not None and unit is not None and unit < 10 else None


def _years(date: DatePart) -> tuple[int, int] | None:
    """The first and last year a date may fall in, when it states a year, a decade or a century."""
    if date.century is not None:
        return 100 * (date.century - 1), 100 * date.century
    if date.decade is not None:
        return date.decade, date.decade + 9
    return (date.year, date.year) if date.year is not None else None


def share_a_part(a: DatePart, b: DatePart) -> bool:
    """Whether two dates state a part in common (a year, a month, a day; a decade or a century counts as
    a year): only then can :func:`dates_agree` tell them apart ("2021" and "31 December" cannot)."""
    years = (a.year is not None or a.decade is not None or a.century is not None) and (
        b.year is not None or b.decade is not None or b.century is not None)
    return years or (a.month is not None and b.month is not None) or (a.day is not None and b.day is not None)


def dates_agree(a: DatePart, b: DatePart) -> bool:
    """Every part both dates state is equal (a decade or a century contains its years)."""
    if a.century is not None or b.century is not None:
        first, second = _years(a), _years(b)
        if first is None or second is None:
            return True  # no part in common: "the 20th century" and "March 3"
        if a.century is not None and b.century is not None:
            return a.century == b.century
        return first[0] <= second[1] and second[0] <= first[1]
    if a.decade is not None or b.decade is not None:
        years = [d.year for d in (a, b) if d.year is not None]
        decades = [d.decade for d in (a, b) if d.decade is not None]
        if len(decades) == 2:
            return decades[0] == decades[1]
        return bool(years) and decades[0] <= years[0] < decades[0] + 10
    for x, y in ((a.year, b.year), (a.month, b.month), (a.day, b.day)):
        if x is not None and y is not None and x != y:
            return False
    return True


@lru_cache(maxsize=32_768)
def times_in(text: str) -> tuple[TimeOfDay, ...]:
    """Times of day: "09:30", "9:30 pm", "7 a.m."."""
    out = []
    for m in _TIME.finditer(text):
        hour = int(m.group("h") or m.group("h2"))
        minute = int(m.group("m") or 0)
        ampm = (m.group("ap") or m.group("ap2") or "").lower()
        if ampm.startswith("p") and hour < 12:
            hour += 12
        if ampm.startswith("a") and hour == 12:
            hour = 0
        out.append(TimeOfDay(m.group(0), m.start(), hour * 60 + minute))
    return tuple(out)


@lru_cache(maxsize=32_768)
def ordinals_in(text: str) -> tuple[Ordinal, ...]:
    """Ordinals ("third", "21st") that rank something; ordinals inside dates are left to the dates."""
    words: dict[str, int] = _data()["ordinals"]
    out = [Ordinal(m.group(0), m.start(), int(m.group("n"))) for m in _ORDINAL_NUM.finditer(text)]
    date_spans = [(d.start, d.start + len(d.surface)) for d in dates_in(text)]
    out = [o for o in out if not any(s <= o.start < e for s, e in date_spans)]
    for m in re.finditer(r"\b[a-z]+\b", text.lower()):
        if m.group(0) in words and not any(s <= m.start() < e for s, e in date_spans):
            out.append(Ordinal(m.group(0), m.start(), words[m.group(0)]))
    return tuple(sorted(out, key=lambda o: o.start))
