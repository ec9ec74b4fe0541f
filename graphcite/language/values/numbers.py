"""Numbers, unit words and the words around a value: the lexical layer under :mod:`.values`.

Reads one number at a known position (digits with separators, decimals, fractions, scale words
and suffixes, or English number words), looks unit words up in one table whose canonical names are
pint's (ISO codes for money), and reads the cue words around a value (bound, role, the measured
thing, the counted noun). Nothing here scans a whole text except :func:`find_numbers`; the scanner
in ``values`` calls these helpers only where a cheap anchor (a digit or a number word) was found,
which is what keeps extraction fast on prose. The one pint registry, :func:`unit_registry` (also
:data:`ureg`), lives here, built on first use from definitions cached on disk; pint itself is imported
only then (a tenth of a second a command that converts no unit does not spend).
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from graphcite.language.values.lazyre import lazy

if TYPE_CHECKING:
    import pint

    ureg: pint.UnitRegistry

__all__ = [
    "NUMBER_WORDS",
    "SCALE_NEXT",
    "SCALE_WORDS",
    "TIME_UNIT_WORDS",
    "NumberToken",
    "find_numbers",
    "fraction_of_scale",
    "number_anchor_pattern",
    "parse_number_at",
    "unit_registry",
    "ureg",
]


_PERCENTAGE_POINT = "percentage_point = [percentage_point] = pp"


def _pint_data() -> Path:
    """The folder of pint's definition files (imports pint: only the registry's builders call this)."""
    import pint

    return Path(pint.__file__).parent


def _definition_lines() -> list[str]:
    """pint's default definitions with information as its own dimension and a decade of ten years.

    pint ships ``bit = []`` (so a megabyte would be "dimensionless" like a percent) and a logarithmic
    ``decade``; both are wrong for prose, so the definitions are read with those two lines changed.
    """
    lines = []
    for line in (_pint_data() / "default_en.txt").read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("@import"):
            continue
        if stripped == "bit = []":
            line = "bit = [information]"
        elif stripped.startswith("decade = 1"):
            line = "decade = 10 * year"
        lines.append(line)
    return lines


def build_registry_uncached() -> pint.UnitRegistry:
    """The registry built from the definitions in this process (what :func:`unit_registry` reads back from its
    cache): pint's constants, the changed default definitions, percentage points; no default unit system, so
    base units are pint's root units (a mass in grams)."""
    import pint

    registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=True)
    registry.load_definitions(_pint_data() / "constants_en.txt")
    registry.load_definitions(_definition_lines())
    registry.define(_PERCENTAGE_POINT)
    return registry


def registry_cache_folder() -> Path:
    """Where pint's parsed definitions are cached: ``$GRAPHCITE_CACHE`` or the user's cache directory, then
    ``graphcite/pint-<pint version>`` (a new pint gets a new folder; new definitions get a new file in it)."""
    import pint

    root = os.environ.get("GRAPHCITE_CACHE")
    if not root:
        import platformdirs

        root = str(platformdirs.user_cache_path("graphcite", appauthor=False))
    return Path(root).expanduser() / f"pint-{pint.__version__}"


def _cached_registry(folder: Path) -> pint.UnitRegistry:
    text = "\n".join([(_pint_data() / "constants_en.txt").read_text(encoding="utf-8"), *_definition_lines(),
                      _PERCENTAGE_POINT, ""])
    path = folder / f"definitions-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.txt"
    cold = not path.exists() or not any(folder.glob("*.pickle"))
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)  # another process writing the same file at once writes the same bytes
    registry = _registry_from(path, folder)
    # building the cache parses some prefixed units into the registry ("kilometer") that a registry read from
    # the cache holds only once asked for; read it back, so the first process holds what every later one does
    return _registry_from(path, folder) if cold else registry


def _registry_from(path: Path, folder: Path) -> pint.UnitRegistry:
    import pint

    registry = pint.UnitRegistry(path, cache_folder=folder, autoconvert_offset_to_baseunit=True)
    registry.default_system = None  # as build_registry_uncached: pint's root units, not mks (kilogram)
    return registry


