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
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from graphcite.language.values.datereading import DateReader
from graphcite.language.values.lazyre import lazy
from graphcite.language.values.numbers import (
    NUMBER_WORDS,
    SCALE_NEXT,
    SCALE_WORDS,
    TIME_UNIT_WORDS,
    NumberToken,
    fraction_of_scale,
    parse_number_at,
)
from graphcite.language.values.patterns import (
    AGE,
    AGE_STARTS,
    AMPM_FIRST,
    AND_HALF,
    AND_NUMBER,
    CHANGE_VERBS,
    COMPOUND_STARTS,
    COMPOUNDABLE,
    CONTEXT_UNITS,
    CURRENCY_BEFORE,
    DIGIT_ANCHOR,
    FRACTION_OF_UNIT,
    IDENTIFIER_LABELS,
    LEFT_KEYWORDS,
    MONEY_FACTORS,
    MONEY_SCALE,
    MONTH_ABBR_SET,
    MONTH_NAMES_SET,
    NOT_COUNTED,
    NOT_PLAIN_AFTER,
    PERCENT_OF,
    PLAIN_KINDS,
    PLAIN_QUANTITY,
    PLUS_MINUS,
    PLUS_MINUS_STARTS,
    RANGE_SEP,
    RANGE_STARTS,
    REVISION_WORDS,
    SPACES,
    SPECIAL,
    SPECIAL_NEXT,
    TIME_QUANT,
    TOKEN_REST,
    URL,
    VERSION_WORDS,
    WORD_ANCHOR,
    WORD_ANCHOR_LOWER,
)
from graphcite.language.values.scanbase import (
    Side,
    is_year,
)
from graphcite.language.values.unitreading import UnitReader
from graphcite.language.values.units import ARTICLE_UNITS, COUNT_WORDS
from graphcite.language.values.unitwords import (
    CURRENCY_CODES,
    CURRENCY_SYMBOLS,
    MULTIWORD_HEADS,
    _entry_for,
    _kind_of_unit,
    _rate_unit,
    counted_noun,
    lookup_unit,
    prev_word,
)
from graphcite.models import ExtractedValue

__all__ = ["MEMO_CHARS", "extract_values", "unit_from_header", "values_in"]


