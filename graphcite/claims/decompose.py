"""Split a claim's sentence into atomic claims with their qualifiers made explicit.

A cited sentence often carries several propositions ("X retries idempotent adapters three times
and sends uncertain deliveries to manual review") and qualifiers that decide what evidence can
support it: negation, modality, time, conditions, quantifiers, values and the small connective
words that assert causation or comparison. :func:`decompose` returns one
:class:`~graphcite.models.AtomicClaim` per proposition so each can be checked on its own.

It runs on the shared pipeline (:func:`graphcite.ingest.nlp.get_nlp`): spaCy's blank English gives
tokens and lookup lemmas, cue phrases come from a ``PhraseMatcher`` (:mod:`graphcite.claims.cues`)
and word classes from closed lists plus a verb lexicon, so it needs no tagger and stays fast.

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
* Values: :func:`graphcite.ingest.values.extract_values` runs once per sentence; each claim gets
  the values inside its own span (and its shared subject), offsets relative to the input text.
* ``claim_type``: proposal for proposed modality, inference after therefore/thus/hence/we conclude,
  background for definitions with a generic subject, else direct.

``python -m graphcite.claims.decompose --score FILE.jsonl`` prints per-qualifier accuracy on a
sentence set (see :func:`score_sentence_set`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphcite.claims import cues as C
from graphcite.ingest.nlp import get_nlp
from graphcite.ingest.nlp import lemma as lookup_lemma
from graphcite.models import AtomicClaim, ExtractedValue

__all__ = ["decompose", "score_sentence_set"]

_END_PUNCT = frozenset({".", "!", "?", ";", ":", ","})
_BULLETS = frozenset({"-", "*", "•", "–", "—"})
_OPEN = {"(": ")", "[": "]", "{": "}", "“": "”", "‘": "’"}
_REL = frozenset({"that", "which", "who", "whose", "whom", "where"})
_CONJ = frozenset({"and", "but", "nor", "yet", "or"})
_CHAIN_WORDS = frozenset({"able", "unable", "going", "allowed", "required", "supposed", "permitted", "expected",
                          "obliged", "encouraged", "likely", "about"})
_TO_VERBS = frozenset({"use", "need", "plan", "fail", "tend", "want", "try", "intend", "aim", "continue", "seem",
                       "appear", "start", "begin", "have", "refuse", "decline", "manage", "happen", "ought",
                       "stop", "propose", "expect", "agree", "decide", "choose", "prefer", "promise", "hope"})
_INITIAL_ADVERBIALS = frozenset({"however", "also", "instead", "additionally", "moreover", "furthermore",
                                 "meanwhile", "otherwise", "overall", "finally", "first", "second", "then",
                                 "still", "in practice", "in short", "in addition", "in general", "notably",
                                 "importantly", "similarly", "likewise", "again", "yes", "no"})
_RESULT = frozenset({"so", "therefore", "thus", "hence", "consequently", "as a result", "accordingly"})
_INFER = frozenset({"therefore", "thus", "hence", "we conclude", "we conclude that", "so we conclude",
                    "so we conclude that", "it follows that", "we infer", "we infer that"})
_SUBORDINATE = frozenset({"because", "since", "although", "though", "even though", "whereas", "after", "before",
                          "despite", "in spite of", "because of", "due to", "owing to", "as a result of"})
_NP_CONNECTIVES = frozenset({"because of", "due to", "owing to", "as a result of", "despite", "in spite of"})
_CAUSAL_VERBS = frozenset({"leads to", "lead to", "led to", "results in", "resulted in", "result in", "causes",
                           "caused", "cause", "caused by"})
_REL_CAUSAL = frozenset({"which caused", "which causes", "which led to", "which leads to", "which resulted in",
                         "which results in", "leading to"})
_CONSIDER_FAMILY = frozenset({"discussed", "evaluated", "explored", "debated", "weighed", "looked into",
                              "toyed with", "floated"})
_CONSIDER_TAIL = frozenset({",", ".", ";", "for", "but", "by", "in", "during", "and", "as", "at", "before",
                            "after", "last", "twice", "briefly", "again", "on", "early", "when", "while", "then",
                            "until", "alongside", "once", "earlier", "previously", "instead", "too", "there"})
_AMOUNT_WORDS = frozenset({"second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade",
                           "millisecond", "dozen", "hundred", "thousand", "million", "third", "half",
                           "few", "couple", "fraction", "percent", "tenth"})
_NOUN_ED = frozenset({"need", "seed", "speed", "feed", "bed", "shed", "red", "embed", "hundred", "breed"})
_DEF_START = frozenset({"a", "an"})
_NOT_NOUNISH_DET = frozenset({"the", "a", "an", "no", "every", "each", "any", "our", "its", "their", "his", "her",
                              "my", "your", "whose", "another", "such", "what", "which", "very", "too", "most",
                              "neither", "either", "both", "all", "some"})
_ENTITY_STRIP = frozenset({"the", "a", "an", "all", "every", "each", "some", "any", "no", "none", "our", "its",
                           "their", "this", "these", "those", "both", "of", "not", "neither", "either", "only",
                           "my", "your"})


# --------------------------------------------------------------------------------------------
# Tokens and cues
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Cue:
    start: int
    end: int
    phrase: str
    labels: tuple[str, ...]


@dataclass(slots=True)
class _Doc:
    text: str
    words: list[str]
    lower: list[str]
    lemma: list[str]
    starts: list[int]
    ends: list[int]
    cue_at: dict[int, _Cue]
    covered: list[_Cue | None]
    opaque: list[bool]

    @property
    def n(self) -> int:
        return len(self.words)


def _build(text: str, model: str | None) -> _Doc:
    nlp = get_nlp(model) if model else get_nlp()
    doc = nlp.make_doc(text) if not model else nlp(text)
    words = [t.text for t in doc]
    lower = [w.lower() for w in words]
    if not model:
        lemmas = [lookup_lemma(w) if w.isalpha() else w.lower() for w in words]
    else:
        lemmas = [(t.lemma_ or t.text).lower() for t in doc]
    starts = [t.idx for t in doc]
    ends = [t.idx + len(t.text) for t in doc]
    matches = sorted(C.cue_matcher(nlp)(doc), key=lambda m: (m[1], m[1] - m[2]))
    cue_at: dict[int, _Cue] = {}
    covered: list[_Cue | None] = [None] * len(words)
    for match_id, start, end in matches:
        if any(covered[k] is not None for k in range(start, end)):
            continue
        phrase = nlp.vocab.strings[match_id]
        cue = _Cue(start, end, phrase, C.CUE_LABELS[phrase])
        cue_at[start] = cue
        for k in range(start, end):
            covered[k] = cue
    return _Doc(text, words, lower, lemmas, starts, ends, cue_at, covered, _opaque(words))


def _opaque(words: list[str]) -> list[bool]:
    """Tokens inside brackets or quotation marks: never split, never a cue."""
    flags = [False] * len(words)
    stack: list[str] = []
    straight = False
    for i, w in enumerate(words):
        if w == '"':
            if straight:
                flags[i] = True
                straight = False
                continue
            straight = True
            flags[i] = True
            continue
        if stack and w == stack[-1]:
            stack.pop()
            flags[i] = True
            continue
        if w in _OPEN:
            stack.append(_OPEN[w])
            flags[i] = True
            continue
        flags[i] = straight or bool(stack)
    return flags


def _has(cue: _Cue | None, prefix: str) -> bool:
    return cue is not None and any(label.startswith(prefix) for label in cue.labels)


def _cue(d: _Doc, i: int, prefix: str) -> _Cue | None:
    cue = d.cue_at.get(i)
    if cue is not None and not d.opaque[i] and _has(cue, prefix):
        return cue
    return None


# --------------------------------------------------------------------------------------------
# Word classes (no tagger: closed lists, a verb lexicon and position)
# --------------------------------------------------------------------------------------------


def _is_aux(d: _Doc, i: int) -> bool:
    w = d.lower[i]
    if w == "'s":
        return i > 0 and d.lower[i - 1] in {"it", "that", "there", "he", "she", "what", "here", "who"}
    if w not in C.AUXILIARIES:
        return False
    if i > 0 and (d.lower[i - 1] in C.PREPOSITIONS or d.lower[i - 1] in {"the", "a"}):
        return False  # "in May", "the will"
    return not (w == "may" and d.words[i][0].isupper() and i > 0)


def _is_adverb(d: _Doc, i: int) -> bool:
    w = d.lower[i]
    if w in C.ADVERBS:
        return True
    return len(w) > 4 and w.endswith("ly") and w.isalpha() and w not in C.NOT_ADVERBS_LY


def _verb_form(d: _Doc, i: int) -> str | None:
    """'base', 's', 'past' (past or participle) or 'ing' for verb-like words, else None."""
    w, lm = d.lower[i], d.lemma[i]
    if not w.isalpha():
        return None
    if lm in C.VERBS or w in C.VERBS:
        if w == lm or (w in C.VERBS and lm not in C.VERBS):
            return "base"
        if w.endswith("ing"):
            return "ing"
        if w.endswith("s") and not w.endswith("ss"):
            return "s"
        return "past"
    if len(w) > 4 and w.endswith("ed") and w[:-2] not in _NOUN_ED and w not in C.ADJECTIVES:
        return "past"
    if len(w) > 5 and w.endswith("ing") and w not in {"during", "nothing", "something", "anything", "string"}:
        return "ing"
    return None


def _is_numberish(d: _Doc, i: int) -> bool:
    w = d.lower[i]
    return w in C.NUMBER_WORDS or w[:1].isdigit()


def _nounish(d: _Doc, p: int, a: int) -> bool:
    """Can token p end a subject noun phrase (so that the next word may be its verb)?"""
    w = d.lower[p]
    if d.opaque[p]:
        return d.words[p] in {")", "]", '"', "”", "’", "`"}
    if not any(ch.isalnum() for ch in w):
        return False
    if p > a and d.words[p][:1].isupper() and w not in C.PREPOSITIONS:
        return True  # a name or code: "adapter A", "Z29C"
    if w in _NOT_NOUNISH_DET or w in C.PREPOSITIONS or w in _CONJ or w in C.ADJECTIVES:
        return False
    if w in C.AUXILIARIES or (w in _REL and p > a):
        return False
    if w == "one" and p - 1 >= a and (d.lower[p - 1] in C.DETERMINERS or d.lower[p - 1] in C.ADJECTIVES):
        return True  # "the new one"
    if _is_numberish(d, p):
        return p - 1 >= a and d.words[p - 1][:1].isupper() and d.lower[p - 1] not in C.DETERMINERS
    if w.endswith(("ous", "ful", "able", "ible", "ical")) and len(w) > 5:
        return False
    if w.endswith("ed") and len(w) > 4 and w[:-2] not in _NOUN_ED:
        return False
    return not (w.endswith("ing") and len(w) > 5 and p > a)


def _plural_subject(d: _Doc, a: int, p: int) -> bool:
    w = d.lower[p]
    if w in C.PLURAL_PRONOUNS or w in {"data", "people", "both"}:
        return True
    if w.endswith("s") and not w.endswith("ss") and d.lemma[p] != w:
        return True
    return any(d.lower[k] == "and" and not d.opaque[k] for k in range(a, p))


def _lexical_verb(d: _Doc, i: int, a: int, b: int) -> bool:
    """Is token i the finite verb of a clause starting at a (no auxiliary before it)?"""
    form = _verb_form(d, i)
    if form is None and _unknown_s_verb(d, i, a, b):
        form = "s"
    if form is None or form == "ing":
        return False
    p = i - 1
    while p >= a and _adverbial(d, p) and not (d.lower[p] == "neither" and p == a):
        p -= 1
    if p < a or not _nounish(d, p, a):
        return False
    nxt = i + 1 if i + 1 < b else None
    if nxt is not None and (_is_aux(d, nxt) or d.lower[nxt] in {"'s"}):
        return False
    if form == "base":
        return _plural_subject(d, a, p)
    if form == "s":
        if nxt is not None and d.lower[nxt] == "of" and d.lemma[i] not in {"consist", "think"}:
            return False
        return not (nxt is not None and d.lemma[i] in C.NOUN_LIKE_VERBS and _next_is_verb(d, nxt, b))
    if nxt is not None and d.lower[nxt] == "by":
        return not any(_is_aux(d, k) for k in range(nxt, b))
    return True


def _next_is_verb(d: _Doc, j: int, b: int) -> bool:
    """Does token j read as the verb of a subject ending just before it ("error rates rose by")?"""
    form = _verb_form(d, j)
    if d.lower[j] in C.DETERMINERS or form is None or form == "ing":
        return False
    if form == "base":
        return True
    if form == "s":
        return False
    after = j + 1
    return after >= b or d.lower[after] in C.PREPOSITIONS or d.lower[after] in _END_PUNCT \
        or _is_adverb(d, after) or _is_numberish(d, after)


def _adverbial(d: _Doc, k: int) -> bool:
    """Adverbs that may sit between a subject and its verb, "no longer" and "neither" included."""
    w = d.lower[k]
    if w == "longer":
        return k > 0 and d.lower[k - 1] == "no"
    if w == "no":
        return k + 1 < d.n and d.lower[k + 1] == "longer"
    return w == "neither" or _is_adverb(d, k)


def _unknown_s_verb(d: _Doc, i: int, a: int, b: int) -> bool:
    """A word outside the lexicon that reads as a verb: "-s" after a short subject, before an object."""
    w = d.lower[i]
    if len(w) < 4 or not w.isalpha() or not w.endswith("s") or w.endswith(("ss", "us", "is", "ics")):
        return False
    if i - a > 4 or i + 1 >= b or d.lower[a] not in C.DETERMINERS:
        return False
    nxt = d.lower[i + 1]
    return nxt in C.DETERMINERS or nxt in {"it", "them", "its", "their"} or _is_numberish(d, i + 1)


@dataclass(slots=True)
class _Pred:
    start: int  # first token of the verb group, leading adverbs included
    head: int  # first auxiliary or the verb
    main: int  # the lexical verb, or the last auxiliary for copulas
    end: int  # exclusive
    aux: tuple[int, ...]


def _group(d: _Doc, a: int, i: int, b: int) -> _Pred:
    start = i
    while start - 1 > a and not d.opaque[start - 1] and _adverbial(d, start - 1):
        start -= 1
    aux: list[int] = []
    main = i
    k = i
    if _is_aux(d, i):
        last_aux = i
        while k < b and not d.opaque[k]:
            w = d.lower[k]
            if _is_aux(d, k):
                aux.append(k)
                last_aux = k
            elif w in {"not", "n't", "to"} or _is_adverb(d, k) or (
                w in _CHAIN_WORDS and k + 1 < b and d.lower[k + 1] == "to"
            ) or (w == "no" and k + 1 < b and d.lower[k + 1] == "longer") or (w == "longer" and d.lower[k - 1] == "no"):
                pass
            else:
                break
            k += 1
        main = last_aux
        if k < b and not d.opaque[k] and _verb_form(d, k) is not None and not _is_numberish(d, k) \
                and not (k + 1 < b and d.words[k + 1] == "-"):
            main = k
            k += 1
        else:
            k = last_aux + 1
            while k < b and d.lower[k] in {"not", "n't"}:
                k += 1
    else:
        k = i + 1
    # "used to retry", "fails to page", "plans to drop": the infinitive is the verb
    if d.lemma[main] in _TO_VERBS and k + 1 < b and d.lower[k] == "to" and _verb_form(d, k + 1) == "base":
        main = k + 1
        k = k + 2
    if k < b and d.lower[k] in C.PARTICLES and d.lemma[main] in C.PHRASAL:
        k += 1
    return _Pred(start, i, main, k, tuple(aux))


def _predicate(d: _Doc, a: int, b: int) -> _Pred | None:
    """The verb group of the clause in [a, b): the first auxiliary or finite verb after a subject."""
    i = a
    first: _Pred | None = None
    while i < b:
        if d.opaque[i]:
            i += 1
            continue
        w = d.lower[i]
        if first is None and w in _REL and i > a and _nounish(d, i - 1, a) and w != "where":
            inner = _predicate_from(d, i + 1, b)
            if inner is not None:
                first = inner
                i = inner.end
                continue
        if i > a and (_is_aux(d, i) or _lexical_verb(d, i, a, b)):
            return _group(d, a, i, b)
        i += 1
    return first


def _predicate_from(d: _Doc, a: int, b: int) -> _Pred | None:
    """Verb group of a relative clause: the verb may come first ("that fail ...")."""
    for i in range(a, min(b, a + 8)):
        if d.opaque[i]:
            continue
        if _is_aux(d, i) or (_verb_form(d, i) in ("base", "s", "past") and (i == a or _nounish(d, i - 1, a))):
            return _group(d, a - 1, i, b)
    return None


def _clause_at(d: _Doc, a: int, b: int, *, max_subject: int = 9) -> _Pred | None:
    """A finite clause starting at a (subject then verb group), or None."""
    if a >= b or d.lower[a] in C.PREPOSITIONS or _is_aux(d, a):
        return None
    pred = _predicate(d, a, b)
    if pred is None or pred.start - a > max_subject or pred.start <= a:
        return None
    if any(d.lower[k] in {",", ";", "and", "but", "or"} and not d.opaque[k] for k in range(a, pred.start)):
        return None
    if not pred.aux and _verb_form(d, pred.main) == "ing":
        return None
    return pred


# --------------------------------------------------------------------------------------------
# Drafts: claims before their qualifiers are read
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Draft:
    kind: str  # clause, np, link
    a: int
    b: int
    subject: tuple[int, int] | None = None
    pred: _Pred | None = None
    obj: tuple[int, int] | None = None
    carried: tuple[int, ...] = ()
    shared: bool = False
    conditions: list[tuple[int, int]] = field(default_factory=list)
    context: list[tuple[int, int]] = field(default_factory=list)
    connective: str | None = None
    joins: tuple[int, int] | None = None
    inference: bool = False
    negated_link: str | None = None
    link_modal: tuple[str, str] | None = None
    inherit: int | None = None  # np claims take their tense from this draft
    forced_negation: str | None = None  # "nor" before a conjunct


def _trim(d: _Doc, a: int, b: int) -> tuple[int, int]:
    while a < b and (d.lower[a] in _END_PUNCT or d.lower[a] in _BULLETS or d.lower[a] in {"and", "but"}):
        a += 1
    while b > a and d.lower[b - 1] in _END_PUNCT | {"and", "but", "or"}:
        b -= 1
    return a, b


def _sentences(d: _Doc) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for i, w in enumerate(d.lower):
        if (w in {".", "!", "?"} or _dotted_end(d, i)) and not d.opaque[i] and i + 1 < d.n:
            nxt = d.words[i + 1]
            if nxt[:1].isupper() or nxt[:1] in {'"', "“", "("} or nxt[:1].isdigit():
                spans.append((start, i + 1))
                start = i + 1
    if start < d.n:
        spans.append((start, d.n))
    return [s for s in spans if any(ch.isalpha() for w in d.words[s[0]:s[1]] for ch in w)]


def _dotted_end(d: _Doc, i: int) -> bool:
    """A token that swallowed the full stop ("adapter X." is tokenized as "X.")."""
    w = d.words[i]
    return len(w) > 1 and w.endswith(".") and "." not in w[:-1] and w[:-1].isalnum()


def _top_comma(d: _Doc, a: int, b: int) -> int | None:
    for k in range(a, b):
        if d.lower[k] == "," and not d.opaque[k]:
            return k
    return None


def _region(d: _Doc, a: int, b: int, out: list[_Draft], *, inference: bool = False) -> tuple[int, int]:
    """Append drafts for [a, b) to out (connectives split it); return (first, last) index of its claims."""
    a, b = _trim(d, a, b)
    if a >= b or not _has_words(d, a, b):
        return len(out), len(out) - 1
    split = _find_connective(d, a, b)
    if split is None:
        first = len(out)
        _clause(d, a, b, out, inference=inference)
        return first, len(out) - 1
    kind, k, cue, left, right = split
    first = len(out)
    phrase = cue.phrase
    if kind == "lead":  # "Because A, B": sub side first in the sentence
        sub_first, _ = _side(d, left, out, np=phrase in _NP_CONNECTIVES)
        main_first, _ = _region(d, right[0], right[1], out, inference=inference)
        head, dep = main_first, sub_first
        inherit_from = main_first
    elif kind == "causal":
        left_first, _ = _side(d, left, out, np=True)
        right_first, _ = _side(d, right, out, np=True)
        head, dep = left_first, right_first
        inherit_from = None
    else:
        _, left_last = _region(d, left[0], left[1], out, inference=inference)
        infer = inference or phrase in _INFER
        if kind == "result":
            right_first, _ = _region(d, right[0], right[1], out, inference=infer)
        else:
            right_first, _ = _side(d, right, out, np=phrase in _NP_CONNECTIVES)
        head, dep = left_last, right_first
        inherit_from = left_last
    for draft in out[first:]:
        if draft.kind == "np" and draft.inherit is None:
            draft.inherit = inherit_from
    link = _Draft("link", a, b, connective=_connective_name(d, cue, kind), joins=(head, dep),
                  inference=inference or phrase in _INFER)
    if kind == "causal":
        link.link_modal = _causal_modal(d, a, cue.start)
        link.inherit = None
        link.pred = _predicate(d, a, b)
    if k - 1 >= a and d.lower[k - 1] in {"not", "n't"}:
        link.negated_link = d.words[k - 1]
    out.append(link)
    for draft in out[first:-1]:
        if draft.kind == "np" and draft.inherit is None:
            draft.inherit = len(out) - 1
    return first, len(out) - 1


def _side(d: _Doc, span: tuple[int, int], out: list[_Draft], *, np: bool) -> tuple[int, int]:
    a, b = _trim(d, *span)
    if not np and _predicate(d, a, b) is not None:
        return _region(d, a, b, out)
    if a >= b:
        a, b = span
    out.append(_Draft("np", a, b, subject=(a, b)))
    return len(out) - 1, len(out) - 1


def _connective_name(d: _Doc, cue: _Cue, kind: str) -> str:
    if kind != "compare" or cue.phrase != "than":
        return cue.phrase
    k = cue.start
    for back in range(k - 1, max(k - 4, -1), -1):
        if d.lower[back] in {"more", "less", "fewer"}:
            return f"{d.lower[back]} than"
    return "than"


def _causal_modal(d: _Doc, a: int, k: int) -> tuple[str, str] | None:
    for i in range(max(a, k - 3), k):
        cue = _cue(d, i, "MOD:")
        if cue is not None:
            label = next(lab for lab in cue.labels if lab.startswith("MOD:"))
            return label[4:], cue.phrase
    return None


def _find_connective(d: _Doc, a: int, b: int) -> tuple[str, int, _Cue, tuple[int, int], tuple[int, int]] | None:
    found = _connective_split(d, a, b)
    if found is None:
        return None
    left, right = found[3], found[4]
    if _has_words(d, *left) and _has_words(d, *right):
        return found
    return None


def _has_words(d: _Doc, a: int, b: int) -> bool:
    return any(any(ch.isalnum() for ch in d.words[k]) for k in range(a, b))


def _connective_split(d: _Doc, a: int, b: int) -> tuple[str, int, _Cue, tuple[int, int], tuple[int, int]] | None:
    """The connective in [a, b) that links two parts, with the parts' token ranges.

    Result connectives joining whole clauses (", so", "; therefore") bind loosest and are tried
    first; otherwise the leftmost connective wins and the parts are split again recursively.
    """
    for k in range(a + 1, b):
        cue = _cue(d, k, "CONN")
        if cue is None or cue.phrase not in _RESULT:
            continue
        if d.lower[k - 1] not in {",", ";", "and", "—", "-"} or cue.end >= b:
            continue
        if cue.phrase == "so" and (d.lower[cue.end] in {"that", "far", "on", "-"} or _clause_at(d, cue.end, b) is None):
            continue
        return "result", k, cue, (a, k - 1), (cue.end, b)
    for k in range(a, b):
        cue = _cue(d, k, "CONN")
        if cue is None:
            continue
        phrase, end = cue.phrase, cue.end
        if phrase in _RESULT:
            continue  # handled below with punctuation checks
        if k == a and phrase in _SUBORDINATE:
            comma = _top_comma(d, end, b)
            if comma is None or comma + 1 >= b:
                continue
            sub = (end, comma)
            if phrase in _NP_CONNECTIVES or _clause_at(d, end, comma) is not None:
                return "lead", k, cue, sub, (comma + 1, b)
            continue
        if k == a:
            continue
        if phrase in _SUBORDINATE:
            if phrase in {"after", "before", "since"} and _clause_at(d, end, b) is None:
                continue
            if phrase in {"because", "although", "though", "even though", "whereas"} and end >= b:
                continue
            if _predicate(d, a, k) is None:
                continue
            return "sub", k, cue, (a, k), (end, b)
        if phrase in _REL_CAUSAL:
            return "rel", k, cue, (a, k), (end, b)
        if phrase in _CAUSAL_VERBS:
            pred = _predicate(d, a, b)
            if pred is None or not (pred.main == k or pred.head == k or pred.main in range(k, end)):
                continue
            left_end = pred.start
            return "causal", k, cue, (a, left_end), (end, b)
        if phrase in {"than", "more than", "less than", "fewer than"}:
            if end >= b or _is_numberish(d, end) or d.lower[end] in {"expected", "usual", "planned",
                                                                       "necessary", "needed", "allowed"}:
                continue
            if d.lower[end] in {"a", "an"} and end + 1 < b and (d.lemma[end + 1] in _AMOUNT_WORDS
                                                               or _is_numberish(d, end + 1)):
                continue  # "more than a minute", "less than a dozen": a bound, not a comparison
            if (k - 1 >= a and d.lower[k - 1] in {"rather", "other"}) or (k - 2 >= a and d.lower[k - 2] == "no"):
                continue
            if _predicate(d, a, k) is None:
                continue
            return "compare", k, cue, (a, k), (end, b)
    return None


def _clause(d: _Doc, a: int, b: int, out: list[_Draft], *, inference: bool = False) -> None:
    """Drafts for one clause without top-level connectives: context, conditions and conjuncts."""
    context: list[tuple[int, int]] = []
    conditions: list[tuple[int, int]] = []
    a, b = _trim(d, a, b)
    clause_start = a
    while a < b:
        a, b = _trim(d, a, b)
        if a >= b:
            break
        cue = d.cue_at.get(a)
        if cue is not None and not d.opaque[a] and (_has(cue, "COND") or d.lower[a] == "without"):
            comma = _top_comma(d, cue.end, b)
            if comma is not None and comma + 1 < b and _condition_ok(d, a, cue, comma, leading=True):
                conditions.append((a, comma))
                a = comma + 1
                continue
        if cue is not None and not d.opaque[a] and (_has(cue, "TIME:") or _has(cue, "INFER")) and \
                cue.phrase not in {"will", "'ll", "wo", "still"}:
            context.append((a, cue.end))
            if _has(cue, "INFER"):
                inference = True
            a = cue.end
            continue
        if d.lower[a] in _INITIAL_ADVERBIALS and a + 1 < b and d.lower[a + 1] == ",":
            a += 2
            continue
        if d.lower[a] in C.PREPOSITIONS and d.lower[a] not in {"than", "like"}:
            comma = _top_comma(d, a, b)
            if comma is not None and comma + 1 < b and _predicate(d, a, comma) is None:
                context.append((a, comma))
                a = comma + 1
                continue
        if d.lower[a] in {"in", "until", "since", "by"} and a + 1 < b and _is_year(d.lower[a + 1]):
            context.append((a, a + 2))
            a += 2
            continue
        break
    pred = _predicate(d, a, b) if a < b else None
    if pred is None:
        out.append(_Draft("clause", clause_start, b, subject=(a, b) if a < b else None, context=context,
                          conditions=conditions, inference=inference))
        return
    subject_end = pred.start
    for k in range(a + 1, pred.start):
        cue = _cue(d, k, "COND")
        if cue is not None and cue.phrase in {"except", "except for", "other than", "excluding"}:
            conditions.append((k, pred.start))
            subject_end = k
            break
    tail_conditions = _trailing_conditions(d, pred, b)
    splits = _conjunct_splits(d, pred, a, b, tail_conditions)
    bounds = [pred.end] + [s[2] for s in splits]
    ends = [s[0] for s in splits] + [b]
    subject = (a, subject_end) if subject_end > a else None
    for n, (kind, cstart, cend) in enumerate(
        [("first", a, ends[0])] + [(splits[m][1], splits[m][2], ends[m + 1]) for m in range(len(splits))]
    ):
        own_conditions = [c for c in tail_conditions if cstart <= c[0] < cend]
        if kind == "clause":
            first = len(out)
            _clause(d, cstart, cend, out, inference=inference)
            for draft in out[first:]:
                draft.context = context + draft.context
                draft.conditions = conditions + draft.conditions
            continue
        if kind == "first":
            draft = _Draft("clause", clause_start, cend, subject=subject, pred=pred, context=context,
                           inference=inference)
        else:
            vp = _vp_pred(d, cstart, cend)
            carried = _carried(d, pred, vp) if vp is not None else ()
            draft = _Draft("clause", cstart, cend, subject=subject, pred=vp, carried=carried, shared=True,
                           context=context, inference=inference)
            split_word = d.lower[splits[n - 1][0]]
            if split_word == "nor" or (split_word == "," and d.lower[splits[n - 1][0] + 1] == "nor"):
                draft.forced_negation = "nor"
        obj_start = draft.pred.end if draft.pred is not None else bounds[n]
        obj_end = min([c[0] for c in own_conditions] + [cend])
        if obj_start < obj_end:
            draft.obj = _trim(d, obj_start, obj_end)
        draft.conditions = conditions + own_conditions
        for k in range(draft.a, draft.b):
            cue = _cue(d, k, "INFER")
            if cue is not None and k > a:
                draft.inference = True
                draft.connective = draft.connective or cue.phrase
                break
        out.append(draft)


def _is_year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and word[:2] in {"19", "20"}


def _condition_ok(d: _Doc, k: int, cue: _Cue, end: int, *, leading: bool) -> bool:
    phrase = cue.phrase
    if phrase == "while" and not leading and k > 0 and d.lower[k - 1] == ",":
        return False  # ", while the investigation took six hours" contrasts two claims
    if k > 0 and _is_aux(d, k - 1):
        return False  # "is provided by"
    if phrase == "once":
        return _clause_at(d, cue.end, end) is not None
    if phrase in {"after", "before"}:
        return leading or _clause_at(d, cue.end, end) is None
    if phrase in {"until", "while"}:
        return cue.end < end and not _is_year(d.lower[cue.end])
    return cue.end < end


def _trailing_conditions(d: _Doc, pred: _Pred, b: int) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    k = pred.end
    while k < b:
        cue = _cue(d, k, "COND")
        if cue is None and d.lower[k] == "without" and False:
            cue = None
        if cue is None:
            k += 1
            continue
        end = _condition_end(d, pred, cue.end, b)
        if _condition_ok(d, k, cue, end, leading=False):
            found.append((k, end))
            k = end
        else:
            k = cue.end
    return found


def _condition_end(d: _Doc, pred: _Pred, k: int, b: int) -> int:
    for j in range(k, b):
        if d.opaque[j]:
            continue
        w = d.lower[j]
        if w in {",", ";"}:
            return j
        if w in {"and", "or"} and j + 1 < b and _cue(d, j + 1, "COND") is not None:
            return j  # "before each retry and after each restart": two conditions
        if w in {"and", "but", "yet"} and j + 1 < b and (
            _vp_start(d, j + 1, b, pred, strict=True) is not None
            or _clause_at(d, j + 1, _next_stop(d, j + 1, b)) is not None
        ):
            return j
    return b


def _conjunct_splits(
    d: _Doc, pred: _Pred, a: int, b: int, conditions: list[tuple[int, int]]
) -> list[tuple[int, str, int]]:
    """Split points after the first verb group: (token of the split, 'vp' or 'clause', conjunct start)."""
    splits: list[tuple[int, str, int]] = []
    k = pred.end
    plural = pred.start > a and (_verb_form(d, pred.head) == "base" or _plural_subject(d, a, pred.start - 1))
    not_only = any(d.cue_at.get(i) is not None and d.cue_at[i].phrase == "not only" for i in range(a, b))
    while k < b:
        inside = next((c for c in conditions if c[0] <= k < c[1]), None)
        if inside is not None:
            k = inside[1]
            continue
        w = d.lower[k]
        if d.opaque[k] or w not in {"and", "but", ",", ";", "nor", "yet"}:
            k += 1
            continue
        j = k + 1
        if w == "," and j < b and d.lower[j] in {"and", "but", "nor", "while", "yet"}:
            j += 1
        if j < b and d.lower[j] in {"also", "then"}:
            j += 1
        if j >= b:
            break
        if w == "but" and not_only and d.lower[k + 1] != "also":
            k += 1
            continue
        if _vp_start(d, j, b, pred, strict=False, subject_plural=plural) is not None:
            splits.append((k, "vp", j))
            k = j
            continue
        if (w in {"and", "but", ";", "nor", "yet"} or d.lower[k + 1] in {"and", "but", "while", "yet"}) \
                and _clause_at(d, j, _next_stop(d, j, b)):
            splits.append((k, "clause", j))
            k = j
            continue
        if w == ";":
            splits.append((k, "clause", j))
            k = j
            continue
        k += 1
    return splits


def _next_stop(d: _Doc, j: int, b: int) -> int:
    for k in range(j, b):
        if d.lower[k] in {",", ";"} and not d.opaque[k]:
            return k
    return b


def _vp_start(d: _Doc, j: int, b: int, pred: _Pred, *, strict: bool, subject_plural: bool = False) -> int | None:
    """Index of the verb when [j, b) opens a verb phrase sharing the first clause's subject."""
    t = j
    while t < b and (_is_adverb(d, t) or d.lower[t] in {"no", "longer", "neither"}) and d.lower[t] != "once":
        t += 1
    if t >= b or d.opaque[t]:
        return None
    if _is_aux(d, t):
        return t
    form = _verb_form(d, t)
    if form is None or _is_numberish(d, t):
        return None
    at_end = t + 1 >= b or d.lower[t + 1] in {",", ";", "and", "or"}
    first_has_object = pred.end < b and d.lower[pred.end] not in {"and", ",", "but", "nor"}
    if at_end and first_has_object and form != "past":
        return None
    if t + 1 < b and _is_aux(d, t + 1):
        return None
    if form in ("s", "past"):
        if form == "past" and pred.aux and d.lower[pred.aux[0]] in C.AUX_BE | C.AUX_HAVE:
            return t
        if strict and form == "past":
            return None
        return t
    aux_words = {d.lower[x] for x in pred.aux}
    if form == "base":
        if aux_words & (C.MODALS | C.AUX_DO) or d.lemma[pred.main] in _TO_VERBS:
            return None if strict else t
        if not pred.aux and subject_plural:
            return None if strict else t
        return None
    if form == "ing" and aux_words & C.AUX_BE:
        return None if strict else t
    return None