@lru_cache(maxsize=1)
def unit_registry() -> pint.UnitRegistry:
    """The one pint registry of graphcite, built on first use.

    pint parses its definition files in a fifth of a second; the parsed definitions are cached on disk
    (:func:`registry_cache_folder`, pint's own ``cache_folder``), so later processes load them in a few
    milliseconds. The cached registry is the one :func:`build_registry_uncached` builds, unit for unit
    (``tests/language/test_unit_registry.py``); when the cache cannot be written or read, that is built.
    """
    try:
        return _cached_registry(registry_cache_folder())
    except Exception:  # an unwritable or damaged cache costs time, never a value
        return build_registry_uncached()


def __getattr__(name: str) -> pint.UnitRegistry:
    if name == "ureg":  # :data:`ureg`, built on first use (PEP 562)
        return unit_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------------------------
# Number words
# ---------------------------------------------------------------------------------------------

_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
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


def number_anchor_pattern(*, lowercase: bool = False, extra: tuple[str, ...] = ()) -> str:
    """Regex source that finds number words, scale words and time words (the word anchors).

    With ``lowercase`` the pattern only knows lowercase spellings: scanning ``text.lower()`` with it
    (compiled with ``re.ASCII``) is about twice as fast as scanning the text for two spellings.
    """
    words = [*NUMBER_WORDS, *SCALE_WORDS, "dozen", "half", "quarter", *TIME_UNIT_WORDS, *extra]
    if not lowercase:
        words += [w.capitalize() for w in words]
    return r"\b" + _trie_regex(sorted(set(words))) + r"\b"


# ---------------------------------------------------------------------------------------------
# Parsing one number
# ---------------------------------------------------------------------------------------------


class NumberToken(NamedTuple):
    """A number read at a position: ``text[start:end]`` spells ``value`` (a tuple: cheap to build)."""

    start: int
    end: int
    value: float
    words: bool = False
    integer: bool = True
    scaled: bool = False


_DIGITS = lazy(r"""
    (?P<mixed>\d{1,3})[ \u00a0]{1,2}(?P<mnum>\d{1,2})/(?P<mden>\d{1,3})(?![\d/])
  | (?P<fnum>\d{1,3})/(?P<fden>\d{1,3})(?![\d/])
  | (?P<int>\d{1,3}(?:,\d{3})+(?![\d])|\d{1,2}(?:,\d{2})+,\d{3}(?![\d])|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?!\d)
            |\d{1,3}(?:\ \d{3}){2,}(?!\d|[.,]\d)|\d+)
    (?P<dec>\.\d+(?![.\d]))?
    (?P<exp>[eE][-+]?\d{1,3}(?![\w.]))?
    (?P<pow>[x×·]10(?:\^|\*\*)[-+−]?\d{1,3}(?![\w.])|[x×·]10[-−]\d{1,3}(?![\w.])|[x×·]10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}
          |[x×·](?P<pbase>[2-9])(?:\^|\*\*)(?P<pexp>\d{1,2})(?![\w.]))?
    (?P<ufrac>[""" + _FRACTION_CHARS + r"""])?
""", re.VERBOSE)
_SCALE_AFTER = lazy(r"(?P<sfx>MM|mn|bn|mil|[kKMb])(?![A-Za-z0-9])|(?P<sp>[ \u00a0]+)(?P<word>"
                          r"(?i:hundred|thousand|million|billion|trillion|lakh|crore|bln|tln|dozens?|dzs?|dozs?))\b")
_SCALE_FIRST = frozenset("kKMmb")
_SCALE_WORD_PREFIXES = frozenset(["hu", "th", "mi", "bi", "tr", "la", "cr", "bl", "tl", "do", "dz"])
_SUFFIX_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "MM": 1e6, "mn": 1e6, "mil": 1e6, "bn": 1e9, "b": 1e9}
_SHORT_SCALES = {"bln": 1e9, "tln": 1e12}
_WORD = lazy(r"[A-Za-z]+")
_GAP = lazy(r"[ \u00a0]+(?:and|&)[ \u00a0]+|[ \u00a0]*-[ \u00a0]*|,[ \u00a0]+|[ \u00a0]+")
_FRACTION_TAIL = lazy(r"(?P<gap>[ \u00a0]*-[ \u00a0]*|[ \u00a0]+)(?P<den>[A-Za-z]+)\b(?!-)")
_AND_PART = lazy(r"[ \u00a0]+and[ \u00a0]+(?:(?P<a>an?)[ \u00a0]+)?(?P<num>[A-Za-z]+)"
                       r"(?:(?P<gap>[ \u00a0]*-[ \u00a0]*|[ \u00a0]+)(?P<den>[A-Za-z]+))?\b")
