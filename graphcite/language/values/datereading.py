"""Numbers that are dates, periods, versions and revisions: "1 March 2024", "in 2019", "Q3 2024",
"March 2024", "2024-03-01", "v2.1", "rev 42". A date carries its first and last day as ordinals."""

from __future__ import annotations

import datetime as dt
import re

from graphcite.language.values.numbers import (
    NumberToken,
    parse_number_at,
)
from graphcite.language.values.patterns import (
    DAY_MONTH,
    DAY_YEAR,
    DIGITS_ONLY,
    MONTHS,
    ORDINAL_SUFFIXES,
    QUARTER_YEAR,
    VERSION_NUMBER,
    YEAR_PREPS,
)
from graphcite.language.values.scanbase import (
    ScannerBase,
    Side,
)
from graphcite.language.values.unitwords import (
    CURRENCY_CODES,
    counted_noun,
    prev_word,
)

__all__ = ["DateReader"]


class DateReader(ScannerBase):
    """Dates, periods, versions, revisions and digits glued to letters ("Q3 2024", "v2.1", "USD115")."""

    __slots__ = ()

    def dated_number(self, side: Side) -> bool:
        """"1 March 2024", "in 2024", "since 2019": a plain integer that is a day or a year."""
        text = self.text
        value = int(side.value)
        if (1 <= value <= 31 and side.value > 0 and text[side.num_end + 1:side.num_end + 2].isupper()) or (
                text.startswith(ORDINAL_SUFFIXES, side.num_end)):
            match = DAY_MONTH.match(text, side.num_end)
            if match:
                month = MONTHS[match.group("m").lower().rstrip(".")]
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
            bound = YEAR_PREPS.get(two) or YEAR_PREPS.get(key)
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
        month = MONTHS.get(month_word.lower().rstrip("."))
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
            match = DAY_YEAR.match(text, token.end)
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
        match = VERSION_NUMBER.match(text, pos)
        if not match or start < self.floor or (require_dot and "." not in match.group()):
            return False
        parts = [int(p) for p in match.group().split(".")]
        magnitude = sum(p / 1000 ** i for i, p in enumerate(parts))
        self.emit(start, match.end(), magnitude, unit=None, kind="version", context=False)
        return True

    def revision(self, start: int, pos: int) -> None:
        text = self.text
        match = DIGITS_ONLY.match(text, pos)
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
                match = QUARTER_YEAR.match(text, pos)
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
                side = Side(pos, token.end, token.end, float(value), token)
                if self.dated_number(side):
                    return
            self.floor = end
        else:
            self.floor = end
