"""Unit spellings to units: the vocabulary in ``data/units.txt`` first, pint's registry for the rest.

The data file holds only how people write units ("kilometres", "MB", "degrees celsius", "bucks");
what a unit is, its dimensionality and its size, always comes from pint (:func:`.numbers.unit_registry`). A
spelling the file does not list is handed to pint when it is written as pint writes units: a prefix
symbol on a symbol the file marks as taking prefixes ("TeV", "mGy", "EB", "66 Ma"), or a prefixed
unit name ("exabytes", "kibibyte", "milligrays"). Plain lowercase words are never guessed at ("cat"
would be a centi-tonne to pint). Powers are read here too: "km^3", "s-1", "fb⁻¹", "cubic kilometres",
"km squared".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from graphcite.language.values.lazyre import lazy
from graphcite.language.values.numbers import unit_registry

__all__ = [
    "ARTICLE_UNITS",
    "COUNT_WORDS",
    "CURRENCY_CODES",
    "CURRENCY_DOLLAR_PREFIXES",
    "CURRENCY_SYMBOLS",
    "MULTIWORD_HEADS",
    "POWER_WORDS",
    "UnitEntry",
    "lookup_unit",
    "power_after",
    "powered",
    "unit_from_pint",
]


@dataclass(frozen=True, slots=True)
class UnitEntry:
    """A unit as written: its canonical name (pint's, or an ISO code for money), kind and factor."""

    unit: str | None
    kind: str
    factor: float = 1.0


CURRENCY_SYMBOLS: dict[str, str] = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW",
                                    "₽": "RUB", "₿": "BTC", "₺": "TRY", "₪": "ILS", "₫": "VND", "₱": "PHP",
                                    "元": "CNY", "₡": "CRC", "₾": "GEL", "₭": "LAK"}
CURRENCY_DOLLAR_PREFIXES: dict[str, str] = {
    "us": "USD", "u.s.": "USD", "u.s": "USD", "usd": "USD", "c": "CAD", "ca": "CAD", "cad": "CAD",
    "a": "AUD", "au": "AUD", "aud": "AUD", "hk": "HKD", "hkd": "HKD", "nz": "NZD", "nzd": "NZD",
    "s": "SGD", "sgd": "SGD", "r": "BRL", "mex": "MXN", "mxn": "MXN"}
_MORE_CODES = ("USD EUR GBP JPY CNY CHF CAD AUD NZD HKD SGD INR SEK NOK DKK PLN BRL MXN ZAR KRW RUB TRY BTC CZK HUF "
               "ILS THB IDR MYR PHP VND AED SAR")

_CS: dict[str, UnitEntry] = {}
_CI: dict[str, UnitEntry] = {}
CURRENCY_CODES: set[str] = set()
COUNT_WORDS: dict[str, float] = {}
"""Named amounts that count things ("baker's dozen" -> 13), from the data file."""
_PREFIXABLE: dict[str, tuple[frozenset[str] | None, bool]] = {}
"""Symbol -> (the prefix symbols it takes, None for any; whether an all-capital spelling counts)."""
_RARE_PREFIXES = frozenset("RQrq")
ARTICLE_UNITS: set[str] = set()
"""Unit words that name one of the unit after "a"/"an" ("a gallon", "a penny"), from the data file."""
_COMPOUNDS: dict[str, tuple[str, str]] = {}
"""Compound spellings ("kW·h", "N·m") -> (pint expression, kind): pint names them on first lookup, so
reading the table imports no pint."""


def _sections() -> dict[str, list[str]]:
    text = files("graphcite.language").joinpath("data/units.txt").read_text(encoding="utf-8")
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip() if not raw.startswith("#") else ""
        if not line.strip():
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        else:
            current.append(line.strip())
    return sections


