"""Quantity rules: typed values compared with pint after conversion, with their counted nouns and roles."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from graphcite.ingest.terms import STOPWORDS
from graphcite.language import lexicon
from graphcite.language.domain import active
from graphcite.language.frames import (
    Cell,
    Measurement,
    cells_of,
    measurement_at,
    named_column,
    names_a_statistic,
    period_names,
    stated_periods,
    table_measurement,
)
from graphcite.language.nlp import lemma
from graphcite.language.values import to_base, values_agree
from graphcite.language.values.extract import values_in
from graphcite.language.words import _data, as_written, word_list
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
from graphcite.verify.rules.common import is_year, locate, word_lemmas

_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*")
_ARTICLE_ONES = frozenset({"one", "a", "an", "single", "1"})

__all__ = ["agree", "bound_holds", "cell_values", "claim_interval", "claim_values", "claimed_cell", "comparable",
           "evidence_values", "times_noun", "values_stated"]

_IGNORED_KINDS = frozenset({"date"})


def _keep(value: ExtractedValue) -> bool:
    return value.kind not in _IGNORED_KINDS and not is_year(value)


def claim_values(claim: AtomicClaim) -> list[ExtractedValue]:
    """The claim's values that quantity rules compare (dates and years are left to the time rules).

    "Three times" counts whatever the predicate does: "retries ... three times" counts retries.
    """
    out = []
    for value in _ellipses_read(claim):
        if not _keep(value):
            continue
        if value.counted_noun in {"time", "times"} and claim.predicate:
            verb = [lemma(w) for w in claim.predicate.split() if w.isalpha()]
            if verb:
                value = replace(value, counted_noun=verb[-1])
        out.append(value)
    return out


_ELIDED = re.compile(r"^\s*[.;,)]?\s*$")


def _ellipses_read(claim: AtomicClaim) -> list[ExtractedValue]:
    """The claim's values with an elided unit restored: in "parts for five years and labour for two" the
    two counts years, as the value before it does. A bare number closing its clause after "and", with a
    value that has a unit earlier in the same clause, takes that unit."""
    values = list(claim.values)
    out = []
    for i, value in enumerate(values):
        before = values[i - 1] if i else None
        span, prior = locate(claim.text, value), (locate(claim.text, before) if before is not None else None)
        if (before is not None and before.unit and value.unit is None and not value.counted_noun
                and value.kind in {"count", "number"} and span and prior
                and " and " in claim.text[prior[1]:span[0]] and _ELIDED.match(claim.text[span[1]:])):
            unit_word = before.surface.split()[-1]
            read = next(iter(values_in(f"{value.surface} {unit_word}")), None)
            if read is not None and read.unit == before.unit:
                value = replace(read, start=value.start, end=value.end, surface=value.surface)
        out.append(value)
    return out


def values_stated(values: list[ExtractedValue], evidence: Evidence, claim_text: str) -> bool:
    """Whether the evidence states each of ``values``: a comparable value inside its bound or equal to it."""
    theirs = evidence_values(evidence)
    return all(any(comparable(v, e) and (bound_holds(v, e, claim_text) or _agree(v, e)) for e in theirs)
               for v in values)


def evidence_values(evidence: Evidence) -> list[ExtractedValue]:
    """Values in the quote; the enclosing unit's values when the quote itself has none."""
    found = [times_noun(evidence.quote, v) for v in evidence.values if _keep(v)]
    if found:
        return found
    return [times_noun(evidence.context, v) for v in evidence.context_values if _keep(v)]


def times_noun(text: str, value: ExtractedValue) -> ExtractedValue:
    """"Retries a delivery 3 times" counts retries: give a "times" value the verb it counts."""
    if value.counted_noun not in {"time", "times"}:
        return value
    words = _window(text, value, before=6, after=0)
    for noun in ("retry", "attempt", "send", "try", "call"):
        if noun in words:
            return replace(value, counted_noun=noun)
    return value


def _window(text: str, value: ExtractedValue, before: int = 5, after: int = 3) -> frozenset[str]:
    """Lemmas of the words around a value (five before, three after): what it counts."""
    span = locate(text, value)
    if span is None:
        return word_lemmas(text)
    left = _WORD.findall(text[:span[0]])[-before:]
    right = _WORD.findall(text[span[1]:])[:after]
    return word_lemmas(" ".join(left + right))


