"""Slot rules: each name and content word of the claim must be found in its evidence, not replaced by
an opposite or by another member of the same class."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from graphcite.language.align import WEIGHT_LIGHT, Alignment, align
from graphcite.language.dates import times_in
from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.language.values.units import lookup_unit
from graphcite.language.words import as_written, word_list
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import SKIP, RuleResult, failures, rule
from graphcite.verify.rules.common import attributed, attribution_stripped, blank_values

__all__ = ["alignment_for", "alignment_in_quote", "in_attribution", "without_attribution"]

# a closing attribution after the last comma: ", say scientists", ", NASA says", ", according to a study"
_TAIL = re.compile(r",\s*(?P<tail>[^,;:]{2,80}?)[\s.!?\"'”’]*$")
_ACCORDING = re.compile(r"^\s*according\s+to\b", re.I)
_TAIL_WORDS = 8  # an attribution names a source in a few words; a longer tail is a clause of its own


@lru_cache(maxsize=4096)
def without_attribution(text: str) -> str:
    """``text`` without a closing attribution of who reports it ("..., say scientists", "..., a new
    study finds", "..., according to NASA"): the source is not a further thing the evidence must say.
    A tail with a negation or more than a few words is kept: it is a clause of its own."""
    match = _TAIL.search(text)
    if match is None:
        return text
    tail = match.group("tail")
    words = re.findall(r"[A-Za-z][A-Za-z'’\-]*", tail)
    if not words or len(words) > _TAIL_WORDS or set(w.lower() for w in words) & word_list("negation"):
        return text
    frames = word_list("frame_verbs")
    if _ACCORDING.match(tail) or lemma(words[0].lower()) in frames or lemma(words[-1].lower()) in frames:
        return text[:match.start()]
    return text


def in_attribution(claim: AtomicClaim, phrase: str | None) -> bool:
    """Whether ``phrase`` (the claim's object or predicate as the claim reader split it) lies in the
    closing attribution :func:`without_attribution` leaves out ("..., a new survey finds")."""
    if not phrase or not phrase.strip():
        return False
    kept = without_attribution(claim.text)
    return len(kept) < len(claim.text) and phrase.strip() in claim.text[len(kept):]


def alignment_in_quote(claim: AtomicClaim, evidence: Evidence) -> Alignment:
    """The claim aligned against the quote itself, with the sentence a pronoun points to (a table row
    with its headers), not the title and headings: what the span says, not what the document is about."""
    if evidence.block_type == "table_row":
        return alignment_for(claim, evidence)
    return alignment_for(claim, replace(evidence, heading_path=(), title=None, symbol=None))


def alignment_for(claim: AtomicClaim, evidence: Evidence) -> Alignment:
    """The claim (values blanked: the value rules compare them) aligned against the evidence envelope.

    A closing attribution is left out ("..., say scientists"): who reports a finding is seldom in the
    passage that states it. Values and clock times are blanked: their rules compare them. An opening frame ("a new study finds that ...") is kept: on CLIMATE-FEVER
    dev, aligning only the clause it reports made 3 true and 8 false supports."""
    text = blank_values(claim.text, claim.values, bounds=True) if claim.values else claim.text
    for time in reversed(times_in(text)):  # "by 6:30 am": a clock time is GC313's to compare, its "am" no word
        text = text[:time.start] + " " + text[time.start + len(time.surface):]
    if attributed(claim, evidence):
        text = attribution_stripped(text)
    text = _same_units_blanked(text, evidence.envelope)
    found = align(without_attribution(text), evidence.envelope)
    if evidence.block_type == "table_row" and found.slots:
        return _table_verbs_light(claim.text, found)
    return found


# "per cubic metre", "a litre", "/m³": what a figure is counted per, written in words or as a symbol
_PER_UNIT = re.compile(r"(?:\b(?:per|a|an|each|every)\s+|/\s*)([^\W\d_][^\W_]*(?:[ -][^\W\d_]+)?)", re.I)


def _per_units(text: str) -> list[tuple[int, int, str]]:
    """Each per-unit phrase of ``text`` with the pint unit it names (one or two words, longest first)."""
    out = []
    for found in _PER_UNIT.finditer(text):
        phrase = found.group(1)
        for candidate in (phrase, phrase.split()[0].split("-")[0]) if (" " in phrase or "-" in phrase) else (phrase,):
            entry = lookup_unit(candidate)
            if entry is not None and entry.kind not in {"count", "money"}:
                out.append((found.start(1), found.start(1) + len(candidate), entry.unit))
                break
    return out


def _same_units_blanked(text: str, evidence: str) -> str:
    """``text`` with each per-unit phrase blanked whose unit the evidence also counts per, however
    written ("per cubic metre" against "per m³"): a unit is the value's, not a word to find."""
    if not any(c in text for c in "/") and not re.search(r"\b(?:per|a|an|each|every)\s", text, re.I):
        return text
    theirs = {unit for _, _, unit in _per_units(evidence)}
    for start, end, unit in reversed(_per_units(text)):
        if unit in theirs:
            text = text[:start] + " " * (end - start) + text[end:]
    return text


def _table_verbs_light(claim_text: str, found: Alignment) -> Alignment:
    """A table row states a row, a column and a value; the verb a claim relates them by ("should leave 8
    hours between doses", "can take 800 mg") is not a word the row repeats, so a missing verb weighs as
    a light verb does. The cell rules compare the row, the column and the value."""
    verbs = {t.lemma_.lower() for t in parse(claim_text) if t.pos_ == "VERB"}
    if not any(s.status == "missing" and s.kind == "word" and s.text in verbs for s in found.slots):
        return found
    return Alignment(tuple(replace(s, weight=min(s.weight, WEIGHT_LIGHT))
                           if s.status == "missing" and s.kind == "word" and s.text in verbs else s
                           for s in found.slots))


@rule("GC204", "slot-filled-by-other", family="slots", effect="insufficient",
      good=[("Jan Visser was a Dutch painter.", "Jan Visser (1901-1970) was a Dutch painter of harbours."),
            ("A man in sunglasses is sitting on a bench.", "A man in shades is sitting on a bench.")],
      bad=[("Jan Visser was a Dutch painter.", "Jan Visser was a Belgian painter."),
           ("The deputy harbour master signs the permits.", "The chief harbour master signs the permits."),
           ("Refunds go to the original card within five days.", "Refunds go to the store card within five days."),
           ("The museum is in Oslo.", "The museum is located in Bergen, Norway."),
           ("The girl is playing a violin on the porch.", "The girl is playing a trumpet on the porch.")])
def slot_filled_by_other(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A name or thing the claim needs is absent and another of the same kind stands where it would be.

    "A Dutch painter" against "a Belgian painter", "in Oslo" against "in Bergen", or "playing a
    violin" against "playing a trumpet": every other word matches, so the share of shared words stays
    high, yet the one slot that carries the fact is filled by something else. The other word need not
    be a kind of the same thing: "the deputy harbour master" against "the chief harbour master" has
    another word framed by the same words on both sides, which no paraphrase explains. The evidence does not
    say the claim (it may say the opposite, but a painter can hold two nationalities, so the rule
    says insufficient rather than contradicts).
    """
    found = alignment_for(claim, evidence)
    if not found.slots:
        return SKIP
    other = found.with_status("other")
    return failures(f"the claim names {as_written(claim.text, s.text)!r}, the evidence "
                    f"{as_written(evidence.envelope, s.by or '')!r} instead" for s in other)


@rule("GC205", "opposite-in-evidence", family="slots", effect="contradicts",
      good=[("The valley is heavily populated.", "The valley is densely and heavily populated.")],
      bad=[("The valley is heavily populated.", "The valley is sparsely populated."),
           ("It is the strongest team in the league.", "It is the weakest team in the league.")])
def opposite_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The evidence uses the opposite word where the claim has its word: "sparsely" for "heavily",
    "weakest" for "strongest". Antonyms share their topic and most of the sentence, so overlap
    passes them; a lexicon of opposites (WordNet antonyms, through base forms) does not."""
    found = alignment_for(claim, evidence)
    words = [s for s in found.slots if s.kind == "word"]
    if not words:
        return SKIP
    opposite = found.with_status("opposite")
    return failures(f"the claim says {as_written(claim.text, s.text)!r}, the evidence says "
                    f"{as_written(evidence.envelope, s.by or '')!r}" for s in opposite)


@rule("GC206", "name-not-in-evidence", family="slots", effect="insufficient",
      good=[("Kessler grew up in Chicago.", "Born in 1950, Kessler grew up in Chicago.")],
      bad=[("Kessler grew up in Chicago.", "Kessler grew up in a large city."),
           ("The factory is in Ohio.", "The factory is located in Toledo, Spain.")])
def name_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Every name in the claim (a person, place, organisation, nationality) must be in the evidence
    or its envelope (title, headings, the sentence a pronoun points back to).

    A name is a key slot: "grew up in Chicago" is not supported by "grew up in a large city", however
    many other words match; the claim is more specific than its evidence.
    """
    found = alignment_for(claim, evidence)
    names = [s for s in found.slots if s.kind == "name"]
    if not names:
        return SKIP
    return failures(f"the evidence does not name {as_written(claim.text, s.text)!r}" for s in found.missing_names)
