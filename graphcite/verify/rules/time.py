"""Time rules: dates, years, times of day and ordinals are typed values, compared part by part."""

from __future__ import annotations

import re

from graphcite.language.dates import DatePart, dates_agree, dates_in, ordinals_in, share_a_part, times_in
from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.language.words import word_list, words_of
from graphcite.models import AtomicClaim, ExtractedValue
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
from graphcite.verify.rules.common import is_year, locate

__all__: list[str] = []

_NEXT_WORD = re.compile(r"\s*(?:-\s*)?([A-Za-z]+)")


def _parts(values: tuple[ExtractedValue, ...], text: str = "", labelled: bool = True) -> list[DatePart]:
    """The typed date values the value reader found, each read into its stated parts, and bare years
    it left as plain numbers ("(Oreskes 2011)"): a year counts nothing, so it is a date. A year that
    labels a singular noun ("the 2019 formulation", "a 1952 musical") is a date too: 2019 of something
    would be written in the plural (with ``labelled``: such a year names a thing as often as it dates
    the claim, so only a mismatch counts, never its absence). Day-and-month dates without a year ("by 31 March") are values
    with only those parts."""
    out = []
    for value in values:
        if value.kind == "date" or (is_year(value) and value.kind == "number" and not value.counted_noun) \
                or (labelled and _labelled_year(value, text)):
            out.extend(dates_in(value.surface) or ())
    taken = [(v.start, v.end) for v in values if v.kind == "date"]
    for date in dates_in(text):
        if date.year is None and date.month is not None and date.day is not None and not any(
                a <= date.start < b for a, b in taken):
            out.append(date)
    return out


def _labelled_year(value: ExtractedValue, text: str) -> bool:
    """A four-digit year read as a count of a noun written in the singular ("the 2019 formulation")."""
    if value.kind != "count" or not value.counted_noun or value.unit is not None or not text:
        return False
    if not (value.surface.isdigit() and len(value.surface) == 4 and 1000 <= (value.magnitude or 0) <= 2100):
        return False
    span = locate(text, value)
    following = _NEXT_WORD.match(text, span[1]) if span is not None else None
    if following is None:
        return False
    word = following.group(1).lower()
    return lemma(word) == word and not word.endswith("s")


def _centuries(text: str) -> list[DatePart]:
    """Centuries written in ``text`` ("the 20th century"), which the value reader leaves as words."""
    return [d for d in dates_in(text) if d.century is not None]


def _claim_dates(claim: AtomicClaim, centuries: bool = True) -> list[DatePart]:
    """The claim's dates; with ``centuries``, the centuries it names too (a century dates a claim
    loosely, so its absence from the evidence is left to the other slots: see GC312)."""
    return _parts(claim.values, claim.text, labelled=centuries) + (_centuries(claim.text) if centuries else [])


def _evidence_dates(evidence: Evidence) -> list[DatePart]:
    """Dates in the quote, and in the title, headings and table headers: a page titled "2011 season"
    dates its text, a column "2024-25" its cells."""
    found = _parts(evidence.values, evidence.quote, labelled=True) + _centuries(evidence.quote)
    headers = evidence.table_headers if evidence.block_type == "table_row" else ()
    for text in (*evidence.heading_path, *headers, evidence.title or ""):
        found.extend(dates_in(text))
    return found


def claim_dates(claim: AtomicClaim) -> list[DatePart]:
    """The dates the claim states (centuries left out: they date a claim loosely)."""
    return _claim_dates(claim, centuries=False)


def dates_stated(dates: list[DatePart], evidence: Evidence) -> bool:
    """Whether the evidence states each of ``dates``: a date of its own sharing a part with it and agreeing."""
    theirs = _evidence_dates(evidence)
    return all(any(share_a_part(d, e) and dates_agree(d, e) for e in theirs) for d in dates)