class _Scanner(UnitReader, DateReader):
    """Walks the anchors of one text left to right and hands each number to the reader it needs."""

    __slots__ = ()

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
        if nxt and (nxt in SPECIAL_NEXT or nxt.isalpha() or (
                nxt == " " and text[run_end + 1:run_end + 2] in AMPM_FIRST)):
            special = SPECIAL.match(text, pos)
            if special:
                self.special(pos, special)
                return
        if prev in SPACES and pos >= 2 and (text[pos - 2].isalpha() or text[pos - 2] == ".") and (
                _left_word(text, pos) in LEFT_KEYWORDS):
            left_word, left_start = prev_word(text, pos)
            if left_word:
                low = left_word.lower()
                if low in VERSION_WORDS or (low == "v" and text[left_start:pos].rstrip().endswith(".")):
                    if self.version(left_start, pos, require_dot=low == "release"):
                        return
                elif low in REVISION_WORDS:
                    self.revision(left_start, pos)
                    return
                elif left_word in MONTH_NAMES_SET or left_word.rstrip(".") in MONTH_ABBR_SET:
                    if self.month_first(left_start, left_word, pos):
                        return
                elif low in IDENTIFIER_LABELS:
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
        if prev and (prev not in " \n\t(" or (pos >= 2 and (text[pos - 2] in CURRENCY_BEFORE
                                                           or text[pos - 2].isupper()))):
            return False
        match = PLAIN_QUANTITY.match(text, pos)
        if not match:
            return False
        unit_text = match.group("u")
        entry = _entry_for(unit_text)
        if entry is None:
            return self.plain_count(pos, match)
        if entry.kind not in PLAIN_KINDS or entry.unit in CONTEXT_UNITS or (
                unit_text.lower() in MULTIWORD_HEADS):
            return False
        end = match.end()
        if text.startswith(NOT_PLAIN_AFTER, end) or (entry.unit in COMPOUNDABLE
                                                       and text.startswith(COMPOUND_STARTS, end)):
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
                or noun in SCALE_WORDS or noun in NOT_COUNTED or noun in MULTIWORD_HEADS
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
                rest = AND_NUMBER.match(text, end) if word != "dozen" else None
                if rest:  # "a hundred and two", "a thousand and fifty"
                    token = parse_number_at(text, rest.end(), scale=False)
                    if token is not None and token.words and token.integer and token.value < value:
                        value, end = value + token.value, token.end
                self.number(pos - 2, NumberToken(pos - 2, end, value, words=True), start=pos - 2)
            elif word == "dozen":
                self.named_count(pos, wend)
            return
        if word in ARTICLE_UNITS:
            self.article_unit(pos, wend)
            return
        if word in NUMBER_WORDS:
            token = parse_number_at(text, pos)
            if token is not None:
                self.number(pos, token)

    def named_count(self, pos: int, wend: int) -> None:
        """"a baker's dozen": a named amount from the data file, counted like a number."""
        text = self.text
        for spelled, value in COUNT_WORDS.items():
            head = spelled[: -len(text[pos:wend])]
            start = pos - len(head)
            if start >= 2 and text[start:pos].lower() == head and text[start - 2:start].lower() == "a " and (
                    start == 2 or not text[start - 3].isalnum()) and start - 2 >= self.floor:
                self.emit(start - 2, wend, value, unit=None, kind="count")
                return

    def article_unit(self, pos: int, wend: int) -> None:
        """"a gallon", "a penny", "an exabyte": one of a unit named after "a"/"an"."""
        text = self.text
        word, start = prev_word(text, pos)
        if word.lower() not in ("a", "an") or start < self.floor or pos - start > len(word) + 1 or (
                start - self.last_end <= 2):  # "$40 a tonne" is a price per tonne, not a tonne
            return
        entry = lookup_unit(text[pos:wend])
        if entry is None or entry.unit is None:
            return
        value = entry.factor
        kind = entry.kind if entry.kind in ("money", "duration", "temperature", "percent") else "quantity"
        self.emit(start, wend, value, unit=entry.unit, kind=kind)

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
            if is_year(side) and text.startswith(RANGE_STARTS, side.end) and self.range_from(side):
                return  # "2019-2021", "from 2019 to 2021"
            if self.dated_number(side):
                return
        if side.currency is None and side.unit is None and text[side.start - 3:side.start - 1] == "of":
            pct = PERCENT_OF.search(text, max(self.floor, side.start - 20), side.start)
            if pct and pct.start("p") >= self.floor:
                self.emit(pct.start("p"), side.end, side.value, unit="percent", kind="percent")
                return
        if text.startswith(PLUS_MINUS_STARTS, side.end) and self.uncertain(side):
            return
        if self.range_from(side):
            return
        self.single(side)

    def uncertain(self, side: Side) -> bool:
        """"3.1 ± 0.3 mm per year", "0.93 ± 0.07 °C", "9.83e-3 +/- 1e-5 km/s2": one value with its
        uncertainty; the magnitude is the central value, low/high the interval, the bound "approx"."""
        text = self.text
        sign = PLUS_MINUS.match(text, side.end)
        if sign is None or side.currency is not None:
            return False
        token = parse_number_at(text, sign.end(), scale=False)
        if token is None or token.words:
            return False
        spread = Side(sign.end(), token.end, token.end, token.value, token)
        if not self.unit_after(spread) or spread.currency is not None or (
                side.unit is not None and spread.unit is not None and spread.unit != side.unit):
            return False
        unit, kind = side.unit or spread.unit, side.kind or spread.kind
        if kind is None:
            unit, kind = self.default_unit_kind()
        center, width = side.value, abs(spread.value)
        self.emit(side.start, spread.end, center, unit=unit, kind=kind or "number", low=center - width,
                  high=center + width, bound="approx", measured=side.measured or spread.measured)
        return True

    def range_from(self, first: Side) -> bool:
        """Two numbers joined by a dash, "to" or "between ... and" become one range value."""
        text = self.text
        sep = RANGE_SEP.match(text, first.end) if text.startswith(RANGE_STARTS, first.end) else None
        if not sep:
            return False
        word = sep.group("w") or sep.group("h")  # "8- to 16-metre": the first number's unit is suspended
        left_word, left_start = prev_word(text, first.start)
        lw = left_word.lower() if left_word else ""
        if word == "and" and lw != "between":
            return False
        if word in ("to", "through", "thru") and (lw in CHANGE_VERBS or (lw == "from" and prev_word(
                text, left_start)[0].lower() in CHANGE_VERBS)):
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
            match = WORD_ANCHOR.match(text, pos)
            if not match or match.group().lower() not in NUMBER_WORDS:
                return False
        token = parse_number_at(text, pos)
        if token is None:
            return False
        after = text[token.end:token.end + 2]
        if len(after) == 2 and after[0] in "-/." and after[1].isdigit():
            return False
        second = Side(begin, token.end, token.end, sign * token.value, token, currency=prefix_currency)
        if prefix_currency:
            second.kind, second.unit = "money", prefix_currency
            scale = MONEY_SCALE.match(text, token.end) if not token.scaled else None
            if scale:
                second.value *= MONEY_FACTORS[scale.lastgroup or "k"]
                second.end = scale.end()
            self.money_per(second)
        elif not self.unit_after(second):
            return False
        if first.kind == "money" and second.unit and second.unit.startswith(f"{first.unit} / "):
            first.unit = second.unit  # "$25 billion to $45 billion per year": the rate covers both
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
        if (kind is None and is_year(first) and second.token.end - second.token.start == 2 and not word
                and first.value % 100 < second.value):  # "2013-14": the second year in two digits
            second.value += first.value - first.value % 100
            low, high = first.value, second.value
            second.token = second.token._replace(start=second.token.end - 4)
        if kind is None and is_year(first) and is_year(second) and second.value > first.value:
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

    def single(self, side: Side) -> None:
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

    def time_word(self, pos: int, wend: int, unit: str, word: str) -> None:
        """"an hour", "a week", "half an hour", "all day", "a few minutes", "several days"."""
        text = self.text
        window_start = max(self.floor, pos - 26)  # "three quarters of an hour"
        last = self.out[-1] if self.out else None
        if last is not None and last.unit is None and last.kind == "number" and last.magnitude is not None \
                and 0 < last.magnitude < 1 and FRACTION_OF_UNIT.fullmatch(text, last.end, pos):
            self.out.pop()  # "three quarters" of "three quarters of an hour" is read with its unit
            self.emit(last.start, wend, last.magnitude, unit=unit, kind="duration")
            return
        match = TIME_QUANT.search(text, window_start, pos)
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
        if match.group("frac"):  # "a quarter of an hour", "two thirds of a day"
            if plural:
                return
            numerator = {"a": 1, "one": 1, "two": 2, "three": 3}[match.group("num").lower()]
            magnitude = numerator / {"quarter": 4, "third": 3, "fifth": 5, "tenth": 10}[match.group("den").lower()]
        elif match.group("half"):
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
            half = AND_HALF.match(text, wend)
            if half:
                magnitude, end = 1.5, half.end()
        measured = None
        age = AGE.match(text, end) if text.startswith(AGE_STARTS, end) else None
        if age:
            end, measured = age.end(), "age"
        self.emit(start, end, magnitude, unit=unit, kind="duration", bound=bound, measured=measured)