def _load() -> None:
    sections = _sections()
    for row in sections["units"]:
        canonical, kind, sensitive, insensitive = row.split("|")
        entry = UnitEntry(canonical, kind)
        for spelling in sensitive.split():
            _CS[spelling.replace("_", " ")] = entry
        for spelling in insensitive.split():
            _CI[spelling.replace("_", " ").lower()] = entry
    for row in sections["currencies"]:
        code, spellings = row.split("|")
        factor = 1.0
        if ":" in code:
            code, minor = code.split(":")
            factor = float(minor)
        CURRENCY_CODES.add(code)
        entry = UnitEntry(code, "money", factor)
        for spelling in spellings.split():
            _CI.setdefault(spelling.replace("_", " ").lower(), entry)
    CURRENCY_CODES.update(_MORE_CODES.split())
    for symbol, code in CURRENCY_SYMBOLS.items():
        CURRENCY_CODES.add(code)
        _CS.setdefault(symbol, UnitEntry(code, "money"))
    for row in sections["compounds"]:
        spelled, expression, kind = row.split("|")
        _CS.pop(spelled, None)  # a compound spelling wins over a unit row's
        _COMPOUNDS[spelled] = (expression, kind)
    for row in sections["counts"]:
        spelled, number = row.split("|")
        COUNT_WORDS[spelled.replace("_", " ").lower()] = float(number)
    for row in sections["prefixable"]:
        symbol, prefixes, caps = row.split("|")
        _PREFIXABLE[symbol] = (None if prefixes == "*" else frozenset(prefixes.split()), caps == "caps")
    for row in sections["after_article"]:
        ARTICLE_UNITS.update(row.split())


_load()
_PREFIXABLE_ENDINGS = tuple(_PREFIXABLE)
POWER_WORDS: dict[str, int] = {"square": 2, "sq": 2, "sq.": 2, "cubic": 3, "cu": 3, "cu.": 3}
MULTIWORD_HEADS = frozenset({*(key.split()[0].lower() for key in (*_CS, *_CI, *_COMPOUNDS) if " " in key),
                             *POWER_WORDS,
                             *(key.split()[0] for key in COUNT_WORDS)})
"""First words of the multi-word unit spellings ("degrees celsius", "metric tons", "cubic km")."""


def lookup_unit(spelling: str) -> UnitEntry | None:
    """The unit a spelling names ("ms", "Kilometres", "degrees celsius", "USD", "TeV"), or None.

    Case matters for short symbols (MB is a megabyte, Mb a megabit, m a metre, M a million) and not
    for words; inner whitespace is collapsed. Spellings the data file lacks go to :func:`unit_from_pint`.
    """
    key = " ".join(spelling.split()) if " " in spelling or "\u00a0" in spelling else spelling
    found = _CS.get(key) if key not in _COMPOUNDS else _compound(key)
    if found is None:
        found = _CI.get(key.lower())
    if found is None and " " not in key:
        found = unit_from_pint(key)
        if found is None and len(key) > 1 and key[-1] in _AREA_VOLUME:  # "km3", "mi²": a length to a power
            base = lookup_unit(key[:-1])
            if base is not None and base.unit is not None and base.kind == "quantity" and _is_length(base.unit):
                found = powered(base.unit, _AREA_VOLUME[key[-1]])
    return found


_AREA_VOLUME = {"2": 2, "3": 3, "²": 2, "³": 3}


@lru_cache(maxsize=64)
def _compound(spelled: str) -> UnitEntry:
    """The entry of a compound spelling of the data file, its unit named by pint."""
    expression, kind = _COMPOUNDS[spelled]
    return UnitEntry(str(unit_registry().parse_units(expression)) if "_" not in expression else expression, kind)


@lru_cache(maxsize=256)
def _is_length(unit: str) -> bool:
    try:
        ureg = unit_registry()
        return ureg.Unit(unit).dimensionality == ureg.Unit("meter").dimensionality
    except Exception:
        return False


def _kind(unit: str) -> str:
    ureg = unit_registry()
    dims = ureg.Unit(unit).dimensionality
    if dims == ureg.Unit("second").dimensionality:
        return "duration"
    if dims == ureg.Unit("kelvin").dimensionality:
        return "temperature"
    return "quantity"


