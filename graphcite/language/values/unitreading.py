"""What is written around one number: a sign and a currency before it; a unit, a power ("km^3",
"cubic kilometres", "s-1"), a rate ("$15.4/hour") and the parts of a compound ("3 years, 2 months
and 14 days") after it. Units resolve through :mod:`.units` (the data file, then pint)."""

from __future__ import annotations

import re

from graphcite.language.values.numbers import (
    SCALE_WORDS,
    NumberToken,
    parse_number_at,
    unit_registry,
)
from graphcite.language.values.patterns import (
    AGE,
    AGE_STARTS,
    CLOSERS,
    COMPOUND_STARTS,
    COMPOUNDABLE,
    CURRENCY_BEFORE,
    CURRENCY_PREFIX,
    DIGIT_NEXT,
    MINOR_AFTER,
    MONEY_CONTEXT,
    MONEY_FACTORS,
    MONEY_PER,
    MONEY_SCALE,
    NEG_WORD,
    PART_SEP,
    SCALE_WORD_AFTER,
    SIZE_WORDS,
    SLASH_UNIT,
    SMALL_LENGTHS,
    SPACES,
    TEMPERATURE_CONTEXT,
    UNIT_TOKENS,
    YEARS_OLD,
)
from graphcite.language.values.scanbase import (
    ScannerBase,
    Side,
    line_start,
)
from graphcite.language.values.units import POWER_WORDS, power_after, powered
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
    _rate_unit,
    lookup_unit,
)

__all__ = ["UnitReader", "lookup_tokens"]

_SUP = str.maketrans("²³", "23")


