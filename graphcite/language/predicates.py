"""Which words say what a verb says: WordNet verb synonyms and the nouns of the same events.

A claim's predicate is often paraphrased in its evidence: "holds 200 mg" / "contains 200 mg",
"cancelled the search" / "called off the search", "fired two ministers" / "sent dismissal letters".
The lexicon's relations compare a word's *dominant* senses only (see
:mod:`graphcite.language.lexicon_forms`), which keeps "hold" from meeting "throw" (a party) but also
misses "hold" / "contain": the sense they share is dominant for "contain" and rare for "hold".

Here two verbs say the same thing when they share a synset that is a dominant sense of at least one
of them, and a noun names the verb's event when WordNet derives it from one of those shared senses
and it is formed from one of the sense's verbs ("fire" shares "dismiss", whose noun is "dismissal";
"send" shares "ship", linked to "freight" by meaning but not by form, so "freight" is not its noun).
Agent nouns ("winner", "signer") name a person, not the event, and are left out. Multi-word lemmas
("call off", "take part") are returned with a space, as WordNet writes them.
"""

from __future__ import annotations

from functools import lru_cache

from graphcite.language.lexicon_data import load_tables
from graphcite.language.lexicon_forms import base_forms

__all__ = ["event_nouns", "is_verb", "verb_paraphrases"]

_AGENT_ENDINGS = ("er", "or", "ist", "ee")


def _verb_lemma_ids(verb: str) -> list[int]:
    lex = load_tables()
    return [i for form in base_forms(verb.lower(), "v") if (i := lex.index.get(form)) is not None]


@lru_cache(maxsize=16_384)
def _shared_senses(verb: str) -> tuple[frozenset[int], frozenset[str]]:
    """The verb's senses it may share with a paraphrase, and the paraphrases' lemmas."""
    lex = load_tables()
    senses: set[int] = set()
    words: set[str] = set()
    for lemma in _verb_lemma_ids(verb):
        core = {s for s in lex.core(lemma) if lex.pos[s] == "v"}
        senses |= core
        for synset in lex.senses[lemma]:
            if lex.pos[synset] != "v":
                continue
            for member in lex.members[synset]:
                if synset in core or synset in lex.core(member):
                    senses.add(synset)
                    words.add(lex.words[member])
    return frozenset(senses), frozenset(words)


@lru_cache(maxsize=16_384)
def verb_paraphrases(verb: str) -> frozenset[str]:
    """Verbs that say what ``verb`` says through a sense dominant for one of the two ("hold" ->
    "contain", "cancel" -> "call off"); the verb's own lemma is included."""
    return _shared_senses(verb)[1]


@lru_cache(maxsize=16_384)
def event_nouns(verb: str) -> frozenset[str]:
    """Nouns naming the event of ``verb`` or of one of its paraphrases ("fire" -> "dismissal",
    "cancel" -> "cancellation"); agent nouns are left out."""
    lex = load_tables()
    senses, _ = _shared_senses(verb)
    out: set[str] = set()
    for synset in senses:
        verbs = [lex.words[m] for m in lex.members[synset] if " " not in lex.words[m]]
        for linked in lex.derivation_links.get(synset, ()):
            if lex.pos[linked] != "n":
                continue
            for member in lex.members[linked]:
                word = lex.words[member]
                if word.endswith(_AGENT_ENDINGS) and word not in verb_paraphrases(verb):
                    continue
                if any(_stem_shared(word, v) and (word != v or v == verb) for v in verbs):
                    out.add(word)  # a noun spelt as another verb ("post", "station") is a thing as often
    return frozenset(out)


def _stem_shared(noun: str, verb: str) -> bool:
    """Whether ``noun`` is formed from ``verb`` ("dismissal" / "dismiss", "shipment" / "ship"), not only
    linked to its synset ("freight" is linked to "ship" by meaning, and is a name's word as often)."""
    shared = 0
    for a, b in zip(noun, verb, strict=False):
        if a != b:
            break
        shared += 1
    return shared >= max(3, len(verb) - 2)


def is_verb(word: str) -> bool:
    """Whether WordNet knows ``word`` (a lemma) as a verb ("strain", "talk"; not "vegetable")."""
    return bool(_verb_lemma_ids(word)) and any(
        load_tables().pos[s] == "v" for i in _verb_lemma_ids(word) for s in load_tables().senses[i])