def _vp_pred(d: _Doc, j: int, b: int) -> _Pred | None:
    t = j
    while t < b and (_is_adverb(d, t) or d.lower[t] in {"no", "longer", "neither", "nor"}) and not _is_aux(d, t):
        if _verb_form(d, t) is not None and d.lower[t] not in C.ADVERBS:
            break
        t += 1
    if t >= b:
        return None
    pred = _group(d, j - 1, t, b)
    return _Pred(max(j, pred.start), pred.head, pred.main, pred.end, pred.aux)


def _carried(d: _Doc, first: _Pred, vp: _Pred) -> tuple[int, ...]:
    """Auxiliaries of the first verb group that a bare conjunct verb shares ("must retry and page")."""
    if vp.aux or not first.aux:
        return ()
    form = _verb_form(d, vp.main)
    kinds = {d.lower[x] for x in first.aux}
    if form == "base" and kinds & (C.MODALS | C.AUX_DO):
        return tuple(x for x in first.aux if d.lower[x] in C.MODALS)
    if form == "past" and kinds & (C.AUX_BE | C.AUX_HAVE):
        return first.aux
    if form == "ing" and kinds & C.AUX_BE:
        return first.aux
    return ()


# --------------------------------------------------------------------------------------------
# Qualifiers
# --------------------------------------------------------------------------------------------