class UnitReader(ScannerBase):
    """Reads what is written around one number: sign, currency, unit, powers, rates and compounds."""

    __slots__ = ()

    def side(self, pos: int, token: NumberToken, *, start: int | None = None,
             allow_prefix: bool = True) -> Side | None:
        """Sign, currency prefix, number and unit around one number; None when it is not a value."""
        text = self.text
        begin = token.start if start is None else start
        value = token.value
        if start is None:
            if begin and text[begin - 1] in "-−+" and begin - 1 >= self.floor and (
                    begin == 1 or text[begin - 2] in " \t\n([{=:<>~≈\u00a0" or text[begin - 2] in CURRENCY_BEFORE):
                if text[begin - 1] != "+":
                    value = -value
                begin -= 1
            elif token.words:
                neg = NEG_WORD.search(text, max(self.floor, begin - 12), begin)
                if neg:
                    value, begin = -value, neg.start()
        currency = None
        before = text[begin - 2:begin] if begin >= 2 else text[:begin]
        if allow_prefix and begin > self.floor and before and (
                before[-1] in CURRENCY_BEFORE or before[-1].isupper()
                or (before[-1] in SPACES and (before[0] in CURRENCY_BEFORE or before[0].isupper()))):
            window_start = max(self.floor, begin - 8)
            match = CURRENCY_PREFIX.search(text, window_start, begin)
            if match and (match.start() == 0 or not text[match.start() - 1].isalnum()):
                found = _currency_from_prefix(match)
                if found:
                    currency, factor = found
                    value *= factor
                    begin = match.start()
        end = token.end
        side = Side(begin, token.end, end, value, token, currency=currency)
        if currency:
            scale = MONEY_SCALE.match(text, end) if not token.scaled else None
            if scale:
                side.value *= MONEY_FACTORS[scale.lastgroup or "k"]
                side.end = side.num_end = scale.end()
            side.kind = "money"
            side.unit = currency
            self.money_per(side)
            return side
        if not self.unit_after(side):
            return None
        return side

    def unit_after(self, side: Side) -> bool:
        """Read the unit after the number into ``side``; False when the number is part of a word."""
        text = self.text
        end = side.num_end
        if end < len(text) and text[end] == "+" and (end + 1 == len(text) or not text[end + 1].isalnum()):
            side.bound = "min"
            end += 1
            side.end = end
        match = UNIT_TOKENS.match(text, end)
        if not match:
            return True
        sep = match.group("sep")
        entry, uend, spelled = lookup_tokens(match)
        t1 = match.group("t1")
        if entry is None and sep == " " and t1 in SMALL_LENGTHS:
            reading = self.small_length(side, t1, match.end("t1"))
            if reading == "time":
                return False
            if reading == "word":
                return True
            entry, uend, spelled = lookup_unit(SMALL_LENGTHS[t1]), match.end("t1"), t1
        if entry is None:
            years_old = YEARS_OLD.match(text, match.start("t1")) if sep and t1 in ("yo", "y") else None
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
        if sep and sep[-1] in CLOSERS:
            if uend < len(text) and text[uend] == CLOSERS[sep[-1]] and spelled.count(" ") == 0:
                uend += 1
            else:
                return True
        if sep == "-" and entry.kind not in ("duration", "quantity", "money", "angle"):
            return True
        raised = power_after(text, uend) if uend < len(text) and entry.kind in ("quantity", "duration") else None
        if raised is not None and entry.unit is not None and "**" not in entry.unit and (
                entry.kind == "quantity" or raised[0] < 0):  # "km^3", "s-1", "fb−1"
            power = powered(entry.unit, raised[0])
            if power is not None:
                entry, uend = power, raised[1]
        if uend < len(text) and text[uend] in "-_" and uend + 1 < len(text) and text[uend + 1].isdigit():
            return True
        unit, kind = entry.unit, entry.kind
        if spelled == '"' and (sep == "-" or text.count('"', line_start(text, side.start), side.start) % 2):
            return True
        if spelled in ("K",) and sep == "":
            return True
        if kind == "money":
            if spelled in CURRENCY_SYMBOLS and DIGIT_NEXT.match(text, uend):
                return True  # "1 $10": the symbol belongs to the next number
            return self.money_suffix(side, entry, uend)
        if unit == "pound" and _is_money_pounds(text, side, uend):
            side.kind, side.unit, side.end = "money", "GBP", uend
            return True
        if kind == "angle":
            if spelled.lower() == "deg" and uend < len(text) and text[uend] == ".":
                uend += 1
            if TEMPERATURE_CONTEXT.search(text, max(0, side.start - 80), min(len(text), uend + 40)):
                side.kind, side.unit, side.end = "temperature", None, uend
            else:
                side.kind, side.unit, side.end = "quantity", "degree", uend
            return True
        side.unit, side.kind, side.end = unit, kind, uend
        if kind == "quantity" and unit is not None and text.startswith(("/", " / "), uend) and self.quotient(side):
            return True  # "20 J/m^2 per year", "9.8 m/s2", "5 mg/kg"
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
            age = AGE.match(text, uend) if text.startswith(AGE_STARTS, uend) else None
            if age:
                side.end = age.end()
                side.measured = "age"
                return True
        if unit in COMPOUNDABLE:
            self.compound(side)
        return True

    def quotient(self, side: Side) -> bool:
        """A unit divided by a unit with a power or by one that is not a time ("J/m^2", "m/s2", "mg/kg"),
        then perhaps " per <time>"; times alone ("km/h", "req/s") are read as rates further on."""
        text = self.text
        slash = SLASH_UNIT.match(text, side.end)
        if slash is None or side.unit is None:
            return False
        den = _entry_for(slash.group("t"))
        end = slash.end()
        if den is None or den.unit is None or den.kind not in ("quantity", "duration") or den.factor != 1.0:
            return False
        raised = power_after(text, end) if not slash.group("p") else (int(slash.group("p").translate(_SUP)), end)
        if raised is not None and raised[0] > 0:
            power = powered(den.unit, raised[0])
            if power is None:
                return False
            den, end = power, raised[1]
        elif den.kind == "duration":
            return False
        unit = f"({side.unit}) / ({den.unit})"
        per = PER_TIME.match(text, end) if text.startswith(PER_STARTS, end) else None
        if per and not per.group("art"):
            time = _entry_for(per.group("t"))
            if time is not None and time.kind == "duration":
                unit, end = f"{unit} / {time.unit}", per.end()
        try:
            side.unit = str(unit_registry().Unit(unit))
        except Exception:
            return False
        side.kind, side.end = "quantity", end
        return True

    def money_per(self, side: Side) -> None:
        """"$15.4/hour", "$350 per kg": money per a unit is a rate in that currency ("USD / hour")."""
        text = self.text
        if not text.startswith(PER_STARTS, side.end) and not text.startswith("/", side.end):
            return
        per = MONEY_PER.match(text, side.end)
        if per is None:
            return
        entry = _entry_for(per.group("u"))
        if entry is None or entry.unit is None or entry.kind == "money" or entry.factor != 1.0:
            return
        side.unit = f"{side.unit} / {entry.unit}"
        side.end = per.end()

    def small_length(self, side: Side, word: str, wend: int) -> str:
        """How to read "in", "pm" or "am" after a number: "unit", "word" (leave the number bare) or "time".

        "2 in" is inches only at a sentence end or before a size word ("2 1/2 in thick"), else a
        preposition ("2 in 1979"). "2.1 pm" is picometres, but "2.13 am" and "5 pm" are clock times
        (no decimals, or two that can be minutes) and are not values at all.
        """
        text = self.text
        if word == "in":
            rest = text[wend:wend + 12]
            inches = not rest or (rest[0] in ".,;:!?)" and (len(rest) == 1 or not rest[1].isalnum())) or (
                rest[:1] == " " and rest[1:].split(" ", 1)[0].strip(".,;") in SIZE_WORDS)
            return "unit" if inches else "word"
        written = text[side.token.start:side.token.end]
        decimals = written.split(".", 1)[1] if "." in written else ""
        if not decimals or (len(decimals) == 2 and decimals.isdigit() and int(decimals) < 60):
            self.floor = max(self.floor, wend)
            return "time"
        return "unit"

    def money_suffix(self, side: Side, entry: UnitEntry, uend: int) -> bool:
        """A currency after the number ("12 dollars", "50 cents", "75 USD million", "3 dollars 50 cents")."""
        text = self.text
        side.kind, side.unit, side.end, side.factor = "money", entry.unit, uend, entry.factor
        side.value *= entry.factor
        scale = SCALE_WORD_AFTER.match(text, uend) if not side.token.scaled else None
        if scale:  # "75 USD million"
            side.value *= {"mn": 1e6, "bn": 1e9}.get(scale.group("w").lower()) or SCALE_WORDS[scale.group("w").lower()]
            side.end = scale.end()
        elif entry.factor == 1.0:
            minor = MINOR_AFTER.match(text, uend)
            if minor and minor.end() < len(text) and (text[minor.end()].isdigit() or text[minor.end()].isalpha()):
                cents = parse_number_at(text, minor.end(), scale=False)
                if cents is not None and cents.value < 100:
                    unit_match = UNIT_TOKENS.match(text, cents.end)
                    if unit_match:
                        cent_entry, cent_end, _ = lookup_tokens(unit_match)
                        if cent_entry is not None and cent_entry.kind == "money" and cent_entry.factor == 0.01 \
                                and unit_match.group("sep") != "-":
                            side.value += cents.value * 0.01
                            side.end = cent_end
        return True

    def compound(self, side: Side) -> None:
        """Merge "5 feet 2 inches", "1 hour 30 minutes", "2h30m", "3 years, 2 months, 14 days and 16 hours",
        "two weeks and three days" into the first unit: each part in a smaller unit of the same dimension than the one before."""
        text = self.text
        first = _base_factor(side.unit or "")
        dims = _dimensionality(side.unit or "")
        last = first
        while first and text.startswith(COMPOUND_STARTS, side.end):
            match = PART_SEP.match(text, side.end)
            nxt = match.end() if match else side.end
            if nxt >= len(text) or not (text[nxt].isdigit() or (text[nxt].isalpha() and " and " in text[side.end:nxt])):
                return  # a part in words only after "and": "two weeks and three days", not "3 days, a week later"
            second = parse_number_at(text, nxt, scale=False)
            if second is None or (text[nxt].isalpha() and not second.words):
                return
            units = UNIT_TOKENS.match(text, second.end)
            if not units:
                return
            if side.unit in ("hour", "day") and units.group("t1") == "m" and units.group("sep") == "":
                entry, uend = lookup_unit("min"), units.end("t1")
            else:
                entry, uend, _ = lookup_tokens(units)
            if entry is None or entry.unit is None or entry.unit not in COMPOUNDABLE or units.group("sep") == "-":
                return
            other = _base_factor(entry.unit)
            if not other or not last or other[0] >= last[0] or _dimensionality(entry.unit) != dims:
                return
            side.value += second.value * other[0] / first[0]
            side.end = uend
            last = other


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


