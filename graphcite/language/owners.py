"""What each value of a list is said of: "£5 for children and £9 for adults" gives £5 to children.

A sentence that states several values of one kind side by side ("25 minutes by the southern route and
40 by the northern one", "£18 an hour for members and £12 on the other plans") ties each value to the
words of its own conjunct. A claim that keeps a value but takes the words of another conjunct has
swapped two facts, though every word and number occurs in the sentence. This module reads the
conjuncts from the text and its parse; the rule that compares a claim with them is
:mod:`graphcite.verify.rules.owners`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from graphcite.language.parse import layout, parse
from graphcite.language.words import STOPWORDS

__all__ = ["attributes", "value_owners"]

# where one conjunct ends and the next begins, between two values
_BOUNDARY = re.compile(r"\b(?:and|or|but|while|whereas|against|compared with|versus|vs)\b|[,;]", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_OWNER_POS = frozenset({"NOUN", "PROPN", "ADJ"})


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of ``text`` around ``text[start:end]`` (its semicolon clauses are conjuncts: "£52 for one bin; each extra bin costs £30")."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return (before[-1] if before else 0), (after.start() if after else len(text))


@lru_cache(maxsize=16_384)
def _owner_words(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, lemma) of every noun, name and adjective of ``text`` (offsets into ``text``)."""
    flat = layout(text)
    out = []
    for token in parse(flat.flat):
        if token.pos_ in _OWNER_POS and token.is_alpha and len(token.text) > 1 and token.lower_ not in STOPWORDS:
            start, end = flat.original(token.idx, token.idx + len(token.text))
            out.append((start, end, token.lemma_.lower()))
    return tuple(out)


def value_owners(text: str, spans: tuple[tuple[int, int], ...],
                 ignore: frozenset[str] = frozenset()) -> tuple[frozenset[str], ...] | None:
    """The words each value at ``spans`` (values of one kind, in text order, in one sentence) is said of,
    or None when the values are not a list of conjuncts.

    Between two neighbouring values the last "and", "or", "but", "while", comma or semicolon ends one
    conjunct and opens the next; a conjunct's words are its nouns, names and adjectives before and
    after its value, except the values' own units and counted nouns (``ignore``): "200 people in Leeds
    and 150 in York" ties the 150 to York, not to "people". The words before the first value belong to
    every conjunct when no later conjunct has words before its value ("Tickets cost £5 for children
    and £9 for adults": the tickets are both values'), and to the first one when the later conjuncts
    repeat their own ("The southern route takes 25 minutes and the northern route 40").
    """
    if len(spans) < 2:
        return None
    first, last = _sentence_bounds(text, *spans[0]), _sentence_bounds(text, *spans[-1])
    if first != last:
        return None
    cuts = [first[0]]
    for (_s, end), (start, _e) in pairwise(spans):
        boundary = list(_BOUNDARY.finditer(text, end, start))
        if not boundary:
            return None  # "between 5 and 9" reads as one range; "5-9", "5 to 9" have no conjunct
        cuts.append(boundary[-1].end())
    cuts.append(first[1])
    words = [(s, lemma) for s, _e, lemma in _owner_words(text) if lemma not in ignore]
    before, after = [], []
    for i, (start, end) in enumerate(spans):
        before.append(frozenset(w for s, w in words if cuts[i] <= s < start))
        upto = cuts[i + 1] if i + 1 < len(spans) else first[1]
        after.append(frozenset(w for s, w in words if end <= s < upto
                               and not any(a <= s < b for a, b in spans)))
    shared_lead = not any(before[1:])
    owners = tuple((after[i] if i == 0 and shared_lead else before[i] | after[i]) for i in range(len(spans)))
    if not any(owners) or len(set(owners)) < len(owners):
        return None  # nothing tells the conjuncts apart
    return owners


@lru_cache(maxsize=16_384)
def attributes(text: str) -> frozenset[tuple[str, str]]:
    """(adjective, noun) lemma pairs the parse attaches in ``text`` ("a pink shirt" -> ("pink", "shirt")),
    whether before the noun or predicated of it ("the shirt is pink")."""
    flat = layout(text)
    out = set()
    for token in parse(flat.flat):
        if token.pos_ != "ADJ" or not token.is_alpha:
            continue
        if token.dep_ == "amod" and token.head.pos_ in {"NOUN", "PROPN"}:
            out.add((token.lemma_.lower(), token.head.lemma_.lower()))
        subject = next((c for c in token.children if c.dep_ in {"nsubj", "nsubj:pass"}), None)
        if subject is not None and subject.pos_ in {"NOUN", "PROPN"}:
            out.add((token.lemma_.lower(), subject.lemma_.lower()))
    return frozenset(out)
