"""The words around a value: the cue words that give a value its bound, role, measured thing and
counted noun, and the pint helpers for canonical units. Unit spellings themselves live in
:mod:`.units` (re-exported here). Read by the scanner in :mod:`.extract` only where a number was found."""

from __future__ import annotations

import re
from functools import lru_cache

from graphcite.language.nlp import lemma
from graphcite.language.values.lazyre import lazy
from graphcite.language.values.numbers import NUMBER_WORDS, unit_registry
from graphcite.language.values.units import (
    CURRENCY_CODES,
    CURRENCY_DOLLAR_PREFIXES,
    CURRENCY_SYMBOLS,
    MULTIWORD_HEADS,
    UnitEntry,
    lookup_unit,
)

__all__ = [
    "CURRENCY_CODES",
    "CURRENCY_DOLLAR_PREFIXES",
    "CURRENCY_SYMBOLS",
    "MULTIWORD_HEADS",
    "PER_STARTS",
    "PER_TIME",
    "RATE_ABBREVIATIONS",
    "UnitEntry",
    "bound_cue_end",
    "bound_cue_start",
    "counted_noun",
    "lookup_unit",
    "prev_word",
    "read_context",
]


# ---------------------------------------------------------------------------------------------
# Words around a value: bound and role cues, the measured thing, the counted noun
# ---------------------------------------------------------------------------------------------

_SP = "[ \u00a0\u202f]"
_CUES: dict[str, tuple[str | None, str | None, bool]] = {}


def _cue(phrases: str, bound: str | None, role: str | None, links: bool) -> None:
    for phrase in phrases.split("|"):
        _CUES[" ".join(phrase.split())] = (bound, role, links)


_cue("at most|no more than|not more than|a maximum of|maximum of|max of|a max of|max|maximum|up to|"
     "not to exceed|not exceeding|must not exceed|may not exceed|cannot exceed|can't exceed|should not exceed|"
     "does not exceed|never exceeds|never exceed|capped at|limited to|a limit of|limit of|limit is|limit :|"
     "a cap of|cap of|no longer than|no later than|at the most|<=|≤|not longer than|maximum is|max is|"
     "maximum :|max :|upper limit of|an upper limit of|up to a maximum of", "max", "limit", True)
_cue("at least|no less than|not less than|no fewer than|not fewer than|a minimum of|minimum of|min of|"
     "minimum|min|>=|≥|no shorter than|no sooner than|minimum is|min is|minimum :|min :|lower limit of|"
     "a lower limit of", "min", "limit", True)
_cue("less than|fewer than|under|below|within|shorter than|lower than|<|smaller than|just under|"
     "well under|well below|younger than|lighter than", "max", None, False)
_cue("more than|over|above|greater than|in excess of|exceeding|exceeds|exceeded|longer than|higher than|>|"
     "larger than|just over|upwards of|well over|well above|older than|heavier than|beyond", "min", None, False)
_cue("about|around|approximately|approx|roughly|nearly|almost|some|circa|ca|~|≈|an estimated|estimated|"
     "close to|on the order of|just about|or so|an approximate|approximate", "approx", None, False)
_cue("target of|a target of|targets|targeting|target is|target :|target =|aim for|aims for|aiming for|"
     "aim of|an aim of|goal of|a goal of|goal is|objective of|an objective of|targeted at|slo of|an slo of|"
     "slo is|slo :", None, "target", True)
_cue("defaults to|default to|default of|a default of|default is|default :|by default|default value of|"
     "default value is|default =|defaulting to|default value :|a default value of|defaults :",
     None, "default", True)

_LINKS: dict[str, str | None] = {}
for _phrase in [
    "was", "were", "measured", "measured at", "observed", "observed at", "took", "lasted", "reached",
    "peaked at", "averaged", "recorded", "clocked", "came in at", "hit", "spent", "totaled", "totalled",
    "stood at", "rose to", "fell to", "dropped to", "increased to", "decreased to", "grew to", "climbed to",
    "has been", "had been", "were measured at", "was measured at", "was observed at", "was recorded at",
    "saw", "logged", "needed", "required",
]:
    _LINKS[_phrase] = "observed"
for _phrase in [
    "is", "are", "be", "of", ":", "=", "equals", "equal to", "set to", "configured to", "configured at",
    "is set to", "are set to", "stays at", "remains at", "stay at", "remain at", "is now", "are now",
]:
    _LINKS[_phrase] = None
