"""Sets of WordNet synsets and lemmas, the steps the lexicon's relations are made of.

:mod:`graphcite.language.lexicon` answers questions about two words ("is 'strongest' an antonym of
'weakest'?"); each answer is a few set operations over the synsets and lemma ids of their dominant
senses. This module holds those operations: the opposites of a set, its ancestors and near classes,
its derivational family and topics, the classes and wholes of a named instance. Each takes and
returns frozensets of integer ids from :mod:`graphcite.language.lexicon_data`'s tables and is cached
per argument, so a set met again (the same word's senses in another pair) costs one look-up.
"""

from __future__ import annotations

from functools import lru_cache

from graphcite.language.lexicon_data import load_tables as _lexicon
from graphcite.language.lexicon_forms import lookup

__all__ = [
    "CLASS_REACH",
    "MIN_COHYPONYM_DEPTH",
    "MIN_NOUN_DEPTH",
    "NONE",
    "all_ancestors",
    "all_near_classes",
    "all_parents",
    "ancestors",
    "classes_above",
    "depth",
    "family",
    "general_of",
    "instance_classes",
    "is_specific",
    "lemma_opposites",
    "near_classes",
    "noun_classes",
    "opposites",
    "parents",
    "physical_entity",
    "steps_up",
    "topics",
    "wholes",
    "with_adjectives",
    "with_heads",
    "with_pertained",
]

MIN_COHYPONYM_DEPTH = 7  # a shared class this deep is a real kind ("precipitation"), not "device" or "covering"
CLASS_REACH = 3  # hypernym steps from a thing up to a class a claim may name it by ("guitar" -> "instrument")
MIN_NOUN_DEPTH = 3  # nouns nearer the root ("entity", "physical entity", "object", "whole") are too general
NONE: frozenset[int] = frozenset()


@lru_cache(maxsize=131_072)
def with_pertained(synsets: frozenset[int]) -> frozenset[int]:
    """The synsets and, for adverbs, the adjective synsets they come from ("sparsely" -> "sparse")."""
    lex = _lexicon()
    out = set(synsets)
    for s in synsets:
        if lex.pos[s] == "r":
            out.update(lex.pertains_to.get(s, ()))
    return frozenset(out)


@lru_cache(maxsize=131_072)
def with_heads(synsets: frozenset[int]) -> frozenset[int]:
    """:func:`with_pertained` plus the cluster heads of the satellites among them ("ponderous" -> "heavy")."""
    heads = _lexicon().adj_head
    own = with_pertained(synsets)
    return own | {heads[s] for s in own if s in heads}


@lru_cache(maxsize=131_072)
def opposites(synsets: frozenset[int]) -> frozenset[int]:
    """Every synset a WordNet antonym pointer links to one of ``synsets``."""
    links = _lexicon().antonym_links
    return frozenset().union(*(links.get(s, ()) for s in synsets))


@lru_cache(maxsize=131_072)
def with_adjectives(lemmas: frozenset[int]) -> frozenset[int]:
    """Lemma ids plus, for adverbs, the adjectives they come from ("heavily" -> "heavy")."""
    bases = _lexicon().adverb_bases
    return lemmas.union(*(bases.get(x, ()) for x in lemmas))


@lru_cache(maxsize=131_072)
def lemma_opposites(lemmas: frozenset[int]) -> frozenset[int]:
    """The lemma-level antonyms (WordNet's and the curated ones) of the lemmas or their adjectives."""
    pairs = _lexicon().antonym_words
    return frozenset().union(*(pairs.get(x, ()) for x in with_adjectives(lemmas)))


@lru_cache(maxsize=131_072)
def ancestors(synset: int) -> frozenset[int]:
    """Every hypernym and instance hypernym above a synset, transitively."""
    lex = _lexicon()
    parents = lex.hypernyms[synset] + lex.instance_of.get(synset, ())
    out: set[int] = set(parents)
    for parent in parents:
        out |= ancestors(parent)
    return frozenset(out)


@lru_cache(maxsize=131_072)
def depth(synset: int) -> int:
    """Hypernym steps from a synset up to the nearest root of its hierarchy (entity: 0, object: 2)."""
    lex = _lexicon()
    parents = lex.hypernyms[synset] + lex.instance_of.get(synset, ())
    return 1 + min(map(depth, parents)) if parents else 0


def is_specific(synset: int) -> bool:
    """Whether a synset may serve as the general term of :func:`is_kind_of`: not a top-level noun
    ("entity", "object", "whole") or a root verb ("act", "change"), which every word would reach."""
    return depth(synset) >= (MIN_NOUN_DEPTH if _lexicon().pos[synset] == "n" else 1)


