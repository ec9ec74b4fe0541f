"""Numbers and unit words: the lexical layer under :mod:`graphcite.ingest.values`.

Reads one number at a known position (digits with separators, decimals, fractions, scale words
and suffixes, or English number words), and looks unit words up in one table whose canonical names
are pint's. Nothing here scans a whole text except :func:`find_numbers`; the scanner in
``values`` calls these helpers only where a cheap anchor (a digit or a number word) was found,
which is what keeps extraction fast on prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pint

__all__ = [
    "CURRENCY_CODES",
    "NUMBER_WORDS",
    "SCALE_WORDS",
    "TIME_UNIT_WORDS",
    "NumberToken",
    "UnitEntry",
    "find_numbers",
    "lookup_unit",
    "number_anchor_pattern",
    "parse_number_at",
    "ureg",
]


def _build_registry() -> pint.UnitRegistry:
    """pint's default registry with information as its own dimension and a decade of ten years.

    pint ships ``bit = []`` (so a megabyte would be "dimensionless" like a percent) and a logarithmic
    ``decade``; both are wrong for prose, so the definitions are loaded with those two lines changed.
    """
    folder = Path(pint.__file__).parent
    lines = []
    for line in (folder / "default_en.txt").read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("@import"):
            continue
        if stripped == "bit = []":
            line = "bit = [information]"
        elif stripped.startswith("decade = 1"):
            line = "decade = 10 * year"
        lines.append(line)
    registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=True)
    registry.load_definitions(folder / "constants_en.txt")
    registry.load_definitions(lines)
    registry.define("percentage_point = [percentage_point] = pp")
    return registry


ureg: pint.UnitRegistry = _build_registry()
"""The one pint registry of graphcite (built once at import)."""

# ---------------------------------------------------------------------------------------------
# Number words
# ---------------------------------------------------------------------------------------------

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)}
NUMBER_WORDS.update({w: 20 + 10 * i for i, w in enumerate(_TENS)})
NUMBER_WORDS.update({"nought": 0, "naught": 0})
SCALE_WORDS: dict[str, float] = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9,
                                 "trillion": 1e12, "lakh": 1e5, "crore": 1e7}
_FRACTION_WORDS: dict[str, int] = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8,
    "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
    "thousandth": 1000, "thousandths": 1000}
TIME_UNIT_WORDS: dict[str, str] = {
    "minute": "minute", "minutes": "minute", "hour": "hour", "hours": "hour", "day": "day", "days": "day",
    "week": "week", "weeks": "week", "month": "month", "months": "month", "year": "year", "years": "year",
    "decade": "decade", "decades": "decade", "fortnight": "fortnight", "fortnights": "fortnight"}
_UNICODE_FRACTIONS = {"½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3, "⅕": 0.2, "⅖": 0.4, "⅗": 0.6,
                      "⅘": 0.8, "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875}
_FRACTION_CHARS = "".join(_UNICODE_FRACTIONS)


def _trie_regex(words: list[str]) -> str:
    """A factored alternation (one branch per first letter) so the regex engine never backtracks far."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and not ends else "(?:" + "|".join(alts) + ")"
        return body + "?" if ends else body

    return emit(trie)


def number_anchor_pattern() -> str:
    """Regex source that finds number words, scale words and time words (the word anchors)."""
    words = [*NUMBER_WORDS, *SCALE_WORDS, "dozen", "half", *TIME_UNIT_WORDS]
    words += [w.capitalize() for w in words]
    return r"\b" + _trie_regex(sorted(set(words))) + r"\b"


# ---------------------------------------------------------------------------------------------
# Parsing one number
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NumberToken:
    """A number read at a position: ``text[start:end]`` spells ``value``."""

    start: int
    end: int
    value: float
    words: bool = False
    integer: bool = True
    scaled: bool = False


