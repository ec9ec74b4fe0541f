"""Split a claim's sentence into atomic claims with their qualifiers made explicit.

A cited sentence often carries several propositions ("X retries idempotent adapters three times
and sends uncertain deliveries to manual review") and qualifiers that decide what evidence can
support it: negation, modality, time, conditions, quantifiers, values and the small connective
words that assert causation or comparison. :func:`decompose` returns one
:class:`~graphcite.models.AtomicClaim` per proposition so each can be checked on its own.

It runs on the shared pipeline (:func:`graphcite.language.nlp.get_nlp`): spaCy's blank English gives
tokens and lookup lemmas, cue phrases come from a ``PhraseMatcher`` and word classes from closed
lists plus a verb lexicon, so it needs no tagger and stays fast (about 4,000 sentences/s). The work
is split over :mod:`~graphcite.claims.cues` (word lists), :mod:`~graphcite.claims.syntax` (tokens and
verb groups), :mod:`~graphcite.claims.clauses` (connectives, conditions, conjuncts) and
:mod:`~graphcite.claims.qualifiers`; this module assembles the claims and scores sentence sets.

Rules, in the order they apply:

* Sentences are split at ``.``/``!``/``?``; a sentence starting with "Therefore"/"So"/"Thus" is
  linked to the one before it (or, when it is the first, its claim carries the connective with
  ``joins=None``).
* Connectives split a sentence into two sides and add a *link claim* whose ``connective`` is the
  cue (because, since + clause, so, therefore, despite, although, after/before + clause, due to,
  which caused, leads to, caused by, more/less/fewer ... than) and whose text is the whole sentence.
  ``joins=(i, j)`` reads "claim i CONNECTIVE claim j": for "B because A" and "Because A, B" both
  give ``(B, A)``. A side without a verb ("despite the lag") becomes a noun-phrase claim.
* Conditions and exceptions (if, only if, unless, when, once + clause, until, while, except, other
  than, provided that, as long as, after/before + noun phrase, a leading "Without X,") are kept as
  text in ``conditions`` and never contribute negation, modality or tense to the main claim.
* Coordinated verb phrases with a shared subject become one claim each; the later ones get the
  subject (and a shared auxiliary such as "must") prepended to their text while their span points
  at the conjunct. Coordinated clauses ("A retries and B logs") split too; noun phrases ("retries
  and timeouts") and ranges ("between 3 and 5") do not. "not only X but also Y" gives two claims.
* Negation counts cues in the predicate and object (not, n't, never, no, no longer, without, fails
  to, none, neither/nor) and a negative determiner opening the subject; "not only", "no more than"
  and the like are not negation, relative clauses in the object do not count, and two cues cancel.
  "must not" is modality ``must-not`` and negated.
* Modality is the first cue in the verb group, else a proposal/plan cue in the subject or a
  leading phrase: must, must-not, should, may (may, might, could, is allowed), can, considered,
  proposed (would, proposes, proposal), planned, completed (perfect aspect, shipped, deployed ...).
  "is considered safe" is an assertion; "was considered for 2.3" is ``considered``.
* Tense: a future cue (will, going to, next release) wins, then a past time expression
  (previously, in the first prototype, used to), then a past auxiliary or past verb right after the
  subject, then present cues (currently, as of, no longer); definitions ("is defined as", "An X is
  a ...", "X means ...") are ``timeless`` and typed ``background``. Participles inside the subject
  ("the archived log is kept") are not the verb and do not make a claim past.
* Quantifier: the first of all/every/any/some/none/each/no in the subject, else in the object.
  Entity: the subject without determiners and quantifiers (None for pronouns).
* Values: :func:`graphcite.language.values.extract_values` runs once per sentence; each claim gets
  the values inside its own span (and its shared subject), offsets relative to the input text.
* ``claim_type``: proposal for proposed modality, inference after therefore/thus/hence/we conclude,
  background for definitions with a generic subject, else direct.

``python scripts/score_sentences.py FILE.jsonl`` prints per-qualifier accuracy on a sentence set
(see :func:`score_sentence_set`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphcite.claims.clauses import INFER, RESULT, Draft, last_clause_claim, sentence_spans, split_region
from graphcite.claims.parsed import parsed_slots
from graphcite.claims.qualifiers import (
    char_span,
    entity_of,
    modality_of,
    negation_of,
    quantifier_of,
    subject_start_of,
    tense_of,
)
from graphcite.claims.syntax import Doc, build_doc, clause_at, trim_span
from graphcite.language.domain import active
from graphcite.lru import LruCache
from graphcite.models import AtomicClaim, ExtractedValue

Span = tuple[int, int]

__all__ = ["PART_DEFAULTS", "QUALIFIERS", "decompose", "score_sentence", "score_sentence_set", "without_footnote_marks"]

# --------------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------------


#: A numbered footnote mark left in a sentence ("[3]", "[2, 5]", "[4-6]"): after a space or punctuation,
#: or glued to the sentence's last word ("days[12]."); never a subscript inside a word ("items[3]x").
_FOOTNOTE = re.compile(
    r"(?:(?<=[\s.,;:!?)\]\"'\u201d\u2019])|(?<=\w)(?=\[[^\]]*\](?:[.,;:!?]|\s*$)))"
    r"\[\s*\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\s*\](?!\w)")


def without_footnote_marks(text: str) -> str:
    """``text`` with each footnote mark blanked to spaces of the same length, so offsets still hold.

    Answers pasted from a chat or a wiki keep their reference marks in the claim's own text ("kept
    for 14 days [3]."); read as words they are a number the passage never states and a word the
    claim does not mean. Only this matching copy is blanked: the claim's text stays as written.
    """
    if "[" not in text:
        return text
    return _FOOTNOTE.sub(lambda m: " " * (m.end() - m.start()), text)


def _values_in(values: list[ExtractedValue], spans: Iterable[tuple[int, int] | None]) -> tuple[ExtractedValue, ...]:
    """The values lying inside any of the spans."""
    spans = [s for s in spans if s is not None]
    return tuple(v for v in values if any(s[0] <= v.start and v.end <= s[1] for s in spans))


def _extract(text: str) -> list[ExtractedValue]:
    """Typed values of the whole text (imported lazily: ingest.values is heavy)."""
    from graphcite.language.values import extract_values

    return list(extract_values(text))


def _negation_before_verb(predicate: str) -> str | None:
    """The negation cue (the claim reader's own list, :func:`graphcite.language.cues.negation_pattern`)
    standing before the verb of a predicate the parse gave ("never retries", "has not yet approved"); None
    for "not only", and for a verb that itself says something did not happen ("never fails to log": the
    two cancel)."""
    from graphcite.language.cues import negation_pattern
    from graphcite.language.nlp import lemma
    from graphcite.language.words import word_list

    words = re.findall(r"[A-Za-z]+", predicate)
    if not words or any(lemma(w.lower()) in word_list("implicative_negation") for w in words):
        return None
    verb_at = predicate.rfind(words[-1])
    for cue in negation_pattern().finditer(predicate, 0, verb_at):
        if not re.match(r"\s+only\b", predicate[cue.end():], re.I):
            return cue.group(0).lower()
    return None


def _with_parse(text: str, offset: int, subject: Span | None, predicate: Span | None,
                obj: Span | None) -> tuple[Span | None, Span | None, Span | None]:
    """The reader's slots of a clause, corrected by its parse (:mod:`graphcite.claims.parsed`): where
    the reader's predicate misses the parse's verb, all three come from the parse; where only its
    subject reaches back over a fronted phrase ("After the fifth failed attempt the relay"), the
    subject starts where the parse's does."""
    found = parsed_slots(text)
    if found is None:
        return subject, predicate, obj
    (sa, sb), (pa, pb), theirs = found
    parsed_subject, parsed_predicate = (sa + offset, sb + offset), (pa + offset, pb + offset)
    parsed_object = (theirs[0] + offset, theirs[1] + offset) if theirs is not None else None
    if predicate is None or not predicate[0] < parsed_predicate[1] <= predicate[1]:
        return parsed_subject, parsed_predicate, parsed_object
    if subject is not None and subject[0] < parsed_subject[0] < subject[1] and parsed_subject[1] == subject[1]:
        return parsed_subject, predicate, obj
    return subject, predicate, obj


def _finish(d: Doc, drafts: list[Draft], values: list[ExtractedValue]) -> list[AtomicClaim]:
    """Read qualifiers for every draft and build the AtomicClaims, links after the claims they join."""
    claims: list[AtomicClaim | None] = [None] * len(drafts)
    order = [i for i, dr in enumerate(drafts) if dr.kind == "clause"]
    order += [i for i, dr in enumerate(drafts) if dr.kind == "link"]
    order += [i for i, dr in enumerate(drafts) if dr.kind == "np"]
    for i in order:
        dr = drafts[i]
        span = char_span(d, dr.a, dr.b) or (d.starts[dr.a], d.ends[dr.b - 1])
        text = d.text[span[0]:span[1]]
        subject_start = subject_start_of(d, dr)
        subject_span = char_span(d, dr.subject[0], dr.subject[1]) if dr.subject is not None else None
        pred_span = char_span(d, dr.pred.start, dr.pred.end) if dr.pred is not None and dr.kind != "link" else None
        obj_span = char_span(d, *dr.obj) if dr.obj is not None else None
        if dr.kind == "clause" and not dr.shared and not dr.carried:
            subject_span, pred_span, obj_span = _with_parse(text, span[0], subject_span, pred_span, obj_span)
        if dr.shared and subject_span is not None:
            pieces = [d.text[subject_span[0]:subject_span[1]]]
            pieces += [d.words[x] for x in dr.carried]
            pieces.append(text)
            text = " ".join(pieces)
        if dr.kind == "link":
            negated = dr.negated_link is not None
            negation_cue = dr.negated_link
            head = dr.joins[0] if dr.joins else None
            modality, modality_cue = modality_of(d, dr)
            if head is not None and claims[head] is not None:
                tense, time_cue = claims[head].tense, claims[head].time_cue
            else:
                tense, time_cue = "current", None
            if dr.pred is not None:
                own = tense_of(d, Draft("clause", dr.a, dr.b, pred=dr.pred), None)
                if own[0] != "current" or own[1]:
                    tense, time_cue = own
            conditions: tuple[str, ...] = ()
            quantifier = entity = None
            span_values = _values_in(values, [span])
        elif dr.kind == "np":
            negated, negation_cue = False, None
            modality, modality_cue = "asserted", None
            source = dr.inherit
            if source is not None and claims[source] is not None:
                tense, time_cue = claims[source].tense, claims[source].time_cue
            else:
                tense, time_cue = "current", None
            conditions = ()
            quantifier = quantifier_of(d, dr, subject_start)
            entity = entity_of(d, dr, subject_start)
            span_values = _values_in(values, [span])
        else:
            negated, negation_cue = negation_of(d, dr, subject_start)
            if not negated and pred_span is not None:  # the parse's predicate carries its "never" / "not"
                cue = _negation_before_verb(d.text[pred_span[0]:pred_span[1]])
                if cue is not None:
                    negated, negation_cue = True, cue
            modality, modality_cue = modality_of(d, dr)
            if modality == "must-not" and not negated:
                negated, negation_cue = True, negation_cue or modality_cue
            tense, time_cue = tense_of(d, dr, subject_start)
            conditions = tuple(d.text[s:e] for s, e in (char_span(d, *c) or (0, 0) for c in dr.conditions) if e > s)
            quantifier = quantifier_of(d, dr, subject_start)
            entity = entity_of(d, dr, subject_start)
            span_values = _values_in(values, [span, subject_span if dr.shared else None])
        if modality == "proposed":
            claim_type = "proposal"
        elif dr.inference:
            claim_type = "inference"
        elif dr.kind == "clause" and tense == "timeless":
            claim_type = "background"
        else:
            claim_type = "direct"
        claims[i] = AtomicClaim(
            text=text,
            span=span,
            subject=d.text[subject_span[0]:subject_span[1]] if subject_span else None,
            subject_span=subject_span,
            predicate=d.text[pred_span[0]:pred_span[1]] if pred_span else None,
            predicate_span=pred_span,
            object=d.text[obj_span[0]:obj_span[1]] if obj_span else None,
            object_span=obj_span,
            negated=negated,
            negation_cue=negation_cue,
            modality=modality,
            modality_cue=modality_cue,
            tense=tense,
            time_cue=time_cue,
            conditions=conditions,
            quantifier=quantifier,
            entity=entity,
            values=span_values,
            connective=dr.connective,
            joins=dr.joins,
            claim_type=claim_type,
        )
    return [c for c in claims if c is not None]


def decompose(text: str, *, model: str | None = None) -> list[AtomicClaim]:
    """Split ``text`` (a sentence, or a few) into atomic claims; spans are offsets into ``text``.

    ``model`` names an installed spaCy pipeline (``--spacy-model``); the default is the shared blank
    English pipeline with lookup lemmas. The result depends on the text, the model and the active
    domain lexicon only, so it is remembered per process (a service sees the same sentences again).
    """
    if not text or not text.strip():
        return []
    key = (text, model, active().digest)
    found = _MEMO.get(key)
    if isinstance(found, tuple):
        return list(found)
    claims = _decompose(without_footnote_marks(text), model)
    _MEMO.put(key, tuple(claims))
    return claims


#: sentences; atomic claims are frozen, so callers share them safely
_MEMO: LruCache[tuple[str, str | None, str], tuple[AtomicClaim, ...]] = LruCache(4096)


def _decompose(text: str, model: str | None) -> list[AtomicClaim]:
    d = build_doc(text, model)
    drafts: list[Draft] = []
    previous_last: int | None = None
    for a, b in sentence_spans(d):
        a, b = trim_span(d, a, b)
        while a < b and d.words[a] in {'"', "“", "‘", "'"} and d.opaque[a]:
            a += 1
        if a >= b:
            continue
        lead = d.cue_at.get(a)
        connective = None
        inference = False
        if lead is not None and lead.phrase in RESULT and lead.end < b:
            connective = lead.phrase
            inference = lead.phrase in INFER
            if lead.phrase == "so" and clause_at(d, lead.end, b) is None and d.lower[lead.end] != ",":
                connective = None
            else:
                a = lead.end
        elif lead is not None and lead.phrase in INFER and lead.end < b:
            inference = True
            a = lead.end
        if a < b and d.lower[a] == "that" and inference:
            a += 1
        first = len(drafts)
        split_region(d, a, b, drafts, inference=inference)
        if connective is not None and len(drafts) > first:
            if previous_last is not None:
                drafts.append(Draft("link", drafts[previous_last].a, b, connective=connective,
                                     joins=(previous_last, first), inference=inference))
            else:
                drafts[first].connective = connective
        previous_last = last_clause_claim(drafts, first)
    values = _extract(text) if drafts else []
    return _finish(d, drafts, values)


# --------------------------------------------------------------------------------------------
# Scoring against a sentence set
# --------------------------------------------------------------------------------------------

PART_DEFAULTS: dict[str, Any] = {"negated": False, "modality": "asserted", "tense": "current", "conditions": 0,
                                 "quantifier": None, "connective": None, "claim_type": "direct"}
QUALIFIERS = ("parts", "negated", "modality", "tense", "conditions", "quantifier", "connective", "claim_type",
              "values", "counted_nouns")


def _observed(claim: AtomicClaim) -> dict[str, Any]:
    """The per-part qualifiers of a claim in the sentence-set vocabulary."""
    return {"negated": claim.negated, "modality": claim.modality, "tense": claim.tense,
            "conditions": len(claim.conditions), "quantifier": claim.quantifier, "connective": claim.connective,
            "claim_type": claim.claim_type}


def score_sentence(entry: dict[str, Any], claims: list[AtomicClaim]) -> dict[str, tuple[int, int]]:
    """(correct, total) per qualifier for one sentence-set entry.

    Per-part qualifiers are compared part by part when the number of parts matches; ``parts``
    itself counts the sentence. Values are compared over the whole sentence: how many distinct
    values, and the sorted list of counted nouns.
    """
    expected_parts = [{**PART_DEFAULTS, **part} for part in entry["parts"]]
    result: dict[str, tuple[int, int]] = {"parts": (int(len(claims) == len(expected_parts)), 1)}
    if len(claims) == len(expected_parts):
        for key in PART_DEFAULTS:
            good = sum(_observed(c)[key] == e[key] for c, e in zip(claims, expected_parts, strict=True))
            result[key] = (good, len(expected_parts))
    if "values" in entry:
        seen = {(v.start, v.end): v for c in claims for v in c.values}
        result["values"] = (int(len(seen) == entry["values"]), 1)
        nouns = sorted(v.counted_noun for v in seen.values() if v.counted_noun)
        if "counted_nouns" in entry:
            result["counted_nouns"] = (int(nouns == sorted(entry["counted_nouns"])), 1)
    return result


def score_sentence_set(path: str | Path, *, model: str | None = None) -> dict[str, float]:
    """Accuracy per qualifier over a JSON-lines sentence set (see tests/claims/data/sentences.jsonl)."""
    totals: dict[str, list[int]] = {key: [0, 0] for key in QUALIFIERS}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        for key, (good, total) in score_sentence(entry, decompose(entry["text"], model=model)).items():
            totals[key][0] += good
            totals[key][1] += total
    return {key: good / total for key, (good, total) in totals.items() if total}