def _noun_matches(noun: str | None, text: str, value: ExtractedValue) -> bool:
    if not noun or noun in {"time", "times"} or noun == value.counted_noun:
        return True
    words = _window(text, value) | word_lemmas(value.surface)
    if noun in words or lemma(noun) in words:
        return True
    accepted = active().paraphrase | {"same"}
    other = value.counted_noun
    return bool(other) and lexicon.related(lemma(noun), lemma(other)) in accepted


def _counted(noun: str) -> str:
    """A counted noun's singular: "people" counts persons (``plural_nouns`` in ``data/words.json``)."""
    base = lemma(noun)
    return _data()["plural_nouns"].get(base, base)


def _same_count_noun(mine: str | None, theirs: str | None) -> bool:
    """The evidence's counted noun is the claim's or a kind of it, "two people" for "two men", "three
    kids" for "three boys" (the claim may name the evidence's things by their class)."""
    if not mine or not theirs:
        return False
    a, b = _counted(mine), _counted(theirs)
    return a == b or lexicon.related(a, b) in active().paraphrase | {"same"} or lexicon.is_class_of(a, b)


def comparable(a: ExtractedValue, b: ExtractedValue) -> bool:
    """Same kind family and dimensionality, so numbers can be compared at all."""
    if {a.kind, b.kind} <= {"version"} or {a.kind, b.kind} <= {"revision"}:
        return _version_word(a) == _version_word(b)
    if "version" in (a.kind, b.kind) or "revision" in (a.kind, b.kind):
        return False
    return values_agree(a, b) is not None


def agree(a: ExtractedValue, b: ExtractedValue) -> bool:
    """Public name of the claim-vs-evidence agreement test (used by the store-contradiction lookup)."""
    return _agree(a, b)


def _agree(a: ExtractedValue, b: ExtractedValue) -> bool:
    """Claim value ``a`` states the same number as evidence value ``b`` after unit conversion.

    Bounds are not widened: "up to three" is not read as following from "up to two", because a
    stated maximum names a number, and the reader takes it as that number.
    """
    if a.kind in {"version", "revision"}:
        return _digits(a) == _digits(b) or a.magnitude == b.magnitude
    return bool(values_agree(a, b)) or _attempts_equal(a, b)


# "more than 300" leaves 300 out; "no more than 32", "not under 5" keep it (the negation turns the bound round)
_STRICT = re.compile(r"(?<!\bno )(?<!\bnot )\b(?:(?:more|fewer|less|greater|higher|lower|older|younger|heavier|lighter)\s+than|under|below)\s*$", re.I)


def claim_interval(value: ExtractedValue, text: str) -> tuple[float, float, bool, bool] | None:
    """A claim's bound as an interval (low, high, low_open, high_open) in base units, or None when the
    value is not a one-sided bound. "More than 300" is (300, inf) open; "at most 20" is (-inf, 20]."""
    if value.bound not in {"min", "max"} or value.kind in {"version", "revision", "date"}:
        return None
    low, high, _ = to_base(value)
    if low is None or high is None:
        return None
    span = locate(text, value)
    strict = bool(span and _STRICT.search(text[max(0, span[0] - 24):span[0]]))
    if value.bound == "min":
        return low, float("inf"), strict, False
    return float("-inf"), high, False, strict


def bound_holds(claim_value: ExtractedValue, evidence_value: ExtractedValue, claim_text: str) -> bool | None:
    """Does the evidence value lie inside the claim's bound? None when the claim states no bound or the
    two are not comparable. "More than 300" holds for 315; "fewer than five" does not hold for five;
    "at most 20" does not hold for "within 30" (a looser bound says nothing about 20)."""
    interval = claim_interval(claim_value, claim_text)
    if interval is None or values_agree(claim_value, evidence_value) is None:
        return None
    low, high, low_open, high_open = interval
    e_low, e_high, _ = to_base(evidence_value)
    if e_low is None or e_high is None:
        return None
    if evidence_value.bound in {"min", "max"} and evidence_value.bound != claim_value.bound:
        # bounds of opposite directions: "more than 5%" against "not more than 5%" cannot both hold
        if evidence_value.bound == "max" and (e_high < low or (low_open and e_high <= low)):
            return False
        if evidence_value.bound == "min" and (e_low > high or (high_open and e_low >= high)):
            return False
    if evidence_value.bound in {"min", "max", "approx"}:
        return None  # two bounds: a stated limit names its number, compared as a number
    if claim_value.role == "limit" and evidence_value.bound == "range":
        # "up to 10 working days" names the range's end: against "3 to 5 working days" it misstates it
        return math.isclose(high if claim_value.bound == "max" else low, e_high if claim_value.bound == "max" else e_low,
                            rel_tol=1e-9)
    above = e_low > low if low_open else e_low >= low
    below = e_high < high if high_open else e_high <= high
    return above and below