_DIGITS = re.compile(r"""
    (?P<mixed>\d{1,3})[ \u00a0](?P<mnum>\d{1,2})/(?P<mden>\d{1,3})(?![\d/])
  | (?P<fnum>\d{1,3})/(?P<fden>\d{1,3})(?![\d/])
  | (?P<int>\d{1,3}(?:,\d{3})+(?![\d])|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?!\d)
            |\d{1,3}(?:\ \d{3}){2,}(?![\d.,])|\d+)
    (?P<dec>\.\d+(?![.\d]))?
    (?P<exp>[eE][-+]?\d{1,3}(?![\w.]))?
    (?P<ufrac>[""" + _FRACTION_CHARS + r"""])?
""", re.VERBOSE)
_SCALE_AFTER = re.compile(r"(?P<sfx>MM|mn|bn|mil|[kKM])(?![A-Za-z0-9])|(?P<sp>[ \u00a0]+)(?P<word>"
                          r"(?i:hundred|thousand|million|billion|trillion|lakh|crore|dozens?|dzs?|dozs?))\b")
_SUFFIX_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "MM": 1e6, "mn": 1e6, "mil": 1e6, "bn": 1e9}
_WORD = re.compile(r"[A-Za-z]+")
_GAP = re.compile(r"[ \u00a0]+and[ \u00a0]+|[ \u00a0]*-[ \u00a0]*|[ \u00a0]+")
_AND_FRACTION = re.compile(r"[ \u00a0]+and[ \u00a0]+(?:(a|one)[ \u00a0]+)?(half|quarter|third)\b"
                           r"|[ \u00a0]+and[ \u00a0]+(three)[ \u00a0]+quarters\b", re.IGNORECASE)
_ALLOWED_DENOMS = {2, 3, 4, 5, 6, 8, 10, 12, 16, 32, 64, 100}


def _word_class(word: str) -> str | None:
    if word in NUMBER_WORDS:
        value = NUMBER_WORDS[word]
        return "unit" if value < 10 else "teen" if value < 20 else "tens"
    if word == "hundred":
        return "hundred"
    if word in SCALE_WORDS:
        return "big"
    if word in ("dozen", "dozens"):
        return "dozen"
    return None


_NEXT_OK = {
    None: {"unit", "teen", "tens"},
    "unit": {"hundred", "big", "dozen"},
    "teen": {"hundred", "big", "dozen"},
    "tens": {"unit", "big", "dozen"},
    "hundred": {"unit", "teen", "tens", "big", "dozen"},
    "big": {"unit", "teen", "tens"},
    "dozen": set(),
}


def _parse_words(text: str, pos: int) -> NumberToken | None:
    """English number words from ``pos``: "twenty-one", "two hundred and five", "one and a half"."""
    total = 0.0
    current = 0.0
    last: str | None = None
    last_big = float("inf")
    end = pos
    match = _WORD.match(text, pos)
    gap_kind = ""
    while match:
        word = match.group().lower()
        cls = _word_class(word)
        if cls is None or cls not in _NEXT_OK[last]:
            break
        if gap_kind == "and" and not (last in ("hundred", "big") and cls in ("unit", "teen", "tens")):
            break
        if gap_kind == "-" and not (last == "tens" and cls == "unit"):
            break
        if cls in ("unit", "teen", "tens"):
            current += NUMBER_WORDS[word]
        elif cls == "hundred":
            current = (current or 1) * 100
        elif cls == "big":
            scale = SCALE_WORDS[word]
            if scale >= last_big:
                if total:
                    break
                total = (total + (current or 1)) * scale
            else:
                total += (current or 1) * scale
            last_big = scale
            current = 0
        else:
            current = (current or 1) * 12
        end = match.end()
        last = cls
        gap = _GAP.match(text, end)
        if not gap:
            break
        gap_text = gap.group()
        gap_kind = "and" if "and" in gap_text else "-" if "-" in gap_text else " "
        match = _WORD.match(text, gap.end())
    if last is None:
        return None
    value = total + current
    tail = _AND_FRACTION.match(text, end)
    if tail:
        if tail.group(3):
            value += 0.75
        else:
            value += 1 / {"half": 2, "quarter": 4, "third": 3}[tail.group(2).lower()]
        end = tail.end()
    return NumberToken(pos, end, value, words=True, integer=value.is_integer())