#: Letters glued before digits that :meth:`_Scanner.at_digit` reads ("v2.1", "Q3 2024", "USD115").
_PREFIX_WORDS = frozenset({"v", "V", "Q", "q"})


def _rejected_token_end(text: str, pos: int, floor: int) -> int:
    """Where the scan resumes when the digit run at ``pos`` is part of a token no reader takes
    (``abc123``, ``x_2``, ``#42``, ``a1.b2``, ``f-3``), or -1 when the readers must look at it.

    The pre-filter of :func:`_extract`: exactly the cases in which :meth:`_Scanner.at_digit` would
    skip the token without reading it (the same tests, in the same order, and the same new floor), decided
    before the next anchor is searched for, so an identifier or a hash costs one pattern match.
    """
    if not pos:
        return -1
    prev = text[pos - 1]
    if prev.isalpha():
        ws = pos  # the glued letters, as :meth:`DateReader.attached_prefix` reads them
        while ws > 0 and pos - ws < 4 and text[ws - 1].isalpha():
            ws -= 1
        word = text[ws:pos]
        if (word in _PREFIX_WORDS or word in CURRENCY_CODES) and ws >= floor and (
                ws == 0 or not (text[ws - 1].isalnum() or text[ws - 1] in "_-.")):
            return -1  # a version, a quarter or an amount of money may start here
    elif not (prev == "_" or prev in "#§" or (prev in ".:/-−," and pos >= 2
                                              and (text[pos - 2].isalnum() or text[pos - 2] == "_"))):
        return -1
    match = TOKEN_REST.match(text, pos)
    return max(floor, match.end() if match else pos + 1)


