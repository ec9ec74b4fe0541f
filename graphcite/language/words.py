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

__all__ = ["STOPWORDS", "Word", "is_common_word", "word_list", "words_of"]

def _stop_words() -> frozenset[str]:
    """spaCy's English stop words, from ``data/stopwords.txt`` (scripts/build_stopwords.py), without importing spaCy."""
    text = files("graphcite.language").joinpath("data/stopwords.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


STOPWORDS: frozenset[str] = _stop_words() - {"no", "not", "never", "none", "nor"}
# letters of any script ("El Niño", "Zoë"), digits and apostrophes or hyphens inside a word
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’\-])*[^\W_]|[^\W\d_]")
_SENTENCE_END = re.compile(r"[.!?:;\"“”(]\s*$")


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return json.loads(files("graphcite.language").joinpath("data/words.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=32)
def word_list(name: str) -> frozenset[str]:
    """One named list from ``data/words.json`` as a set (a mapping list gives its keys)."""
    value = _data()[name]
    return frozenset(value)


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


@lru_cache(maxsize=65_536)
def words_of(text: str) -> tuple[Word, ...]:
    """The words of ``text`` in order. A capitalised word is a name unless it opens a sentence and is
    also an ordinary word ("Prices rose" vs "Kessler rose"); all-capitals acronyms are names. A
    chemical formula is one word however its subscripts were spaced ("CO 2" is "CO2")."""
    out: list[Word] = []
    for match in _word_or_formula().finditer(text):
        surface = match.group(0).replace("’", "'").replace(" ", "")
        end = match.end()
        if surface.endswith("'s"):
            surface = surface[:-2]
            end -= 2
        lowered = surface.lower()
        capital = surface[0].isupper()
        opens = not text[:match.start()].strip() or bool(_SENTENCE_END.search(text[:match.start()]))
        proper = capital and len(surface) > 1 and lowered not in STOPWORDS and (
            not opens or not (is_common_word(lowered) or lexicon.is_known(lowered)))
        if surface.isupper() and len(surface) > 1 and any(c.isalpha() for c in surface[1:]):
            proper = True
        out.append(Word(surface, lemma(lowered) if not proper else lowered, match.start(), end, proper))
    for i in range(len(out) - 1):  # "Maria Lopez ..." opening a sentence: a name run starts at its first word
        first, second = out[i], out[i + 1]
        if (not first.proper and first.surface[0].isupper() and second.proper and first.lower not in STOPWORDS
                and text[first.end:second.start] == " "):
            out[i] = Word(first.surface, first.lower, first.start, first.end, True)
    return tuple(out)
