"""Condition, scope and entity: evidence for a narrower case does not support the broader claim."""

from __future__ import annotations

import re
from functools import lru_cache

from graphcite.language import lexicon
from graphcite.language.domain import active
from graphcite.language.frames import aligned_frames, content_words, main_frame, supposed
from graphcite.language.nlp import lemma_lookup
from graphcite.language.parse import layout, parse
from graphcite.language.values import values_agree
from graphcite.language.values.unitwords import bound_cue_start
from graphcite.language.words import STOPWORDS, word_list, words_of
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence, clause_for, conditions_of
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
from graphcite.verify.rules.common import locate

__all__ = ["named_entities"]

_ENTITY_RE = re.compile(r"\b(?:[A-Z][A-Za-z0-9]*[-_][A-Za-z0-9\-_]+|[A-Z]{2,}[0-9A-Z\-]*|[a-z]+-[0-9]+|"
                        r"[A-Z][a-z]+[A-Z][A-Za-z]+)\b")


@lru_cache(maxsize=16)
def _named_before(nouns: frozenset[str]) -> re.Pattern[str] | None:
    """A capitalised word before one of the domain's entity nouns names one ("Brightway adapter")."""
    if not nouns:
        return None
    alternatives = "|".join(sorted(re.escape(n) for n in nouns))
    return re.compile(rf"(?<=\s)[A-Z][a-z]{{2,}}(?=\s(?:{alternatives})\b)")
_UNIVERSAL = frozenset({"all", "every", "any", "each"})
_ANAPHORIC = re.compile(r"\b(all|each|every one) of (those|these|them|its|their|the)\b", re.I)
# "No household may hold ...": a negative universal speaks of every case as surely as "every" does
_NEGATIVE_UNIVERSAL = frozenset({"no", "none", "nobody", "never", "nothing", "neither"})
# a window of time a statement holds in: "within 24 months", "within that period", "in the first year"
_WINDOW = re.compile(r"\b(?:within(?:\s+(?:the|that|this|its|their|a|an))?|(?:in|during|for)\s+(?:the|its|their)\s+first)"
                     r"\s+[^\W_]+(?:\s+[^\W\d_]+)?", re.I)
_ALL_TIME = re.compile(r"\b(never|always|ever|at any time|at all times)\b", re.I)


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    data = lemma_lookup()
    return frozenset(k.lower() for k in data) | frozenset(v.lower() for v in data.values())


def named_entities(text: str, *, initial: bool = False) -> set[str]:
    """Code-like names and proper names in running text.

    With ``initial``, any capitalised word that is not a common English word counts too
    ("Brightway label calls ..."), which is right for strict subject matching.
    """
    found = {m.group(0) for m in _ENTITY_RE.finditer(text)}
    before = _named_before(active().entity_nouns)
    if before is not None:
        found |= {m.group(0) for m in before.finditer(text)}
    if initial:
        common = _common_words()
        found |= {w for w in re.findall(r"\b[A-Z][a-z]{2,}\b", text) if w.lower() not in common}
    return found


_STRICT = ("only", "unless", "except", "provided")
_NOT_ONLY = re.compile(r"\bnot\s*$", re.I)  # "not only on queue lag" adds, it does not restrict


@rule("GC501", "lost-condition", family="scope", effect="insufficient",
      good=[("The scheduler retries a delivery only after a confirmed timeout.",
             "The scheduler retries a delivery only after a confirmed timeout."),
            ("Tom moved to Paris.", "When he was ten, Tom moved to Paris."),
            ("Refunds are paid in cash if the receipt is lost.", "If the receipt is lost, refunds are paid in cash.")],
      bad=[("The scheduler retries a delivery.", "The scheduler retries a delivery only after a confirmed timeout."),
           ("Members can book rooms for up to 8 hours.", "Members can book rooms for up to 8 hours only on weekdays."),
           ("Refunds are paid in cash.", "If the receipt is lost, refunds are paid in cash."),
           ("A room can be booked for up to 6 hours.", "At weekends a room can be booked for up to 6 hours."),
           ("The bridge reopens in June.", "The bridge reopens in June, subject to a final safety check.")])