@rule("GC311", "date-mismatch", family="time", effect="contradicts",
      good=[("The bridge opened in 1998.", "The bridge was opened to traffic on March 3, 1998."),
            ("The album came out in May 2004.", "The album came out on 14 May 2004."),
            ("The mill was built in the 19th century.", "The mill was built in 1812 beside the weir."),
            ("Gym fees rise on 1 October.", "On 1 October every gym fee rises by 4%.")],
      bad=[("The bridge opened on March 3, 1998.", "The bridge opened on March 13, 1998."),
           ("Gym fees rise on 1 October.", "Gym fees rise on 1 September."),
           ("The 1952 musical toured Canada.", "The 1958 musical toured Canada."),
           ("Members who joined before the 2021 refit keep their fee until 31 May.",
            "Members who joined before the 2022 refit keep their fee until 31 May."),
           ("The album was released in 2011.", "The album was released in 2013."),
           ("The mill was built in the 18th century.", "The mill was built in 1812 beside the weir.")])
def date_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A date that disagrees in a part both sides state contradicts the claim.

    "March 3" and "March 13" share every word but one digit, so word overlap calls them the same;
    dates are compared as (year, month, day) with only the stated parts, so a year agrees with any
    day inside it and a different day or year disagrees. A decade or a century holds its years:
    "built in the 18th century" and "built in 1812" disagree.
    """
    mine = _claim_dates(claim)
    theirs = _evidence_dates(evidence)
    if mine and not theirs:  # a century against the years the evidence counts with ("a 1999 graph")
        mine = [d for d in mine if d.century is not None]
        theirs = [DatePart(v.surface, v.start, int(v.magnitude or 0), None, None) for v in evidence.values
                  if is_year(v, earliest=1000)]  # counted or not: "a 1999 graph", "in 1812 beside"
    if not mine or not theirs:
        return SKIP
    problems = []
    for d in mine:
        comparable = [e for e in theirs if share_a_part(d, e)]  # "2021" is not compared with "31 December"
        if comparable and not any(dates_agree(d, e) for e in comparable):
            problems.append(f"claim says {d.surface!r}, evidence says " + ", ".join(repr(e.surface) for e in comparable[:3]))
    return failures(problems)


@rule("GC312", "date-not-in-evidence", family="time", effect="insufficient",
      good=[("The bridge opened in 1998.", "In 1998 the bridge opened.")],
      bad=[("The bridge opened in 1998.", "The bridge opened after a long delay.")])
def date_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A dated claim needs a date in its evidence: the date is a slot the passage must fill.

    "Opened in 1998" against a passage that says only "opened after a delay" is not support: the
    year came from somewhere else.
    """
    mine = _claim_dates(claim, centuries=False)
    if not mine:
        return SKIP
    if _evidence_dates(evidence) or _parts(evidence.context_values):
        return PASS
    return fail("the evidence states no date for " + ", ".join(repr(d.surface) for d in mine))


@rule("GC313", "time-of-day-mismatch", family="time", effect="contradicts",
      good=[("The ferry leaves at 09:30.", "The first ferry leaves at 9:30 am every day.")],
      bad=[("The ferry leaves at 09:30.", "The ferry leaves at 10:30.")])
def time_of_day_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A different clock time is a different fact ("09:30" is not "10:30")."""
    mine = times_in(claim.text)
    theirs = times_in(evidence.quote)
    if not mine or not theirs:
        return SKIP
    problems = [f"claim says {t.surface!r}, evidence says " + ", ".join(repr(e.surface) for e in theirs[:3])
                for t in mine if not any(t.minutes == e.minutes for e in theirs)]
    return failures(problems)


def _ranked(text: str, start: int, surface: str) -> str | None:
    found = _NEXT_WORD.match(text, start + len(surface))
    return found.group(1).lower() if found else None


@rule("GC314", "ordinal-mismatch", family="time", effect="contradicts",
      good=[("She was the third woman to hold the post.", "She became the third woman to hold the post.")],
      bad=[("She was the third woman to hold the post.", "She was the fourth woman to hold the post.")])
def ordinal_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A rank is a value: "the third woman" and "the fourth woman" share every word but the one that
    matters. Ordinals are compared when both rank the same noun."""
    mine = ordinals_in(claim.text)
    theirs = ordinals_in(evidence.quote)
    if not mine or not theirs:
        return SKIP
    problems = []
    for o in mine:
        noun = _ranked(claim.text, o.start, o.surface)
        same_noun = [e for e in theirs if _ranked(evidence.quote, e.start, e.surface) == noun]
        if same_noun and not any(e.value == o.value for e in same_noun):
            problems.append(f"claim says {o.surface!r} {noun}, evidence says "
                            + ", ".join(repr(e.surface) for e in same_noun[:3]))
    return failures(problems)


