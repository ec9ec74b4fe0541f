"""The compiled patterns and word sets the value scanner reads: what may follow a number, which words
mark a date, a version or an identifier, and what a range or a compound looks like. Kept apart so
that each reader module (:mod:`.extract`, :mod:`.unitreading`, :mod:`.datereading`) stays small."""

from __future__ import annotations

import re

from graphcite.language.values.lazyre import lazy
from graphcite.language.values.numbers import number_anchor_pattern
from graphcite.language.values.units import ARTICLE_UNITS

__all__ = [
    "AGE",
    "AGE_STARTS",
    "AMPM_FIRST",
    "AND_HALF",
    "AND_NUMBER",
    "ARTICLE_ANCHORS",
    "CHANGE_VERBS",
    "CLOSERS",
    "COMPOUNDABLE",
    "COMPOUND_STARTS",
    "CONTEXT_UNITS",
    "CURRENCY_BEFORE",
    "CURRENCY_PREFIX",
    "DAY_MONTH",
    "DAY_YEAR",
    "DIGITS_ONLY",
    "DIGIT_ANCHOR",
    "DIGIT_NEXT",
    "FRACTIONS",
    "IDENTIFIER_LABELS",
    "LEFT_KEYWORDS",
    "MINOR_AFTER",
    "MONEY_CONTEXT",
    "MONEY_FACTORS",
    "MONEY_PER",
    "MONEY_SCALE",
    "MONTHS",
    "MONTH_ABBR",
    "MONTH_ABBR_SET",
    "MONTH_NAMES",
    "MONTH_NAMES_SET",
    "NEG_WORD",
    "NOT_COUNTED",
    "NOT_PLAIN_AFTER",
    "ORDINAL_SUFFIXES",
    "PART_SEP",
    "PERCENT_OF",
    "PLAIN_KINDS",
    "PLAIN_QUANTITY",
    "PLUS_MINUS",
    "PLUS_MINUS_STARTS",
    "QUARTER_YEAR",
    "RANGE_SEP",
    "RANGE_STARTS",
    "REVISION_WORDS",
    "SCALE_WORD_AFTER",
    "SIZE_WORDS",
    "SLASH_UNIT",
    "SMALL_LENGTHS",
    "SP",
    "SPACES",
    "SPECIAL",
    "SPECIAL_NEXT",
    "TEMPERATURE_CONTEXT",
    "TIME_QUANT",
    "TOK",
    "TOKEN_REST",
    "UNIT_TOKENS",
    "URL",
    "VERSION_NUMBER",
    "VERSION_WORDS",
    "WORD_ANCHOR",
    "WORD_ANCHOR_LOWER",
    "YEARS_OLD",
    "YEAR_PREPS",
]

SP = "[ \u00a0\u202f]"
FRACTIONS = "½¼¾⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
DIGIT_ANCHOR = lazy("[0-9" + FRACTIONS + "]+")
ARTICLE_ANCHORS = tuple(sorted(w for w in ARTICLE_UNITS if w.isascii()))
WORD_ANCHOR = lazy(lambda: number_anchor_pattern(extra=ARTICLE_ANCHORS))
WORD_ANCHOR_LOWER = lazy(lambda: number_anchor_pattern(lowercase=True, extra=ARTICLE_ANCHORS), re.ASCII)
URL = lazy(r"(?:https?|ftp)://\S+|www\.\S+")
TOKEN_REST = lazy(r"[\w]*(?:[.:/\-][\w]+)*")