def _holds(value: ExtractedValue, evidence_value: ExtractedValue, claim_text: str) -> bool:
    """The claim value holds given the evidence value: inside its bound, or the same number."""
    inside = bound_holds(value, evidence_value, claim_text)
    if inside is not None:
        return inside
    return _agree(value, evidence_value)


def _attempts_equal(a: ExtractedValue, b: ExtractedValue) -> bool:
    """Counts the domain lexicon equates: with "attempts = retries + 1", four attempts are three retries."""
    if a.magnitude is None or b.magnitude is None or a.bound != b.bound:
        return False
    for rule_ in active().equivalences:
        if a.counted_noun in rule_.a and b.counted_noun in rule_.b:
            return a.magnitude == b.magnitude + rule_.offset
        if a.counted_noun in rule_.b and b.counted_noun in rule_.a:
            return a.magnitude + rule_.offset == b.magnitude
    return False


def _equated_nouns(a: ExtractedValue, b: ExtractedValue) -> bool:
    return any({a.counted_noun, b.counted_noun} <= rule_.a | rule_.b for rule_ in active().equivalences)


def _digits(value: ExtractedValue) -> str:
    return re.sub(r"[^0-9.]", "", value.surface).strip(".")


def _version_word(value: ExtractedValue) -> str:
    """The word that names what is versioned: "release" 2024.09 is not "version" 2; "v2" is "version" 2."""
    found = re.match(r"[A-Za-z]+", value.surface.strip())
    word = found.group(0).lower() if found else "version"
    return "version" if word in {"v", "ver", "version"} else word


def _roles_differ(a: ExtractedValue, b: ExtractedValue) -> bool:
    """An observation and a limit or target are different numbers about the same thing."""
    roles = {a.role, b.role}
    return "observed" in roles and len(roles - {None}) == 2


def _nouns_clash(a: ExtractedValue, b: ExtractedValue) -> bool:
    if not (a.counted_noun and b.counted_noun) or "time" in {a.counted_noun, b.counted_noun}:
        return False
    if _equated_nouns(a, b) and _attempts_equal(a, b):
        return False
    return a.counted_noun != b.counted_noun


def _describe(v: ExtractedValue) -> str:
    return f"{v.surface!r}" + (f" ({v.counted_noun})" if v.counted_noun else "")


def _measure(text: str, value: ExtractedValue, evidence: Evidence | None = None) -> Measurement | None:
    """What ``value`` measures in ``text`` (a table row: its column and row), or None when the text
    names no statistic or period at all (nothing to tell two measurements of one thing apart)."""
    span = locate(text, value)
    if span is None:
        return None
    if evidence is not None and evidence.block_type == "table_row" and evidence.table_headers:
        if not names_a_statistic(" ".join(evidence.table_headers)):
            return None
        return table_measurement(text, evidence.table_headers, *span)
    if not names_a_statistic(text):
        return None
    return measurement_at(text, *span)


def _evidence_text(evidence: Evidence) -> str:
    return evidence.quote if any(_keep(v) for v in evidence.values) else evidence.context


def _sentence_at(text: str, value: ExtractedValue) -> str:
    """The clause (a sentence, or a part between semicolons) of ``text`` that holds ``value``."""
    span = locate(text, value)
    if span is None:
        return ""
    return next((m.group(0) for m in _CLAUSE.finditer(text) if m.start() <= span[0] < m.end()), "")


def _conflict(mine: Measurement | None, theirs: Measurement | None, key: str) -> bool:
    a, b = (getattr(mine, key) if mine else None), (getattr(theirs, key) if theirs else None)
    return bool(a and b and a != b)


def same_measurement(claim: AtomicClaim, value: ExtractedValue, evidence: Evidence,
                     candidates: list[ExtractedValue]) -> list[ExtractedValue]:
    """The evidence values that measure what the claim's value measures, by statistic and period.

    "p99 latency is 40 ms" is compared with the p99 figure, never with the p95 one beside it; "the daily
    limit is 400 mg" with the figure per day, not the one per dose. A claim that names a statistic keeps
    the candidates of that statistic and those that name none, and drops those of another statistic.
    """
    mine = _measure(claim.text, value)
    if mine is None or not candidates:
        return candidates
    text = _evidence_text(evidence)
    measured = [(e, _measure(text, e, evidence)) for e in candidates]
    for key in ("statistic", "per"):
        wanted = getattr(mine, key)
        if not wanted:
            continue
        measured = [(e, m) for e, m in measured if not _conflict(mine, m, key)]
    return [e for e, _m in measured]