def _tokens_of(draft: _Draft) -> list[int]:
    """Token indexes of a clause draft that its qualifiers are read from (conditions excluded)."""
    idx: list[int] = []
    if draft.shared and draft.subject is not None:
        idx.extend(range(*draft.subject))
        idx.extend(draft.carried)
        start = draft.a
    else:
        start = draft.a
    for k in range(start, draft.b):
        if not any(c[0] <= k < c[1] for c in draft.conditions):
            idx.append(k)
    return idx


def _negation(d: _Doc, draft: _Draft, subject_start: int | None) -> tuple[bool, str | None]:
    pred = draft.pred
    cues: list[str] = []
    if draft.kind != "clause":
        return False, None
    if draft.subject is not None and subject_start is not None and subject_start < draft.subject[1]:
        cue = d.cue_at.get(subject_start)
        if cue is not None and _has(cue, "NEG") and not _has(cue, "NEGX"):
            cues.append(d.text[d.starts[cue.start]:d.ends[cue.end - 1]])
        elif d.lower[subject_start] == "not" and subject_start + 1 < d.n and d.lower[subject_start + 1] in {"all", "every"}:
            cues.append("not")
    if pred is None:
        return bool(cues), cues[0] if cues else None
    region = [k for k in _tokens_of(draft) if k >= pred.start]
    if draft.shared:
        region = sorted(set(region) | set(draft.carried))
    in_relative = False
    neither = False
    seen: set[int] = set()
    for k in region:
        if d.opaque[k]:
            continue
        w = d.lower[k]
        if w in _REL and k > pred.end and (w != "that" or _nounish(d, k - 1, pred.end)):
            in_relative = True
        if in_relative:
            continue
        cue = d.covered[k]
        if cue is None or id(cue) in seen or not _has(cue, "NEG") or _has(cue, "NEGX"):
            continue
        seen.add(id(cue))
        if cue.phrase == "nor" and neither:
            continue
        if cue.phrase == "neither":
            neither = True
        if cue.phrase == "no" and k + 1 < d.n and d.lower[k + 1] in {"more", "less", "fewer", "later", "earlier"}:
            continue
        if cue.phrase == "not" and k > 0 and d.lower[k - 1] == "," and k + 1 < d.n \
                and not _is_aux(d, k + 1) and _verb_form(d, k + 1) is None:
            continue  # contrast: "treated as uncertain outcomes, not as failures"
        cues.append(d.text[d.starts[cue.start]:d.ends[cue.end - 1]])
    if draft.forced_negation and not in_relative:
        cues.insert(0, draft.forced_negation)
    negated = len(cues) % 2 == 1
    return negated, (cues[0] if cues else None)


