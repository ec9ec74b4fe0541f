"""Words as WordNet sees them: base forms, readings (lemma, parts of speech, degree) and sense sets.

The first half of the lexicon (:mod:`graphcite.language.lexicon` holds the relations between words):
a word in any case and spelling ("Break_up", "break up", "BREAK UP") is normalised, read through
WordNet's morphological exceptions and detachment rules into its lemmas ("geese" -> "goose",
"strongest" -> "strong" at degree 2), and each reading is mapped to its dominant senses (the first
sense per part of speech and up to three tagged at least a tenth as often), the senses relations
compare. Everything is cached per word.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from graphcite.errors import InputError
from graphcite.language.lexicon_data import load_tables as _lexicon

__all__ = ["ADJ", "ADV", "BIT_OF_POS", "NOUN", "VERB", "Senses", "base_form", "base_forms", "degree_pairs", "is_known",
           "is_verb_form",
           "lookup", "normalise", "pos_letter", "readings_of", "senses_of"]

NOUN, VERB, ADJ, ADV = 1, 2, 4, 8  # part-of-speech bits of a reading's mask
BIT_OF_POS = {"n": NOUN, "v": VERB, "a": ADJ, "s": ADJ, "r": ADV}
_POS_NAMES = {
    "n": "n", "noun": "n", "propn": "n", "v": "v", "verb": "v", "aux": "v",
    "a": "a", "s": "a", "adj": "a", "adjective": "a", "r": "r", "adv": "r", "adverb": "r",
}
# WordNet's morphy detachment rules: (suffix, replacement), tried when no exception applies.
_RULES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
_MIN_RULE_BASE = 3  # a rule never yields a base shorter than this ("is" -> "i", "us" -> "u" are refused)
_SPACES = re.compile(r"[\s_]+")


@dataclass(frozen=True, slots=True)
class _Reading:
    """One analysis of a word: a WordNet lemma id, the parts of speech it may be, and its degree."""

    lemma: int
    pos_mask: int
    degree: int  # 0 plain, 1 comparative, 2 superlative


def _degree_of(form: str) -> int:
    return 2 if form.endswith("st") else 1


# -- words and base forms ------------------------------------------------------------------------


def normalise(word: str) -> str:
    return _SPACES.sub(" ", word.replace("’", "'")).strip().lower()


def pos_letter(pos: str | None) -> str | None:
    if pos is None:
        return None
    letter = _POS_NAMES.get(pos.strip().lower())
    if letter is None:
        raise InputError(f"unknown part of speech {pos!r}", where="pos",
                         fix="use one of n, v, a, r (or noun, verb, adj, adv), or None for any")
    return letter


def lookup(form: str) -> int | None:
    """The lemma id of a normalised form, trying hyphen/space variants ("well known" = "well-known")."""
    index = _lexicon().index
    for variant in (form, form.replace("-", " "), form.replace(" ", "-"), form.replace("-", "")):
        found = index.get(variant)
        if found is not None:
            return found
    return None


def _has_pos(lemma: int, letter: str) -> bool:
    return bool(_lexicon().word_pos[lemma] & BIT_OF_POS[letter])


@lru_cache(maxsize=65_536)
def readings_of(form: str) -> tuple[_Reading, ...]:
    """Every WordNet analysis of a normalised form: exceptions, the form itself, detachment rules."""
    lex = _lexicon()
    found: dict[tuple[int, int], int] = {}

    def add(base: str, letter: str | None, degree: int) -> None:
        lemma = lookup(base)
        if lemma is None:
            return
        mask = lex.word_pos[lemma] if letter is None else BIT_OF_POS[letter]
        if mask & lex.word_pos[lemma]:
            key = (lemma, degree)
            found[key] = found.get(key, 0) | (mask & lex.word_pos[lemma])

    for letter in ("a", "r"):  # comparatives and superlatives first: "better" is read as "good" + 1
        for base in lex.exceptions[letter].get(form, ()):
            add(base, letter, _degree_of(form))
    add(form, None, 0)
    for letter in ("n", "v"):
        for base in lex.exceptions[letter].get(form, ()):
            add(base, letter, 0)
    for letter in ("n", "v", "a"):
        for suffix, ending in _RULES[letter]:
            if form.endswith(suffix) and len(form) - len(suffix) + len(ending) >= _MIN_RULE_BASE:
                base = form[: len(form) - len(suffix)] + ending
                lemma = lookup(base)
                if lemma is not None and _has_pos(lemma, letter):
                    add(base, letter, (2 if suffix == "est" else 1) if letter == "a" else 0)
    if " " in form and not found:  # a collocation inflects its verb or its head noun: "breaking up", "ice creams"
        first, _, rest = form.partition(" ")
        for base in _inflection_bases(first, "v"):
            add(f"{base} {rest}", "v", 0)
        start, _, last = form.rpartition(" ")
        for base in _inflection_bases(last, "n"):
            add(f"{start} {base}", "n", 0)
    return tuple(_Reading(lemma, mask, degree) for (lemma, degree), mask in found.items())


def _inflection_bases(word: str, letter: str) -> list[str]:
    """Candidate base forms of one inflected word (exceptions, then detachment rules), unchecked."""
    out = list(_lexicon().exceptions[letter].get(word, ()))
    for suffix, ending in _RULES[letter]:
        if word.endswith(suffix) and len(word) - len(suffix) + len(ending) >= _MIN_RULE_BASE:
            out.append(word[: len(word) - len(suffix)] + ending)
    return out


@lru_cache(maxsize=65_536)
def base_forms(word: str, pos: str | None = None) -> tuple[str, ...]:
    """Every WordNet base form of ``word`` (for one part of speech when ``pos`` is given), best first.

    "geese" -> ("goose",); "strongest" -> ("strong",); "better" -> ("good", "well", "better");
    "saw" -> ("saw", "see"). A word WordNet does not know is its own base form.
    """
    letter = pos_letter(pos)
    form = normalise(word)
    lex = _lexicon()
    out: list[str] = []
    for reading in readings_of(form):
        if letter is None or reading.pos_mask & BIT_OF_POS[letter]:
            name = lex.words[reading.lemma]
            if name not in out:
                out.append(name)
    return tuple(out) or (form,)


def base_form(word: str, pos: str | None = None) -> str:
    """The preferred WordNet base form: "strongest" -> "strong", "better" -> "good", "geese" -> "goose".

    An irregular comparative or superlative wins over the word's own entry ("best" -> "good"); a noun
    or verb exception only applies when the word is not a lemma itself ("saw" stays "saw", "ran" ->
    "run"). Pass ``pos`` ("n", "v", "a", "r") to choose a reading.
    """
    return base_forms(word, pos)[0]


def is_known(word: str) -> bool:
    """Whether WordNet knows the word or one of its base forms."""
    return bool(readings_of(normalise(word)))


@lru_cache(maxsize=65_536)
def is_verb_form(word: str) -> bool:
    """Whether ``word`` may be an inflected verb ("wearing", "worn", "chopped"): an irregular verb form
    or an -ing/-ed word read back to a verb other than itself. Many are nouns too ("a building"): the
    caller decides from the words around it."""
    form = normalise(word)
    lex = _lexicon()
    if form in lex.exceptions["v"]:
        return True
    return form.endswith(("ing", "ed")) and any(r.pos_mask & VERB and lex.words[r.lemma] != form
                                                for r in readings_of(form))


# -- per-word sense sets -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Senses:
    """What one word stands for: dominant synsets and lemma ids per degree, all plain synsets, and
    whether it may take part in relations at all (function words and single letters may not)."""

    by_degree: dict[int, frozenset[int]]
    lemmas: dict[int, frozenset[int]]
    every: frozenset[int]
    active: bool


@lru_cache(maxsize=65_536)
def senses_of(form: str, letter: str | None = None) -> Senses:
    lex = _lexicon()
    active = len(form) > 1 and form not in lex.function_words
    by_degree: dict[int, set[int]] = defaultdict(set)
    lemmas: dict[int, set[int]] = defaultdict(set)
    every: set[int] = set()
    for reading in readings_of(form):
        mask = reading.pos_mask if letter is None else reading.pos_mask & BIT_OF_POS[letter]
        if not mask:
            continue
        lemmas[reading.degree].add(reading.lemma)
        by_degree[reading.degree].update(s for s in lex.core(reading.lemma) if BIT_OF_POS[lex.pos[s]] & mask)
        if not reading.degree:
            every.update(s for s in lex.senses[reading.lemma] if BIT_OF_POS[lex.pos[s]] & mask)
    return Senses({d: frozenset(v) for d, v in by_degree.items()},
                   {d: frozenset(v) for d, v in lemmas.items()}, frozenset(every), active)


def degree_pairs(a: Senses, b: Senses) -> Iterable[tuple[frozenset[int], frozenset[int]]]:
    for degree, senses in a.by_degree.items():
        other = b.by_degree.get(degree)
        if other:
            yield senses, other