_MODIFIERS: dict[str, tuple[str | None, str]] = {
    "maximum": ("max", "limit"), "max": ("max", "limit"), "minimum": ("min", "limit"), "min": ("min", "limit"),
    "default": (None, "default"), "target": (None, "target"), "targeted": (None, "target"),
    "limit": ("max", "limit"), "p50": (None, "observed"), "p90": (None, "observed"), "p95": (None, "observed"),
    "p99": (None, "observed"), "p999": (None, "observed"), "median": (None, "observed"),
    "average": (None, "observed"), "mean": (None, "observed"), "peak": (None, "observed"),
    "observed": (None, "observed"), "measured": (None, "observed"), "actual": (None, "observed")}
_ROLE_RANK = {"limit": 3, "target": 3, "default": 3, "observed": 1}
_AUX = frozenset([
    "must", "should", "will", "would", "can", "could", "may", "might", "shall", "stay", "stays", "stayed",
    "remain", "remains", "remained", "be", "is", "are", "was", "were", "been", "being", "has", "have", "had",
    "not", "never", "always", "typically", "usually", "currently", "now", "still", "also", "generally",
    "normally", "kept", "keep", "keeps", "set", "capped", "limited", "configured", "fixed", "held", "holds",
    "hold", "allowed", "permitted", "expected", "required", "outside", "inside", "today", "overall", "again",
])
_MEASURE_STOP = frozenset([
    "a", "an", "the", "and", "or", "but", "if", "it", "its", "they", "them", "their", "we", "you", "he",
    "she", "i", "this", "that", "these", "those", "there", "here", "which", "who", "what", "of", "in", "on",
    "at", "to", "for", "with", "from", "by", "as", "into", "than", "then", "so", "also", "only", "just",
    "each", "every", "all", "any", "some", "no", "not", "do", "does", "did", "done", "our", "your", "his",
    "her", "my", "me", "us", "one", "two", "three", "about", "around", "over", "under",
])
_NOT_FOUND = object()
_NO_CONTEXT: tuple[None, None, None] = (None, None, None)
_RIGHT_STARTS = (" of ", "\u00a0of ", " max", " Max", " min", " Min", " (max", " (min", " or ", " at ", "max", "min",
                 " (", "(")
PER_STARTS = ("/", " /", " per ", " a ", " an ", "\u00a0per ")
_CUE_LAST = frozenset(phrase.split()[-1] for phrase in _CUES)
_LINK_LAST = frozenset(phrase.split()[-1] for phrase in _LINKS)
_ONE_WORD_CUES = frozenset(p for p in [*_CUES, *_LINKS] if " " not in p)
_TWO_WORD_TAILS = frozenset(" ".join(p.split()[-2:]) for p in [*_CUES, *_LINKS] if " " in p)
_RIGHT = lazy(
    r"(?:" + _SP + r"*\(?" + _SP + r"*(?:(?P<max>max(?:imum)?\b|at" + _SP + r"+most\b|or" + _SP
    + r"+(?:less|fewer|below|under|lower|shorter)\b)|(?P<min>min(?:imum)?\b|at" + _SP + r"+least\b|or" + _SP
    + r"+(?:more|longer|greater|above|higher)\b)))|" + _SP + r"+of" + _SP + r"+(?:the" + _SP + r"+|an?" + _SP
    + r"+)?(?P<of>[A-Za-z][A-Za-z-]*)", re.IGNORECASE)


def _suffix_match(tokens: list[str], n: int, table: dict, last_words: frozenset[str]) -> tuple[int, object] | None:
    """The longest phrase of ``table`` that ends the first ``n`` tokens: (its length, its value)."""
    if n == 0 or tokens[n - 1] not in last_words:
        return None
    for k in (4, 3, 2, 1):
        if k <= n:
            found = table.get(" ".join(tokens[n - k:n]), _NOT_FOUND)
            if found is not _NOT_FOUND:
                return k, found
    return None


_STRIP = ",;()[]{}\"“”'‘’*_`"


def _left_tokens(window: str) -> list[str]:
    """The last lowercased words of ``window``; a trailing ":" or "=" becomes a token of its own."""
    tokens = window.lower().split()[-6:]
    if _NEEDS_SPLIT.search(window, max(0, len(window) - 48)):
        fixed = []
        for raw in tokens:
            token = raw.strip(_STRIP)
            if not token:
                continue
            if len(token) > 1 and token[-1] in _SPLIT_LAST:
                fixed.append(token[:-1].strip(_STRIP))
                fixed.append(token[-1])
            elif len(token) > 1 and token[0] in _SPLIT_FIRST:
                fixed.append(token[0])
                fixed.append(token[1:])
            else:
                fixed.append(token)
        return fixed
    return tokens


