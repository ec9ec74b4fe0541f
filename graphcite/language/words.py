"""Word lists and word shapes: read once from ``data/words.json``; the same lists for claims and evidence."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

from graphcite.language import lexicon
from graphcite.language.nlp import lemma, lemma_lookup

__all__ = ["STOPWORDS", "Word", "as_written", "is_common_word", "phrase_at", "singular", "word_list", "word_map", "words_of"]

def _stop_words() -> frozenset[str]:
    """spaCy's English stop words, from ``data/stopwords.txt`` (scripts/build_stopwords.py), without importing spaCy."""
    text = files("graphcite.language").joinpath("data/stopwords.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


STOPWORDS: frozenset[str] = _stop_words() - {"no", "not", "never", "none", "nor"}
# letters of any script ("El Niño", "Zoë"), digits and apostrophes or hyphens inside a word
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’\-])*[^\W_]|[^\W\d_]")
_SENTENCE_END = re.compile(r"[.!?:;\"“”(]\s*$")
# what may stand before a sentence's first word: quotation marks, brackets, an ellipsis, a dash
_OPENING = re.compile(r"^[\s'‘’\"“”(\[\]….\-–—]*$")
_HEADLINE_MIN = 3  # capitalised content words a headline has at least
_CLITICS = frozenset({"ve", "re", "d", "ll", "m"})  # "we've", "they're", "I'd": a pronoun and an auxiliary


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return json.loads(files("graphcite.language").joinpath("data/words.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=32)
def word_list(name: str) -> frozenset[str]:
    """One named list from ``data/words.json`` as a set (a mapping list gives its keys)."""
    value = _data()[name]
    return frozenset(value)


@lru_cache(maxsize=32)
def word_map(name: str) -> dict[str, frozenset[str]]:
    """One named mapping from ``data/words.json``: each key with its set of words."""
    return {key: frozenset(value) for key, value in _data()[name].items()}


@lru_cache(maxsize=64)
def _phrases(name: str) -> tuple[tuple[str, ...], ...]:
    """The multi-word entries of a word list as word tuples, longest first."""
    return tuple(sorted((tuple(p.split()) for p in word_list(name)), key=len, reverse=True))


def phrase_at(lowered: list[str], at: int, name: str) -> int:
    """How many words of the longest phrase of the word list ``name`` start at ``lowered[at]`` (0 for
    none): "as long as" in ``function_phrases``, "other than" in ``exception_markers``."""
    for phrase in _phrases(name):
        if tuple(lowered[at:at + len(phrase)]) == phrase:
            return len(phrase)
    return 0


def singular(noun_lemma: str) -> str:
    """The singular a plural lemma stands for where the lemma table keeps the plural ("people" ->
    "person": ``plural_nouns`` in ``data/words.json``)."""
    return _data()["plural_nouns"].get(noun_lemma, noun_lemma)


@lru_cache(maxsize=1)
def _known_lower() -> frozenset[str]:
    return frozenset(w for w in lemma_lookup() if w.islower())


@lru_cache(maxsize=100_000)
def is_common_word(lowered: str) -> bool:
    """A word English uses in lower case (inflections included): not a name on its own."""
    return lowered in STOPWORDS or lowered in _known_lower()


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: surface, lowercased lemma, offsets, and whether it reads as a name."""

    surface: str
    lemma: str
    start: int
    end: int
    proper: bool

    @property
    def lower(self) -> str:
        return self.surface.lower()


@lru_cache(maxsize=1)
def _word_or_formula() -> re.Pattern[str]:
    """A word, or a chemical formula whose subscripts a copied page set apart ("CO 2", "N 2 O")."""
    spaced = []
    for formula in sorted(word_list("chemical_formulas"), key=len, reverse=True):
        groups = re.findall(r"[A-Za-z]+|\d+", formula)
        spaced.append(r" ?".join(re.escape(g) for g in groups))
    return re.compile(rf"(?<![\w.])(?:{'|'.join(spaced)})(?!\w|\.\d)|{_WORD.pattern}")


def _headline(matches: list[re.Match[str]]) -> bool:
    """Whether ``text`` is written in headline case ("NASA Finds Antarctica Is Gaining Ice"): every
    word but the small function words capitalised, so a capital says nothing of a name."""
    content = [m.group(0) for m in matches if m.group(0).lower() not in STOPWORDS and m.group(0)[0].isalpha()]
    return len(content) > _HEADLINE_MIN and all(w[0].isupper() for w in content)


def _names_something(lowered: str) -> bool:
    """A capitalised word in headline case is a name when English does not use it in lower case or
    when it names a place, a person or a body ("Antarctica", "Greenland"; not "Ice", "Finds")."""
    return not (is_common_word(lowered) or lexicon.is_known(lowered)) or lexicon.name_class(lowered) is not None


@lru_cache(maxsize=65_536)
def words_of(text: str) -> tuple[Word, ...]:
    """The words of ``text`` in order. A capitalised word is a name unless it opens a sentence (after
    any opening quotation mark, bracket, ellipsis or dash) and is also an ordinary word ("Prices rose"
    vs "Kessler rose"; "Kenya", which WordNet knows only as a place, opens a sentence as a name), or
    the text is a headline whose every word is capitalised ("Volcanoes Melting
    Glaciers": no names but what names something); all-capitals acronyms are names. A chemical formula
    is one word however its subscripts were spaced ("CO 2" is "CO2")."""
    out: list[Word] = []
    matches = list(_word_or_formula().finditer(text))
    headline = _headline(matches)
    for match in matches:
        surface = match.group(0).replace("’", "'").replace(" ", "")
        end = match.end()
        if surface.endswith("'s"):
            surface = surface[:-2]
            end -= 2
        lowered = surface.lower()
        head, apostrophe, clitic = lowered.partition("'")
        if apostrophe and clitic in _CLITICS and head in STOPWORDS:
            out.append(Word(surface, head, match.start(), end, False))  # a function word, like its pronoun
            continue
        capital = surface[0].isupper()
        before = text[:match.start()]
        opens = bool(_OPENING.match(before)) or bool(_SENTENCE_END.search(before))
        proper = capital and len(surface) > 1 and lowered not in STOPWORDS and (
            not opens or not (is_common_word(lowered) or lexicon.is_known(lowered))
            or (not is_common_word(lowered) and lexicon.name_class(lowered) is not None))  # "Kenya is ..."
        if proper and headline:
            proper = _names_something(lowered)
        if surface.isupper() and len(surface) > 1 and any(c.isalpha() for c in surface[1:]):
            proper = True
        out.append(Word(surface, lemma(lowered) if not proper else lowered, match.start(), end, proper))
    for i in range(len(out) - 1):  # "Maria Lopez ..." opening a sentence: a name run starts at its first word
        first, second = out[i], out[i + 1]
        if (not first.proper and first.surface[0].isupper() and second.proper and first.lower not in STOPWORDS
                and not second.surface.isupper() and not headline and text[first.end:second.start] == " "):
            # not before an acronym: "Previous IPCC reports", "Increased CO2" open with an ordinary word
            out[i] = Word(first.surface, first.lower, first.start, first.end, True)
    return tuple(out)


def as_written(text: str, word: str) -> str:
    """``word`` (a lemma, or a lower-cased phrase) as ``text`` writes it, for a message a person reads:
    "survey" in "Surveys show ..." is "Surveys", "chicago" is "Chicago", "kx-7" is "KX-7"; ``word``
    itself when ``text`` does not hold it."""
    wanted = " ".join(word.split())
    at = " ".join(text.split()).lower().find(wanted.lower())
    if at >= 0 and wanted:
        flat = " ".join(text.split())
        before, after = flat[at - 1:at] if at else "", flat[at + len(wanted):at + len(wanted) + 1]
        if not (before.isalnum() or after.isalnum()):
            return flat[at:at + len(wanted)]
    for found in words_of(text):
        if wanted.lower() in {found.lemma, found.lower}:
            return found.surface
    return word