@rule("GC308", "statistic-mismatch", family="quantity", effect="insufficient",
      good=[("The p99 latency of search is 85 ms.", "Search latency is 40 ms at p95 and 85 ms at p99."),
            ("Adults may take 400 mg a day.", "Adults may take up to 400 mg a day (200 mg per dose).")],
      bad=[("The p99 latency of search is 40 ms.", "The p95 latency of search is 40 ms."),
           ("The fee is the lower of £20 or 3% of the order.", "The fee is the greater of £20 or 3% of the order."),
           ("Adults may take 200 mg a day.", "Adults may take up to 400 mg a day (200 mg per dose).")])
def statistic_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A number stated of another statistic, selector or period is not the claim's number.

    "p99 is 40 ms" against a passage whose 40 ms is the p95: the digits and the unit match, so every
    value check passes, but the evidence says nothing of the p99. The same for "the lower of" against
    "the greater of" and a figure per dose given as the figure per day. The statistic (p50 ... p99,
    mean, max, min, total), the selector and the period a value is counted per are read from the frame
    of the clause around it (a table cell: from its column header).
    """
    problems = []
    text = _evidence_text(evidence)
    for value in claim_values(claim):
        mine = _measure(claim.text, value)
        if mine is None or not (mine.statistic or mine.per):
            continue
        agreeing = [e for e in evidence_values(evidence) if comparable(value, e) and _agree(value, e)]
        if not agreeing:
            continue
        theirs = [_measure(text, e, evidence) for e in agreeing]
        for key, noun in (("statistic", "the"), ("per", "per")):
            wanted = getattr(mine, key)
            if not wanted or any(m is not None and getattr(m, key) == wanted for m in theirs):
                continue
            other = next((getattr(m, key) for m in theirs if m is not None and getattr(m, key)), None)
            if other is None and key == "per" and wanted in period_names() and evidence.block_type != "table_row" \
                    and not any(m is not None and m.per for m in theirs):
                # "£633 a month" against "caps the yearly bill ... at £633": the period sits on the noun
                periods = stated_periods(_sentence_at(text, agreeing[0]))
                other = None if wanted in periods else next(iter(sorted(periods)), None)
            if other:
                said = "in total" if wanted == "total" else f"{noun} {wanted}"
                problems.append(f"the evidence gives {value.surface!r} {noun} {other}, not {said}")
    return failures(problems)


@rule("GC301", "value-mismatch", family="quantity", effect="contradicts",
      good=[("Refund requests are accepted for 14 days.", "Refund requests are accepted for two weeks."),
            ("The request timeout is 1500 ms.", "The request timeout is 1.5 s.")],
      bad=[("Refund requests are accepted for 14 days.", "Refund requests are accepted for 30 days."),
           ("The error budget is 1.25% of requests.", "The error budget is 12.5% of requests.")])
def value_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A number that disagrees after unit conversion contradicts the claim.

    Fourteen days against thirty days is the failure that matters most: the words around the number
    match, so topic similarity says "supported". Values are compared with pint (14 days == 2 weeks)
    and only against evidence values of the same dimension and counted noun.
    """
    mine = claim_values(claim)
    theirs = evidence_values(evidence)
    if not mine or not theirs:
        return SKIP
    problems = []
    for value in mine:
        if _named_by_headers(value, evidence):
            continue  # "the most in 24 hours is 800 mg" against a column "Most in 24 hours": what is measured
        cell = claimed_cell(claim, value, evidence)
        if cell is not None:
            in_cell = cell_values(value, cell, evidence)
            # a column of limits ("Longest hire") names its number: "up to 8 hours" is not its 6 hours
            limit = bool({w.lower() for w in _WORD.findall(cell.column)} & word_list("limit_header_words"))
            if in_cell and not any(_agree(value, e) if limit else _holds(value, e, claim.text) for e in in_cell):
                problems.append(f"claim says {_describe(value)}; the evidence's {cell.column!r} is "
                                + ", ".join(repr(e.surface) for e in in_cell[:3]))
            continue  # the row's other columns measure other things (a swap is decided above)
        kin = [e for e in theirs if comparable(value, e) and not _nouns_clash(value, e) and not _roles_differ(value, e)]
        same_thing = [e for e in kin if _related(value.measured, e.measured)]
        if value.measured and value.bound in {"min", "max"} and not any(e.measured for e in same_thing) and any(
                e.bound == value.bound and _agree(value, e) for e in kin):
            continue  # the same bounded figure stands in the evidence ("up to 3 days"), of a thing named
            # otherwise ("take place" / "visit"); the others measure nothing named, so none is the claim's
        if not same_thing:  # the classic unit slip: the same digits in another unit ("15 s" for "15 min")
            same_thing = [e for e in theirs if comparable(value, e) and _digits(e) == _digits(value)]
        same_thing = same_measurement(claim, value, evidence, same_thing)
        if not same_thing or any(_holds(value, e, claim.text) for e in same_thing):
            continue
        problems.append(f"claim says {_describe(value)}, evidence says "
                        + ", ".join(_describe(e) for e in same_thing[:3]))
    return failures(problems)