_SPLIT_LAST = frozenset(":=~")
_NEEDS_SPLIT = lazy(r"[,;()\[\]{}\"“”'‘’*_`:=~≈<>≤≥]")
_SPLIT_FIRST = frozenset("~≈<>≤≥")


# the words of a bound cue that say nothing but the bound ("must not exceed", "capped at", "up to"); a
# cue naming what is bounded ("limit of", "maximum") keeps its word for the slot readers
_BOUND_ONLY = frozenset({"not", "no", "never", "must", "may", "cannot", "can't", "should", "does", "to", "exceed",
                         "exceeds", "exceeding", "at", "most", "least", "up", "more", "less", "than", "fewer",
                         "capped", "limited", "over", "under", "above", "below", "within", "older", "younger", "beyond"})
_BOUND_ONLY_CUES = lazy(r"(?:^|(?<=\s))(?:" + "|".join(
    r"\s+".join(re.escape(w) for w in phrase.split()) for phrase in sorted(_CUES, key=len, reverse=True)
    if _CUES[phrase][0] in {"min", "max"} and set(phrase.split()) <= _BOUND_ONLY) + r")\s*$", re.I)


def bound_cue_start(text: str, start: int) -> int | None:
    """Where the bound cue that ends right before ``text[start]`` begins ("can never exceed $20,000":
    the offset of "never exceed"), when the cue says nothing but the bound; else None."""
    found = _BOUND_ONLY_CUES.search(text, max(0, start - 40), start)
    return found.start() if found else None


# a cue after the value that says nothing but its bound: "7 or more days", "40% or above", "20 ms at most"
_BOUND_AFTER = lazy(r"(?:\s*,)?\s+(?:or\s+(?:more|less|fewer|above|below|under|over|greater|higher|lower|longer|"
                          r"shorter)|at\s+(?:most|least))\b", re.I)


def bound_cue_end(text: str, end: int) -> int | None:
    """Where the bound cue that starts right after ``text[:end]`` ends ("7 days or more": the end of
    "or more"), when the cue says nothing but the bound; else None."""
    found = _BOUND_AFTER.match(text, end)
    return found.end() if found else None


_FLIPPED = {"min": "max", "max": "min"}
_NEGATIONS = frozenset({"not", "never", "no", "cannot"})


def _negated_before(tokens: list[str], n: int) -> bool:
    """Whether a negation stands among the three words before ``tokens[n]`` ("do not take", "must never
    rise", "don't use"): it turns the comparison after them into the opposite bound."""
    return any(t in _NEGATIONS or t.endswith(("n't", "n’t")) for t in tokens[max(0, n - 3):n])


def read_context(text: str, start: int, end: int, kind: str) -> tuple[str | None, str | None, str | None]:
    """(bound, role, measured) from the words around ``text[start:end]``.

    "p99 latency was about 200 ms" -> ("approx", "observed", "latency"); "a maximum of 200 ms" ->
    ("max", "limit", None); "9 minutes of impact" -> (None, None, "impact"). Only the current
    sentence is read, at most 64 characters to the left.
    """
    bound: str | None = None
    role: str | None = None
    measured: str | None = None
    right = _RIGHT.match(text, end) if text.startswith(_RIGHT_STARTS, end) else None
    # Most values have no cue at all: decide that from the last two words before them, cheaply.
    lo = max(0, start - 40)
    space = text.rfind(" ", lo, start - 1)
    last = text[space + 1:start].strip().lower().strip(_STRIP)
    if last not in _ONE_WORD_CUES and (not last or last[-1] not in _SPLIT_LAST) and (
            not start or text[start - 1] not in _SPLIT_FIRST):
        before = text.rfind(" ", lo, space) if space > lo else -1
        pair = text[before + 1:space].lower().strip(_STRIP) + " " + last
        if pair not in _TWO_WORD_TAILS:
            return _NO_CONTEXT if right is None else _right_context(right, kind, None, None, None)
    window = text[max(0, start - 64):start]
    cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("; "), window.rfind("! "),
              window.rfind("? "), window.rfind(", "))
    if cut >= 0:
        window = window[cut + 1:]
    tokens = _left_tokens(window)
    n = len(tokens)
    linked = False
    hit = _suffix_match(tokens, n, _CUES, _CUE_LAST)
    if hit and not (n > hit[0] and tokens[n - hit[0] - 1][:1].isdigit()):  # "9 min" is a unit, not a cue
        k, (bound, role, links) = hit  # type: ignore[misc]
        n -= k
        linked = links
        if bound in _FLIPPED and not links and _negated_before(tokens, n):
            bound, role, linked = _FLIPPED[bound], "limit", True  # "do not take more than 600 mg": at most 600 mg
    hit = _suffix_match(tokens, n, _LINKS, _LINK_LAST)
    if hit:
        k, link_role = hit
        n -= k
        linked = True
        role = role or link_role  # type: ignore[assignment]
        if bound is None:
            again = _suffix_match(tokens, n, _CUES, _CUE_LAST)
            if again and again[1][0] is not None and again[1][2]:  # type: ignore[index]
                bound, cue_role, _ = again[1]  # type: ignore[misc]
                role = cue_role or role
                n -= again[0]
    if linked and n > 0 and kind not in ("count", "version", "revision"):
        i = n - 1
        while i > 0 and tokens[i] in _AUX and n - i <= 3:
            i -= 1
        word = tokens[i].strip(".'’")
        if word in _MODIFIERS:
            mod_bound, mod_role = _MODIFIERS[word]
            bound = bound or mod_bound
            if _ROLE_RANK[mod_role] > _ROLE_RANK.get(role or "", 0):
                role = mod_role
        elif word.isalpha() and len(word) > 1 and word not in _MEASURE_STOP and word not in _AUX:
            measured = lemma(word)
            for j in (i - 1, i - 2):
                if j >= 0 and tokens[j] in _MODIFIERS:
                    mod_bound, mod_role = _MODIFIERS[tokens[j]]
                    bound = bound or mod_bound
                    if _ROLE_RANK[mod_role] > _ROLE_RANK.get(role or "", 0):
                        role = mod_role
    return _right_context(right, kind, bound, role, measured)


