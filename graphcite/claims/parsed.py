"""Subject, predicate and object of a clause read from the trained parse.

The word-shape claim reader guesses a clause's slots from word positions, and a noun that can be a
verb misleads it: "The dispatcher never retries rate quotes" gave the predicate "rate", "Members can
book rooms" the predicate "can" and the object "book rooms", "Ticket prices rose" the subject
"Ticket". The parse knows the clause's verb and its subject; where the reader's predicate misses the
parse's verb, the slots are taken from the parse instead, so every rule reads the same clause.
"""

from __future__ import annotations

from functools import lru_cache

from spacy.tokens import Doc, Token

from graphcite.language.nlp import lemma
from graphcite.language.parse import layout, parse
from graphcite.language.predicates import is_verb

__all__ = ["parsed_slots"]

Span = tuple[int, int]
_SUBJECTS = frozenset({"nsubj", "nsubj:pass"})
_BEFORE_VERB = frozenset({"aux", "aux:pass", "advmod", "neg"})


# adverbs that stand before a verb, hardly ever before a noun: "never retries", "always signs"
_VERB_ADVERBS = frozenset({"never", "always", "often", "usually", "rarely", "seldom", "sometimes", "not", "also",
                           "still", "only", "automatically", "immediately"})


def _verb_after_adverb(doc: Doc, token: Token) -> bool:
    """A root the parse took for a noun that an adverb of frequency opens and that has a verb's form
    ("The dispatcher never retries rate quotes": "retries" tagged as a noun)."""
    if token.pos_ != "NOUN" or token.i == 0 or not token.lower_.endswith(("s", "ed")):
        return False
    before = doc[token.i - 1]
    return before.lower_ in _VERB_ADVERBS and before.head.i == token.i


@lru_cache(maxsize=8192)
def parsed_slots(text: str) -> tuple[Span, Span, Span | None] | None:
    """(subject, predicate, object) spans in ``text`` from its parse, or None when the parse gives no
    clear clause: a verb at the root (one WordNet knows as a verb) with a subject before it.

    The predicate runs from the first auxiliary or adverb of the verb that directly precedes it ("does
    not retry", "can book", "has not yet approved") to the verb and its particle ("put off"); the object is the rest of the clause
    after the verb, without closing punctuation.
    """
    flat = layout(text)
    doc = parse(flat.flat)
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    verb = roots[0]
    if verb.pos_ == "VERB":
        if not is_verb(verb.lemma_.lower()):
            return None
    elif not (_verb_after_adverb(doc, verb) and is_verb(lemma(verb.lower_))):
        return None
    subject = next((c for c in verb.children if c.dep_ in _SUBJECTS and c.i < verb.i), None)
    if subject is None or subject.pos_ not in {"NOUN", "PROPN", "PRON"}:
        return None
    words = list(subject.subtree)
    first, last = words[0], words[-1]
    if last.i >= verb.i:
        return None
    start = verb.i
    while start - 1 > last.i and doc[start - 1].head.i == verb.i and doc[start - 1].dep_ in _BEFORE_VERB:
        start -= 1
    end = verb.i  # a particle is the verb's ("put off the vote", "broke up")
    while end + 1 < len(doc) and doc[end + 1].head.i == verb.i and doc[end + 1].dep_ == "compound:prt" \
            and not (end + 2 < len(doc) and doc[end + 2].lower_ == "to"):  # "take up to 10 days": a bound
        end += 1
    tail = [t for t in doc[end + 1:] if not t.is_punct or t.i < len(doc) - 1]
    while tail and tail[-1].is_punct:
        tail.pop()

    def span(a: int, b: int) -> Span:
        return flat.original(a, b)

    subject_span = span(first.idx, last.idx + len(last.text))
    predicate_span = span(doc[start].idx, doc[end].idx + len(doc[end].text))
    object_span = span(tail[0].idx, tail[-1].idx + len(tail[-1].text)) if tail else None
    return subject_span, predicate_span, object_span