def _parse_digits(text: str, pos: int) -> NumberToken | None:
    match = _DIGITS.match(text, pos)
    if not match:
        if text[pos] in _UNICODE_FRACTIONS:
            return NumberToken(pos, pos + 1, _UNICODE_FRACTIONS[text[pos]], integer=False)
        return None
    if match.group("mixed"):
        num, den = int(match.group("mnum")), int(match.group("mden"))
        if den in _ALLOWED_DENOMS and 0 < num < den:
            return NumberToken(pos, match.end(), int(match.group("mixed")) + num / den, integer=False)
        match = _DIGITS.match(text, pos, pos + len(match.group("mixed")))
        if not match:
            return None
    if match.group("fnum"):
        num, den = int(match.group("fnum")), int(match.group("fden"))
        if den in _ALLOWED_DENOMS and 0 < num < den:
            return NumberToken(pos, match.end(), num / den, integer=False)
        return None
    digits = match.group("int")
    value = float(re.sub(r"[^\d]", "", digits))
    integer = True
    if match.group("dec"):
        value += float("0" + match.group("dec"))
        integer = False
    if match.group("exp"):
        value *= 10 ** int(match.group("exp")[1:])
    if match.group("ufrac"):
        value += _UNICODE_FRACTIONS[match.group("ufrac")]
        integer = False
    return NumberToken(pos, match.end(), value, integer=integer)


def parse_number_at(text: str, pos: int, *, scale: bool = True) -> NumberToken | None:
    """The number that starts at ``pos`` (a digit, a unicode fraction or a number word), or None.

    With ``scale`` a following scale ("2.4 billion", "25 lakh", "3 dozen") or an attached suffix
    ("10k", "10M", "2bn") multiplies the value; the caller decides about "B" and "m".
    """
    ch = text[pos]
    token = _parse_digits(text, pos) if ch.isdigit() or ch in _UNICODE_FRACTIONS else _parse_words(text, pos)
    if token is None or not scale:
        return token
    match = _SCALE_AFTER.match(text, token.end)
    if not match:
        return token
    if match.group("sfx"):
        if token.words:
            return token
        factor = _SUFFIX_SCALE[match.group("sfx")]
    else:
        word = match.group("word").lower()
        if token.words and word in SCALE_WORDS:
            return token  # "two hundred" is read by the word parser itself
        factor = 12.0 if word.startswith("d") else SCALE_WORDS[word]
    return NumberToken(token.start, match.end(), token.value * factor, words=token.words,
                       integer=(token.value * factor).is_integer(), scaled=True)


_FIND_ANCHORS = re.compile(r"[0-9" + _FRACTION_CHARS + r"]+|" + number_anchor_pattern())
_NEGATIVE_WORD = re.compile(r"(?i:minus|negative)[ \u00a0]+$")


def find_numbers(text: str) -> list[NumberToken]:
    """Every plain number in ``text`` (digits or words), without units: the number layer alone.

    Used to score this layer against outside number specs; :func:`values.extract_values` is what
    ingest calls.
    """
    found: list[NumberToken] = []
    floor = 0
    for anchor in _FIND_ANCHORS.finditer(text):
        pos = anchor.start()
        if pos < floor:
            continue
        if text[pos].isalpha() and anchor.group().lower() in TIME_UNIT_WORDS:
            continue
        prev = text[pos - 1] if pos else ""
        if prev.isalnum() or prev == "_":
            floor = anchor.end()
            continue
        start = pos
        token = parse_number_at(text, pos)
        if token is None and text[pos].isalpha():
            # "a dozen", "a hundred", "half a dozen"
            word = anchor.group().lower()
            if word in ("dozen", *SCALE_WORDS) and text[max(0, pos - 2):pos].lower() in ("a ",):
                value = 12.0 if word == "dozen" else SCALE_WORDS[word]
                start = pos - 2
                if word == "dozen" and text[max(0, pos - 7):pos].lower() == "half a ":
                    start, value = pos - 7, 6.0
                token = NumberToken(start, anchor.end(), value, words=True)
            else:
                continue
        elif token is None:
            continue
        value = token.value
        if token.words and token.value == 1 and text[token.start:token.end].lower() == "one":
            nxt = text[token.end:token.end + 4].lower()
            if nxt.startswith((" of", " you", " do", " is", " mor", " las")) or prev.isalpha():
                floor = token.end
                continue
        if start == pos and token.start == pos:
            if pos and text[pos - 1] in "-−" and (pos < 2 or not text[pos - 2].isalnum()):
                start, value = pos - 1, -value
            else:
                neg = _NEGATIVE_WORD.search(text, max(0, pos - 12), pos)
                if neg and (neg.start() == 0 or not text[neg.start() - 1].isalnum()):
                    start, value = neg.start(), -value
        found.append(NumberToken(min(start, token.start), token.end, value, words=token.words,
                                 integer=token.integer, scaled=token.scaled))
        floor = token.end
    return found


