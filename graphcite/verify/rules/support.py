"""Support rules: the claim's predicate must be in the evidence, not only its topic words."""

from __future__ import annotations

import re

from graphcite.language import lexicon
from graphcite.language.domain import active
from graphcite.language.frames import aligned_frames
from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.language.predicates import event_nouns, is_verb, verb_paraphrases
from graphcite.language.words import word_list, word_map, words_of
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.lexical import support_terms
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule
from graphcite.verify.rules.common import blank_values, reported_clause, same_predicate, word_lemmas
from graphcite.verify.rules.quantity import claim_values, values_stated
from graphcite.verify.rules.slots import alignment_for, in_attribution
from graphcite.verify.rules.time import claim_dates, dates_stated

__all__: list[str] = []


def _aligned(claim: AtomicClaim, evidence: Evidence) -> frozenset[str]:
    """The claim's word slots the alignment found in the evidence, directly or by paraphrase (a
    two-word term, a compound, the parts of a hyphenated word, a phrasal verb)."""
    return frozenset(s.text for s in alignment_for(claim, evidence).slots if s.status in {"found", "paraphrase"})

# Light verbs say little on their own; the object then carries the predicate.
_LIGHT = frozenset({"be", "have", "do", "use", "make", "get", "take", "give", "go", "state", "say", "reach",
                    "become"})
# Verbs of staying put say little before a value ("stands at 5%", "remains at 20 ms") and much without
# one: "is standing" is not "is running".
_STATE = frozenset({"stand", "remain", "stay", "keep"})
_PREPOSITION = re.compile(r"\b(?:within|for|at|in|on|by|after|before|to|from|with|under|over|during|until|per|"
                          r"than|because|since|while|when|if|unless)\b", re.I)
_FORBID = frozenset({"forbid", "prohibit", "ban", "disallow", "bar"})
_AUX = frozenset({"not", "no", "never", "can", "could", "may", "might", "must", "should", "will", "would",
                  "shall", "be", "is", "are", "was", "were", "been", "being", "does", "did", "has", "had",
                  "cannot", "now", "still", "also", "only", "automatically"})


@rule("GC202", "predicate-not-in-evidence", family="support", effect="mentions",
      good=[("The relay signs webhook payloads.", "The relay signs every webhook payload with HMAC-SHA256."),
            ("Surveys show that the glacier is thinning.", "The glacier is thinning."),
            ("The reef is experiencing heavy bleaching.", "Heavy bleaching hit the reef this year."),
            ("The ferry timetable is dated 3 March.", "The ferry timetable was last updated on 3 March."),
            ("Each tin holds 400 g of beans.", "Each tin contains 400 g of beans.")],
      bad=[("The relay signs webhook payloads.", "The relay forwards webhook payloads to subscribers."),
           ("Ticket prices rose by 5% in May.", "Ticket prices fell by 5% in May."),
           ("A heron is standing in the shallow water.", "A heron is wading in the shallow water."),
           ("Surveys show thinning ice.", "The glacier has thinning ice.")])