_POINT = lazy(r"[ \u00a0]+point((?:[ \u00a0]+(?:zero|nought|naught|oh|one|two|three|four|five|six|seven|eight"
                    r"|nine))+|[ \u00a0]+[A-Za-z]+(?:-[A-Za-z]+)?)\b", re.IGNORECASE)
SCALE_NEXT = lazy(r"[ \u00a0]+(hundred|thousand|million|billion|trillion)\b", re.IGNORECASE)
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


def _denominator(word: str, numerator: float) -> int | None:
    """The denominator a fraction word names ("thirds" -> 3), checking number agreement."""
    den = _FRACTION_WORDS.get(word.lower())
    if den is None:
        return None
    plural = (word.lower().endswith("s") and word.lower() not in ("halves",)) or word.lower() == "halves"
    if (numerator == 1) == plural and not (numerator == 1 and word.lower() == "half"):
        return None if numerator == 1 else den if not plural and word.lower() == "half" else None
    return den


def _parse_words(text: str, pos: int) -> NumberToken | None:
    """English number words from ``pos``: "twenty-one", "two hundred and five", "one and a half",
    "three quarters", "five point two", "two and a half million"."""
    total = 0.0
    current = 0.0
    small = 0.0  # the units/tens since the last hundred or scale, for "two dozen" and fractions
    last: str | None = None
    last_big = float("inf")
    end = pos
    match = _WORD.match(text, pos)
    gap_kind = ""
    before_comma: tuple[float, float, float, str | None, float, int] | None = None
    scaled_after_comma = False
    while match:
        word = match.group().lower()
        cls = _word_class(word)
        if cls is None or cls not in _NEXT_OK[last]:
            break
        if gap_kind == "and" and not (last in ("hundred", "big") and cls in ("unit", "teen", "tens")):
            break
        if gap_kind == "-" and not (last == "tens" and cls == "unit"):
            break
        if gap_kind == "," and not (last == "big" and cls in ("unit", "teen", "tens")):
            break
        if before_comma is not None and cls == "big" and SCALE_WORDS[word] >= last_big:
            # "one thousand, two thousand": a list, not "one thousand, two"; undo the comma
            total, current, small, last, last_big, end = before_comma
            break
        if cls in ("unit", "teen", "tens"):
            current += NUMBER_WORDS[word]
            small += NUMBER_WORDS[word]
        elif cls == "hundred":
            current = (current or 1) * 100
            small = 0
        elif cls == "big":
            scale = SCALE_WORDS[word]
            if scale >= last_big:
                if total:
                    break
                total = (total + (current or 1)) * scale
            else:
                total += (current or 1) * scale
            last_big = scale
            current = small = 0
        else:
            current = current - small + (small or 1) * 12
            small = 0
        if cls in ("hundred", "big"):
            scaled_after_comma = True
        end = match.end()
        last = cls
        gap = _GAP.match(text, end)
        if not gap:
            break
        gap_text = gap.group()
        gap_kind = ("and" if "and" in gap_text or "&" in gap_text else "-" if "-" in gap_text
                    else "," if "," in gap_text else " ")
        if gap_kind == ",":  # "three million, two hundred and forty": read on only while smaller
            before_comma = (total, current, small, last, last_big, end)
            scaled_after_comma = False
        match = _WORD.match(text, gap.end())
    if last is None:
        return None
    if before_comma is not None and not scaled_after_comma:  # "two million, three of them"
        total, current, small, last, last_big, end = before_comma
    value = total + current
    integer = True
    fraction = _FRACTION_TAIL.match(text, end)
    if fraction and last in ("unit", "teen", "tens"):
        den = _denominator(fraction.group("den"), small)
        if den:  # "two thirds", "one-eighth", "twenty fifths", "three quarters billion"
            value = value - small + small / den
            end, integer = fraction.end(), False
            scale = SCALE_NEXT.match(text, end) if last != "big" and total == 0 else None
            if scale:
                value *= SCALE_WORDS[scale.group(1).lower()]
                end = scale.end()
    point = _POINT.match(text, end) if integer else None
    if point:
        digits = ""
        for word in re.split(r"[ \u00a0-]+", point.group(1).strip().lower()):
            if word in NUMBER_WORDS and NUMBER_WORDS[word] < 100:
                digits += str(NUMBER_WORDS[word])
            elif word == "oh":
                digits += "0"
        if digits:
            value += float("0." + digits)
            end, integer = point.end(), False
    part = _AND_PART.match(text, end) if integer else None
    if part:
        if part.group("a"):
            numerator, den_word, part_end = 1.0, part.group("num"), part.end("num")
        else:
            numerator = float(NUMBER_WORDS.get(part.group("num").lower(), 0))
            den_word, part_end = part.group("den"), part.end("den")
        den = _denominator(den_word, numerator) if den_word and numerator else None
        if den:
            value += numerator / den * (last_big if last == "big" else 1)
            end, integer = part_end, False
            scale = SCALE_NEXT.match(text, end) if last != "big" else None
            if scale:  # "five and a half million"
                value *= SCALE_WORDS[scale.group(1).lower()]
                end = scale.end()
    return NumberToken(pos, end, value, words=True, integer=integer and value.is_integer())