SPECIAL = lazy(r"""
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

MONTHS = {m.lower(): i + 1 for i, m in enumerate(
    [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ])}
MONTHS.update({"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                "oct": 10, "nov": 11, "dec": 12})
MONTH_NAMES = "January|February|March|April|May|June|July|August|September|October|November|December"
MONTH_ABBR = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
DAY_MONTH = lazy(r"(?:st|nd|rd|th)?" + SP + r"+(?:of" + SP + r"+)?(?P<m>" + MONTH_NAMES + "|"
                        + MONTH_ABBR + r")\.?(?:,?" + SP + r"+(?P<y>\d{4}))?(?![\w])")
DAY_YEAR = lazy(r"(?:st|nd|rd|th)?(?:,?" + SP + r"+(?P<y>\d{4}))?(?![\w])")
YEAR_PREPS = {"in": "exact", "as of": "exact", "since": "min", "by": "max", "until": "max", "till": "max",
               "before": "max", "after": "min", "from": "min", "during": "exact", "through": "exact",
               "circa": "approx", "early": "exact", "mid": "exact", "late": "exact", "of": "exact",
               "end of": "exact", "start of": "exact", "beginning of": "exact", "fy": "exact",
               "fiscal": "exact", "year": "exact", "for": "exact", "no later than": "max", "q1": "exact",
               "q2": "exact", "q3": "exact", "q4": "exact", "spring": "exact", "summer": "exact",
               "autumn": "exact", "fall": "exact", "winter": "exact"}
IDENTIFIER_LABELS = frozenset(
    [
        "section", "sections", "chapter", "chapters", "figure", "fig", "table", "step", "steps", "page",
        "pages", "line", "lines", "item", "items", "appendix", "article", "clause", "paragraph", "issue",
        "ticket", "rfc", "iso", "pr", "exercise", "exercises", "nr", "no", "room", "floor", "phase", "stage",
        "tier", "level", "footnote", "note", "grade", "row", "column", "col", "slide", "verse", "bug",
        "task", "story", "epic", "case", "cve",
    ])
VERSION_WORDS = frozenset({"version", "ver", "release"})
SPECIAL_NEXT = frozenset("-/.:'’")
AMPM_FIRST = frozenset("apAP")
SPACES = frozenset(" \u00a0\u202f")
CURRENCY_BEFORE = frozenset("$€£¥₹₩₽₿₺₪₫₱")
REVISION_WORDS = frozenset({"revision", "rev"})
CHANGE_VERBS = frozenset(
    [
        "went", "rose", "fell", "increased", "decreased", "dropped", "grew", "reduced", "cut", "raised",
        "changed", "moved", "jumped", "climbed", "declined", "slashed", "lowered", "bumped", "extended",
        "shortened", "shrank", "improved", "degraded", "doubled", "halved", "up", "down",
    ])
TEMPERATURE_CONTEXT = lazy(r"(?i)temperat|thermostat|\bwarm|\bcold|\bhot\b|\bheat|\bcool|freez|boil|"
                                  r"weather|outside|\boven|fever|celsius|fahrenheit|climate|chill|frost")
MONEY_CONTEXT = lazy(r"(?i)\b(?:profit|revenue|cost|price|paid|pay|fine|fined|sales|income|budget|"
                            r"salary|spent|spend|earn|worth|fund|loan|debt|sterling|invest|bid|deal|charge)")
TOK = r"[°º][A-Za-z]*|[℃℉%‰″\"$€£¥₹₩₽₿₺₪₫₱元₡₾₭٪]|[A-Za-zµμ][A-Za-z0-9µμ²³]*(?:[·⋅][A-Za-z]+)?"
UNIT_TOKENS = lazy(r"(?P<sep>[ \u00a0\u202f]?|-|[ \u00a0]?[(\[{<])(?P<t1>" + TOK + r")(?:(?P<s2>"
                          + SP + r"{1,2})(?P<t2>" + TOK + r")(?:(?P<s3>" + SP + r"{1,2})(?P<t3>" + TOK
                          + r"))?)?")
CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
RANGE_SEP = lazy("[-–]" + SP + r"+(?P<h>to|through)" + SP + "+|" + SP + r"?[-–—]" + SP + r"?|" + SP
                        + r"+(?P<w>to|through|thru|and)" + SP + r"+")
CURRENCY_PREFIX = lazy(
    r"(?:(?P<code>M?[A-Z]{3})" + SP + r"?|(?P<dp>(?i:u\.s\.?|us|usd|mex|mxn|hkd?|nzd?|aud|au|cad|ca|c|sgd))"
    + SP + r"?\$" + SP + r"?|(?P<dpcs>[ARS])\$" + SP + r"?|(?P<sym>[$€£¥₹₩₽₿₺₪₫₱])" + SP + r"?)$")
SCALE_WORD_AFTER = lazy(SP + r"+(?P<w>million|billion|thousand|trillion|mn|bn)\b", re.IGNORECASE)
MONEY_SCALE = lazy(r"(?P<m>m|mm|MM|mn|M)(?![A-Za-z0-9])|(?P<b>bn|b|B|bln)(?![A-Za-z0-9])"
                          r"|(?P<k>k|K)(?![A-Za-z0-9])|(?P<t>T|tn|trn)(?![A-Za-z0-9])")
MONEY_FACTORS = {"m": 1e6, "b": 1e9, "k": 1e3, "t": 1e12}
PLUS_MINUS = lazy(SP + r"*(?:±|\+/-|\+-)" + SP + r"*(?=\d|\.\d)")
PLUS_MINUS_STARTS = (" ±", "±", " +/-", "+/-", " +-", "\u00a0±")
SLASH_UNIT = lazy(SP + "?/" + SP + r"?(?P<t>[A-Za-zµμ]+)(?P<p>[23²³](?!\w|\.\d))?(?![A-Za-z])")
MONEY_PER = lazy("(?:" + SP + "*/" + SP + "*|" + SP + "+per" + SP + "+)(?P<u>[A-Za-zµμ]+)(?![A-Za-z0-9])")
PART_SEP = lazy(r"(?:,?" + SP + r"+and|,)?" + SP + r"+")
MINOR_AFTER = lazy(r"(?:,?" + SP + r"+and)?" + SP + r"+")
AGE_STARTS = (" old", "-old", "\u00a0old", " of age", "  old")
RANGE_STARTS = ("-", "–", "—", " -", " –", " —", " to ", " and ", " through ", " thru ", "\u00a0to ", "\u00a0-")
COMPOUND_STARTS = (" 0", " 1", " 2", " 3", " 4", " 5", " 6", " 7", " 8", " 9", ", ", " and ", "0", "1", "2", "3",
                    "4", "5", "6", "7", "8", "9")
PLAIN_QUANTITY = lazy(r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?P<d>\.\d+)?(?![\d,.]\d)(?P<sp> ?)"
                             r"(?P<u>[A-Za-zµμ][A-Za-z0-9µμ²³]*|%)(?=[\s.,;:!?)\]]|$)")
NOT_COUNTED = frozenset({"bn", "mn", "mil", "bln", "tln", "dozen", "dozens", "dz", "dzs", "doz", "dozs", "yo", "y"})
PLAIN_KINDS = frozenset({"duration", "quantity", "percent"})
CONTEXT_UNITS = frozenset({"pound", "kelvin", "degree", "inch"})
ORDINAL_SUFFIXES = ("st", "nd", "rd", "th", " of ")
DIGIT_NEXT = lazy(SP + r"?\d")
YEARS_OLD = lazy(r"y\.?o\.?(?![A-Za-z])|yo\b")
AGE = lazy(r"(?:" + SP + r"+|-)old\b|" + SP + r"+of" + SP + r"+age\b")
AND_NUMBER = lazy(SP + r"+(?:and|&)" + SP + r"+(?=[a-z])")
FRACTION_OF_UNIT = lazy(SP + r"+of" + SP + r"+an?" + SP + r"+")  # "three quarters| of an |hour"
AND_HALF = lazy(SP + r"+and" + SP + r"+(?:a" + SP + r"+)?half\b", re.IGNORECASE)
TIME_QUANT = lazy(
    r"(?:(?P<frac>\b(?P<num>[Aa]|[Oo]ne|[Tt]wo|[Tt]hree)" + SP + r"+(?P<den>quarter|third|fifth|tenth)s?" + SP
    + r"+of" + SP + r"+an?)"
    r"|(?P<half>\b(?:[Aa]" + SP + r"+)?[Hh]alf(?:" + SP + r"+an?)?)|(?P<one>\b(?:[Aa]n?|[Aa]nother))"
    r"|(?P<all>\b(?:[Aa]ll|[Ff]ull|[Ww]hole|[Ee]ntire))|(?P<couple>\b(?:[Aa]" + SP + r"+)?[Cc]ouple(?:"
    + SP + r"+of)?)|(?P<few>\b(?:[Aa]" + SP + r"+)?[Ff]ew|\b[Ss]everal|\b[Ss]ome))(?:" + SP + r"+|-)$")
PERCENT_OF = lazy(r"(?:^|[.:;(]" + SP + r"*|^" + SP + r"*)(?P<p>(?i:percents?|per" + SP
                         + r"cent)" + SP + r"+of" + SP + r"+)$")
NEG_WORD = lazy(r"\b(?i:minus|negative)" + SP + r"+$")
NOT_PLAIN_AFTER = ("/", " /", " per ", " a ", " an ", "\u00a0per ", " old", "-old", " of age", "-", "–", "—", " -",
                     " –", " —", " to ", " and ", " through ", " thru ", "\u00a0to ", " million", " billion",
                     " thousand", " trillion", " (", " squared", " cubed", "^", "−", "⁻", " ±", " +/-")
SMALL_LENGTHS = {"in": "inch", "pm": "picometer", "am": "attometer"}
SIZE_WORDS = frozenset({"thick", "long", "wide", "high", "tall", "deep", "across", "diameter", "square", "thickness",
                         "length", "width", "height", "depth"})
COMPOUNDABLE = frozenset({"year", "month", "week", "day", "hour", "minute", "second", "millisecond", "foot",
                           "inch", "pound", "ounce"})

DIGITS_ONLY = lazy(r"\d+")
QUARTER_YEAR = lazy(r"([1-4])" + SP + r"+(\d{4})(?![\w])")
VERSION_NUMBER = lazy(r"\d+(?:\.\d+){0,3}(?![\w])|\d+(?:\.\d+){0,3}(?=[-+][0-9A-Za-z])")
MONTH_NAMES_SET = frozenset(MONTH_NAMES.split("|"))
MONTH_ABBR_SET = frozenset(MONTH_ABBR.split("|"))
LEFT_KEYWORDS = frozenset({*VERSION_WORDS, *REVISION_WORDS, *IDENTIFIER_LABELS, "v",
                            *(m.lower() for m in MONTH_NAMES_SET | MONTH_ABBR_SET)})