def claimed_cell(claim: AtomicClaim, value: ExtractedValue, evidence: Evidence) -> Cell | None:
    """The cell of a cited table row that the claim's ``value`` is about: the column its words name,
    among the cells holding a value it can be compared with (:func:`graphcite.language.frames.named_column`)."""
    if evidence.block_type != "table_row" or not evidence.table_headers or _PERIOD.match(value.surface.strip()):
        return None  # "a month" says how often, it is no cell's figure
    cells = cells_of(evidence.quote, evidence.table_headers)
    # "up to 400 mg in 24 hours" is the figure of the column "Most in 24 hours"; of "Dog under 20 kg" and
    # "Dog 20 kg or more", "a dog of 20 kg or more" names the column whose bound is the claim's too
    stated = [(cell, any(_header_states(other, cell.column, bounded=True) for other in claim.values if other is not value))
              for cell in cells[1:] if any(other is not value and _header_states(other, cell.column) for other in claim.values)
              and cell_values(value, cell, evidence)]
    if stated:
        return next((cell for cell, same_bound in stated if same_bound), stated[0][0])
    return named_column(claim.text, evidence.quote, evidence.table_headers,
                        lambda c: bool(cell_values(value, c, evidence)), near=_near(claim, value))


def _near(claim: AtomicClaim, value: ExtractedValue, reach: int = 3) -> str:
    """Up to three content words on either side of ``value`` in the claim, up to the next value: what
    it is a figure of."""
    span = locate(claim.text, value)
    if span is None:
        return ""
    others = sorted(s for v in claim.values if v is not value and (s := locate(claim.text, v)))
    left_stop = max((e for _s, e in others if e <= span[0]), default=0)
    right_stop = min((s for s, _e in others if s >= span[1]), default=len(claim.text))
    def content(words: list[str]) -> list[str]:
        kept = [w for w in words if w.lower() not in STOPWORDS]
        return kept[:reach]

    left = content(_WORD.findall(claim.text[left_stop:span[0]])[::-1])
    right = content(_WORD.findall(claim.text[span[1]:right_stop]))
    return " ".join(left + right)


def cell_values(value: ExtractedValue, cell: Cell, evidence: Evidence) -> list[ExtractedValue]:
    """The values of ``cell`` comparable with the claim's ``value``; a bare number takes the unit its
    column header names ("6" under "Meeting room hours included" is 6 hours when the claim counts hours)."""
    found = [e for e in values_in(cell.text) if comparable(value, e)]
    if found or not value.unit:
        return found
    words = value.surface.split()
    tail = " ".join(words[words.index("per"):]) if "per" in words[1:] else words[-1]
    header_words = {lemma(w.lower()) for w in _WORD.findall(cell.column)}
    if len(words) < 2 or not {lemma(w.lower()) for w in _WORD.findall(tail)} - {"per"} <= header_words:
        return []  # the header must say the unit the cell leaves out ("Price per hour", "Hours included")
    read = [next(iter(values_in(f"{e.surface} {tail}")), None) for e in values_in(cell.text) if e.magnitude is not None]
    return [e for e in read if e is not None and comparable(value, e)]


def _named_by_headers(value: ExtractedValue, evidence: Evidence) -> bool:
    """Whether a table row's column headers state ``value``: the header's number names what the cells
    measure ("Allowed downtime per 30 days"), it is not one of the row's figures."""
    if evidence.block_type != "table_row" or not evidence.table_headers:
        return False
    return any(_header_states(value, header) for header in evidence.table_headers)


def _header_states(value: ExtractedValue, header: str, bounded: bool = False) -> bool:
    """Whether a column header states ``value`` ("Allowed downtime per 30 days" states 30 days); with
    ``bounded``, with the same bound too ("20 kg or more" is not "under 20 kg")."""
    return any(comparable(value, h) and _agree(value, h) and (not bounded or _bound_of(value) == _bound_of(h))
               for h in values_in(header))