_SIMPLE_NUMBER = lazy(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d/eE^x×\u00a0\u202f\u2009"
                            + _FRACTION_CHARS + r"]|[.,]\d| \d)")


_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−", "0123456789--")


def _power_of_ten(written: str) -> int:
    """The exponent after "×10": "^-5", "**3", "−5", "⁻⁵"."""
    return int(written.lstrip("^*").translate(_SUPERSCRIPT_DIGITS))


def _parse_digits(text: str, pos: int) -> NumberToken | None:
    simple = _SIMPLE_NUMBER.match(text, pos)
    if simple:  # the common case: "200", "1,250", "12.5"
        whole, decimals = simple.groups()
        if decimals:
            return NumberToken(pos, simple.end(), float(whole.replace(",", "") + decimals), False, False)
        return NumberToken(pos, simple.end(), float(whole.replace(",", "")))
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
        if (den in _ALLOWED_DENOMS and 0 < num < den) or (num == 1 and den > 1 and text.startswith(" of ", match.end())):
            return NumberToken(pos, match.end(), num / den, integer=False)  # "1/40 of the wavelength"
        return None
    digits = match.group("int")
    value = float(re.sub(r"[^\d]", "", digits))
    integer = True
    if match.group("dec"):
        value += float("0" + match.group("dec"))
        integer = False
    exponent = int(match.group("exp")[1:]) if match.group("exp") else 0
    if match.group("pbase"):  # "8x2^10"
        value *= float(int(match.group("pbase")) ** int(match.group("pexp")))
    elif match.group("pow"):
        exponent += _power_of_ten(match.group("pow")[3:])
        integer = False
    if exponent:
        if abs(exponent) > 300:
            return None
        value = float(f"{value!r}e{exponent}")  # exact decimal: 2.48e-5, not 2.48 * 1e-5
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
    if token is None or not scale or token.end >= len(text):
        return token
    after = text[token.end]
    if after not in _SCALE_FIRST and not (
            after in " \u00a0" and text[token.end + 1:token.end + 3].lower() in _SCALE_WORD_PREFIXES):
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
        factor = 12.0 if word.startswith("d") else _SHORT_SCALES.get(word) or SCALE_WORDS[word]
    return NumberToken(token.start, match.end(), token.value * factor, words=token.words,
                       integer=(token.value * factor).is_integer(), scaled=True)