# ---------------------------------------------------------------------------------------------
# Unit words
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UnitEntry:
    """A unit as written: its canonical name (pint's, or an ISO code for money), kind and factor."""

    unit: str | None
    kind: str
    factor: float = 1.0


# canonical | kind | case-sensitive spellings | case-insensitive spellings ("_" stands for a space)
_UNIT_TABLE = """
nanosecond|duration|ns|nanosecond nanoseconds nanosec nanosecs
microsecond|duration|µs μs|microsecond microseconds
millisecond|duration|ms|millisecond milliseconds millisec millisecs msec msecs
second|duration|s|second seconds sec secs
minute|duration||minute minutes min mins
hour|duration|h|hour hours hr hrs
day|duration|d|day days
week|duration|wk wks|week weeks
month|duration||month months
year|duration||year years yr yrs
decade|duration||decade decades
fortnight|duration||fortnight fortnights
century|duration||century centuries
byte|quantity|B|byte bytes
kilobyte|quantity|kB KB|kilobyte kilobytes kbyte kbytes
megabyte|quantity|MB|megabyte megabytes mbyte mbytes
gigabyte|quantity|GB|gigabyte gigabytes gbyte gbytes
terabyte|quantity|TB|terabyte terabytes
petabyte|quantity|PB|petabyte petabytes
kibibyte|quantity|KiB kiB|kibibyte kibibytes
mebibyte|quantity|MiB|mebibyte mebibytes
gibibyte|quantity|GiB|gibibyte gibibytes
tebibyte|quantity|TiB|tebibyte tebibytes
pebibyte|quantity|PiB|pebibyte pebibytes
bit|quantity||bit bits
kilobit|quantity|kb Kb kbit Kbit|kilobit kilobits
megabit|quantity|Mb mb Mbit|megabit megabits
gigabit|quantity|Gb gb Gbit|gigabit gigabits
terabit|quantity|Tb Tbit|terabit terabits
bit / second|quantity|bps|
kilobit / second|quantity|kbps Kbps|
megabit / second|quantity|Mbps mbps|
gigabit / second|quantity|Gbps gbps|
degree_Celsius|temperature|°C ºC ℃ °c ºc|celsius celcius centigrade centigrate degree_celsius degrees_celsius deg_celsius deg_c degree_c degrees_c °_c º_c °_celsius º_celsius °celsius degrees_centigrade degree_centigrade
degree_Fahrenheit|temperature|°F ºF ℉ °f ºf|fahrenheit farenheit fahrenheight degree_fahrenheit degrees_fahrenheit deg_fahrenheit deg_f degree_f degrees_f °_f º_f °_fahrenheit º_fahrenheit °fahrenheit degrees_farenheit degree_farenheit
kelvin|temperature|K|kelvin kelvins degrees_kelvin
degree|angle|° º|degree degrees deg
radian|quantity|rad|radian radians
percent|percent|% ٪|percent percents percentage per_cent pct
percentage_point|percent|pp|percentage_point percentage_points
nanometer|quantity|nm|nanometer nanometers nanometre nanometres
micrometer|quantity|µm μm|micrometer micrometers micrometre micrometres micron microns
millimeter|quantity|mm|millimeter millimeters millimetre millimetres
centimeter|quantity|cm|centimeter centimeters centimetre centimetres
decimeter|quantity|dm|decimeter decimeters decimetre decimetres
meter|quantity|m|meter meters metre metres
kilometer|quantity|km|kilometer kilometers kilometre kilometres
inch|quantity|″|inch inches
foot|quantity|ft|foot feet
yard|quantity|yd yds|yard yards
mile|quantity|mi|mile miles
nautical_mile|quantity|nmi|nautical_mile nautical_miles
light_year|quantity|ly|light_year light_years light-year light-years
microgram|quantity|µg μg ug mcg|microgram micrograms microgramme microgrammes
milligram|quantity|mg|milligram milligrams milligramme milligrammes
gram|quantity|g|gram grams gramme grammes
kilogram|quantity|kg|kilogram kilograms kilogramme kilogrammes kilo kilos
metric_ton|quantity|t|tonne tonnes metric_ton metric_tons metric_tonne metric_tonnes
ton|quantity||ton tons
pound|quantity|lb lbs|pound pounds
ounce|quantity|oz|ounce ounces
dram|quantity||dram drams drachma drachmas
milliliter|quantity|ml mL|milliliter milliliters millilitre millilitres
centiliter|quantity|cl cL|centiliter centiliters centilitre centilitres
liter|quantity|l L|liter liters litre litres
gallon|quantity|gal|gallon gallons
oil_barrel|quantity|bbl|barrel barrels
cup|quantity||cup cups
tablespoon|quantity|tbsp Tbsp|tablespoon tablespoons
teaspoon|quantity|tsp|teaspoon teaspoons
fluid_ounce|quantity||fl_oz fluid_ounce fluid_ounces
pint|quantity||pint pints
quart|quantity||quart quarts
cubic_foot|quantity||cubic_foot cubic_feet cu_ft
meter ** 3|quantity|m3 m³|cubic_meter cubic_meters cubic_metre cubic_metres
centimeter ** 3|quantity|cm3 cm³ cc|cubic_centimeter cubic_centimeters
meter ** 2|quantity|m2 m²|square_meter square_meters square_metre square_metres sq_m sqm
kilometer ** 2|quantity|km2 km²|square_kilometer square_kilometers square_kilometre square_kilometres sq_km
centimeter ** 2|quantity|cm2 cm²|square_centimeter square_centimeters
square_foot|quantity|ft2 ft²|square_foot square_feet sq_ft
square_mile|quantity||square_mile square_miles sq_mi
square_inch|quantity||square_inch square_inches sq_in
acre|quantity||acre acres
hectare|quantity|ha|hectare hectares
mile_per_hour|quantity|mph|miles_per_hour mile_per_hour
kilometer_per_hour|quantity|kph kmph|kilometers_per_hour kilometres_per_hour kilometer_per_hour
knot|quantity|kn|knot knots
hertz|quantity|Hz|hertz
kilohertz|quantity|kHz|kilohertz
megahertz|quantity|MHz|megahertz
gigahertz|quantity|GHz|gigahertz
watt|quantity|W|watt watts
kilowatt|quantity|kW|kilowatt kilowatts
megawatt|quantity|MW|megawatt megawatts
gigawatt|quantity|GW|gigawatt gigawatts
watt_hour|quantity|Wh|watt_hour watt_hours watt-hour watt-hours
kilowatt_hour|quantity|kWh|kilowatt_hour kilowatt_hours kilowatt-hour kilowatt-hours
megawatt_hour|quantity|MWh|megawatt_hour megawatt_hours megawatt-hour megawatt-hours
joule|quantity|J|joule joules
kilojoule|quantity|kJ|kilojoule kilojoules
kilocalorie|quantity|kcal|kilocalorie kilocalories
volt|quantity|V|volt volts
milliampere|quantity|mA|milliampere milliamperes milliamp milliamps
milliampere_hour|quantity|mAh|
pascal|quantity|Pa|pascal pascals
kilopascal|quantity|kPa|kilopascal kilopascals
hectopascal|quantity|hPa|hectopascal hectopascals
bar|quantity||bar
pound_force_per_square_inch|quantity||psi
"""