def _ranked_nouns(text: str, start: int) -> tuple[str, ...]:
    """The lemmas of the nouns right after the ordinal at ``start`` when, as the parse reads it, it ranks
    a noun ("the second prize": prize; "the third relay retry": relay, retry); none for "first opened in
    1990" or "within a second"."""
    doc = parse(text)
    token = next((t for t in doc if t.idx == start), None)
    if token is None or token.dep_ not in {"amod", "nummod"} or token.head.pos_ not in {"NOUN", "PROPN"} \
            or token.head.i <= token.i:
        return ()
    nouns: list[str] = []
    for t in doc[token.i + 1:]:
        if t.pos_ not in {"NOUN", "PROPN"}:
            break
        nouns.append(t.lemma_.lower())
    return tuple(nouns)


@rule("GC315", "rank-not-in-evidence", family="time", effect="insufficient",
      good=[("She won the second prize in the county show.", "She took the second prize at the county show."),
            ("The plan is in its second revision.", "Revision 2 of the plan was approved in May."),
            ("Her 3rd album sold well.", "Her third album sold well in Japan.")],
      bad=[("She won the second prize in the county show.", "She won a prize at the county show."),
           ("It was the club's fourth title.", "The club won the title again in May.")])
def rank_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A rank the claim gives a thing must be stated: "won the second prize" against "won a prize at
    the show" shares every word but the one that makes the claim specific, and the share of found
    words passes it. An ordinal is a value (GC314 compares two of them); one the evidence never
    states is as unsaid as a missing number. Only an ordinal that ranks a noun counts: "first opened
    in 1990" ranks nothing, and a thing numbered instead ("revision 2", a "Retry" column's 3) is
    ranked. "First" is left out: a verb of beginning says it ("originated in", "premiered",
    "founded"). So is a percentile, a statistic the quantity rules compare (GC308), and code, which
    counts ("failures=4") where prose ranks."""
    if evidence.is_code:
        return SKIP  # code counts ("failures=4") where prose ranks: no ordinal to read there
    mine = [(o, nouns) for o in ordinals_in(claim.text) if o.value > 1
            and (nouns := _ranked_nouns(claim.text, o.start)) and not set(nouns) & word_list("ranked_statistics")]
    if not mine:
        return SKIP
    stated = {o.value for o in ordinals_in(evidence.envelope)}
    return failures(f"the evidence gives no {o.surface!r} {' '.join(nouns)}" for o, nouns in mine
                    if o.value not in stated and not _numbered(o.value, nouns, evidence))


def _numbered(rank: int, nouns: tuple[str, ...], evidence: Evidence) -> bool:
    """Whether the evidence numbers the ranked thing (one of ``nouns``, lemmas) instead: "revision 2" for
    "the second revision", or a table row whose cell under a header naming the thing ("Retry") is the
    number ("the third relay retry")."""
    wanted = set(nouns)
    if evidence.block_type == "table_row" and evidence.table_headers:
        cells = [c.strip() for c in evidence.quote.strip().strip("|").split("|")]
        if any(cell == str(rank) and wanted & {w.lemma for w in words_of(header)}
               for cell, header in zip(cells, evidence.table_headers, strict=False)):
            return True
    return any(lemma(m.group(1).lower()) in wanted and int(m.group(2)) == rank
               for m in _NUMBERED.finditer(evidence.envelope))


#: a word and the number after it ("Revision 2", "attempt #5")
_NUMBERED = re.compile(r"\b([A-Za-z]+)\s+#?(\d{1,3})\b")
