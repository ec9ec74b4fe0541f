"""Typed values in prose: quantities with units, counts, percents, money, dates, versions, revisions.

Ingest stores what a unit says in numbers so that a claim's "14 days" can be checked against a
source's "two weeks" with pint instead of by string match. :func:`extract_values` finds each value
with its exact span, normalises its unit to pint's canonical name, and reads the words around it:
a bound ("at most", "about", "between ... and"), a role (limit, observed, target, default), the
noun it counts ("three attempts") and the thing it measures ("9 minutes of impact").

Speed: a value needs a digit or a number word; text is first scanned for those anchors with two
compiled regexes, and only the few positions found get the slower, local parsing. Nothing here
runs a spaCy pipeline; lemmas come from the lookup table in :mod:`graphcite.language.nlp`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphcite.language.values.numbers import (
    NUMBER_WORDS,
    SCALE_NEXT,
    SCALE_WORDS,
    TIME_UNIT_WORDS,
    NumberToken,
    fraction_of_scale,
    number_anchor_pattern,
    parse_number_at,
)
from graphcite.language.values.unitwords import (
    CURRENCY_CODES,
    CURRENCY_DOLLAR_PREFIXES,
    CURRENCY_SYMBOLS,
    MULTIWORD_HEADS,
    PER_STARTS,
    PER_TIME,
    UnitEntry,
    _base_factor,
    _dimensionality,
    _entry_for,
    _kind_of_unit,
    _rate_unit,
    counted_noun,
    lookup_unit,
    prev_word,
    read_context,
)
from graphcite.models import ExtractedValue

__all__ = ["extract_values", "unit_from_header"]

_SP = "[ \u00a0\u202f]"
_FRACTIONS = "½¼¾⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
_DIGIT_ANCHOR = re.compile("[0-9" + _FRACTIONS + "]+")
_WORD_ANCHOR = re.compile(number_anchor_pattern())
_WORD_ANCHOR_LOWER = re.compile(number_anchor_pattern(lowercase=True), re.ASCII)
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
_TOKEN_REST = re.compile(r"[\w]*(?:[.:/\-][\w]+)*")

_SPECIAL = re.compile(r"""
    (?P<iso>(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})
        (?:[T\ ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)(?![\w-])
  | (?P<isoslash>(?P<y2>\d{4})/(?P<mo2>\d{2})/(?P<d2>\d{2}))(?![\w/])
  | (?P<ym>(?P<y3>\d{4})-(?P<mo3>0[1-9]|1[0-2]))(?![\w-])
  | (?P<slash>(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4}|\d{2}))(?![\w/])
  | (?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?![\w.])
  | (?P<semver>\d+\.\d+\.\d+)(?:[-+][0-9A-Za-z][0-9A-Za-z.]*)?(?![\w.])
  | (?P<clock>(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:[\ \u00a0]?(?i:[ap]\.m\.|[ap]m))?)(?![\w:])
  | (?P<ampm>(?:1[0-2]|0?[1-9])[\ \u00a0]?(?i:a\.m\.|p\.m\.|am|pm))(?![A-Za-z])
  | (?P<decade>(?:1[5-9]|20)\d0)['’]?s(?![\w])
  | (?P<ordinal>\d+(?:st|nd|rd|th))(?![A-Za-z0-9])
""", re.VERBOSE)

_MONTHS = {m.lower(): i + 1 for i, m in enumerate(
    [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ])}
_MONTHS.update({"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                "oct": 10, "nov": 11, "dec": 12})
_MONTH_NAMES = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_ABBR = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
_DAY_MONTH = re.compile(r"(?:st|nd|rd|th)?" + _SP + r"+(?:of" + _SP + r"+)?(?P<m>" + _MONTH_NAMES + "|"
                        + _MONTH_ABBR + r")\.?(?:,?" + _SP + r"+(?P<y>\d{4}))?(?![\w])")
_DAY_YEAR = re.compile(r"(?:st|nd|rd|th)?(?:,?" + _SP + r"+(?P<y>\d{4}))?(?![\w])")
_YEAR_PREPS = {"in": "exact", "as of": "exact", "since": "min", "by": "max", "until": "max", "till": "max",
               "before": "max", "after": "min", "from": "min", "during": "exact", "through": "exact",
               "circa": "approx", "early": "exact", "mid": "exact", "late": "exact", "of": "exact",
               "end of": "exact", "start of": "exact", "beginning of": "exact", "fy": "exact",
               "fiscal": "exact", "year": "exact", "for": "exact", "no later than": "max", "q1": "exact",
               "q2": "exact", "q3": "exact", "q4": "exact", "spring": "exact", "summer": "exact",
               "autumn": "exact", "fall": "exact", "winter": "exact"}
_IDENTIFIER_LABELS = frozenset(
    [
        "section", "sections", "chapter", "chapters", "figure", "fig", "table", "step", "steps", "page",
        "pages", "line", "lines", "item", "items", "appendix", "article", "clause", "paragraph", "issue",
        "ticket", "rfc", "iso", "pr", "exercise", "exercises", "nr", "no", "room", "floor", "phase", "stage",
        "tier", "level", "footnote", "note", "grade", "row", "column", "col", "slide", "verse", "bug",
        "task", "story", "epic", "case", "cve",
    ])
_VERSION_WORDS = frozenset({"version", "ver", "release"})
_SPECIAL_NEXT = frozenset("-/.:'’")
_AMPM_FIRST = frozenset("apAP")
_SPACES = frozenset(" \u00a0\u202f")
_CURRENCY_BEFORE = frozenset("$€£¥₹₩₽₿₺₪₫₱")
_REVISION_WORDS = frozenset({"revision", "rev"})
_CHANGE_VERBS = frozenset(
    [
        "went", "rose", "fell", "increased", "decreased", "dropped", "grew", "reduced", "cut", "raised",
        "changed", "moved", "jumped", "climbed", "declined", "slashed", "lowered", "bumped", "extended",
        "shortened", "shrank", "improved", "degraded", "doubled", "halved", "up", "down",
    ])
_TEMPERATURE_CONTEXT = re.compile(r"(?i)temperat|thermostat|\bwarm|\bcold|\bhot\b|\bheat|\bcool|freez|boil|"
                                  r"weather|outside|\boven|fever|celsius|fahrenheit|climate|chill|frost")
_MONEY_CONTEXT = re.compile(r"(?i)\b(?:profit|revenue|cost|price|paid|pay|fine|fined|sales|income|budget|"
                            r"salary|spent|spend|earn|worth|fund|loan|debt|sterling|invest|bid|deal|charge)")
_TOK = r"[°º][A-Za-z]*|[℃℉%‰″\"$€£¥₹₩₽₿₺₪₫₱元₡₾₭٪]|[A-Za-zµμ][A-Za-z0-9µμ²³]*"
_UNIT_TOKENS = re.compile(r"(?P<sep>[ \u00a0\u202f]?|-|[ \u00a0]?[(\[{<])(?P<t1>" + _TOK + r")(?:(?P<s2>"
                          + _SP + r"{1,2})(?P<t2>" + _TOK + r")(?:(?P<s3>" + _SP + r"{1,2})(?P<t3>" + _TOK
                          + r"))?)?")
_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_RANGE_SEP = re.compile(_SP + r"?[-–—]" + _SP + r"?|" + _SP + r"+(?P<w>to|through|thru|and)" + _SP + r"+")
_CURRENCY_PREFIX = re.compile(
    r"(?:(?P<code>M?[A-Z]{3})" + _SP + r"?|(?P<dp>(?i:u\.s\.?|us|usd|mex|mxn|hkd?|nzd?|aud|au|cad|ca|c|sgd))"
    + _SP + r"?\$" + _SP + r"?|(?P<dpcs>[ARS])\$" + _SP + r"?|(?P<sym>[$€£¥₹₩₽₿₺₪₫₱])" + _SP + r"?)$")
_SCALE_WORD_AFTER = re.compile(_SP + r"+(?P<w>million|billion|thousand|trillion|mn|bn)\b", re.IGNORECASE)
_MONEY_SCALE = re.compile(r"(?P<m>m|mm|MM|mn|M)(?![A-Za-z0-9])|(?P<b>bn|b|B|bln)(?![A-Za-z0-9])"
                          r"|(?P<k>k|K)(?![A-Za-z0-9])")
_MINOR_AFTER = re.compile(r"(?:,?" + _SP + r"+and)?" + _SP + r"+")
_AGE_STARTS = (" old", "-old", "\u00a0old", " of age", "  old")
_RANGE_STARTS = ("-", "–", "—", " -", " –", " —", " to ", " and ", " through ", " thru ", "\u00a0to ", "\u00a0-")
_COMPOUND_STARTS = (" 0", " 1", " 2", " 3", " 4", " 5", " 6", " 7", " 8", " 9", ", ", " and ", "0", "1", "2", "3",
                    "4", "5", "6", "7", "8", "9")
_PLAIN_QUANTITY = re.compile(r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?P<d>\.\d+)?(?![\d,.]\d)(?P<sp> ?)"
                             r"(?P<u>[A-Za-zµμ][A-Za-z0-9µμ²³]*|%)(?=[\s.,;:!?)\]]|$)")
_NOT_COUNTED = frozenset({"bn", "mn", "mil", "bln", "tln", "dozen", "dozens", "dz", "dzs", "doz", "dozs", "yo", "y"})
_PLAIN_KINDS = frozenset({"duration", "quantity", "percent"})
_CONTEXT_UNITS = frozenset({"pound", "kelvin", "degree", "inch"})
_ORDINAL_SUFFIXES = ("st", "nd", "rd", "th", " of ")
_DIGIT_NEXT = re.compile(_SP + r"?\d")
_YEARS_OLD = re.compile(r"y\.?o\.?(?![A-Za-z])|yo\b")
_AGE = re.compile(r"(?:" + _SP + r"+|-)old\b|" + _SP + r"+of" + _SP + r"+age\b")
_AND_HALF = re.compile(_SP + r"+and" + _SP + r"+(?:a" + _SP + r"+)?half\b", re.IGNORECASE)
_TIME_QUANT = re.compile(
    r"(?:(?P<half>\b(?:[Aa]" + _SP + r"+)?[Hh]alf(?:" + _SP + r"+an?)?)|(?P<one>\b(?:[Aa]n?|[Aa]nother))"
    r"|(?P<all>\b(?:[Aa]ll|[Ff]ull|[Ww]hole|[Ee]ntire))|(?P<couple>\b(?:[Aa]" + _SP + r"+)?[Cc]ouple(?:"
    + _SP + r"+of)?)|(?P<few>\b(?:[Aa]" + _SP + r"+)?[Ff]ew|\b[Ss]everal|\b[Ss]ome))(?:" + _SP + r"+|-)$")
_PERCENT_OF = re.compile(r"(?:^|[.:;(]" + _SP + r"*|^" + _SP + r"*)(?P<p>(?i:percents?|per" + _SP
                         + r"cent)" + _SP + r"+of" + _SP + r"+)$")
_NEG_WORD = re.compile(r"\b(?i:minus|negative)" + _SP + r"+$")
_NOT_PLAIN_AFTER = ("/", " /", " per ", " a ", " an ", "\u00a0per ", " old", "-old", " of age", "-", "–", "—", " -",
                     " –", " —", " to ", " and ", " through ", " thru ", "\u00a0to ", " million", " billion",
                     " thousand", " trillion", " (")
_COMPOUNDABLE = frozenset({"year", "month", "week", "day", "hour", "minute", "second", "millisecond", "foot",
                           "inch", "pound", "ounce"})


# ---------------------------------------------------------------------------------------------
# The scanner
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Side:
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


class _Scanner:
    """Walks the anchors of one text left to right; ``floor`` keeps values from overlapping."""

    __slots__ = ("default_unit", "fast", "floor", "last_end", "out", "text")

    def __init__(self, text: str, default_unit: str | None, *, fast: bool = True) -> None:
        self.text = text
        self.default_unit = default_unit
        self.fast = fast
        self.floor = 0
        self.last_end = -10
        self.out: list[ExtractedValue] = []

    # -- emitting -------------------------------------------------------------------------------

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
        match = _TOKEN_REST.match(self.text, pos)
        self.floor = max(self.floor, match.end() if match else pos + 1)

    # -- entry points ---------------------------------------------------------------------------

    def at_digit(self, pos: int, run_end: int) -> None:
        """A run of digits at ``pos``..``run_end``; cheap character tests pick the few slow paths."""
        text = self.text
        prev = text[pos - 1] if pos else ""
        if prev.isalpha() or prev == "_":
            self.attached_prefix(pos)
            return
        if prev and (prev in "#§" or (prev in ".:/-−," and pos >= 2
                     and (text[pos - 2].isalnum() or text[pos - 2] in "_"))):
            self.skip_token(pos)
            return
        nxt = text[run_end] if run_end < len(text) else ""
        if nxt and (nxt in _SPECIAL_NEXT or nxt.isalpha() or (
                nxt == " " and text[run_end + 1:run_end + 2] in _AMPM_FIRST)):
            special = _SPECIAL.match(text, pos)
            if special:
                self.special(pos, special)
                return
        if prev in _SPACES and pos >= 2 and (text[pos - 2].isalpha() or text[pos - 2] == ".") and (
                text[max(0, text.rfind(" ", max(0, pos - 16), pos - 1) + 1):pos - 1].lower().rstrip(".")
                in _LEFT_KEYWORDS):
            left_word, left_start = prev_word(text, pos)
            if left_word:
                low = left_word.lower()
                if low in _VERSION_WORDS or (low == "v" and text[left_start:pos].rstrip().endswith(".")):
                    if self.version(left_start, pos, require_dot=low == "release"):
                        return
                elif low in _REVISION_WORDS:
                    self.revision(left_start, pos)
                    return
                elif left_word in _MONTH_NAMES_SET or left_word.rstrip(".") in _MONTH_ABBR_SET:
                    if self.month_first(left_start, left_word, pos):
                        return
                elif low in _IDENTIFIER_LABELS:
                    self.skip_token(pos)
                    return
        elif (not prev or prev in " \t\n") and nxt in ".)" and _at_list_marker(text, pos):
            self.skip_token(pos)
            return
        elif self.fast and self.plain_quantity(pos, prev):
            return
        token = parse_number_at(text, pos)
        if token is None:
            self.skip_token(pos)
            return
        self.number(pos, token)

    def plain_quantity(self, pos: int, prev: str) -> bool:
        """The common case in one step: "14 days", "200 ms", "12.5%" with nothing unusual around.

        Anything that needs a closer look (a sign, a currency, a range, a rate, a compound, a unit
        with a multi-word spelling or a context-dependent meaning) returns False for the full path.
        """
        text = self.text
        if prev and (prev not in " \n\t(" or (pos >= 2 and (text[pos - 2] in _CURRENCY_BEFORE
                                                           or text[pos - 2].isupper()))):
            return False
        match = _PLAIN_QUANTITY.match(text, pos)
        if not match:
            return False
        unit_text = match.group("u")
        entry = _entry_for(unit_text)
        if entry is None:
            return self.plain_count(pos, match)
        if entry.kind not in _PLAIN_KINDS or entry.unit in _CONTEXT_UNITS or (
                unit_text.lower() in MULTIWORD_HEADS):
            return False
        end = match.end()
        if text.startswith(_NOT_PLAIN_AFTER, end) or (entry.unit in _COMPOUNDABLE
                                                       and text.startswith(_COMPOUND_STARTS, end)):
            return False
        whole, decimals = match.group("n"), match.group("d")
        value = float(whole.replace(",", "") + decimals) if decimals else float(whole.replace(",", ""))
        self.emit(pos, end, value, unit=entry.unit, kind=entry.kind)
        return True

    def plain_count(self, pos: int, match: re.Match[str]) -> bool:
        """The common count in one step: "3 retries", "1,024 records" (not a year, not a rate)."""
        text = self.text
        noun = match.group("u")
        whole = match.group("n")
        if (self.default_unit or match.group("d") or not match.group("sp") or not noun.islower()
                or noun in SCALE_WORDS or noun in _NOT_COUNTED or noun in MULTIWORD_HEADS
                or (len(whole) == 4 and whole[0] in "12")
                or text[pos - 3:pos - 1] == "of"):
            return False
        counted, _, rate = counted_noun(text, match.start("u") - 1)
        if counted is None or rate is not None:
            return False
        self.emit(pos, match.start("u") - 1, float(whole.replace(",", "")), unit=None, kind="count",
                  counted_noun=counted)
        return True

    def at_word(self, pos: int, wend: int) -> None:
        text = self.text
        word = text[pos:wend].lower()
        if word in TIME_UNIT_WORDS:
            self.time_word(pos, wend, TIME_UNIT_WORDS[word], word)
            return
        if pos and (text[pos - 1].isalnum() or (text[pos - 1] == "-" and pos > 1 and text[pos - 2].isalpha())):
            return
        if word in ("half", "quarter"):
            article = pos >= 2 and text[pos - 2:pos].lower() == "a " and (pos == 2 or not text[pos - 3].isalnum())
            start = pos - 2 if article and pos - 2 >= self.floor else pos
            token = fraction_of_scale(text, start)
            if token is not None:  # "half a million", "a quarter million", "half a dozen"
                self.number(start, token, start=start)
            return
        if word == "dozen" or word in SCALE_WORDS:
            if pos >= 2 and text[pos - 2:pos].lower() == "a " and (pos == 2 or not text[pos - 3].isalnum()):
                value = 12.0 if word == "dozen" else SCALE_WORDS[word]
                end = wend
                bigger = SCALE_NEXT.match(text, wend) if word == "hundred" else None
                if bigger:  # "a hundred thousand"
                    value *= SCALE_WORDS[bigger.group(1).lower()]
                    end = bigger.end()
                self.number(pos - 2, NumberToken(pos - 2, end, value, words=True), start=pos - 2)
            return
        if word in NUMBER_WORDS:
            token = parse_number_at(text, pos)
            if token is not None:
                self.number(pos, token)

    # -- numbers --------------------------------------------------------------------------------

    def number(self, pos: int, token: NumberToken, *, start: int | None = None) -> None:
        """A number at ``pos`` (already parsed): date, percent-of, money, quantity, range or count."""
        text = self.text
        side = self.side(pos, token, start=start)
        if side is None:
            return
        if (token.words and token.value == 1 and side.unit is None and side.currency is None
                and not _one_is_number(text, token.start, token.end)):
            self.floor = max(self.floor, token.end)
            return
        if (token.integer and not token.words and not token.scaled and side.unit is None and not side.currency):
            if _is_year(side) and text.startswith(_RANGE_STARTS, side.end) and self.range_from(side):
                return  # "2019-2021", "from 2019 to 2021"
            if self.dated_number(side):
                return
        if side.currency is None and side.unit is None and text[side.start - 3:side.start - 1] == "of":
            pct = _PERCENT_OF.search(text, max(self.floor, side.start - 20), side.start)
            if pct and pct.start("p") >= self.floor:
                self.emit(pct.start("p"), side.end, side.value, unit="percent", kind="percent")
                return
        if self.range_from(side):
            return
        self.single(side)

    def side(self, pos: int, token: NumberToken, *, start: int | None = None,
             allow_prefix: bool = True) -> _Side | None:
        """Sign, currency prefix, number and unit around one number; None when it is not a value."""
        text = self.text
        begin = token.start if start is None else start
        value = token.value
        if start is None:
            if begin and text[begin - 1] in "-−+" and begin - 1 >= self.floor and (
                    begin == 1 or text[begin - 2] in " \t\n([{=:<>~≈\u00a0"):
                if text[begin - 1] != "+":
                    value = -value
                begin -= 1
            elif token.words:
                neg = _NEG_WORD.search(text, max(self.floor, begin - 12), begin)
                if neg:
                    value, begin = -value, neg.start()
        currency = None
        before = text[begin - 2:begin] if begin >= 2 else text[:begin]
        if allow_prefix and begin > self.floor and before and (
                before[-1] in _CURRENCY_BEFORE or before[-1].isupper()
                or (before[-1] in _SPACES and (before[0] in _CURRENCY_BEFORE or before[0].isupper()))):
            window_start = max(self.floor, begin - 8)
            match = _CURRENCY_PREFIX.search(text, window_start, begin)
            if match and (match.start() == 0 or not text[match.start() - 1].isalnum()):
                found = _currency_from_prefix(match)
                if found:
                    currency, factor = found
                    value *= factor
                    begin = match.start()
        end = token.end
        side = _Side(begin, token.end, end, value, token, currency=currency)
        if currency:
            scale = _MONEY_SCALE.match(text, end) if not token.scaled else None
            if scale:
                side.value *= 1e6 if scale.group("m") else 1e9 if scale.group("b") else 1e3
                side.end = side.num_end = scale.end()
            side.kind = "money"
            side.unit = currency
            return side
        if not self.unit_after(side):
            return None
        return side

    def unit_after(self, side: _Side) -> bool:
        """Read the unit after the number into ``side``; False when the number is part of a word."""
        text = self.text
        end = side.num_end
        if end < len(text) and text[end] == "+" and (end + 1 == len(text) or not text[end + 1].isalnum()):
            side.bound = "min"
            end += 1
            side.end = end
        match = _UNIT_TOKENS.match(text, end)
        if not match:
            return True
        sep = match.group("sep")
        entry, uend, spelled = _lookup_tokens(match)
        if entry is None:
            t1 = match.group("t1")
            years_old = _YEARS_OLD.match(text, match.start("t1")) if sep and t1 in ("yo", "y") else None
            if years_old:  # "87 yo"
                side.unit, side.kind, side.measured, side.end = "year", "duration", "age", years_old.end()
                return True
            if len(t1) == 4 and t1[0] in "MK" and t1[1:] in CURRENCY_CODES and t1.isupper():
                side.kind, side.unit, side.end = "money", t1[1:], match.end("t1")
                side.value *= 1e6 if t1[0] == "M" else 1e3
                return True
            if sep == "" and t1[0].isalpha() and t1 != "K":
                self.skip_token(side.num_end)  # "3x", "5G", "2FA": the number is part of a word
                return False
            return True
        if sep and sep[-1] in _CLOSERS:
            if uend < len(text) and text[uend] == _CLOSERS[sep[-1]] and spelled.count(" ") == 0:
                uend += 1
            else:
                return True
        if sep == "-" and entry.kind not in ("duration", "quantity", "money", "angle"):
            return True
        if uend < len(text) and text[uend] in "-_" and uend + 1 < len(text) and text[uend + 1].isdigit():
            return True
        unit, kind = entry.unit, entry.kind
        if spelled == '"' and (sep == "-" or text.count('"', _line_start(text, side.start), side.start) % 2):
            return True
        if spelled in ("K",) and sep == "":
            return True
        if kind == "money":
            if spelled in CURRENCY_SYMBOLS and _DIGIT_NEXT.match(text, uend):
                return True  # "1 $10": the symbol belongs to the next number
            return self.money_suffix(side, entry, uend)
        if unit == "pound" and _is_money_pounds(text, side, uend):
            side.kind, side.unit, side.end = "money", "GBP", uend
            return True
        if kind == "angle":
            if spelled.lower() == "deg" and uend < len(text) and text[uend] == ".":
                uend += 1
            if _TEMPERATURE_CONTEXT.search(text, max(0, side.start - 80), min(len(text), uend + 40)):
                side.kind, side.unit, side.end = "temperature", None, uend
            else:
                side.kind, side.unit, side.end = "quantity", "degree", uend
            return True
        side.unit, side.kind, side.end = unit, kind, uend
        per = PER_TIME.match(text, uend) if text.startswith(PER_STARTS, uend) else None
        if per and kind in ("quantity", "duration"):
            den = _entry_for(per.group("t"))
            if den is not None and den.kind == "duration" and (
                    not per.group("art") or _dimensionality(unit) == "[length]"):
                side.unit = _rate_unit(unit, den.unit)
                side.kind = "quantity"
                side.end = per.end()
                return True
        if kind == "duration":
            age = _AGE.match(text, uend) if text.startswith(_AGE_STARTS, uend) else None
            if age:
                side.end = age.end()
                side.measured = "age"
                return True
        if unit in _COMPOUNDABLE:
            self.compound(side)
        return True

    def money_suffix(self, side: _Side, entry: UnitEntry, uend: int) -> bool:
        """A currency after the number ("12 dollars", "50 cents", "75 USD million", "3 dollars 50 cents")."""
        text = self.text
        side.kind, side.unit, side.end, side.factor = "money", entry.unit, uend, entry.factor
        side.value *= entry.factor
        scale = _SCALE_WORD_AFTER.match(text, uend) if not side.token.scaled else None
        if scale:  # "75 USD million"
            side.value *= {"mn": 1e6, "bn": 1e9}.get(scale.group("w").lower()) or SCALE_WORDS[scale.group("w").lower()]
            side.end = scale.end()
        elif entry.factor == 1.0:
            minor = _MINOR_AFTER.match(text, uend)
            if minor and minor.end() < len(text) and (text[minor.end()].isdigit() or text[minor.end()].isalpha()):
                cents = parse_number_at(text, minor.end(), scale=False)
                if cents is not None and cents.value < 100:
                    unit_match = _UNIT_TOKENS.match(text, cents.end)
                    if unit_match:
                        cent_entry, cent_end, _ = _lookup_tokens(unit_match)
                        if cent_entry is not None and cent_entry.kind == "money" and cent_entry.factor == 0.01 \
                                and unit_match.group("sep") != "-":
                            side.value += cents.value * 0.01
                            side.end = cent_end
        return True

    def compound(self, side: _Side) -> None:
        """Merge "5 feet 2 inches", "1 hour 30 minutes", "2h30m" into the first unit."""
        text = self.text
        if not text.startswith(_COMPOUND_STARTS, side.end):
            return
        match = _MINOR_AFTER.match(text, side.end)
        nxt = match.end() if match else side.end
        if nxt >= len(text) or not text[nxt].isdigit():
            return
        second = parse_number_at(text, nxt, scale=False)
        if second is None:
            return
        units = _UNIT_TOKENS.match(text, second.end)
        if not units:
            return
        if side.unit in ("hour", "day") and units.group("t1") == "m" and units.group("sep") == "":
            entry, uend = lookup_unit("min"), units.end("t1")
        else:
            entry, uend, _ = _lookup_tokens(units)
        if entry is None or entry.unit is None or entry.unit not in _COMPOUNDABLE or units.group("sep") == "-":
            return
        first = _base_factor(side.unit or "")
        other = _base_factor(entry.unit)
        if not first or not other or other[0] >= first[0] or _dimensionality(entry.unit) != _dimensionality(
                side.unit or ""):
            return
        side.value += second.value * other[0] / first[0]
        side.end = uend

    def range_from(self, first: _Side) -> bool:
        """Two numbers joined by a dash, "to" or "between ... and" become one range value."""
        text = self.text
        sep = _RANGE_SEP.match(text, first.end) if text.startswith(_RANGE_STARTS, first.end) else None
        if not sep:
            return False
        word = sep.group("w")
        left_word, left_start = prev_word(text, first.start)
        lw = left_word.lower() if left_word else ""
        if word == "and" and lw != "between":
            return False
        if word in ("to", "through", "thru") and (lw in _CHANGE_VERBS or (lw == "from" and prev_word(
                text, left_start)[0].lower() in _CHANGE_VERBS)):
            return False
        pos = sep.end()
        if pos >= len(text):
            return False
        sign = 1.0
        begin = pos
        prefix_currency = None
        ch = text[pos]
        if ch in CURRENCY_SYMBOLS and ch not in "元₡₾₭":
            prefix_currency = CURRENCY_SYMBOLS[ch]
            pos += 1
            if pos < len(text) and text[pos] in " \u00a0":
                pos += 1
        elif ch in "-−" and word:
            sign, pos = -1.0, pos + 1
        if pos >= len(text) or not (text[pos].isdigit() or text[pos].isalpha()):
            return False
        if text[pos].isalpha():
            match = _WORD_ANCHOR.match(text, pos)
            if not match or match.group().lower() not in NUMBER_WORDS:
                return False
        token = parse_number_at(text, pos)
        if token is None:
            return False
        after = text[token.end:token.end + 2]
        if len(after) == 2 and after[0] in "-/." and after[1].isdigit():
            return False
        second = _Side(begin, token.end, token.end, sign * token.value, token, currency=prefix_currency)
        if prefix_currency:
            second.kind, second.unit = "money", prefix_currency
            scale = _MONEY_SCALE.match(text, token.end) if not token.scaled else None
            if scale:
                second.value *= 1e6 if scale.group("m") else 1e9 if scale.group("b") else 1e3
                second.end = scale.end()
        elif not self.unit_after(second):
            return False
        if first.unit and second.unit and first.unit != second.unit:
            return False
        if first.kind == "money" and second.kind not in (None, "money"):
            return False
        unit = first.unit or second.unit
        kind = first.kind or second.kind
        if first.unit is None and second.unit is not None and first.currency is None:
            first.value *= second.factor  # "3 to 5 cents": the second number's unit applies to both
        start = first.start
        if lw in ("between", "from") and left_start >= self.floor:
            start = left_start
        low, high = sorted((first.value, second.value))
        end = second.end
        if kind is None and _is_year(first) and _is_year(second) and second.value > first.value:
            self.emit_date(start, end, dt.date(int(low), 1, 1), dt.date(int(high), 12, 31), bound="range")
            return True
        counted = None
        if kind is None:
            unit, kind = self.default_unit_kind()
            if kind is None:
                counted, noun_end, rate = counted_noun(text, end)
                if counted:
                    end = noun_end
                    if rate:
                        unit, kind = _rate_unit(None, rate), "quantity"
                    else:
                        kind = "count"
                else:
                    kind = "number"
        self.emit(start, end, None, unit=unit, kind=kind, low=low, high=high, bound="range",
                  counted_noun=counted, measured=first.measured or second.measured)
        return True

    def default_unit_kind(self) -> tuple[str | None, str | None]:
        if self.default_unit:
            return self.default_unit, _kind_of_unit(self.default_unit)
        return None, None

    def single(self, side: _Side) -> None:
        text = self.text
        if side.kind is not None:
            self.emit(side.start, side.end, side.value, unit=side.unit, kind=side.kind, bound=side.bound,
                      measured=side.measured)
            return
        unit, kind = self.default_unit_kind()
        if kind is not None:
            self.emit(side.start, side.end, side.value, unit=unit, kind=kind, bound=side.bound)
            return
        counted, noun_end, rate = counted_noun(text, side.end)
        if counted:
            if rate:
                self.emit(side.start, noun_end, side.value, unit=_rate_unit(None, rate), kind="quantity",
                          counted_noun=counted, bound=side.bound)
            else:
                self.emit(side.start, side.end, side.value, unit=None, kind="count", counted_noun=counted,
                          bound=side.bound)
            return
        if side.token.words and side.token.value == 1 and side.value == 1:
            self.floor = side.end
            return
        self.emit(side.start, side.end, side.value, unit=None, kind="number", bound=side.bound)

    # -- dates, versions, revisions -------------------------------------------------------------

    def dated_number(self, side: _Side) -> bool:
        """"1 March 2024", "in 2024", "since 2019": a plain integer that is a day or a year."""
        text = self.text
        value = int(side.value)
        if (1 <= value <= 31 and side.value > 0 and text[side.num_end + 1:side.num_end + 2].isupper()) or (
                text.startswith(_ORDINAL_SUFFIXES, side.num_end)):
            match = _DAY_MONTH.match(text, side.num_end)
            if match:
                month = _MONTHS[match.group("m").lower().rstrip(".")]
                if match.group("y"):
                    try:
                        day = dt.date(int(match.group("y")), month, value)
                    except ValueError:
                        return False
                    self.emit_date(side.start, match.end(), day)
                else:
                    self.floor = match.end()
                return True
        if 1000 <= value <= 2999 and side.num_end - side.token.start == 4 and side.value > 0:
            word, wstart = prev_word(text, side.start)
            key = word.lower() if word else ""
            two = ""
            if word:
                w2, _ = prev_word(text, wstart)
                two = f"{w2.lower()} {key}" if w2 else ""
            bound = _YEAR_PREPS.get(two) or _YEAR_PREPS.get(key)
            nxt = text[side.num_end:side.num_end + 2]
            if bound is not None and not (len(nxt) == 2 and nxt[0] in " -–" and nxt[1].isdigit()):
                counted, _, _ = counted_noun(text, side.num_end)
                if counted and key not in ("since", "as of", "until", "before", "after", "by"):
                    return False
                first = dt.date(value, 1, 1)
                last = dt.date(value, 12, 31)
                quarter = re.match(r"[Qq]([1-4])$", key)
                if quarter:
                    q = int(quarter.group(1))
                    first = dt.date(value, 3 * q - 2, 1)
                    last = dt.date(value + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
                    self.emit_date(wstart, side.num_end, first, last)
                    return True
                self.emit_date(side.start, side.num_end, first, last, bound=bound)
                return True
        return False

    def month_first(self, left_start: int, month_word: str, pos: int) -> bool:
        """"March 2024", "March 1, 2024", "Mar 5": the month name comes before the number."""
        text = self.text
        if left_start < self.floor:
            return False
        month = _MONTHS.get(month_word.lower().rstrip("."))
        token = parse_number_at(text, pos, scale=False)
        if month is None or token is None or not token.integer or token.words:
            return False
        value = int(token.value)
        if token.end - pos == 4 and 1000 <= value <= 2999:
            first = dt.date(value, month, 1)
            last = (dt.date(value + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1))
            self.emit_date(left_start, token.end, first, last)
            return True
        if 1 <= value <= 31 and token.end - pos <= 2:
            match = _DAY_YEAR.match(text, token.end)
            if match and match.group("y"):
                try:
                    day = dt.date(int(match.group("y")), month, value)
                except ValueError:
                    return False
                self.emit_date(left_start, match.end(), day)
                return True
            self.floor = match.end() if match else token.end
            return True
        return False

    def version(self, start: int, pos: int, *, require_dot: bool = False) -> bool:
        text = self.text
        match = _VERSION_NUMBER.match(text, pos)
        if not match or start < self.floor or (require_dot and "." not in match.group()):
            return False
        parts = [int(p) for p in match.group().split(".")]
        magnitude = sum(p / 1000 ** i for i, p in enumerate(parts))
        self.emit(start, match.end(), magnitude, unit=None, kind="version", context=False)
        return True

    def revision(self, start: int, pos: int) -> None:
        text = self.text
        match = _DIGITS_ONLY.match(text, pos)
        if match is None or start < self.floor:
            self.skip_token(pos)
            return
        self.emit(start, match.end(), float(match.group()), unit=None, kind="revision", context=False)

    def attached_prefix(self, pos: int) -> None:
        """Digits glued to letters: "v2.1", "USD115", "Q3 2024"; anything else is an identifier."""
        text = self.text
        ws = pos
        while ws > 0 and pos - ws < 4 and text[ws - 1].isalpha():
            ws -= 1
        word = text[ws:pos]
        boundary = ws == 0 or not (text[ws - 1].isalnum() or text[ws - 1] in "_-.")
        if boundary and ws >= self.floor:
            if word in ("v", "V") and self.version(ws, pos):
                return
            if word in CURRENCY_CODES:
                token = parse_number_at(text, pos)
                if token is not None and not (token.end < len(text) and text[token.end].isalpha()):
                    value = token.value
                    self.emit(ws, token.end, value, unit=word, kind="money")
                    return
            if word in ("Q", "q"):
                match = _QUARTER_YEAR.match(text, pos)
                if match:
                    year, q = int(match.group(2)), int(match.group(1))
                    first = dt.date(year, 3 * q - 2, 1)
                    last = dt.date(year + (q == 4), (3 * q) % 12 + 1, 1) - dt.timedelta(days=1)
                    self.emit_date(ws, match.end(), first, last)
                    return
        self.skip_token(pos)

    def special(self, pos: int, match: re.Match[str]) -> None:
        """Dates, clock times, IP addresses, dotted versions and ordinals found at a digit."""
        group = match.lastgroup
        end = match.end()
        if group in ("iso", "isoslash"):
            y, mo, d = (match.group("y"), match.group("mo"), match.group("d")) if group == "iso" else (
                match.group("y2"), match.group("mo2"), match.group("d2"))
            try:
                day = dt.date(int(y), int(mo), int(d))
            except ValueError:
                self.floor = end
                return
            self.emit_date(pos, end, day)
        elif group == "ym":
            year, month = int(match.group("y3")), int(match.group("mo3"))
            first = dt.date(year, month, 1)
            last = dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)
            self.emit_date(pos, end, first, last)
        elif group == "slash":
            a, b, y = int(match.group("sa")), int(match.group("sb")), int(match.group("sy"))
            year = y + 2000 if y < 100 else y
            month, day_of = (a, b) if a <= 12 < b else (b, a) if b <= 12 < a else (0, 0)
            try:
                day = dt.date(year, month, day_of) if month else None
            except ValueError:
                day = None
            if day is None:
                self.floor = end
                return
            self.emit_date(pos, end, day)
        elif group == "semver":
            if not self.version(pos, pos):
                self.floor = end
            else:
                self.floor = max(self.floor, end)
        elif group == "decade":
            year = int(match.group("decade"))
            self.emit_date(pos, end, dt.date(year, 1, 1), dt.date(year + 9, 12, 31))
        elif group == "ordinal":
            digits = match.group("ordinal").rstrip("stndrh")
            value = int(digits)
            if 1 <= value <= 31:
                token = NumberToken(pos, pos + len(digits), float(value))
                side = _Side(pos, token.end, token.end, float(value), token)
                if self.dated_number(side):
                    return
            self.floor = end
        else:
            self.floor = end

    # -- words without digits -------------------------------------------------------------------

    def time_word(self, pos: int, wend: int, unit: str, word: str) -> None:
        """"an hour", "a week", "half an hour", "all day", "a few minutes", "several days"."""
        text = self.text
        window_start = max(self.floor, pos - 16)
        match = _TIME_QUANT.search(text, window_start, pos)
        if not match:
            return
        start = match.start()
        plural = (word.endswith("s") and word not in ("minutes",)) or word == "minutes"
        prev, _ = prev_word(text, start)
        if prev and prev.lower() in ("once", "twice", "thrice", "times", "per", "every", "each"):
            return
        if start - self.last_end <= 2 and self.last_end > 0:
            return
        magnitude: float | None
        bound = None
        if match.group("half"):
            if plural:
                return
            magnitude = 0.5
        elif match.group("one"):
            if plural:
                return
            magnitude = 1.0
        elif match.group("all"):
            if plural or match.group("all").lower() == "entire":
                return
            magnitude = 1.0
        elif match.group("couple"):
            if not plural:
                return
            magnitude, bound = 2.0, "approx"
        else:
            if not plural:
                return
            magnitude, bound = None, "approx"
        end = wend
        if magnitude == 1.0:
            half = _AND_HALF.match(text, wend)
            if half:
                magnitude, end = 1.5, half.end()
        measured = None
        age = _AGE.match(text, end) if text.startswith(_AGE_STARTS, end) else None
        if age:
            end, measured = age.end(), "age"
        self.emit(start, end, magnitude, unit=unit, kind="duration", bound=bound, measured=measured)


_DIGITS_ONLY = re.compile(r"\d+")
_QUARTER_YEAR = re.compile(r"([1-4])" + _SP + r"+(\d{4})(?![\w])")
_VERSION_NUMBER = re.compile(r"\d+(?:\.\d+){0,3}(?![\w])|\d+(?:\.\d+){0,3}(?=[-+][0-9A-Za-z])")
_MONTH_NAMES_SET = frozenset(_MONTH_NAMES.split("|"))
_MONTH_ABBR_SET = frozenset(_MONTH_ABBR.split("|"))
_LEFT_KEYWORDS = frozenset({*_VERSION_WORDS, *_REVISION_WORDS, *_IDENTIFIER_LABELS, "v",
                            *(m.lower() for m in _MONTH_NAMES_SET | _MONTH_ABBR_SET)})


def _at_list_marker(text: str, pos: int) -> bool:
    """"1. Install" / "2) Run" at the start of a line: a list marker, not a value."""
    i = pos
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i > 0 and text[i - 1] != "\n":
        return False
    j = pos
    while j < len(text) and text[j].isdigit():
        j += 1
    return j - pos <= 3 and j + 1 < len(text) and text[j] in ".)" and text[j + 1] in " \t"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _one_is_number(text: str, pos: int, wend: int) -> bool:
    """Is this "one" a count ("one attempt", "one hour") rather than a pronoun ("this one", "one of")?"""
    prev, _ = prev_word(text, pos)
    if prev and prev.lower() in ("no", "any", "every", "some", "each", "this", "that", "which", "the",
                                 "only", "last", "next", "another"):
        return False
    nxt = text[wend:wend + 8].lower()
    return not nxt.startswith((" of", " another", " or ", " and", " by", " at a", " day,", " to "))


def _currency_from_prefix(match: re.Match[str]) -> tuple[str, float] | None:
    """(ISO code, factor) of a currency written before a number: "$", "US$", "USD ", "MAUD "."""
    if match.group("code"):
        code = match.group("code")
        if len(code) == 4:  # "MAUD 60": millions of a currency
            return (code[1:], 1e6) if code[1:] in CURRENCY_CODES else None
        return (code, 1.0) if code in CURRENCY_CODES else None
    group = match.group("dp") or match.group("dpcs")
    code = CURRENCY_DOLLAR_PREFIXES.get(group.lower()) if group else CURRENCY_SYMBOLS.get(match.group("sym"))
    return (code, 1.0) if code else None


def _lookup_tokens(match: re.Match[str]) -> tuple[UnitEntry | None, int, str]:
    """Longest unit spelling among the (up to three) tokens after a number."""
    t1, t2, t3 = match.group("t1"), match.group("t2"), match.group("t3")
    if t2 and t1.lower() not in MULTIWORD_HEADS:
        t2 = t3 = None
    if t3:
        spelled = f"{t1} {t2} {t3}"
        entry = _entry_for(spelled)
        if entry is not None:
            return entry, match.end("t3"), spelled
    if t2:
        spelled = f"{t1} {t2}"
        entry = _entry_for(spelled)
        if entry is not None:
            return entry, match.end("t2"), spelled
    entry = _entry_for(t1)
    if entry is None:
        return None, match.end("t1"), t1
    return entry, match.end("t1"), t1


def _is_money_pounds(text: str, side: _Side, uend: int) -> bool:
    if side.token.scaled or text[uend:uend + 9].lower() == " sterling":
        return True
    start = max(0, side.start - 60)
    return bool(_MONEY_CONTEXT.search(text, start, side.start))


def _is_year(side: _Side) -> bool:
    token = side.token
    return (not token.words and token.integer and not token.scaled and side.unit is None
            and side.currency is None and token.end - token.start == 4 and 1000 <= side.value <= 2999)


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def extract_values(text: str, *, default_unit: str | None = None) -> list[ExtractedValue]:
    """Typed values in ``text``, sorted by start; ``text[v.start:v.end] == v.surface`` always.

    ``unit`` is pint's canonical name ("millisecond", "mebibyte", "degree_Celsius", "percent",
    "1 / second" for "requests per second") or an ISO code for money ("USD"). A range has magnitude
    None and low/high with bound "range"; a vague amount ("a few minutes") has magnitude None and
    bound "approx". A date carries the first and last day of the period it names ("March 2024") as
    proleptic day ordinals in low/high, its magnitude being the first day. A version's magnitude
    encodes its parts as major + minor/1e3 + patch/1e6, so "2.1" and "2.10" differ. Never raises on
    any text; text without a digit or a number word returns at once.

    ``default_unit`` (a canonical unit such as "millisecond", from :func:`unit_from_header`) is given
    to bare numbers, for table cells under a header like "Timeout (ms)".
    """
    return _extract(text, default_unit or None)


def _extract(text: str, default_unit: str | None, *, fast: bool = True) -> list[ExtractedValue]:
    """extract_values; ``fast=False`` turns off the one-step path for plain quantities (tests compare)."""
    if not text:
        return []
    digits = [(m.start(), 0, m.end()) for m in _DIGIT_ANCHOR.finditer(text)]
    lowered = text.lower()
    if len(lowered) == len(text):  # offsets carry over (a few characters lengthen when lowercased)
        words = [(m.start(), 1, m.end()) for m in _WORD_ANCHOR_LOWER.finditer(lowered)]
    else:
        words = [(m.start(), 1, m.end()) for m in _WORD_ANCHOR.finditer(text)]
    if not digits and not words:
        return []
    anchors = sorted(digits + words) if words and digits else digits or words
    urls: list[tuple[int, int]] = []
    if "://" in text or "www." in text:
        urls = [(m.start(), m.end()) for m in _URL.finditer(text)]
    scanner = _Scanner(text, default_unit, fast=fast)
    url_index = 0
    for pos, is_word, anchor_end in anchors:
        if pos < scanner.floor:
            continue
        if urls:
            while url_index < len(urls) and urls[url_index][1] <= pos:
                url_index += 1
            if url_index < len(urls) and urls[url_index][0] <= pos:
                scanner.floor = urls[url_index][1]
                continue
        try:
            if is_word:
                scanner.at_word(pos, anchor_end)
            else:
                scanner.at_digit(pos, anchor_end)
        except (ValueError, OverflowError, ZeroDivisionError, IndexError):  # pragma: no cover - last resort
            scanner.floor = max(scanner.floor, pos + 1)  # a malformed number never stops ingest
    return scanner.out


_HEADER_BRACKET = re.compile(r"[(\[{]\s*([^()\[\]{}]{1,24}?)\s*[)\]}]")
_HEADER_TAIL = re.compile(r"(?:\bin|,|/|:)\s*([^\s,/:()]{1,20})\s*$", re.IGNORECASE)


def unit_from_header(header: str) -> str | None:
    """The unit a table header names: "Timeout (ms)" -> "millisecond", "Share (%)" -> "percent"."""
    if not header:
        return None
    for pattern in (_HEADER_BRACKET, _HEADER_TAIL):
        match = pattern.search(header)
        if match:
            entry = lookup_unit(match.group(1).strip())
            if entry is not None and entry.unit is not None and entry.factor == 1.0:
                return entry.unit
    return None