@lru_cache(maxsize=131_072)
def general_of(synsets: frozenset[int]) -> frozenset[int]:
    """The synsets among ``synsets`` that may serve as a general term (see :func:`is_specific`)."""
    return frozenset(filter(is_specific, synsets))


@lru_cache(maxsize=131_072)
def all_ancestors(synsets: frozenset[int]) -> frozenset[int]:
    """Every synset above any of ``synsets`` (asking "is any one's ancestor in G" is asking this once)."""
    return frozenset().union(*map(ancestors, synsets))


@lru_cache(maxsize=131_072)
def parents(synset: int) -> frozenset[int]:
    lex = _lexicon()
    return frozenset(lex.hypernyms[synset] + lex.instance_of.get(synset, ()))


@lru_cache(maxsize=131_072)
def all_parents(synsets: frozenset[int]) -> frozenset[int]:
    """The direct hypernyms and instance classes of any of ``synsets``."""
    return frozenset().union(*map(parents, synsets))


def steps_up(synset: int, reach: int) -> frozenset[int]:
    """The classes at most ``reach`` hypernym (or instance) steps above a synset."""
    lex = _lexicon()
    out: set[int] = set()
    layer = {synset}
    for _ in range(reach):
        layer = {p for s in layer for p in (*lex.hypernyms[s], *lex.instance_of.get(s, ()))}
        out |= layer
    return frozenset(out)


@lru_cache(maxsize=65_536)
def noun_classes(synsets: frozenset[int]) -> frozenset[int]:
    """The noun synsets among ``synsets`` general enough to be a class."""
    lex = _lexicon()
    return frozenset(s for s in synsets if lex.pos[s] == "n" and is_specific(s))


@lru_cache(maxsize=65_536)
def classes_above(synsets: frozenset[int]) -> frozenset[int]:
    """The classes at most :data:`CLASS_REACH` steps above any noun synset among ``synsets``."""
    lex = _lexicon()
    return frozenset().union(*(steps_up(s, CLASS_REACH) for s in synsets if lex.pos[s] == "n"))


@lru_cache(maxsize=65_536)
def family(synsets: frozenset[int]) -> frozenset[int]:
    links = _lexicon().derivation_links
    out = set(synsets)
    for s in synsets:
        out |= links.get(s, frozenset())
    return frozenset(out)


@lru_cache(maxsize=65_536)
def topics(synsets: frozenset[int]) -> frozenset[int]:
    """The topic domains of ``synsets`` and of the synsets derived from them."""
    domains = _lexicon().domains
    return frozenset().union(*(domains.get(s, NONE) for s in family(synsets)))


@lru_cache(maxsize=65_536)
def instance_classes(instance: int) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """The classes of a named instance, with their parents, with their parents and grandparents
    ("Paris": national capital; + capital, city; + municipality, ...)."""
    lex = _lexicon()
    direct = frozenset(lex.instance_of.get(instance, ()))
    parents = direct.union(*(lex.hypernyms[c] for c in direct))
    grandparents = parents.union(*(lex.hypernyms[c] for c in parents))
    return direct, parents, grandparents


@lru_cache(maxsize=65_536)
def wholes(place: int) -> frozenset[int]:
    """Everything a named instance is part of, transitively ("Lyon": France, Europe, ...)."""
    lex = _lexicon()
    out: set[int] = set()
    stack = list(lex.part_of.get(place, ()))
    while stack:
        whole = stack.pop()
        if whole not in out:
            out.add(whole)
            stack.extend(lex.part_of.get(whole, ()))
    return frozenset(out)


@lru_cache(maxsize=131_072)
def near_classes(synset: int) -> frozenset[int]:
    """The classes at most three hypernym steps above a synset, general enough to group things
    ("dog": canine, carnivore, placental) but never the top levels every noun reaches."""
    lex = _lexicon()
    out: set[int] = set()
    layer = {synset}
    for _ in range(3):
        layer = {p for s in layer for p in lex.hypernyms[s]}
        out |= layer
    physical = physical_entity()
    return frozenset(c for c in out if depth(c) >= MIN_COHYPONYM_DEPTH and ancestors(c) & physical)


@lru_cache(maxsize=1)
def physical_entity() -> frozenset[int]:
    """WordNet's "physical entity": things and natural processes, not acts, speech or ideas."""
    lemma = lookup("physical entity")
    return frozenset(_lexicon().senses[lemma]) if lemma is not None else frozenset()


@lru_cache(maxsize=65_536)
def all_near_classes(synsets: frozenset[int]) -> frozenset[int]:
    """:func:`near_classes` of any of ``synsets``."""
    return frozenset().union(*map(near_classes, synsets))