def _bound_of(value: ExtractedValue) -> str:
    return value.bound if value.bound in {"min", "max"} else "exact"


@rule("GC302", "counted-noun-mismatch", family="quantity", effect="insufficient",
      good=[("The worker makes three attempts.", "The worker makes 3 attempts before giving up."),
            ("The worker makes four attempts in total.", "The worker sends the first try plus three retries."),
            ("Two people are fixing the fence.", "Two men are fixing the fence by the road.")],
      bad=[("The worker makes three retries.", "The worker makes three attempts before giving up.")])
def counted_noun_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The same number counting a different thing does not support the claim.

    Three attempts are two retries; three status queries are not three deliveries. A count is only
    evidence for a count of the same noun.
    """
    mine = [v for v in claim_values(claim) if v.counted_noun and v.kind == "count"]
    theirs = [v for v in evidence_values(evidence) if v.kind == "count"]
    if not mine or not theirs:
        return SKIP
    text = evidence.quote if evidence.values else evidence.context
    problems = []
    for value in mine:
        if any(_attempts_equal(value, e) for e in theirs):
            continue
        same_number = [e for e in theirs if e.magnitude == value.magnitude]
        if not same_number:
            continue
        if any(_noun_matches(value.counted_noun, text, e) or _same_count_noun(value.counted_noun, e.counted_noun)
               or (e.counted_noun and _noun_matches(e.counted_noun, claim.text, value)) for e in same_number):
            continue
        problems.append(f"the claim counts {as_written(claim.text, value.counted_noun or '')!r}, the evidence counts "
                        + ", ".join(repr(as_written(text, e.counted_noun)) if e.counted_noun else "something else"
                                    for e in same_number))
    return failures(problems)


@rule("GC303", "measured-mismatch", family="quantity", effect="insufficient",
      good=[("The outage caused 9 minutes of impact.", "The outage caused 9 minutes of impact for shippers.")],
      bad=[("The outage caused 6 hours of impact.", "The team spent 6 hours of investigation on the outage.")])
def measured_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A duration or amount of a different measured thing is not evidence for this one.

    Minutes of customer impact and hours of investigation share a dimension and often a sentence;
    comparing them as numbers would be a false match.
    """
    mine = [v for v in claim_values(claim) if v.measured]
    theirs = [v for v in evidence_values(evidence) if v.measured]
    if not mine or not theirs:
        return SKIP
    evidence_words = word_lemmas(" ".join([evidence.quote, evidence.context, *evidence.heading_path,
                                           *evidence.table_headers]))
    claim_words = word_lemmas(claim.sentence or claim.text)  # a part's sentence names it too ("an uncommon side effect, affecting ...")
    problems = []
    for value in mine:
        same = [e for e in theirs if comparable(value, e) and values_agree(value, e)]
        if not same or any(_related(value.measured, e.measured) for e in same):
            continue
        if _mentions(value.measured, evidence_words) or any(_mentions(e.measured, claim_words) for e in same):
            continue
        problems.append(f"claim measures {value.measured!r}, evidence measures "
                        + ", ".join(repr(e.measured) for e in same))
    return failures(problems)


def _related(a: str | None, b: str | None) -> bool:
    """Whether two measured phrases may name one thing: a shared word or stem, a paraphrase from the
    lexicon, or a side that names nothing ("30 days of being found": "be" measures nothing)."""
    if not a or not b:
        return True
    light = word_list("light_verbs")
    wa = {w for w in word_lemmas(a) if w not in STOPWORDS and w not in light}
    wb = {w for w in word_lemmas(b) if w not in STOPWORDS and w not in light}
    if not wa or not wb:
        return True
    return bool(wa & wb) or any(x[:5] == y[:5] for x in wa for y in wb if len(x) >= 5 and len(y) >= 5)


def _mentions(measured: str | None, words: frozenset[str]) -> bool:
    """Whether any content word of the measured phrase (or its 5-letter stem) occurs in ``words``."""
    if not measured:
        return True
    wanted = [m for m in word_lemmas(measured) if len(m) > 3 and m not in STOPWORDS]
    return not wanted or any(any(w == m or (len(m) >= 5 and w[:5] == m[:5]) for w in words) for m in wanted)


@rule("GC304", "limit-vs-observed", family="quantity", effect="insufficient",
      good=[("Checkout latency must stay at most 200 ms.", "Checkout latency is capped at a maximum of 200 ms.")],
      bad=[("The p99 latency was 200 ms during the incident.", "The latency limit is a maximum of 200 ms.")])
