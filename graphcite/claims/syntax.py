"""Tokens, word classes and verb groups for claim decomposition on the blank spaCy pipeline.

There is no tagger in the default pipeline, so a verb is recognised by its lookup lemma (a lexicon of
verbs common in engineering notes, :mod:`graphcite.claims.cues`), its form (-s, -ed, irregular past)
and its position: it must follow something that can end a subject ("the scheduler", "adapter X",
"we"), not a determiner, number or adjective. Auxiliary chains ("must not be", "has been", "is able
to") form the verb group. Cue phrases are matched once per text with a ``PhraseMatcher``; tokens in
brackets or quotation marks are opaque (never a cue, never split).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphcite.claims import cues as C
from graphcite.language.nlp import get_nlp
from graphcite.language.nlp import lemma as lookup_lemma

__all__ = [
    "BULLETS", "END_PUNCT", "REL", "TO_VERBS", "Cue", "Doc", "Pred", "build_doc", "clause_at",
    "dotted_end", "find_predicate", "has_label", "has_words", "is_adverb", "is_aux", "is_numberish",
    "is_year", "labelled_cue", "nounish", "plural_subject", "top_comma", "trim_span", "verb_form",
    "verb_group",
]

END_PUNCT = frozenset({".", "!", "?", ";", ":", ","})
BULLETS = frozenset({"-", "*", "•", "–", "—"})
_OPEN = {"(": ")", "[": "]", "{": "}", "“": "”", "‘": "’"}
#: Listed adverbs that are adjectives before a noun ("First, ..." but "first responders").
_ALSO_ADJECTIVES = frozenset({"first", "last"})
_CLOSE = {closer: opener for opener, closer in _OPEN.items()}
_MARKS = frozenset({*_OPEN, *_CLOSE, '"'})
REL = frozenset({"that", "which", "who", "whose", "whom", "where"})
_CONJ = frozenset({"and", "but", "nor", "yet", "or"})
_CHAIN_WORDS = frozenset({"able", "unable", "going", "allowed", "required", "supposed", "permitted", "expected",
                          "obliged", "encouraged", "likely", "about"})
TO_VERBS = frozenset({"use", "need", "plan", "fail", "tend", "want", "try", "intend", "aim", "continue", "seem",
                      "appear", "start", "begin", "have", "refuse", "decline", "manage", "happen", "ought",
                      "stop", "propose", "expect", "agree", "decide", "choose", "prefer", "promise", "hope"})
_NOUN_ED = frozenset({"need", "seed", "speed", "feed", "bed", "shed", "red", "embed", "hundred", "breed"})
_NOT_NOUNISH_DET = frozenset({"the", "a", "an", "no", "every", "each", "any", "our", "its", "their", "his", "her",
                              "my", "your", "whose", "another", "such", "what", "which", "very", "too", "most",
                              "neither", "either", "both", "all", "some"})


@dataclass(slots=True)
class Cue:
    """A matched cue phrase: tokens [start, end) and its labels from :data:`cues.CUE_LABELS`."""

    start: int
    end: int
    phrase: str
    labels: tuple[str, ...]


@dataclass(slots=True)
class Doc:
    """The tokens of one text as plain lists (fast to index), with cues and opaque flags."""

    text: str
    words: list[str]
    lower: list[str]
    lemma: list[str]
    starts: list[int]
    ends: list[int]
    cue_at: dict[int, Cue]
    covered: list[Cue | None]
    opaque: list[bool]

    @property
    def n(self) -> int:
        return len(self.words)


# a right single quote between letters is an apostrophe ("doesn\u2019t", "isn\u2019t"): the tokenizer and the
# cue lists know contractions with the straight one; a closing quote after a word is left alone
_CURLY_CONTRACTION = re.compile(r"(?<=[^\W\d_])\u2019(?=[^\W\d_])")


def build_doc(text: str, model: str | None) -> Doc:
    """Tokenize ``text`` (tokenizer only on the blank pipeline), look up lemmas and match cues."""
    nlp = get_nlp(model) if model else get_nlp()
    plain = _CURLY_CONTRACTION.sub("'", text)  # same length: offsets still point into ``text``
    doc = nlp.make_doc(plain) if not model else nlp(plain)
    words = [t.text for t in doc]
    lower = [w.lower() for w in words]
    if not model:
        lemmas = [lookup_lemma(w) if w.isalpha() else w.lower() for w in words]
    else:
        # a trained pipeline's lemma where it found one, else the lookup table ("Retries" -> "retry")
        lemmas = [t.lemma_.lower() if t.lemma_ and t.lemma_.lower() != t.lower_ else
                  (lookup_lemma(t.text) if t.text.isalpha() else t.lower_) for t in doc]
    starts = [t.idx for t in doc]
    ends = [t.idx + len(t.text) for t in doc]
    matches = sorted(C.cue_matcher(nlp)(doc), key=lambda m: (m[1], m[1] - m[2]))
    cue_at: dict[int, Cue] = {}
    covered: list[Cue | None] = [None] * len(words)
    for match_id, start, end in matches:
        if any(covered[k] is not None for k in range(start, end)):
            continue
        phrase = nlp.vocab.strings[match_id]
        cue = Cue(start, end, phrase, C.CUE_LABELS[phrase])
        cue_at[start] = cue
        for k in range(start, end):
            covered[k] = cue
    return Doc(text, words, lower, lemmas, starts, ends, cue_at, covered, _opaque(words))


def _marked_regions(words: list[str]) -> list[tuple[int, int | None]]:
    """Each quotation or bracket as (opening index, closing index), None where it is never closed."""
    regions: list[tuple[int, int | None]] = []
    stack: list[tuple[int, str]] = []
    straight: int | None = None
    for i, w in enumerate(words):
        if w == '"':
            if straight is None:
                straight = i
            else:
                regions.append((straight, i))
                straight = None
        elif stack and w == stack[-1][1]:
            regions.append((stack.pop()[0], i))
        elif w in _OPEN:
            stack.append((i, _OPEN[w]))
    regions.extend((i, None) for i, _ in stack)
    if straight is not None:
        regions.append((straight, None))
    return regions


def _opaque(words: list[str]) -> list[bool]:
    """Tokens inside brackets or quotation marks: never split, never a cue.

    The marks themselves are always opaque. What they enclose is read as text when the mark is never
    closed (a stray opening quote) or when it encloses the whole sentence (a quoted claim): otherwise
    a claim written as "“The marsh does not hold water." would have no words to read.
    """
    flags = [False] * len(words)
    content = [i for i, w in enumerate(words) if w not in END_PUNCT and w not in _MARKS]
    first, last = (content[0], content[-1]) if content else (0, -1)
    for a, b in _marked_regions(words):
        flags[a] = True
        if b is None:
            continue
        flags[b] = True
        if a < first and b > last:
            continue
        for k in range(a + 1, b):
            flags[k] = True
    return flags


def has_label(cue: Cue | None, prefix: str) -> bool:
    """Does the cue carry a label starting with ``prefix`` ("NEG", "MOD:", "TIME:past")?"""
    return cue is not None and any(label.startswith(prefix) for label in cue.labels)


def labelled_cue(d: Doc, i: int, prefix: str) -> Cue | None:
    """The cue starting at token i if it carries ``prefix`` and is not in quotes or brackets."""
    cue = d.cue_at.get(i)
    if cue is not None and not d.opaque[i] and has_label(cue, prefix):
        return cue
    return None


def is_aux(d: Doc, i: int) -> bool:
    """An auxiliary or modal in use as one ("in May" and possessive 's are not)."""
    w = d.lower[i]
    if w == "'s":
        return i > 0 and d.lower[i - 1] in {"it", "that", "there", "he", "she", "what", "here", "who"}
    if w not in C.AUXILIARIES:
        return False
    if i > 0 and (d.lower[i - 1] in C.PREPOSITIONS or d.lower[i - 1] in {"the", "a"}):
        return False  # "in May", "the will"
    return not (w == "may" and d.words[i][0].isupper() and i > 0)


def is_adverb(d: Doc, i: int) -> bool:
    """A listed adverb or an -ly word that is not a verb like "apply"."""
    w = d.lower[i]
    if w in _ALSO_ADJECTIVES and i + 1 < d.n and d.words[i + 1].isalpha() and not is_aux(d, i + 1) \
            and verb_form(d, i + 1) is None and d.lower[i + 1] not in C.ADVERBS:
        return False  # "Last week was ...", "first responders": an adjective before its noun
    if w in C.ADVERBS:
        return True
    return len(w) > 4 and w.endswith("ly") and w.isalpha() and w not in C.NOT_ADVERBS_LY


def verb_form(d: Doc, i: int) -> str | None:
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


def is_numberish(d: Doc, i: int) -> bool:
    """A number word or a token starting with a digit ("3", "2.3", "30s"; not "Z29C")."""
    w = d.lower[i]
    return w in C.NUMBER_WORDS or w[:1].isdigit()


def nounish(d: Doc, p: int, a: int) -> bool:
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
    if w in C.AUXILIARIES or (w in REL and p > a):
        return False
    if w == "one" and p - 1 >= a and (d.lower[p - 1] in C.DETERMINERS or d.lower[p - 1] in C.ADJECTIVES):
        return True  # "the new one"
    if is_numberish(d, p):
        return p - 1 >= a and d.words[p - 1][:1].isupper() and d.lower[p - 1] not in C.DETERMINERS
    if w.endswith(("ous", "ful", "able", "ible", "ical")) and len(w) > 5:
        return False
    if w.endswith("ed") and len(w) > 4 and w[:-2] not in _NOUN_ED:
        return False
    return not (w.endswith("ing") and len(w) > 5 and p > a)


def plural_subject(d: Doc, a: int, p: int) -> bool:
    """Does the subject ending at token p take a plural verb ("adapters", "we", "A and B")?"""
    w = d.lower[p]
    if w in C.PLURAL_PRONOUNS or w in {"data", "people", "both"}:
        return True
    if w.endswith("s") and not w.endswith("ss") and d.lemma[p] != w:
        return True
    return any(d.lower[k] == "and" and not d.opaque[k] for k in range(a, p))


def _lexical_verb(d: Doc, i: int, a: int, b: int) -> bool:
    """Is token i the finite verb of a clause starting at a (no auxiliary before it)?"""
    form = verb_form(d, i)
    if form is None and _unknown_s_verb(d, i, a, b):
        form = "s"
    if form is None or form == "ing":
        return False
    p = i - 1
    while p >= a and _adverbial(d, p) and not (d.lower[p] == "neither" and p == a):
        p -= 1
    if p < a or not nounish(d, p, a):
        return False
    nxt = i + 1 if i + 1 < b else None
    if nxt is not None and (is_aux(d, nxt) or d.lower[nxt] in {"'s"}):
        return False
    if form == "base":
        return plural_subject(d, a, p)
    if form == "s":
        if nxt is not None and d.lower[nxt] == "of" and d.lemma[i] not in {"consist", "think"}:
            return False
        return not (nxt is not None and d.lemma[i] in C.NOUN_LIKE_VERBS and _next_is_verb(d, nxt, b))
    if nxt is not None and d.lower[nxt] == "by":
        return not any(is_aux(d, k) for k in range(nxt, b))
    return True


def _next_is_verb(d: Doc, j: int, b: int) -> bool:
    """Does token j read as the verb of a subject ending just before it ("error rates rose by")?"""
    form = verb_form(d, j)
    if d.lower[j] in C.DETERMINERS or form is None or form == "ing":
        return False
    if form == "base":
        return True
    if form == "s":
        return False
    after = j + 1
    return after >= b or d.lower[after] in C.PREPOSITIONS or d.lower[after] in END_PUNCT \
        or is_adverb(d, after) or is_numberish(d, after)


def _adverbial(d: Doc, k: int) -> bool:
    """Adverbs that may sit between a subject and its verb, "no longer" and "neither" included."""
    w = d.lower[k]
    if w == "longer":
        return k > 0 and d.lower[k - 1] == "no"
    if w == "no":
        return k + 1 < d.n and d.lower[k + 1] == "longer"
    return w == "neither" or is_adverb(d, k)


def _unknown_s_verb(d: Doc, i: int, a: int, b: int) -> bool:
    """A word outside the lexicon that reads as a verb: "-s" after a short subject, before an object."""
    w = d.lower[i]
    if len(w) < 4 or not w.isalpha() or not w.endswith("s") or w.endswith(("ss", "us", "is", "ics")):
        return False
    if i - a > 4 or i + 1 >= b or d.lower[a] not in C.DETERMINERS:
        return False
    nxt = d.lower[i + 1]
    return nxt in C.DETERMINERS or nxt in {"it", "them", "its", "their"} or is_numberish(d, i + 1)


@dataclass(slots=True)
class Pred:
    """A verb group: leading adverbs, auxiliaries, the main verb and its particle."""

    start: int  # first token of the verb group, leading adverbs included
    head: int  # first auxiliary or the verb
    main: int  # the lexical verb, or the last auxiliary for copulas
    end: int  # exclusive
    aux: tuple[int, ...]


def verb_group(d: Doc, a: int, i: int, b: int) -> Pred:
    """The verb group starting at token i: auxiliary chain, main verb, "to"-infinitive, particle."""
    start = i
    while start - 1 > a and not d.opaque[start - 1] and _adverbial(d, start - 1):
        start -= 1
    aux: list[int] = []
    main = i
    k = i
    if is_aux(d, i):
        last_aux = i
        while k < b and not d.opaque[k]:
            w = d.lower[k]
            if is_aux(d, k):
                aux.append(k)
                last_aux = k
            elif w in {"not", "n't", "to"} or is_adverb(d, k) or (
                w in _CHAIN_WORDS and k + 1 < b and d.lower[k + 1] == "to"
            ) or (w == "no" and k + 1 < b and d.lower[k + 1] == "longer") or (w == "longer" and d.lower[k - 1] == "no"):
                pass
            else:
                break
            k += 1
        main = last_aux
        if k < b and not d.opaque[k] and (verb_form(d, k) is not None or _after_negated_do(d, last_aux, k)) \
                and not is_numberish(d, k) and not (k + 1 < b and d.words[k + 1] == "-"):
            main = k
            k += 1
        else:
            k = last_aux + 1
            while k < b and d.lower[k] in {"not", "n't"}:
                k += 1
    else:
        k = i + 1
    # "used to retry", "fails to page", "plans to drop": the infinitive is the verb
    if d.lemma[main] in TO_VERBS and k + 1 < b and d.lower[k] == "to" and verb_form(d, k + 1) == "base":
        main = k + 1
        k = k + 2
    if k < b and d.lower[k] in C.PARTICLES and d.lemma[main] in C.PHRASAL:
        k += 1
    return Pred(start, i, main, k, tuple(aux))


def _after_negated_do(d: Doc, do: int, k: int) -> bool:
    """Token k follows "do/does/did not" (or "never"): do-support takes a bare verb, so k is the verb
    even when the verb lexicon lacks it ("does not sound", "did not melt")."""
    if d.lower[do] not in C.AUX_DO or not d.words[k].isalpha() or d.words[k][0].isupper():
        return False
    if not any(d.lower[x] in {"not", "n't", "never"} for x in range(do + 1, k)):
        return False
    w = d.lower[k]
    return not (w in C.DETERMINERS or w in C.PREPOSITIONS or w in C.PRONOUNS or w in C.AUXILIARIES
                or w in C.ADVERBS or w in C.NUMBER_WORDS or w in _CONJ)


def find_predicate(d: Doc, a: int, b: int) -> Pred | None:
    """The verb group of the clause in [a, b): the first auxiliary or finite verb after a subject."""
    i = a
    first: Pred | None = None
    while i < b:
        if d.opaque[i]:
            i += 1
            continue
        w = d.lower[i]
        if first is None and w in REL and i > a and nounish(d, i - 1, a) and w != "where":
            inner = _predicate_from(d, i + 1, b)
            if inner is not None:
                first = inner
                i = inner.end
                continue
        if i > a and (is_aux(d, i) or _lexical_verb(d, i, a, b)):
            return verb_group(d, a, i, b)
        i += 1
    return first


def _predicate_from(d: Doc, a: int, b: int) -> Pred | None:
    """Verb group of a relative clause: the verb may come first ("that fail ...")."""
    for i in range(a, min(b, a + 8)):
        if d.opaque[i]:
            continue
        if is_aux(d, i) or (verb_form(d, i) in ("base", "s", "past") and (i == a or nounish(d, i - 1, a))):
            return verb_group(d, a - 1, i, b)
    return None


def clause_at(d: Doc, a: int, b: int, *, max_subject: int = 9) -> Pred | None:
    """A finite clause starting at a (subject then verb group), or None."""
    if a >= b or d.lower[a] in C.PREPOSITIONS or is_aux(d, a):
        return None
    pred = find_predicate(d, a, b)
    if pred is None or pred.start - a > max_subject or pred.start <= a:
        return None
    if any(d.lower[k] in {",", ";", "and", "but", "or"} and not d.opaque[k] for k in range(a, pred.start)):
        return None
    if not pred.aux and verb_form(d, pred.main) == "ing":
        return None
    return pred


def dotted_end(d: Doc, i: int) -> bool:
    """A token that swallowed the full stop ("adapter X." is tokenized as "X.")."""
    w = d.words[i]
    return len(w) > 1 and w.endswith(".") and "." not in w[:-1] and w[:-1].isalnum()


def trim_span(d: Doc, a: int, b: int) -> tuple[int, int]:
    """Token range without leading/trailing punctuation, white space, bullets and dangling conjunctions."""
    while a < b and (d.lower[a] in END_PUNCT or d.lower[a] in BULLETS or d.lower[a] in {"and", "but"}
                     or d.lower[a].isspace()):
        a += 1
    while b > a and (d.lower[b - 1] in END_PUNCT | {"and", "but", "or"} or d.lower[b - 1].isspace()):
        b -= 1
    # a quotation mark or bracket whose partner lies outside the span
    while a < b and d.words[a] in _OPEN and _OPEN[d.words[a]] not in d.words[a + 1:b]:
        a += 1
    while b > a and d.words[b - 1] in _CLOSE and _CLOSE[d.words[b - 1]] not in d.words[a:b - 1]:
        b -= 1
    while b > a and (d.lower[b - 1] in END_PUNCT or d.lower[b - 1].isspace()):
        b -= 1
    return a, b


def top_comma(d: Doc, a: int, b: int) -> int | None:
    """The first comma in [a, b) outside brackets and quotes."""
    for k in range(a, b):
        if d.lower[k] == "," and not d.opaque[k]:
            return k
    return None


def has_words(d: Doc, a: int, b: int) -> bool:
    """Does [a, b) contain a token with a letter or digit?"""
    return any(any(ch.isalnum() for ch in d.words[k]) for k in range(a, b))


def is_year(word: str) -> bool:
    """A four-digit year such as 2023."""
    return len(word) == 4 and word.isdigit() and word[:2] in {"19", "20"}