def _left_word(text: str, pos: int) -> str:
    """The lowercased word before the space at ``pos - 1`` (at most 15 characters back; longer gives "").

    Bounded on purpose: slicing back to the start of the text would lower the whole prefix at
    every number, which made long texts quadratic.
    """
    lo = max(0, pos - 16)
    space = text.rfind(" ", lo, pos - 1)
    if space < 0 and lo > 0:
        return ""
    return text[space + 1:pos - 1].lower().rstrip(".")


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


def _one_is_number(text: str, pos: int, wend: int) -> bool:
    """Is this "one" a count ("one attempt", "one hour") rather than a pronoun ("this one", "one of")?"""
    prev, _ = prev_word(text, pos)
    if prev and prev.lower() in ("no", "any", "every", "some", "each", "this", "that", "which", "the",
                                 "only", "last", "next", "another"):
        return False
    nxt = text[wend:wend + 8].lower()
    return not nxt.startswith((" of", " another", " or ", " and", " by", " at a", " day,", " to "))


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def extract_values(text: str, *, default_unit: str | None = None) -> list[ExtractedValue]:
    """Typed values in ``text``, sorted by start; ``text[v.start:v.end] == v.surface`` always.

    ``unit`` is pint's canonical name ("millisecond", "mebibyte", "degree_Celsius", "percent",
    "1 / second" for "requests per second") or an ISO code for money ("USD"). A range has magnitude
    None and low/high with bound "range"; a vague amount ("a few minutes") has magnitude None and
    bound "approx"; a value with its uncertainty ("3.1 ± 0.3 mm") has the central magnitude, bound
    "approx" and the interval in low/high. A date carries the first and last day of the period it names ("March 2024") as
    proleptic day ordinals in low/high, its magnitude being the first day. A version's magnitude
    encodes its parts as major + minor/1e3 + patch/1e6, so "2.1" and "2.10" differ. Never raises on
    any text; text without a digit or a number word returns at once.

    ``default_unit`` (a canonical unit such as "millisecond", from :func:`unit_from_header`) is given
    to bare numbers, for table cells under a header like "Timeout (ms)".
    """
    return list(values_in(text, default_unit or None))


#: Texts up to this many code points are remembered with their values (table cells, headings and short
#: list items repeat across a corpus: "| 300 |" under "Timeout (ms)" is read once).
MEMO_CHARS = 96


#: white space other than the plain space: read as a space, so layout never changes a reading ("at\nmost 5")
#: (a line break before a list marker stays: "1. Install\n2. Run" numbers its steps)
_LAYOUT = lazy(r"[^\S \n]|\n(?![^\S\n]*(?:\d{1,3}[.)]|[-*•+#|>]|\n))")


def values_in(text: str, default_unit: str | None = None) -> Sequence[ExtractedValue]:
    """:func:`extract_values` without the copy: a short text's values come from a memo (a tuple, shared:
    do not change it). The values are frozen and depend on ``text`` and ``default_unit`` alone.

    Values are read off a copy of ``text`` whose line breaks, tabs and other white space are plain
    spaces (the same length, so offsets hold); each surface is then taken from ``text`` itself.
    """
    flat = _LAYOUT.sub(" ", text) if _LAYOUT.search(text) else text
    if len(text) <= MEMO_CHARS:
        found: Sequence[ExtractedValue] = _remembered(flat, default_unit)
    else:
        found = _extract(flat, default_unit)
    if flat is text:
        return found
    return [v if text[v.start:v.end] == v.surface else replace(v, surface=text[v.start:v.end]) for v in found]