def _modality(d: _Doc, draft: _Draft) -> tuple[str, str | None]:
    pred = draft.pred
    if draft.kind == "link":
        return draft.link_modal if draft.link_modal else ("asserted", None)
    if draft.kind != "clause":
        return "asserted", None
    tokens = _tokens_of(draft)
    verb_group = set(range(pred.start, pred.end)) | set(draft.carried) if pred is not None else set()
    # 1. cue phrases in the verb group (and right after it, for "is planned for")
    for k in sorted(verb_group) + ([pred.end] if pred is not None and pred.end < draft.b else []):
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k] or not _has(cue, "MOD:"):
            continue
        found = _read_modality(d, cue, draft)
        if found is not None:
            return found
    if pred is None:
        for k in tokens:
            cue = d.cue_at.get(k)
            if cue is not None and not d.opaque[k] and _has(cue, "MOD:"):
                found = _read_modality(d, cue, draft)
                if found is not None:
                    return found
    # 2. perfect aspect: has/have/had + participle
    if pred is not None and pred.aux and pred.main != pred.aux[-1]:
        auxes = [d.lower[x] for x in pred.aux]
        if auxes[0] in C.AUX_HAVE and d.lower[pred.main] not in {"to"}:
            return "completed", d.text[d.starts[pred.aux[0]]:d.ends[pred.main]]
    # 3. a proposal or plan named in the subject or a leading phrase ("The proposed design ...")
    subject = range(*draft.subject) if draft.subject is not None else range(0)
    scan = [k for span in draft.context for k in range(*span)] + [k for k in tokens if k in subject]
    for k in scan:
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k]:
            continue
        for label in cue.labels:
            if label in {"MOD:proposed", "MOD:planned"} and cue.phrase not in {"would"}:
                return label[4:], cue.phrase
    return "asserted", None