# money: ISO code | spellings after the number (case-insensitive) ; factor for minor units
_CURRENCY_TABLE = """
USD|dollar dollars usd us_dollar us_dollars u.s._dollar u.s._dollars american_dollars bucks
USD:0.01|cent cents
CAD|canadian_dollar canadian_dollars cad
AUD|australian_dollar australian_dollars aud
NZD|new_zealand_dollar new_zealand_dollars nzd
HKD|hong_kong_dollar hong_kong_dollars hkd
SGD|singapore_dollar singapore_dollars sgd
EUR|euro euros eur
EUR:0.01|euro_cent euro_cents
GBP|pounds_sterling british_pound british_pounds gbp
GBP:0.01|penny pence
JPY|yen japanese_yen jpy
CNY|yuan chinese_yuan renminbi rmb cny 元
INR|rupee rupees indian_rupee indian_rupees inr
CHF|swiss_franc swiss_francs chf
TRY|turkish_lira lira
SEK|swedish_krona swedish_kronor
NOK|norwegian_krone norwegian_kroner
DKK|danish_krone danish_kroner
PLN|zloty zlotys
BRL|reais brazilian_real brazilian_reais
MXN|mexican_peso mexican_pesos mxn
ZAR|south_african_rand
KRW|korean_won
RUB|ruble rubles rouble roubles
BTC|bitcoin bitcoins btc
CRC|₡
GEL|₾
LAK|₭
"""
CURRENCY_SYMBOLS: dict[str, str] = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW",
                                    "₽": "RUB", "₿": "BTC", "₺": "TRY", "₪": "ILS", "₫": "VND", "₱": "PHP",
                                    "元": "CNY", "₡": "CRC", "₾": "GEL", "₭": "LAK"}
