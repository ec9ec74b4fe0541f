"""Polarity: a negation mismatch between claim and evidence contradicts."""

from __future__ import annotations

import re

from graphcite.language import lexicon
from graphcite.language.cues import negation_pattern
from graphcite.language.frames import aligned_frames, content_words, frame_for, frames_of
from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.language.predicates import event_nouns
from graphcite.language.words import STOPWORDS, Word, as_written, word_list, words_of
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import ELLIPTICAL, Evidence, clause_for
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, failures, rule
from graphcite.verify.rules.aligned import aligned_part
from graphcite.verify.rules.common import blank_values, same_predicate, word_lemmas
from graphcite.verify.rules.slots import alignment_for

_LIGHT = frozenset({"not", "no", "never", "do", "does", "did", "be", "is", "are", "was", "were", "have", "has",
                    "had", "use", "used", "make", "get", "can", "could", "may", "must", "should", "will"})

__all__ = ["bounds_a_number", "claim_negation", "evidence_negation", "states_predicate"]

# the first auxiliary of a sentence directly negated: "Arctic land does not store ...", "June was not ..."
_MAIN_NEGATION = re.compile(r"^[^,;:]*?\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|"
                            r"should|may|might|must)\s+(not|never)\b|^[^,;:]*?\b\w+(n['\u2019]t)\b", re.I)
_SUBORDINATE = re.compile(r"\b(?:who|which|that|whose|whom|while|although|though|if|unless|when|whether|because|"
                          r"since|as|than)\b", re.I)
_AUX_FIRST = re.compile(r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|should|may|might|"
                        r"must|\w+n['\u2019]t)\b", re.I)


# a negation that turns a comparison into a bound: "must not exceed 600 mg", "do not take more than 2",
# "no household may hold more than three permits"
_BOUNDING = re.compile(r"\b(?:not|never|cannot|no|\w+n['\u2019]t)\s+(?:[a-z]+\s+){0,3}?(?:more|less|fewer|longer|"
                       r"shorter|higher|lower|greater|exceed(?:s|ed|ing)?|over|above|under|below)\b[^.;:!?\d]{0,24}?"
                       r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                       r"thirty|forty|fifty|hundred)\b)",
                       re.I)


def bounds_a_number(text: str) -> bool:
    """Whether every negation of ``text`` only bounds a number ("must not exceed 600 mg", "do not take
    more than 600 mg": at most 600 mg). Such a "not" is the value's bound, which the quantity rules
    compare; it denies nothing ("600 mg or less" and "not more than 600 mg" say one thing)."""
    bounding = list(_BOUNDING.finditer(text))
    return bool(bounding) and len(negation_pattern().findall(text)) == len(bounding)


def claim_negation(claim: AtomicClaim) -> str | None:
    """The claim's negation cue: the claim reader's, or, when it found none, a "not" on the first
    auxiliary of the sentence with no subordinate clause before it ("Arctic land does not store twice
    as much carbon", which the reader left unanalysed). A "not" in a relative or conditional clause
    ("the man who is not wearing a hat is running") is not the claim's."""
    if claim.negated:
        return (claim.negation_cue or "not").replace("\u2019", "'")
    reported = _reported_negation(claim)
    if reported:
        return reported
    text = claim.text
    first = _AUX_FIRST.search(text)
    if first is None or _SUBORDINATE.search(text[:first.start()]):
        return None
    found = _MAIN_NEGATION.match(text[first.start():])
    return (found.group(1) or found.group(2)).lower().replace("\u2019", "'") if found else None


# a reporting verb's "that" clause: "they tell us that ...", "scientists say that ..."
_REPORTED = re.compile(r"^(?:(?:us|them|me|you|him|her)\s+)?that\s+(?P<clause>[^,;:]+)", re.I)


def _reported_negation(claim: AtomicClaim) -> str | None:
    """A negation in the clause a reporting verb reports ("they tell us that we are not the cause"):
    the claim reader takes "that" for a relative pronoun and leaves the "not" out, but what is
    reported is the claim's content, so its polarity is the claim's."""
    words = {lemma(w) for w in (claim.predicate or "").split() if w.isalpha()}
    found = _REPORTED.match(claim.object or "") if words & word_list("reporting_verbs") else None
    if found is None:
        return None
    clause = found.group("clause")
    first = _AUX_FIRST.search(clause)
    if first is None or _SUBORDINATE.search(clause[:first.start()]):
        return None
    negated = _MAIN_NEGATION.match(clause[first.start():])
    return (negated.group(1) or negated.group(2)).lower().replace("\u2019", "'") if negated else None