@lru_cache(maxsize=2048)
def unit_from_pint(token: str) -> UnitEntry | None:
    """A unit pint itself resolves from ``token``: "TeV", "mGy", "EB", "Ma"; "exabytes", "kibibyte".

    Symbols must carry a capital letter and be a prefix symbol on a symbol from the data file's
    ``[prefixable]`` list (binary prefixes on bytes only; a capitalised word such as "Kim" is a
    name); names must be a prefix name on a unit name (optionally plural). Anything pint reads in
    two ways ("kt": knot or kilotonne) is left alone.
    """
    if len(token) < 2 or not token.isalpha():
        return None
    # what the checks below would refuse whatever pint reads, told without pint ("times", "Kim", "USA")
    if token.islower():
        if len(token) < 6:
            return None
    elif (len(token) > 2 and token[1:].islower()) or not token.endswith(_PREFIXABLE_ENDINGS):
        return None
    ureg = unit_registry()
    try:
        readings = ureg.parse_unit_name(token)
    except Exception:  # pragma: no cover - pint raises only on malformed input
        return None
    if len(readings) != 1:
        return None
    prefix, name, _ = readings[0]
    definition = ureg._units.get(name)
    if definition is None:
        return None
    prefix_symbol = ureg._prefixes[prefix].symbol if prefix else ""
    if token.islower():
        if not prefix or len(token) < 6 or token.rstrip("s") not in (prefix + name, prefix + name.replace("_", "")):
            return None
    elif not _prefix_allowed(token, prefix, prefix_symbol, definition.symbol):
        return None
    unit = prefix + name
    try:
        return UnitEntry(str(ureg.Unit(unit)), _kind(unit))
    except Exception:  # pragma: no cover
        return None


def _prefix_allowed(token: str, prefix: str, prefix_symbol: str, symbol: str) -> bool:
    """Is ``token`` (prefix symbol + unit symbol) written the way the data file allows for that unit?"""
    rule = _PREFIXABLE.get(symbol)
    if rule is None or token != prefix_symbol + symbol or prefix_symbol in _RARE_PREFIXES:
        return False
    prefixes, caps = rule
    if (prefixes is not None and prefix_symbol not in prefixes) or (token.isupper() and not caps):
        return False
    if len(token) > 2 and token[1:].islower():
        return False  # a capitalised word ("Kim") is a name
    return not prefix.endswith("bi") or symbol == "B"  # binary prefixes go on bytes only


_POWER = lazy(r"(?:\^|\*\*)(?P<caret>[-−]?[1-4])(?![\d.])|(?P<neg>[-−]1)(?![\d.])|(?P<sup>⁻?[¹²³⁴])"
                    r"|[ \u00a0](?P<word>squared|cubed)\b")
_SUPERSCRIPTS = {"¹": 1, "²": 2, "³": 3, "⁴": 4}


def power_after(text: str, pos: int) -> tuple[int, int] | None:
    """(exponent, end) of a power written right after a unit at ``pos``: "^3", "-1", "⁻¹", " squared"."""
    match = _POWER.match(text, pos)
    if not match:
        return None
    if match.group("caret"):
        return int(match.group("caret").replace("−", "-")), match.end()
    if match.group("neg"):
        return -1, match.end()
    if match.group("sup"):
        sup = match.group("sup")
        return (-1 if sup[0] == "⁻" else 1) * _SUPERSCRIPTS[sup[-1]], match.end()
    return (2 if match.group("word") == "squared" else 3), match.end()


@lru_cache(maxsize=512)
def powered(unit: str, exponent: int) -> UnitEntry | None:
    """``unit`` raised to ``exponent`` as a pint canonical name ("kilometer ** 3", "1 / second")."""
    if exponent == 1:
        return None
    try:
        raised = unit_registry().Unit(unit) ** exponent
    except Exception:
        return None
    name = str(raised)
    return UnitEntry(name, _kind(name) if exponent > 0 else "quantity")