def lost_condition(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Evidence that holds only under a condition does not support the unconditional claim.

    "Retries only after a confirmed timeout" becomes "retries" in a careless summary; the finding
    names the dropped condition so a reviewer can narrow the claim. The conditions are those the parse
    attaches to the evidence clause the claim is about (an "if" or "unless" clause, a "when" clause
    that is not a past time, a phrase opened by "only" or "except"), never a condition of another
    clause of the quote; the claim keeps a condition when it says most of its words.
    """
    if evidence.block_type == "table_row" or evidence.is_code:
        return SKIP
    _mine, theirs = aligned_frames(claim.text, evidence.quote)
    if theirs is None:
        return SKIP
    # where the parse misses a marked condition of that clause ("only after ...", "unless ..."), the
    # clause's own marker words still name it
    marked = tuple(c for c in conditions_of(evidence.quote)
                   if c.lower().startswith(_STRICT) and not _NOT_ONLY.search(evidence.quote[:evidence.quote.find(c)]))
    marked += tuple(c for c in conditions_of(clause_for(evidence.quote, claim.text)) if c.lower().startswith("if "))
    marked += _held_pending(clause_for(evidence.quote, claim.text))
    conditions = tuple(dict.fromkeys((*theirs.conditions, *marked, *_times_kept_to(claim, evidence))))
    if not conditions:
        return PASS
    claim_terms = support_terms(claim.sentence or claim.text)
    lost = []
    for condition in conditions:
        wanted = support_terms(condition)
        if not wanted:
            continue
        missing = {w for w in wanted - claim_terms if not _said_otherwise(w, claim_terms)}
        strict = condition.lower().startswith(("only", "unless", "except", "provided", *word_list("condition_prepositions")))
        if (strict and len(missing) * 3 > len(wanted)) or len(missing) * 2 > len(wanted):
            lost.append(condition)
    return failures(f"the evidence holds it only {c!r}, which the claim leaves out" if not c.lower().startswith("only")
                    else f"the evidence holds it {c!r}, which the claim leaves out" for c in lost)


def _said_otherwise(word: str, terms: frozenset[str] | set[str]) -> bool:
    """Whether the claim says a condition's word by a paraphrase the lexicon accepts ("fee" / "costs")."""
    accepted = active().paraphrase
    return any(lexicon.related(word, t) in accepted for t in terms if t != word)


@rule("GC502", "scope-broadened", family="scope", effect="insufficient",
      good=[("All carrier adapters log their requests.", "All carrier adapters log their requests.")],
      bad=[("All carrier adapters log their requests.", "The Pelican adapter logs its requests."),
           ("Every vendor is paid within 30 days.", "Vendors with a signed contract are paid within 30 days."),
           ("The relay has never had a handler for refunds.",
            "No handler is registered for refunds in release 2024.09.")])
def scope_broadened(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A universal claim needs universal evidence: one adapter's behaviour is not every adapter's.

    The same holds in time: "never" or "always" is not shown by a passage about one release or date.
    """
    if _ALL_TIME.search(claim.text):
        scoped = [v.surface for v in evidence.values if v.kind in {"version", "revision", "date"}
                  and v.surface.lower() not in claim.text.lower()]
        if scoped:
            return fail(f"claim speaks of all time, evidence holds for {scoped[0]!r}")
        window = next((m.group(0) for m in _WINDOW.finditer(evidence.quote)
                       if m.group(0).lower() not in claim.text.lower()), None)
        if window:  # "may switch back at any time" against "may switch back within that period"
            return fail(f"claim speaks of all time, evidence holds {window!r}")
    narrowed = _narrowed_subject(claim, evidence)
    if narrowed:
        return fail(narrowed)
    if (claim.quantifier or "").lower() in _UNIVERSAL and not _quantifies_things(claim.quantifier or "", claim.text):
        narrower = _said_times(evidence.quote)
        if narrower:  # "every day" against "on weekdays": the claim's time is broader than the evidence's
            return fail(f"claim says {claim.quantifier!r} of time, evidence only speaks of {narrower[0]!r}")
        return SKIP if not _ALL_TIME.search(claim.text) else PASS
    if (claim.quantifier or "").lower() not in _UNIVERSAL or _ANAPHORIC.search(claim.text):
        return SKIP if not _ALL_TIME.search(claim.text) else PASS
    words = set(re.findall(r"[a-z]+", evidence.quote.lower()))
    if words & (_UNIVERSAL | _NEGATIVE_UNIVERSAL | {"always", "whole", "entire"}):
        return PASS
    return fail(f"claim says {claim.quantifier!r}, evidence does not speak of all cases")


def _held_pending(clause: str) -> tuple[str, ...]:
    """Phrases that hold a statement until something happens ("pending load tests", "subject to
    approval": words.json ``condition_prepositions``), which the parse reads as prepositions."""
    words = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in sorted(word_list("condition_prepositions")))
    return tuple(m.group(0).strip() for m in re.finditer(rf"\b(?:{words})\s+[^,;.]+", clause, re.I))


def _said_times(text: str) -> list[str]:
    """The restricting times ``text`` names ("weekends", "business days": words.json ``restricted_time_words``)."""
    def singular(words: list[str]) -> str:  # "on Sundays" names Sunday, "at weekends" the weekend
        return " " + " ".join(w[:-1] if w.endswith("s") else w for w in words) + " "

    said = singular(re.findall(r"[a-z]+", text.lower()))
    return sorted({w for w in word_list("restricted_time_words") if singular(w.split()) in said})


def _times_kept_to(claim: AtomicClaim, evidence: Evidence) -> tuple[str, ...]:
    """The times the evidence clause holds for when the claim names none: "At weekends the limit is 6
    hours" holds the limit at weekends, which "the limit is 6 hours" leaves out. A claim that names a
    time of its own ("on Saturdays") is compared by the other rules."""
    if _said_times(claim.sentence or claim.text):
        return ()
    _mine, theirs = aligned_frames(claim.text, evidence.quote)
    if theirs is None or theirs.tense == "past":
        return ()  # "elected on Tuesday, October 7": a past event's day is its date, not a restriction
    clause = clause_for(evidence.quote, claim.text)
    out = []
    for word in _said_times(clause):
        spelled = r"\s+".join(re.escape(w) for w in word.split())
        written = re.search(rf"\b(?:(?:at|on|during|over|in)\s+(?:the\s+)?)?{spelled}s?\b", clause, re.I)
        if written is None or not (" " in word or written.group(0).lower().endswith("s")):
            continue  # habitual times only ("at weekends", "on Sundays", "business days"), not "on Tuesday"
        if written.group(0) not in out and not any(written.group(0).lower() in c.lower() for c in theirs.conditions):
            out.append(written.group(0))
    return tuple(out)


def _quantifies_things(quantifier: str, text: str) -> bool:
    """Whether ``quantifier`` ranges over things somewhere in ``text``, not only over time: "each
    month" and "at any hour" say how often or when (words.json ``time_nouns``), and "£12 each" a price
    per item, not of which cases."""
    times = "|".join(sorted(word_list("time_nouns")))
    rest = re.sub(rf"\b{re.escape(quantifier)}\s+(?:(?:single|calendar|other|working)\s+)?(?:{times})s?\b", " ",
                  text, flags=re.I)
    rest = re.sub(r"\beach\b(?=\s*(?:[.,;:)]|$))", " ", rest, flags=re.I)  # "£12 each": a price per item
    rest = re.sub(r"(?<=\d)(\s*[A-Za-z%]*\s+for)\s+each\b", r"\1", rest, flags=re.I)  # "£15 for each dog": per dog
    return re.search(rf"\b{re.escape(quantifier)}\b", rest, re.I) is not None


def _narrowed_subject(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """The evidence clause speaks of a restricted part of the claim's class: "every vendor is paid"
    against "vendors with a signed contract are paid", "only Studio members may ..."."""
    subject = (claim.subject or "").strip()
    if evidence.block_type == "table_row" or not subject or _ANAPHORIC.search(claim.text) \
            or re.search(r"\d", subject):
        return None  # "under 40% of voters" counts a share, it names no class
    if not (_generic(claim) and (subject.split()[0].lower() in _UNIVERSAL or not _DETERMINED.match(subject))):
        return None  # the class must be the claim's subject ("every vendor", "vendors"), not an object
    mine, theirs = aligned_frames(claim.text, evidence.quote)
    if theirs is None or not theirs.subject or theirs.quantifier in _UNIVERSAL:
        return None
    if mine is None or theirs.subject_head != mine.subject_head:
        return None  # the evidence clause is about something else: the subject rules speak for that
    claim_terms = support_terms(claim.sentence or claim.text)
    # a restriction is kept when the claim says most of its words ("Reed Rewards members" keeps "of the
    # Reed Rewards scheme"), as a condition is (GC501)
    lost = [r for r in theirs.scope if len(support_terms(r) - claim_terms) * 2 > len(support_terms(r))]
    if re.match(r"only\s+[^\W\d]", theirs.subject, re.I) and support_terms(theirs.subject) - claim_terms:
        lost.append(theirs.subject)
    if not lost:
        return None
    return f"the claim speaks of {claim.subject or 'a whole class'!r}; the evidence only of {theirs.subject!r}"


_SET_APART = re.compile(r"\b([a-z]{1,2}) (\d)\b")


@rule("GC505", "only-supposed", family="scope", effect="insufficient",
      good=[("The receipt was lost.", "The receipt was lost, so the refund was paid in cash."),
            ("Refunds are paid in cash.", "If the receipt is lost, refunds are paid in cash.")],
      bad=[("The receipt was lost.", "If the receipt was lost, the refund was paid in cash."),
           ("The shipment was damaged.", "Unless the shipment was damaged, the carrier keeps the fee.")])
def only_supposed(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A clause the evidence only supposes is not asserted by it.

    "If the receipt was lost, the refund was paid in cash" shares every word of "the receipt was lost",
    yet it does not say the receipt was lost: the clause the claim matches sits inside an "if",
    "unless" or "whether" clause. The clause is the one the claim's frame aligns with; a condition the
    claim drops from its own clause is GC501's.
    """
    if evidence.block_type == "table_row" or evidence.is_code:
        return SKIP
    _mine, theirs = aligned_frames(claim.text, evidence.quote)
    if theirs is None:
        return SKIP
    if not supposed(evidence.quote, theirs):
        return PASS
    main = main_frame(evidence.quote)
    if main is not None and main is not theirs:
        said = content_words(main) | {main.predicate}
        if len(said & support_terms(claim.text)) * 2 >= len(said):
            return PASS  # the claim restates the whole conditional: "a battery keeping under 70% counts as faulty"
    return fail(f"the evidence only supposes {evidence.quote[theirs.start:theirs.end]!r}; it does not say it")


@rule("GC503", "entity-mismatch", family="scope", effect="insufficient",
      good=[("The KX-7 adapter retries twice.", "The KX-7 adapter retries twice.")],
      bad=[("The KX-7 adapter retries twice.", "The KX-9 adapter retries twice.")])
def entity_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Evidence about another entity or version does not support this one.

    Adapter KX-9's behaviour says nothing about KX-7. Names in the claim must appear in the quote,
    its headings, the unit around it or the source title.
    """
    mine = named_entities(claim.text)
    if not mine:
        return SKIP
    haystack = " ".join([evidence.quote, evidence.context, *evidence.heading_path, evidence.title or "",
                         evidence.source_key, *(key for key, _ in evidence.superseded_by)]).lower()
    joined = _SET_APART.sub(r"\1\2", haystack)  # "CO 2" as a copied page sets a subscript apart
    missing = sorted(e for e in mine if e.lower() not in haystack and e.lower() not in joined)
    return failures(f"evidence does not name {e!r}" for e in missing)


_DETERMINED = re.compile(r"^\s*(?:the|this|that|these|those|a|an|one|its|their|our|his|her|my|your)\b", re.I)


@lru_cache(maxsize=1)
def _example_marker() -> re.Pattern[str]:
    from graphcite.language.words import word_list

    alternatives = "|".join(sorted((re.escape(m) for m in word_list("example_markers")), key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})(?![\w])", re.I)


def _generic(claim: AtomicClaim) -> bool:
    """A universal or bare plural subject ("All adapters ...", "Carrier adapters ...")."""
    if (claim.quantifier or "").lower() in _UNIVERSAL:
        return True
    subject = (claim.subject or "").strip()
    if not subject or _DETERMINED.match(subject) or named_entities(subject):
        return False
    head = subject.split()[-1].lower()
    return head.endswith("s") and not head.endswith("ss") and lemma_lookup().get(head, head) != head


@rule("GC504", "example-generalised", family="scope", effect="insufficient",
      good=[("The Pelican adapter retries twice.", "For example, the Pelican adapter retries twice."),
            ("Carrier adapters retry twice.", "Carrier adapters retry twice, for example after a timeout.")],
      bad=[("Carrier adapters retry twice.", "For example, the Pelican adapter retries twice."),
           ("All dispatch queues drain within a minute.",
            "For instance, the night queue drains within a minute.")])
def example_generalised(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """An example is one case: stating it of a whole class is a generalisation the source did not make.

    A summary that turns "for example, the Pelican adapter retries twice" into "carrier adapters retry
    twice" reads fluently and overlaps in every content word. The rule fires only when the cited
    sentence opens or is headed as an example and the claim speaks of a class (a universal or a bare
    plural subject); a claim about the example itself, or one that keeps the example marker, passes.
    """
    quote = evidence.quote
    marker = _example_marker().search(quote)
    headed = any(_example_marker().search(h) or h.strip().lower() in {"example", "examples"}
                 for h in evidence.heading_path[-1:])
    if marker is None and not headed:
        return SKIP
    if marker is not None and marker.start() > max(0, len(quote) // 3) and not headed:
        return PASS  # "... retry twice, for example after a timeout": the example is a detail, not the case
    if _example_marker().search(claim.sentence or claim.text) or not _generic(claim):
        return PASS
    cue = marker.group(0) if marker is not None else evidence.heading_path[-1]
    return fail(f"evidence gives one case ({cue!r}); the claim states it of {claim.subject or 'a whole class'!r}")


@rule("GC506", "restriction-dropped", family="scope", effect="insufficient",
      good=[("Orders over £50 ship free.", "Orders over £50 ship free within the country."),
            ("Orders ship within two days.", "Orders ship within two days.")],
      bad=[("Orders ship free.", "Orders over £50 ship free within the country."),
           ("The tablets must not be taken with aspirin.",
            "The tablets must not be taken with other pain relievers, such as aspirin above 75 mg a day.")])
def restriction_dropped(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A thing the evidence restricts by a bound on a number is not the thing in general.

    "Aspirin above 75 mg a day" is not aspirin: a claim that the tablets must not be taken with aspirin
    drops the dose the evidence names, and "orders over £50 ship free" says nothing of every order.
    A noun the claim names that the evidence follows with a bound ("over", "above", "under", "up to" and
    a value) is restricted there; unless the claim states a value of the same kind, it has dropped the
    restriction.
    """
    if evidence.block_type == "table_row" or evidence.is_code:
        return SKIP
    quote = evidence.quote
    claim_words = {w.lemma for w in words_of(claim.sentence or claim.text)}
    lost = []
    for value in evidence.values:
        span = locate(quote, value)
        if value.bound not in {"min", "max"} or value.kind == "date" or span is None:
            continue
        cue = bound_cue_start(quote, span[0])
        noun = _noun_before(quote, cue) if cue is not None else None
        if noun is None or noun not in claim_words:
            continue
        if any(values_agree(mine, value) is not None for mine in claim.values):
            continue  # the claim states a figure of the same kind: the quantity rules compare the two
        lost.append(quote[_word_start(quote, cue):span[1]])
    return failures(f"the evidence speaks only of {phrase!r}" for phrase in lost) if lost else PASS


def _word_start(text: str, end: int) -> int:
    found = re.search(r"([A-Za-z][A-Za-z-]*)\s*$", text[:end])
    return found.start(1) if found else end


def _noun_before(text: str, cue: int) -> str | None:
    """The lemma of the noun right before ``text[cue:]`` in the parse, else None ("take no more than":
    a verb's bound, no thing restricted)."""
    start = _word_start(text, cue)
    if start == cue:
        return None
    flat = layout(text)
    at = flat.flat_span(start, start + 1)[0]
    token = next((t for t in parse(flat.flat) if t.idx == at), None)
    if token is None or token.pos_ not in {"NOUN", "PROPN"} or token.lower_ in STOPWORDS:
        return None
    return token.lemma_.lower()
