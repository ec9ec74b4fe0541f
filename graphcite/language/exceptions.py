"""Exceptions: the things a sentence sets apart from what it says ("every floor except the attic")."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from spacy.tokens import Doc, Token

from graphcite.language.parse import parse
from graphcite.language.words import phrase_at, word_list

__all__ = ["Excepted", "exceptions_of", "makes_exception", "universal_nouns"]

_NOUNS = frozenset({"NOUN", "PROPN"})
_MODIFIERS = frozenset({"compound", "amod", "flat", "nummod", "det"})


@dataclass(frozen=True, slots=True)
class Excepted:
    """One excepted phrase: where it is (code points of the text) and the lemmas of its nouns."""

    start: int
    end: int
    text: str
    nouns: frozenset[str]
    universal: str | None = None  # the noun a universal quantifier covers before it ("every floor except ...")
    described: bool = False  # a clause after it says what holds for it ("except on match days, when ...")


def _phrase_after(doc: Doc, at: int) -> list[Token]:
    """The noun phrase opened at token ``at``: the first noun's phrase, from ``at`` on."""
    noun = next((t for t in doc[at:] if t.pos_ in _NOUNS), None)
    if noun is None or any(t.is_punct and t.text in ",;:." for t in doc[at:noun.i]):
        return []
    while noun.dep_ in _MODIFIERS and noun.head.i > noun.i and noun.head.pos_ in _NOUNS:
        noun = noun.head  # "the attic rooms": the phrase is the rooms'
    phrase = [t for t in noun.subtree if t.i >= at]
    while phrase and phrase[-1].is_punct:
        phrase.pop()
    return phrase


_LOOK_BACK = 3  # "all pontoons except", "every floor, except": the quantified noun stands just before the marker


def _universal_before(doc: Doc, at: int) -> str | None:
    """The lemma of the noun a universal quantifier (words.json ``universal_quantifiers``: every, all,
    each, any) covers just before the exception marker at token ``at``."""
    universal = word_list("universal_quantifiers")
    for token in reversed(doc[max(0, at - _LOOK_BACK):at]):
        if token.pos_ in _NOUNS:
            quantified = any(c.lower_ in universal for c in token.children) or (
                token.i > 0 and doc[token.i - 1].lower_ in universal)
            return token.lemma_.lower() if quantified else None
        if not (token.is_punct and token.text == ","):
            return None
    return None


def _described_after(doc: Doc, at: int) -> bool:
    """Whether a clause right after an excepted phrase says what holds for it (", when zones C and D
    are controlled", ", where the depth is 1.6 m")."""
    following = [t for t in doc[at:at + 3] if not (t.is_punct and t.text == ",")]
    return bool(following) and following[0].lower_ in word_list("describing_openers")


def universal_nouns(text: str) -> frozenset[str]:
    """The lemmas of the nouns ``text`` quantifies universally ("every pontoon", "all members")."""
    universal = word_list("universal_quantifiers")
    doc = parse(text)
    return frozenset(t.lemma_.lower() for t in doc if t.pos_ in _NOUNS and (
        any(c.lower_ in universal for c in t.children) or (t.i > 0 and doc[t.i - 1].lower_ in universal)))


@lru_cache(maxsize=4096)
def exceptions_of(text: str) -> tuple[Excepted, ...]:
    """Every phrase ``text`` excepts (words.json ``exception_markers``: "except", "other than", "but not",
    "excluding"), with the lemmas of its nouns; read from the parse, in text order."""
    doc = parse(text)
    lowered = [t.lower_ for t in doc]
    out: list[Excepted] = []
    at = 0
    while at < len(doc):
        marker = phrase_at(lowered, at, "exception_markers")
        if not marker:
            at += 1
            continue
        phrase = _phrase_after(doc, at + marker)
        if phrase:
            start, end = doc[at].idx, phrase[-1].idx + len(phrase[-1].text)
            nouns = frozenset(t.lemma_.lower() for t in phrase if t.pos_ in _NOUNS)
            out.append(Excepted(start, end, text[start:end], nouns, _universal_before(doc, at),
                                _described_after(doc, phrase[-1].i + 1)))
            at = phrase[-1].i + 1
        else:
            at += marker
    return tuple(out)


def makes_exception(text: str) -> bool:
    """Whether ``text`` itself excepts something or says "not"/"no": a claim that does so is compared
    with the evidence's exception by the polarity rules, not read as overlooking it."""
    lowered = [t.lower_ for t in parse(text)]
    negations = word_list("negation")
    return any(w in negations or w.endswith(("n't", "n’t")) for w in lowered) or any(
        phrase_at(lowered, at, "exception_markers") for at in range(len(lowered)))