def predicate_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Sharing the subject and object is not enough: the evidence must say the same thing happens.

    "The relay signs payloads" and "the relay forwards payloads" share most content words and differ
    in the one that matters. The predicate (lemmatised) must occur in the quote or its headings.
    Light verbs ("be", "have", "make") and support verbs ("experience", "undergo", "provide":
    "is experiencing bleaching" says what "bleaching" says) are left to their objects; "stand",
    "remain", "stay" and "keep" only before a value ("the rate stands at 5%"), since "is standing" is
    not "is wading". A reporting verb before a clause ("surveys show that ...") frames the claim.
    """
    if not claim.predicate or claim.connective or evidence.block_type == "table_row":
        return SKIP
    if in_attribution(claim, claim.predicate):
        return SKIP  # "..., scientists said": who reports the claim, not what it says
    reported = reported_clause(claim)
    if reported is not None:
        if not reported.predicate:
            return PASS  # the reported clause is judged by the alignment and the other rules
        claim = reported  # "surveys show that the ice is thinning": the evidence must say "thinning"
    words = _parsed_verb(claim) or [lemma(w) for w in claim.predicate.split() if w.isalpha()]
    light = _LIGHT | _STATE if claim.values else _LIGHT
    verbs = [w for w in words if w not in _AUX]
    carried = _carried(verbs, claim, light)
    if carried is not None:  # "took over the bakery", "gave up touring": the particle makes the light verb a verb
        terms = word_lemmas(evidence.envelope)
        said = " " + " ".join(w.lemma for w in words_of(evidence.envelope)) + " "
        if f" {carried} " in said or _paraphrased(carried, evidence) or any(
                lexicon.related(carried, w) in active().paraphrase for w in terms):
            return PASS
        if carried.split()[0] in terms:  # "took the bakery to court": the light verb found, the verb not
            return fail(f"the evidence does not say {carried!r}")
        # the evidence says it some other way or not at all ("taken off the invoice" / "applied to the
        # invoice"): the object and the alignment decide, as for any light verb
    words = [w for w in words if w not in light and w not in _AUX]
    if words and set(words) <= word_list("support_verbs") and claim.object:
        return PASS  # "is experiencing bleaching" says what "bleaching" says: the object is GC203's
    if not words:
        return SKIP if reported is None else PASS
    terms = word_lemmas(evidence.envelope)
    if any(same_predicate(w, terms) for w in words) or set(words) & _aligned(claim, evidence):
        return PASS
    if any(_paraphrased(w, evidence) for w in words):
        return PASS  # "holds 200 mg" / "contains 200 mg"; "fired" / "sent dismissal letters"
    phrasal = _phrasal(words, claim)
    if phrasal and (same_predicate(phrasal, terms) or _paraphrased(phrasal, evidence)):
        return PASS  # "put off the vote" / "postponed the vote": the particle is the verb's
    if _event_object_said(words, claim, evidence):
        return PASS  # "can put strain on the kidneys" is what "can strain the kidneys" says
    if _anchored_by_figures(words, claim, evidence, terms):
        return PASS  # "hosted the final on 28 April" / "the final was played on 28 April": the figures fix the fact
    phrase = " ".join(words)
    if len(words) > 1 and any(lexicon.related(phrase, w) in active().paraphrase for w in terms):
        return PASS  # a phrasal verb and its one-word paraphrase: "broke up" / "dissolved"
    if set(words) & _FORBID and evidence.modality_for(claim.text)[0] == "must-not":
        return PASS  # "forbids retries" is what "must not retry" says
    if _said_by_preposition(words, claim, evidence):
        return PASS  # "is wearing a hat" is what "the man in a hat" says
    if any(v.kind == "count" for v in claim.values) and any(
            set(words) & (eq.a | eq.b) and terms & (eq.a | eq.b) for eq in active().equivalences):
        return PASS  # "retries four times" vs "makes five attempts": the counts decide (GC301/GC302)
    return fail(f"the evidence does not say {claim.predicate!r}")


def _carried(verbs: list[str], claim: AtomicClaim, light: frozenset[str]) -> str | None:
    """The phrasal verb a light verb makes with its particle ("take over", "give up"), whether the claim
    reader kept the particle in the predicate or in the object; None for any other predicate, and for a
    particle that opens a bound ("can take up to 5 days", "took over 3 hours")."""
    if re.match(r"\s*(?:(?:up|over|under|down)\s+)?(?:to\b|\d)", claim.object or "") and (
            len(verbs) == 2 or re.match(r"\s*(?:up|over|under|down)\s", claim.object or "")):
        return None
    if len(verbs) == 2 and verbs[0] in light and is_verb(" ".join(verbs)):
        return " ".join(verbs)
    return _phrasal(verbs, claim) if len(verbs) == 1 and verbs[0] in light else None


def _phrasal(words: list[str], claim: AtomicClaim) -> str | None:
    """The claim's verb with the word after it, when WordNet knows the two as one verb ("put off",
    "broke up"): the parse may take the particle for a preposition of the object."""
    if len(words) != 1 or not claim.object:
        return None
    following = re.match(r"\s*([A-Za-z]+)", claim.object)
    if following is None:
        return None
    phrase = f"{words[0]} {following.group(1).lower()}"
    return phrase if is_verb(phrase) else None


def _paraphrased(verb: str, evidence: Evidence) -> bool:
    """Whether the evidence says ``verb`` by a verb sharing one of its senses, or names its event by a
    noun (:mod:`graphcite.language.predicates`); a multi-word lemma ("call off") must occur as a phrase."""
    wanted = (verb_paraphrases(verb) | event_nouns(verb)) - {verb}
    if not wanted:
        return False
    said = " " + " ".join(w.lemma for w in words_of(evidence.envelope)) + " "
    return any(f" {w} " in said for w in wanted)


def _parsed_verb(claim: AtomicClaim) -> list[str]:
    """The parse's verb where the claim reader took a noun for it ("Ticket prices rose by 5%": the
    reader's predicate is "prices", which the parse reads as the subject's head); else nothing."""
    first = next((w for w in (claim.predicate or "").split() if w.isalpha()), None)
    if first is None:
        return []
    doc = parse(claim.text)
    token = next((t for t in doc if t.text == first), None)
    if token is None or token.pos_ not in {"NOUN", "PROPN"}:
        return []
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or root.i <= token.i or not is_verb(root.lemma_.lower()):
        return []  # both readers guess at "signs webhook payloads": a verb WordNet does not know is no verb
    following = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if root.tag_ != "VBD" and following is not None and following.pos_ in {"NOUN", "PROPN", "ADJ"}:
        return []  # "answers refund questions": a present form before a noun may be a compound's first word
    return [root.lemma_.lower()]


def _anchored_by_figures(words: list[str], claim: AtomicClaim, evidence: Evidence, terms: frozenset[str]) -> bool:
    """Whether every figure of the claim (a number with its unit, a date) is stated by the evidence and
    no evidence word is the opposite of the claim's verb: a claim that picks the passage's own
    figures for its subject is about the passage's fact, and its verb is then a paraphrase ("was
    revised on 14 February" / "is dated 14 February", "are released after 15 minutes" / "are given up
    after a quarter of an hour"). Without a figure the verb is all there is, and must be said."""
    verbs = {lemma(w) for w in (claim.predicate or "").split() if w.isalpha()}
    values = [v for v in claim_values(claim) if (any(c.isdigit() for c in v.surface) or v.kind == "duration")
              and not (v.kind == "count" and (v.counted_noun or "") in verbs)]  # "alpha 1 promotes": a name's number
    dates = claim_dates(claim)
    if not (values or dates) or not values_stated(values, evidence, claim.text) or not dates_stated(dates, evidence):
        return False
    mine, _theirs = aligned_frames(claim.text, evidence.quote)  # the parse's verb too ("Ticket prices rose")
    verbs = {*words, mine.predicate} if mine is not None else set(words)
    return not any(lexicon.related(w, t) == "antonym" for w in verbs for t in terms if len(t) > 2)