def evidence_negation(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """The negation cue of the evidence clause the claim part is about, read by the claim's own reader.

    The quote is decomposed as claims are (:mod:`graphcite.verify.rules.aligned`); the part sharing most
    of the claim's words gives the polarity, so a "not" in another clause of the quote never reaches the
    claim, and a claim that copies a clause of its quote reads exactly as that clause. A table row keeps
    its cell reading (a no/off cell in a column the claim names); a quote the reader finds no part in
    falls back to the clause with most shared terms.
    """
    if evidence.block_type == "table_row" or ELLIPTICAL.search(evidence.quote):
        return evidence.negation_for(claim.text, claim.predicate)  # "..., and it does not": the clause before
    part = aligned_part(claim, evidence.quote)
    if part is None or part.predicate is None:  # no part, or one the reader found no verb in
        return evidence.negation_for(claim.text, claim.predicate)
    return claim_negation(part)


def states_predicate(claim: AtomicClaim, evidence: Evidence) -> bool:
    """Whether the evidence talks about the claim's predicate (so its polarity bears on the claim)."""
    if not claim.predicate or evidence.block_type == "table_row":
        return True
    clause = clause_for(evidence.quote, claim.text)
    words = [lemma(w) for w in claim.predicate.split() if w.isalpha()]
    words = [w for w in words if w not in _LIGHT]
    if not words:
        obj = support_terms(claim.object or "")
        return bool(obj & support_terms(clause)) if obj else True
    terms = word_lemmas(evidence.quote)
    return any(same_predicate(w, terms) for w in words)


@rule("GC401", "negation-mismatch", family="polarity", effect="contradicts",
      good=[("The relay does not retry expired webhooks.", "The relay never retries expired webhooks."),
            ("The relay retries failed webhooks.", "The relay retries failed webhooks twice."),
            ("The pump stops after 40 seconds without flow.", "After 40 seconds without flow the pump stops.")],
      bad=[("The relay retries expired webhooks.", "The relay does not retry expired webhooks."),
           ("Exports are not encrypted at rest.", "Exports are encrypted at rest with per-tenant keys.")])
def negation_mismatch(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A passage that says the opposite is evidence against the claim, however many words it shares.

    Lexical overlap is blind to "not": "retries" and "does not retry" share every content word.
    Negation inside a condition ("unless it is not idempotent") does not count.
    """
    if claim.connective:
        return SKIP  # a link claim's sides are checked as their own parts
    theirs = evidence_negation(claim, evidence)
    mine = claim_negation(claim)
    if not mine and not theirs:
        denied = _denied_object(claim, evidence)
        return fail(f"evidence is negated ({denied!r}), claim is not") if denied else PASS
    if bool(mine) == bool(theirs):
        return PASS
    if bounds_a_number(claim.text if mine else evidence.quote):
        return SKIP  # "must not exceed 600 mg" is a bound on the number: the quantity rules compare it
    if theirs and _says_too(theirs, claim.text):
        return PASS  # the claim carries the same negative word ("... without flow"): same polarity
    if not states_predicate(claim, evidence):
        return SKIP  # the evidence is silent on the predicate: the negative-claim rule decides
    if mine and evidence.kind in {"contract", "registry", "manifest"}:
        return SKIP  # a scope-defining source: the negative-claim rule decides
    if evidence.block_type != "table_row" and not ELLIPTICAL.search(evidence.quote) and _parse_agrees(claim, evidence, negated_side=claim.text if mine else evidence.quote):
        return PASS  # the parse reads the clause that says the claim with the claim's polarity
    if mine:
        return fail(f"claim is negated ({mine!r}), evidence is not")
    return fail(f"evidence is negated ({theirs!r}), claim is not")


def _denied_object(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """The "no" the parse reads on the evidence clause's object or subject when the clause says the
    claim's predicate (itself or by its event noun) and the claim is not negated: "stitches need no
    removal" denies "stitches have to be removed", which the word-shape reading, looking for "not" on a
    verb, does not see."""
    if evidence.block_type == "table_row" or claim.connective:
        return None
    mine, theirs = aligned_frames(claim.text, evidence.quote)
    if mine is None or theirs is None or mine.negated or not theirs.negated or theirs.negation_cue not in {"no", "neither"}:
        return None
    said = {mine.predicate} | event_nouns(mine.predicate)
    if not theirs.words & said:
        return None
    # the denied noun must be the claim's: "has no pool but a garden" denies no garden
    wanted = content_words(mine) | event_nouns(mine.predicate)
    denied = [t for t in parse(evidence.quote) if theirs.start <= t.idx < theirs.end and t.pos_ in {"NOUN", "PROPN"}
              and any(d.dep_ in {"det", "advmod"} and d.lower_ in {"no", "neither"} for d in t.children)]
    return theirs.negation_cue if any(t.lemma_.lower() in wanted for t in denied) else None


def _parse_agrees(claim: AtomicClaim, evidence: Evidence, negated_side: str) -> bool:
    """Whether the parse reads every clause of the claim with the polarity of the evidence clause that
    says its content, so the word-shape reading's mismatch came from a clause the claim does not
    depend on ("X denies he went wild, despite ... being sacked by Y" says nothing negative about the
    sacking).

    Each claim clause is paired with the evidence clause of its verb, else the one sharing most of its
    content words (at least one); a claim clause the evidence has no clause for is left out unless it is the negated one, and at
    least one must pair. The
    parse judges only a negation it reads itself: when no clause of ``negated_side`` (the side the
    word-shape reading found negated) is negated in the parse ("associated without respiratory
    failure", a verb it mis-attaches), the word-shape reading stands.
    """
    if not any(f.negated for f in frames_of(negated_side)):
        return False
    paired = False
    for mine in frames_of(claim.text):
        wanted = content_words(mine) | {mine.predicate}
        same = [f for f in frames_of(evidence.quote) if f.predicate == mine.predicate]
        theirs = max(same, key=lambda f: len(f.words & wanted)) if same else frame_for(evidence.quote, wanted)
        if theirs is None or not (content_words(theirs) | {theirs.predicate}) & wanted:
            if mine.negated:
                return False  # the claim denies something the evidence has no clause for
            continue
        if mine.negated != theirs.negated:
            return False
        paired = True
    return paired


def _says_too(cue: str, text: str) -> bool:
    """The negation cue occurs in ``text`` as a word (claims and evidence read "without X" alike)."""
    return re.search(rf"(?<![\w']){re.escape(cue)}(?![\w'])", text, re.IGNORECASE) is not None


@rule("GC403", "opposite-instead", family="polarity", effect="insufficient",
      good=[("The cellar stays cool in summer.", "In summer the cellar stays cool and dark."),
            ("Prices in the harbour district are falling.", "Prices fell in the harbour district as rents rose.")],
      bad=[("The night ferry leaves after the last train.", "The night ferry leaves before the last train arrives."),
           ("Prices in the harbour district are falling.",
            "Since the new pier opened, rising prices have pushed shops out of the harbour district."),
           ("The reading room is quiet in the morning.",
            "Noisy groups of students fill the tables of the reading room every morning.")])
def opposite_instead(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A claim word the evidence lacks while it has the word's opposite is not left unsaid: the
    passage says the other thing.

    "Prices are falling" against a passage about "rising prices" in the same district: every other
    word matches, so the share of found words passes, and the opposite stands too far from the
    claim's neighbours for the alignment to put it in the claim word's place (GC205). The rule asks,
    for each claim word the evidence does not have (not written there, not paraphrased but through a
    less used sense), whether the evidence has its opposite (a WordNet or curated antonym, read in the
    word's written form and its lemma) and the claim does not; a passage that uses both words ("fell
    ... as rents rose") passes.
    """
    if claim.connective:
        return SKIP  # a link claim's sides are checked as their own parts
    slots = {s.text: s for s in alignment_for(claim, evidence).slots if s.kind == "word"}
    if not slots:
        return SKIP
    # a bound's own words ("7 or more days", "at least 7 days") are the value's, compared by the quantity rules
    claim_words = words_of(blank_values(claim.text, claim.values, bounds=True))
    evidence_words = words_of(blank_values(evidence.quote, evidence.values, bounds=True))
    written = {form for w in evidence_words for form in (w.lower, w.lemma)}
    own = {form for w in claim_words for form in (w.lower, w.lemma)}
    theirs = sorted(f for f in written if _opposable(f) and f not in own)
    named = {w.lemma for w in words_of(claim.sentence or claim.text)}  # the whole sentence a part came from
    problems = []
    for at, word in enumerate(claim_words):
        if word.proper or not _opposable(word.lower) or {word.lower, word.lemma} & written:
            continue
        slot = slots.get(word.lemma) or slots.get(word.lower)
        if slot is not None and (slot.status in {"found", "opposite", "other"}
                                 or (slot.status == "paraphrase" and slot.relation != "hyponym")):
            continue  # the evidence says it in other words, or another rule speaks for the slot
        # a verb form is read as its verb ("walking" is "walk", not the adjective of "walking distance")
        forms = (word.lemma,) if lexicon.is_verb_form(word.lower) else (word.lemma, word.lower)
        for opposite in theirs:
            if "antonym" in {lexicon.related(form, opposite) for form in forms} \
                    and not _describes_another(claim_words, at, evidence_words, opposite, named):
                problems.append(f"the claim says {word.surface!r}; the evidence never does and says "
                                f"{as_written(evidence.quote, opposite)!r}")
                break
    return failures(problems)


def _describes_another(claim_words: tuple[Word, ...], at: int, evidence_words: tuple[Word, ...],
                       opposite: str, named: set[str]) -> bool:
    """Whether the claim word describes one noun and the evidence's opposite another that the claim
    also names: "a little girl ... a fake nose" against "a large nose" speaks of the nose, not the girl."""
    mine = claim_words[at + 1].lemma if at + 1 < len(claim_words) else None
    for j, word in enumerate(evidence_words[:-1]):
        if opposite in {word.lower, word.lemma}:
            theirs = evidence_words[j + 1].lemma
            if mine is not None and theirs != mine and theirs in named and mine not in STOPWORDS:
                return True
    return False


def _opposable(form: str) -> bool:
    """A word that may have an opposite worth reading: a content word, or a function word that orders or
    scales ("before" / "after", "more" / "less", "most" / "few": words.json ``scalar_words``)."""
    return form in word_list("scalar_words") or (form not in STOPWORDS and len(form) > 2)