def _read_modality(d: _Doc, cue: _Cue, draft: _Draft) -> tuple[str, str] | None:
    label = next(lab for lab in cue.labels if lab.startswith("MOD:"))[4:]
    phrase = cue.phrase
    start = cue.start
    after = cue.end
    nxt = d.lower[after] if after < d.n else "."
    prev_aux = start > 0 and d.lower[start - 1] in C.AUX_BE | C.AUX_HAVE
    if phrase == "may" and start > 0 and d.words[start][0].isupper():
        return None
    if label == "considered":
        passive = prev_aux or phrase.split()[0] in C.AUX_BE
        if phrase in _CONSIDER_FAMILY:
            if start > 0 and d.lower[start - 1] in {"is", "are", "be"}:
                return None
        elif passive and nxt not in _CONSIDER_TAIL and after < draft.b:
            return None  # "is considered safe"
    if label == "completed" and " " not in phrase and start > 0 and d.lower[start - 1] in {"is", "are", "be", "being"}:
        return None  # "is deployed nightly" describes a routine
    if label == "must" and cue.end < d.n and d.lower[cue.end] in {"not", "n't", "never"}:
        return "must-not", d.text[d.starts[start]:d.ends[cue.end]]
    return label, d.text[d.starts[start]:d.ends[cue.end - 1]]