_FIND_ANCHORS = lazy(lambda: r"[0-9" + _FRACTION_CHARS + r"]+|" + number_anchor_pattern())
_NEGATIVE_WORD = lazy(r"(?i:minus|negative)[ \u00a0]+$")
_FRACTION_OF_SCALE = lazy(r"(?i:(?P<a>an?[ \u00a0]+)?(?P<f>half|quarter)(?:[ \u00a0]+an?)?[ \u00a0]+"
                                r"(?P<s>dozen|hundred|thousand|million|billion|trillion))\b")


def fraction_of_scale(text: str, pos: int) -> NumberToken | None:
    """"half a million", "a quarter million", "half a dozen" starting at ``pos``."""
    match = _FRACTION_OF_SCALE.match(text, pos)
    if not match:
        return None
    scale = 12.0 if match.group("s").lower() == "dozen" else SCALE_WORDS[match.group("s").lower()]
    part = 0.5 if match.group("f").lower() == "half" else 0.25
    return NumberToken(pos, match.end(), part * scale, words=True)


def find_numbers(text: str) -> list[NumberToken]:
    """Every plain number in ``text`` (digits or words), without units: the number layer alone.

    Numbers glued to letters ("180ml", "4th", "x86") are not plain numbers and are skipped. Used to
    score this layer against outside number specs; ``values.extract_values`` is what ingest calls.
    """
    found: list[NumberToken] = []
    floor = 0
    for anchor in _FIND_ANCHORS.finditer(text):
        pos = anchor.start()
        if pos < floor:
            continue
        word = anchor.group().lower() if text[pos].isalpha() else ""
        if word in TIME_UNIT_WORDS:
            continue
        prev = text[pos - 1] if pos else ""
        if prev.isalnum() or prev == "_" or (prev in ",." and pos > 1 and text[pos - 2].isdigit()):
            floor = anchor.end()
            continue
        start = pos
        if word in ("half", "quarter", "dozen", *SCALE_WORDS):
            article = pos >= 2 and text[pos - 2:pos].lower() in ("a ",) and (pos == 2 or not text[pos - 3].isalnum())
            token = fraction_of_scale(text, pos - 2 if article else pos)
            if token is None and article and word == "half":
                token = NumberToken(pos - 2, anchor.end(), 0.5, words=True, integer=False)
            elif token is None and word == "half":
                token = NumberToken(pos, anchor.end(), 0.5, words=True, integer=False)
            elif token is None and article and word != "quarter":
                base = parse_number_at(text, pos) if word == "hundred" else None
                value = 12.0 if word == "dozen" else SCALE_WORDS[word]
                token = NumberToken(pos - 2, anchor.end(), value, words=True)
                scaled = SCALE_NEXT.match(text, anchor.end())
                if base is None and scaled and word == "hundred":
                    token = NumberToken(pos - 2, scaled.end(), 100 * SCALE_WORDS[scaled.group(1).lower()], words=True)
            if token is None:
                continue
        else:
            token = parse_number_at(text, pos)
        if token is None:
            continue
        if not token.words and token.end < len(text) and (text[token.end].isalpha() or text[token.end] == "^"):
            floor = token.end + 1
            continue
        value = token.value
        if token.words and token.value == 1 and text[token.start:token.end].lower() == "one":
            nxt = text[token.end:token.end + 5].lower()
            if nxt.startswith((" of", " you", " do", " is", " mor", " las", " anot")) or prev.isalpha():
                floor = token.end
                continue
        start = token.start
        if start == pos:
            if pos and text[pos - 1] in "-−" and (pos < 2 or not text[pos - 2].isalnum()):
                start, value = pos - 1, -value
            elif pos and text[pos - 1] == "." and (pos < 2 or not text[pos - 2].isalnum()) and not token.words:
                digits = re.match(r"\d+", text[pos:])
                if digits:
                    start, token = pos - 1, NumberToken(pos, pos + digits.end(), float("0." + digits.group()),
                                                        integer=False)
                    value = token.value
            else:
                neg = _NEGATIVE_WORD.search(text, max(0, pos - 12), pos)
                if neg and (neg.start() == 0 or not text[neg.start() - 1].isalnum()):
                    start, value = neg.start(), -value
        found.append(NumberToken(start, token.end, value, words=token.words, integer=token.integer,
                                 scaled=token.scaled))
        floor = token.end
    return found