def _right_context(right: re.Match[str] | None, kind: str, bound: str | None, role: str | None,
                   measured: str | None) -> tuple[str | None, str | None, str | None]:
    """Apply "200 ms max", "5 or more", "9 minutes of impact" after the value."""
    if right:
        if right.group("max"):
            bound = "max"
            if right.group("max").lower().startswith(("max", "at")):
                role = role or "limit"
        elif right.group("min"):
            bound = "min"
            if right.group("min").lower().startswith(("min", "at")):
                role = role or "limit"
        elif right.group("of") and kind in ("quantity", "duration", "money", "percent"):
            noun = right.group("of").lower()
            if noun not in _MEASURE_STOP and noun not in NUMBER_WORDS:
                measured = lemma(noun)
    return bound, role, measured


def prev_word(text: str, pos: int) -> tuple[str, int]:
    """The alphabetic word just before ``pos`` (over spaces and one "."), with its start; ("", pos) if none."""
    i = pos
    if i and text[i - 1] in " \u00a0\u202f":
        i -= 1
        if i and text[i - 1] in " \u00a0\u202f":
            i -= 1
    if i and i != pos and text[i - 1] == ".":
        i -= 1
    stop = i
    lo = max(0, stop - 15)
    j = text.rfind(" ", lo, stop) + 1
    if j == 0 and lo > 0:
        return "", pos
    word = text[j:stop]
    if not word.isalpha():
        cut = len(word)
        while cut and word[cut - 1].isalpha():
            cut -= 1
        if cut == len(word) or word[cut - 1].isalnum() or word[cut - 1] in "_-'’":
            return "", pos
        j += cut
        word = word[cut:]
    return word, j


RATE_ABBREVIATIONS = {"rps": "request", "qps": "query", "tps": "transaction", "iops": "operation",
                      "ops": "operation", "req": "request", "reqs": "request", "msg": "message",
                      "msgs": "message", "txn": "transaction", "txns": "transaction"}
_NOUN_STOP = frozenset([
    "a", "an", "the", "and", "or", "nor", "but", "if", "when", "while", "so", "as", "that", "which", "who",
    "whom", "whose", "it", "its", "they", "them", "their", "we", "you", "he", "she", "i", "me", "my", "our",
    "your", "his", "her", "this", "these", "those", "there", "here", "each", "every", "all", "both",
    "either", "neither", "not", "no", "yes", "also", "only", "just", "then", "than", "to", "of", "in", "on",
    "at", "by", "for", "with", "from", "into", "onto", "over", "under", "up", "down", "out", "off", "about",
    "after", "before", "since", "until", "during", "through", "thru", "between", "among", "against", "without",
    "within", "via", "vs", "versus", "plus", "minus", "per", "is", "are", "was", "were", "be", "been",
    "being", "has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should", "must",
    "may", "might", "shall", "am", "pm", "st", "nd", "rd", "th", "x", "percent", "ago", "later", "earlier",
    "apart", "apiece", "total", "overall", "respectively", "etc", "instead", "more", "less", "most", "least",
    "few", "many", "much", "several", "other", "another", "same", "such", "own", "very", "too", "again",
    "ever", "never", "always", "often", "once", "twice", "what", "where", "why", "how", "whether", "because",
    "although", "though", "unless", "whereas", "yet",
])
_NOUN_SKIP = frozenset([
    "more", "additional", "extra", "other", "new", "old", "further", "separate", "different", "consecutive",
    "concurrent", "active", "open", "unique", "distinct", "major", "minor", "critical", "independent",
    "parallel", "simultaneous", "successful", "total", "remaining", "existing", "possible", "available",
    "free", "full", "empty", "large", "small", "big", "little", "long", "short", "high", "low",
])
_NEXT_WORDS = lazy(r"(?P<sep>" + _SP + r"+|-)(?P<w1>[A-Za-z][A-Za-z'’]*)(?:(?P<sep2>" + _SP
                         + r"+)(?P<w2>[A-Za-z][A-Za-z'’]*))?")