def _tense(d: _Doc, draft: _Draft, subject_start: int | None) -> tuple[str, str | None]:
    tokens = [k for span in draft.context if d.lower[span[0]] != "since" for k in range(*span)]
    tokens += [k for k in _tokens_of(draft) if not any(s[0] <= k < s[1] for s in draft.context)]
    pred = draft.pred
    past_cue = current_cue = None
    for k in tokens:
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k]:
            continue
        if _has(cue, "TIME:future"):
            if cue.phrase in {"will", "'ll", "wo"} and pred is not None and k not in range(pred.start, pred.end) \
                    and k not in draft.carried:
                continue
            return "future", cue.phrase
        if _has(cue, "TIME:past") and past_cue is None:
            if cue.phrase == "used to" and k > 0 and d.lower[k - 1] in C.AUX_BE | {"get", "got"}:
                continue
            past_cue = d.text[d.starts[cue.start]:d.ends[cue.end - 1]]
        if _has(cue, "TIME:current") and current_cue is None:
            current_cue = d.text[d.starts[cue.start]:d.ends[cue.end - 1]]
    for span in draft.context:
        if span[1] - span[0] == 2 and d.lower[span[0]] == "until" and _is_year(d.lower[span[0] + 1]):
            past_cue = past_cue or d.text[d.starts[span[0]]:d.ends[span[1] - 1]]
    if past_cue:
        return "past", past_cue
    if pred is not None:
        auxes = list(draft.carried) + list(pred.aux)
        if auxes:
            first = d.lower[auxes[0]]
            if first in C.PAST_AUXILIARIES:
                return "past", d.words[auxes[0]]
        elif _verb_form(d, pred.head) == "past":
            return "past", d.words[pred.head]
    if current_cue:
        return "current", current_cue
    if _definitional(d, draft, subject_start):
        return "timeless", None
    return "current", None