def _event_object_said(words: list[str], claim: AtomicClaim, evidence: Evidence) -> bool:
    """Whether the claim's object names an event the evidence states by its verb: after a light verb
    (words.json ``event_light_verbs``: "put strain on", "held talks with") the noun says what happens. The
    object's head must be a verb the evidence uses as its verb ("can strain the kidneys"; "a mechanical
    bull" is a noun there, whatever WordNet says of "to bull")."""
    if not claim.object or not set(words) <= word_list("event_light_verbs"):
        return False
    head = _PREPOSITION.split(blank_values(claim.object, claim.values), maxsplit=1)[0]
    nouns = [lemma(w) for w in head.split() if support_terms(w)]
    if not nouns or not is_verb(nouns[-1]):
        return False
    return any(t.pos_ == "VERB" and t.lemma_.lower() == nouns[-1] for t in parse(evidence.quote))


def _said_by_preposition(words: list[str], claim: AtomicClaim, evidence: Evidence) -> bool:
    """A verb the evidence says with a preposition before the claim's object: "is wearing a red
    jacket" / "a man in a red jacket", "dressed in tuxedos" (not "with": "with a scarf in her hand"; the verbs and
    their prepositions: words.json ``prepositional_verbs``). The object itself must be there."""
    markers = word_map("prepositional_verbs")
    if len(words) != 1 or words[0] not in markers or not claim.object:
        return False
    head = _PREPOSITION.split(blank_values(claim.object, claim.values), maxsplit=1)[0]
    wanted = [lemma(w) for w in head.split() if support_terms(w)]
    if not wanted:
        return False
    ev = words_of(evidence.envelope)
    for j, word in enumerate(ev):
        if word.lemma != wanted[-1]:
            continue
        for k in range(max(0, j - 4), j):  # the preposition, then the whole thing worn: "in the straw hat"
            if ev[k].lower in markers[words[0]] and set(wanted) <= {w.lemma for w in ev[k + 1:j + 1]}:
                return True
    return False


@rule("GC203", "object-not-in-evidence", family="support", effect="mentions",
      good=[("The desk answers label requests within one day.", "The desk answers label requests within one day.")],
      bad=[("The desk answers billing questions within one day.",
            "The desk accepts parcels by hand and answers within one day.")])
def object_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The thing the claim is about must be in the evidence, not only the subject and the verb.

    "Answers label requests within a day" and "answers questions within a day" share subject, verb and
    number; what is answered differs.
    """
    if not claim.object or claim.connective or evidence.block_type == "table_row":
        return SKIP
    if in_attribution(claim, claim.object):
        return SKIP  # "..., a new survey finds": the reader took the attribution for the object
    verb = _parsed_verb(claim)
    if verb and verb[0] in {lemma(w.lower()) for w in re.findall(r"[A-Za-z]+", claim.object)}:
        return SKIP  # "Delivery charges come back": the reader's object is the verb, GC202's to judge
    head = _PREPOSITION.split(blank_values(claim.object, claim.values, bounds=True), maxsplit=1)[0]
    wanted = support_terms(head) - support_terms(claim.subject or "")
    wanted = {w for w in wanted if not w.replace(".", "").isdigit()}
    if not wanted:
        return SKIP
    terms = word_lemmas(evidence.envelope + " " + evidence.antecedent)
    if any(same_predicate(w, terms) for w in wanted) or wanted & _aligned(claim, evidence):
        return PASS
    shown = re.sub(r"^(?:the|a|an|its|their|his|her|our|your|this|these|those)\s+", "", " ".join(head.split()), flags=re.I)
    return fail(f"the evidence does not mention {shown.strip(' ,;:') or ', '.join(sorted(wanted))!r}")