PER_TIME = lazy(r"(?:" + _SP + r"*/" + _SP + r"*|" + _SP + r"+per" + _SP + r"+|" + _SP
                      + r"+(?P<art>an?)" + _SP + r"+)(?P<t>[A-Za-zµμ]+)(?![A-Za-z0-9])")


def counted_noun(text: str, end: int) -> tuple[str | None, int, str | None]:
    """The noun a bare number counts ("3 retries" -> "retry"), its end, and a rate's time unit.

    Returns (None, end, None) when the next word is not a noun (a preposition, a verb, a pronoun).
    "20 req/s" and "10 rps" give ("request", ..., "second").
    """
    match = _NEXT_WORDS.match(text, end)
    if not match:
        return None, end, None
    w1 = match.group("w1")
    low = w1.lower()
    if low in RATE_ABBREVIATIONS and low.endswith("ps"):
        return RATE_ABBREVIATIONS[low], match.end("w1"), "second"
    if low in _NOUN_STOP or (w1[0].isupper() and match.group("sep") != "-" and low in NUMBER_WORDS):
        return None, end, None
    noun, noun_end = w1, match.end("w1")
    w2 = match.group("w2")
    verbish = low.endswith("ed") and len(low) > 4 and match.group("sep") != "-"
    if low in _NOUN_SKIP or verbish:
        if not w2 or w2.lower() in _NOUN_STOP or w2.lower().endswith("ed"):
            return None, end, None
        noun, noun_end = w2, match.end("w2")
    if noun.isupper() and len(noun) > 1:
        counted = noun.lower()
    elif len(noun) > 2 and noun[:-1].isupper() and noun.endswith("s"):
        counted = noun[:-1].lower()
    else:
        counted = RATE_ABBREVIATIONS.get(noun.lower()) or lemma(noun)
    per = PER_TIME.match(text, noun_end) if text.startswith(PER_STARTS, noun_end) else None
    if per and not per.group("art"):
        den = lookup_unit(per.group("t"))
        if den is not None and den.kind == "duration":
            return counted, per.end(), den.unit
    return counted, noun_end, None


# ---------------------------------------------------------------------------------------------
# Unit helpers
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _dimensionality(unit: str) -> str | None:
    """pint's dimensionality string for a canonical unit ("[time]", "dimensionless"); None for money."""
    if unit in CURRENCY_CODES:
        return None
    try:
        dims = str(unit_registry().Unit(unit).dimensionality)
    except Exception:
        return None
    return dims if dims and dims != "dimensionless" else "dimensionless"


@lru_cache(maxsize=512)
def _base_factor(unit: str) -> tuple[float, float] | None:
    """(factor, offset) so that base = value * factor + offset; None when pint cannot convert."""
    ureg = unit_registry()
    try:
        q0 = ureg.Quantity(0.0, unit).to_base_units().magnitude
        q1 = ureg.Quantity(1.0, unit).to_base_units().magnitude
    except Exception:
        return None
    return float(q1 - q0), float(q0)


@lru_cache(maxsize=256)
def _kind_of_unit(unit: str) -> str:
    if unit in CURRENCY_CODES:
        return "money"
    if unit in ("percent", "percentage_point"):
        return "percent"
    dims = _dimensionality(unit)
    if dims == "[time]":
        return "duration"
    if dims == "[temperature]":
        return "temperature"
    return "quantity"


def _rate_unit(numerator: str | None, denominator: str) -> str:
    named = {("mile", "hour"): "mile_per_hour", ("kilometer", "hour"): "kilometer_per_hour"}
    if numerator is None:
        return f"1 / {denominator}"
    return named.get((numerator, denominator), f"{numerator} / {denominator}")


@lru_cache(maxsize=1024)
def _entry_for(spelling: str) -> UnitEntry | None:
    return lookup_unit(spelling)