def _definitional(d: _Doc, draft: _Draft, subject_start: int | None) -> bool:
    pred = draft.pred
    if pred is None or draft.subject is None or subject_start is None or draft.shared:
        return False
    subject = range(subject_start, draft.subject[1])
    if any((d.words[k][:1].isupper() and k > subject_start) or any(ch.isdigit() or ch in "_./" for ch in d.words[k])
           for k in subject):
        return False
    first = d.lower[subject_start]
    generic = first in _DEF_START or (first not in C.DETERMINERS and first not in C.PRONOUNS)
    if not generic:
        return False
    for k in range(pred.start, min(pred.end + 1, d.n)):
        cue = d.cue_at.get(k)
        if cue is not None and _has(cue, "DEF"):
            return True
    return (d.lower[pred.main] in {"is", "are"} and len(pred.aux) == 1 and pred.end < d.n
            and d.lower[pred.end] in {"a", "an"} and first in _DEF_START)


def _quantifier(d: _Doc, draft: _Draft, subject_start: int | None) -> str | None:
    ranges: list[range] = []
    if draft.subject is not None and subject_start is not None:
        ranges.append(range(subject_start, draft.subject[1]))
    if draft.obj is not None:
        ranges.append(range(*draft.obj))
    for span in ranges:
        for k in span:
            w = d.lower[k]
            if w not in C.QUANTIFIERS or d.opaque[k]:
                continue
            cue = d.covered[k]
            if cue is not None and (_has(cue, "NEGX") or (cue.end - cue.start > 1 and w == "no")):
                continue
            if w == "all" and k > 0 and d.lower[k - 1] == "at":
                continue
            if w == "any" and k + 1 < d.n and d.lower[k + 1] in {"longer", "more"}:
                continue
            return w
    return None


def _subject_start(d: _Doc, draft: _Draft) -> int | None:
    if draft.subject is None:
        return None
    a, b = draft.subject
    while a < b and (d.lower[a] in _END_PUNCT or (_is_adverb(d, a) and d.lower[a] not in {"no", "only", "not"})):
        a += 1
    return a if a < b else None


def _entity(d: _Doc, draft: _Draft, subject_start: int | None) -> str | None:
    if draft.subject is None or subject_start is None:
        return None
    a, b = subject_start, draft.subject[1]
    while a < b and (d.lower[a] in _ENTITY_STRIP or d.lower[a] in _END_PUNCT):
        a += 1
    if a >= b or (b - a == 1 and d.lower[a] in C.PRONOUNS):
        return None
    chars = _chars(d, a, b)
    return d.text[chars[0]:chars[1]] if chars else None