def lookup_tokens(match: re.Match[str]) -> tuple[UnitEntry | None, int, str]:
    """Longest unit spelling among the (up to three) tokens after a number."""
    t1, t2, t3 = match.group("t1"), match.group("t2"), match.group("t3")
    if t2 and t1.lower() not in MULTIWORD_HEADS:
        t2 = t3 = None
    if t2 and t1.lower() in POWER_WORDS and _entry_for(f"{t1} {t2}") is None:  # "cubic kilometres", "sq km"
        entry = _entry_for(t2)
        if entry is not None and entry.kind == "quantity" and entry.unit and entry.unit not in CURRENCY_CODES:
            raised = powered(entry.unit, POWER_WORDS[t1.lower()]) if "**" not in entry.unit else None
            if raised is not None:
                return raised, match.end("t2"), f"{t1} {t2}"
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
    if entry is None and ("·" in t1 or "⋅" in t1):  # "W·m−2": the product is not known, its first unit is
        head = t1.replace("⋅", "·").split("·", 1)[0]
        entry = _entry_for(head)
        return entry, match.start("t1") + len(head), head
    return entry, match.end("t1"), t1


def _is_money_pounds(text: str, side: Side, uend: int) -> bool:
    if side.token.scaled or text[uend:uend + 9].lower() == " sterling":
        return True
    start = max(0, side.start - 60)
    return bool(MONEY_CONTEXT.search(text, start, side.start))