def limit_vs_observed(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A limit is not an observation: "at most 200 ms" says nothing about what was measured.

    A configured maximum and a measured value share number and unit; treating one as the other turns
    a policy into a measurement or the reverse.
    """
    pairs = [(c, e) for c in claim_values(claim) for e in evidence_values(evidence)
             if comparable(c, e) and values_agree(c, e)]
    if not pairs:
        return SKIP
    qualified = bool(_LIMIT_CUES.search(claim.text)) or claim.modality in {"must", "should", "must-not", "may"}
    problems = []
    for mine, theirs in pairs:
        claim_role = mine.role
        if claim_role and theirs.role and claim_role != theirs.role and {claim_role, theirs.role} & {"observed"}:
            problems.append(f"claim {mine.surface!r} is {claim_role}, evidence {theirs.surface!r} is {theirs.role}")
        elif claim_role in {None, "observed"} and not qualified and mine.bound not in {"min", "max"} and (
                theirs.role in {"limit", "target"} or (theirs.bound in {"max", "min"} and mine.bound == "exact")):
            what = theirs.role or f"{theirs.bound} bound"
            problems.append(f"evidence {theirs.surface!r} is a {what}; the claim states it as a plain value")
    return failures(problems)


_LIMIT_CUES = re.compile(r"\b(at most|at least|up to|no more than|no less than|within|under|below|above|maximum|max|"
                         r"minimum|min|limit|limits|limited|cap|capped|ceiling|budget|objective|target|slo|"
                         r"allowed|allows|commit|commits|committed|must|should|may)\b", re.I)


@rule("GC305", "version-vs-revision", family="quantity", effect="insufficient",
      good=[("The adapter implements version 2 of the contract.", "Carrier adapters implement version 2 of the contract.")],
      bad=[("The adapter implements version 4 of the contract.", "This is revision 4 of the carrier contract.")])
def version_vs_revision(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A version of a contract is not a revision of a document, even with the same number.

    "Version 2" names an interface generation; "revision 2" names an edit of a page. Matching the
    digit alone confuses the two.
    """
    mine = [v for v in claim_values(claim) if v.kind in {"version", "revision"}]
    if not mine:
        return SKIP
    theirs = [v for v in evidence_values(evidence) if v.kind in {"version", "revision"}]
    problems = [f"claim {v.surface!r} is a {v.kind}, evidence {e.surface!r} is a {e.kind}"
                for v in mine for e in theirs if e.kind != v.kind and e.magnitude == v.magnitude]
    return failures(problems)


_ITEM_OPENERS = frozenset({"a", "an", "one", "another"})
_TOKEN = re.compile(r"[a-z][a-z\-]*|,")


def _enumerations(text: str) -> list[list[str]]:
    """Lists of things the text counts out one by one, as their head nouns: "a brown dog and a grey
    dog" -> [["dog", "dog"]], "a man, a woman and a child" -> [["man", "woman", "child"]]. An item is
    an article and the content words after it; items are joined by "and", a comma or both."""
    tokens = _TOKEN.findall(text.lower())
    out: list[list[str]] = []
    chain: list[str] = []
    i = 0
    while i < len(tokens):
        j = i + 1
        while tokens[i] in _ITEM_OPENERS and j < len(tokens) and j - i <= 4 and tokens[j] != "," \
                and tokens[j] not in STOPWORDS:
            j += 1
        if j == i + 1:  # not an item: a chain ends here
            if len(chain) > 1:
                out.append(chain)
            chain = []
            i += 1
            continue
        chain.append(lemma(tokens[j - 1]))
        k = j
        while k < len(tokens) and tokens[k] in {",", "and"}:
            k += 1
        if k == j or k >= len(tokens) or tokens[k] not in _ITEM_OPENERS:
            if len(chain) > 1:
                out.append(chain)
            chain = []
        i = k
    if len(chain) > 1:
        out.append(chain)
    return out


def _counted_out(value: ExtractedValue, evidence_text: str) -> bool:
    """A small count the evidence states by listing that many things of the counted kind: "two dogs"
    in "a brown dog and a grey dog", "two people" in "a man and a woman"."""
    if value.kind != "count" or not value.counted_noun or value.magnitude not in {2, 3, 4}:
        return False
    return any(len(heads) == value.magnitude and all(_same_count_noun(value.counted_noun, h) for h in heads)
               for heads in _enumerations(evidence_text))


@rule("GC306", "value-not-in-evidence", family="quantity", effect="insufficient",
      good=[("The relay retries five times.", "The relay retries five times with backoff."),
            ("Two people are sitting on the bench.", "A man and a woman are sitting on the bench.")],
      bad=[("The relay retries five times.", "The relay retries failed webhooks with exponential backoff."),
           ("Three people are sitting on the bench.", "A man and a woman are sitting on the bench.")])
def value_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A claim's number must be stated by the evidence, not only its topic.

    A passage about retries without a count cannot support "retries five times", and a row holding
    500 ms and 3 s cannot support 503 ms: the number came from somewhere else. A small count may be
    stated by listing the things one by one: "a man and a woman" are two people.
    """
    mine = [v for v in claim_values(claim) if v.surface.lower() not in _ARTICLE_ONES]
    if not mine:
        return SKIP
    theirs = evidence_values(evidence)
    if evidence.lead_in:  # "In the last twelve months the engines used:" states the table's period
        theirs = [*theirs, *values_in(evidence.lead_in)]
    envelope = evidence.envelope
    missing = [v for v in mine if not any(comparable(v, e) and _holds(v, e, claim.text) for e in theirs)
               and not (_digits(v) and re.search(rf"(?<![0-9.]){re.escape(_digits(v))}(?![0-9])", envelope))
               and not (v.magnitude is None and _said(v.surface, envelope))
               and not _period_said(v, envelope) and not _named_by_headers(v, evidence)
               and not ((cell := claimed_cell(claim, v, evidence)) and any(
                   _holds(v, e, claim.text) for e in cell_values(v, cell, evidence)))
               and not _counted_out(v, evidence.quote)]
    return failures(f"no value in the evidence states {_describe(v)}" for v in missing)


_PERIOD = re.compile(r"^(?:a|an|per|each|every)\s+([a-z]+)$", re.I)


def _period_said(value: ExtractedValue, text: str) -> bool:
    """"One guest pass a month" against a column "Guest passes per month": a period written with an
    article ("a month", "an hour") is said by the same period word, per or a."""
    found = _PERIOD.match(value.surface.strip())
    return bool(found) and lemma(found.group(1).lower()) in word_lemmas(text)


def _said(surface: str, text: str) -> bool:
    """A vague amount ("several minutes", "a few days") written in the same words in ``text``."""
    return re.search(rf"(?<![\w]){re.escape(' '.join(surface.lower().split()))}(?![\w])",
                     " ".join(text.lower().split())) is not None


_CLAUSE = re.compile(r"(?:[^;.!?\n]|[.](?=\S))+")


@rule("GC307", "values-split-across-clauses", family="quantity", effect="insufficient",
      good=[("Version 2 of the contract was agreed in 2023.",
             "Version 2 of the contract was agreed in 2023; it replaced version 1.")],
      bad=[("Version 2 of the contract was agreed in 2022.",
            "Version 1, agreed in 2022, allowed one retry; version 2 removed it.")])
def values_split_across_clauses(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Two values the claim binds together must be bound together in the evidence.

    "Version 2 was agreed in 2022" against "Version 1, agreed in 2022, ...; version 2 removed it": both
    numbers occur, so every value check passes, but the year belongs to another statement. The claim's
    values must share one clause (a sentence, or a part between semicolons) of the quote.
    """
    mine = [v for v in claim.values if v.surface.lower() not in _ARTICLE_ONES and _digits(v)]
    own = [(m.start(), m.end()) for m in _CLAUSE.finditer(claim.text)]
    placed = {next((i for i, (a, b) in enumerate(own) if a <= span[0] < b), -1)
              for v in mine if (span := locate(claim.text, v)) is not None}
    if len(mine) < 2 or len(placed) > 1:
        return SKIP  # the claim states them in clauses of its own: it binds nothing together
    clauses = [(m.start(), m.end()) for m in _CLAUSE.finditer(evidence.quote)]
    if len(clauses) < 2:
        return SKIP
    spans_per_value = []
    for value in mine:
        spans = [locate(evidence.quote, e) for e in evidence.values if _digits(e) == _digits(value)]
        spans = [s for s in spans if s is not None]
        if not spans:
            return SKIP  # a value missing altogether is value-not-in-evidence's finding
        spans_per_value.append(spans)
    for start, end in clauses:
        if all(any(start <= s[0] < end for s in spans) for spans in spans_per_value):
            return PASS
    return fail("the evidence states " + " and ".join(repr(v.surface) for v in mine) + " in different clauses")