# --------------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------------


def _chars(d: _Doc, a: int, b: int) -> tuple[int, int] | None:
    while a < b and d.lower[a] in _END_PUNCT | _BULLETS:
        a += 1
    while b > a and d.lower[b - 1] in _END_PUNCT:
        b -= 1
    if a >= b:
        return None
    end = d.ends[b - 1]
    if _dotted_end(d, b - 1) and (b == d.n or d.words[b][:1].isupper() or d.words[b] in _END_PUNCT):
        end -= 1
    return d.starts[a], end


def _values_in(values: list[ExtractedValue], spans: Iterable[tuple[int, int] | None]) -> tuple[ExtractedValue, ...]:
    spans = [s for s in spans if s is not None]
    return tuple(v for v in values if any(s[0] <= v.start and v.end <= s[1] for s in spans))


def _extract(text: str) -> list[ExtractedValue]:
    from graphcite.ingest.values import extract_values

    return list(extract_values(text))


def _finish(d: _Doc, drafts: list[_Draft], values: list[ExtractedValue]) -> list[AtomicClaim]:
    claims: list[AtomicClaim | None] = [None] * len(drafts)
    order = [i for i, dr in enumerate(drafts) if dr.kind == "clause"]
    order += [i for i, dr in enumerate(drafts) if dr.kind == "link"]
    order += [i for i, dr in enumerate(drafts) if dr.kind == "np"]
    link_tense: dict[int, tuple[str, str | None]] = {}
    for i in order:
        dr = drafts[i]
        span = _chars(d, dr.a, dr.b) or (d.starts[dr.a], d.ends[dr.b - 1])
        text = d.text[span[0]:span[1]]
        subject_start = _subject_start(d, dr)
        subject_span = _chars(d, dr.subject[0], dr.subject[1]) if dr.subject is not None else None
        pred_span = _chars(d, dr.pred.start, dr.pred.end) if dr.pred is not None and dr.kind != "link" else None
        obj_span = _chars(d, *dr.obj) if dr.obj is not None else None
        if dr.shared and subject_span is not None:
            pieces = [d.text[subject_span[0]:subject_span[1]]]
            pieces += [d.words[x] for x in dr.carried]
            pieces.append(text)
            text = " ".join(pieces)
        if dr.kind == "link":
            negated = dr.negated_link is not None
            negation_cue = dr.negated_link
            head = dr.joins[0] if dr.joins else None
            modality, modality_cue = _modality(d, dr)
            if head is not None and claims[head] is not None:
                tense, time_cue = claims[head].tense, claims[head].time_cue
            else:
                tense, time_cue = "current", None
            if dr.pred is not None:
                own = _tense(d, _Draft("clause", dr.a, dr.b, pred=dr.pred), None)
                if own[0] != "current" or own[1]:
                    tense, time_cue = own
            link_tense[i] = (tense, time_cue)
            conditions: tuple[str, ...] = ()
            quantifier = entity = None
            span_values = tuple(values)
        elif dr.kind == "np":
            negated, negation_cue = False, None
            modality, modality_cue = "asserted", None
            source = dr.inherit
            if source is not None and claims[source] is not None:
                tense, time_cue = claims[source].tense, claims[source].time_cue
            else:
                tense, time_cue = "current", None
            conditions = ()
            quantifier = _quantifier(d, dr, subject_start)
            entity = _entity(d, dr, subject_start)
            span_values = _values_in(values, [span])
        else:
            negated, negation_cue = _negation(d, dr, subject_start)
            modality, modality_cue = _modality(d, dr)
            if modality == "must-not" and not negated:
                negated, negation_cue = True, negation_cue or modality_cue
            tense, time_cue = _tense(d, dr, subject_start)
            conditions = tuple(d.text[s:e] for s, e in (_chars(d, *c) or (0, 0) for c in dr.conditions) if e > s)
            quantifier = _quantifier(d, dr, subject_start)
            entity = _entity(d, dr, subject_start)
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
    English pipeline with lookup lemmas.
    """
    if not text or not text.strip():
        return []
    d = _build(text, model)
    drafts: list[_Draft] = []
    previous_last: int | None = None
    for a, b in _sentences(d):
        a, b = _trim(d, a, b)
        while a < b and d.words[a] in {'"', "“", "‘", "'"} and d.opaque[a]:
            a += 1
        if a >= b:
            continue
        lead = d.cue_at.get(a)
        connective = None
        inference = False
        if lead is not None and lead.phrase in _RESULT and lead.end < b:
            connective = lead.phrase
            inference = lead.phrase in _INFER
            if lead.phrase == "so" and _clause_at(d, lead.end, b) is None and d.lower[lead.end] != ",":
                connective = None
            else:
                a = lead.end
        elif lead is not None and lead.phrase in _INFER and lead.end < b:
            inference = True
            a = lead.end
        if a < b and d.lower[a] == "that" and inference:
            a += 1
        first = len(drafts)
        _region(d, a, b, drafts, inference=inference)
        if connective is not None and len(drafts) > first:
            if previous_last is not None:
                drafts.append(_Draft("link", drafts[previous_last].a, b, connective=connective,
                                     joins=(previous_last, first), inference=inference))
            else:
                drafts[first].connective = connective
        previous_last = _last_claim(drafts, first)
    values = _extract(text) if drafts else []
    return _finish(d, drafts, values)


def _last_claim(drafts: list[_Draft], first: int) -> int | None:
    for i in range(len(drafts) - 1, first - 1, -1):
        if drafts[i].kind == "clause":
            return i
    return len(drafts) - 1 if len(drafts) > first else None


# --------------------------------------------------------------------------------------------
# Scoring against a sentence set
# --------------------------------------------------------------------------------------------

PART_DEFAULTS: dict[str, Any] = {"negated": False, "modality": "asserted", "tense": "current", "conditions": 0,
                                 "quantifier": None, "connective": None, "claim_type": "direct"}
QUALIFIERS = ("parts", "negated", "modality", "tense", "conditions", "quantifier", "connective", "claim_type",
              "values", "counted_nouns")


def _observed(claim: AtomicClaim) -> dict[str, Any]:
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


def _main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--score":
        print("usage: python -m graphcite.claims.decompose --score SENTENCES.jsonl", file=sys.stderr)
        return 2
    started = time.perf_counter()
    scores = score_sentence_set(argv[1])
    for key, value in scores.items():
        print(f"{key:<14} {value:6.1%}")
    print(f"{'seconds':<14} {time.perf_counter() - started:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