CURRENCY_DOLLAR_PREFIXES: dict[str, str] = {
    "us": "USD", "u.s.": "USD", "u.s": "USD", "usd": "USD", "c": "CAD", "ca": "CAD", "cad": "CAD",
    "a": "AUD", "au": "AUD", "aud": "AUD", "hk": "HKD", "hkd": "HKD", "nz": "NZD", "nzd": "NZD",
    "s": "SGD", "sgd": "SGD", "r": "BRL", "mex": "MXN", "mxn": "MXN"}

_CS: dict[str, UnitEntry] = {}
_CI: dict[str, UnitEntry] = {}
CURRENCY_CODES: set[str] = set()


def _load_tables() -> None:
    for row in _UNIT_TABLE.strip().splitlines():
        canonical, kind, sensitive, insensitive = row.split("|")
        entry = UnitEntry(canonical, kind)
        for spelling in sensitive.split():
            _CS[spelling.replace("_", " ")] = entry
        for spelling in insensitive.split():
            _CI[spelling.replace("_", " ").lower()] = entry
    for row in _CURRENCY_TABLE.strip().splitlines():
        code, spellings = row.split("|")
        factor = 1.0
        if ":" in code:
            code, minor = code.split(":")
            factor = float(minor)
        CURRENCY_CODES.add(code)
        entry = UnitEntry(code, "money", factor)
        for spelling in spellings.split():
            _CI.setdefault(spelling.replace("_", " ").lower(), entry)
    CURRENCY_CODES.update("USD EUR GBP JPY CNY CHF CAD AUD NZD HKD SGD INR SEK NOK DKK PLN BRL MXN ZAR KRW "
                          "RUB TRY BTC CZK HUF ILS THB IDR MYR PHP VND AED SAR".split())
    for symbol, code in CURRENCY_SYMBOLS.items():
        CURRENCY_CODES.add(code)
        _CS.setdefault(symbol, UnitEntry(code, "money"))


_load_tables()


def lookup_unit(spelling: str) -> UnitEntry | None:
    """The unit a spelling names ("ms", "Kilometres", "degrees celsius", "USD"), or None.

    Case matters for short symbols (MB is a megabyte, Mb a megabit, m a metre, M a million) and not
    for words; inner whitespace is collapsed.
    """
    key = " ".join(spelling.split()) if " " in spelling or "\u00a0" in spelling else spelling
    found = _CS.get(key)
    if found is None:
        found = _CI.get(key.lower())
    return found