@lru_cache(maxsize=65_536)
def _remembered(text: str, default_unit: str | None) -> tuple[ExtractedValue, ...]:
    return tuple(_extract(text, default_unit))


def _extract(text: str, default_unit: str | None, *, fast: bool = True) -> list[ExtractedValue]:
    """extract_values; ``fast=False`` turns off the one-step path for plain quantities and the
    pre-filter of digits in identifiers (:func:`_rejected_token_end`); tests compare the two.

    The anchors (digit runs and number words) are found lazily, each search starting past the scanner's
    floor: a hash, a URL or a long identifier costs one search instead of a tuple per digit run in it.
    The anchors visited are exactly those a full left-to-right scan would give: a digit run is always
    taken whole (a search landing inside one moves past it), and a word anchor is a whole word.
    """
    if not text:
        return []
    lowered = text.lower()
    if len(lowered) == len(text):  # offsets carry over (a few characters lengthen when lowercased)
        word_search, word_text = WORD_ANCHOR_LOWER.search, lowered
    else:
        word_search, word_text = WORD_ANCHOR.search, text
    digit_search = DIGIT_ANCHOR.search
    digit = digit_search(text)
    word = word_search(word_text)
    if digit is None and word is None:
        return []
    urls: list[tuple[int, int]] = []
    if "://" in text or "www." in text:
        urls = [(m.start(), m.end()) for m in URL.finditer(text)]
    scanner = _Scanner(text, default_unit, fast=fast)
    url_index = 0
    while digit is not None or word is not None:
        is_word = word is not None and (digit is None or word.start() < digit.start())
        anchor = word if is_word else digit
        pos, anchor_end = anchor.start(), anchor.end()  # type: ignore[union-attr]
        if pos >= scanner.floor:
            if urls:
                while url_index < len(urls) and urls[url_index][1] <= pos:
                    url_index += 1
                if url_index < len(urls) and urls[url_index][0] <= pos:
                    scanner.floor = urls[url_index][1]
                    pos = -1
            if pos >= 0 and not is_word and scanner.fast:
                skip_to = _rejected_token_end(text, pos, scanner.floor)
                if skip_to >= 0:  # an identifier, a hash, a code token: no reader runs for it
                    scanner.floor = skip_to
                    pos = -1
            if pos >= 0:
                try:
                    if is_word:
                        scanner.at_word(pos, anchor_end)
                    else:
                        scanner.at_digit(pos, anchor_end)
                except (ValueError, OverflowError, ZeroDivisionError, IndexError):  # pragma: no cover - last resort
                    scanner.floor = max(scanner.floor, pos + 1)  # a malformed number never stops ingest
        # The next anchor of the kind just visited is searched for once, from past the anchor or the
        # floor, whichever is further; the other kind's anchor is searched again only if the floor passed it.
        floor = scanner.floor
        if is_word:
            word = word_search(word_text, max(anchor_end, floor))  # never inside a word: it starts at a boundary
        else:
            digit = digit_search(text, max(anchor_end, floor))
        if digit is not None and digit.start() < floor:
            digit = digit_search(text, floor)
        if digit is not None and digit.start() == floor and floor and DIGIT_ANCHOR.match(text, floor - 1):
            digit = digit_search(text, digit.end())  # the rest of a run that began before the floor
        if word is not None and word.start() < floor:
            word = word_search(word_text, floor)
    return scanner.out


_HEADER_BRACKET = lazy(r"[(\[{]\s*([^()\[\]{}]{1,24}?)\s*[)\]}]")
_HEADER_TAIL = lazy(r"(?:\bin|,|/|:)\s*([^\s,/:()]{1,20})\s*$", re.IGNORECASE)


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


