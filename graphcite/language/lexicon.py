"""General lexical knowledge from WordNet 3.0: synonyms, kinds, opposites, siblings and derivations.

The verifier compares a claim with its evidence position by position; when two aligned words differ
it asks this module whether the difference is harmless (a synonym, a more general word, a derivation:
"physician" / "doctor", "Beijing" / "city") or changes the claim (an antonym or a sibling: "strongest" /
"weakest", "Dutch" / "Belgian", "Ohio" / "Texas").

The knowledge is compiled by ``scripts/build_lexicon.py`` into ``data/wordnet.bin.gz`` (shipped in
the package, licence in ``data/WORDNET-LICENSE``); it is read once, lazily, with the standard library.
Every function takes words in any case ("Break_up", "break up" and "BREAK UP" are one lemma), looks
them up by their WordNet base forms ("geese" -> "goose", "strongest" -> "strong") and answers from
dict and set look-ups cached per word; reading words into lemmas and senses is
:mod:`graphcite.language.lexicon_forms`'s job, and the set operations each answer is made of
(opposites, ancestors, classes of a set of synsets) are :mod:`graphcite.language.lexicon_sets`'s.

Choices that keep the answers safe for a checker:

* Dominant senses only. A word is compared through its most used senses (WordNet's sense order and
  tag counts: per part of speech the first sense and up to three tagged at least a tenth as often),
  so that a rare sense cannot relate two everyday words ("man" is not a synonym of "piece", "make"
  not a kind of "reach"). Lemma-level links (antonym and derivation pointers between two words) hold
  in any sense; siblings use every sense, since they are filtered by other means.
* Comparatives and superlatives keep their degree: "stronger" is not the "same" as "strong", but
  "strongest" / "weakest" are antonyms, as are "strong" / "weak".
* Antonyms: WordNet's lemma-level antonym pairs (through base forms, and from an adverb to the
  adjective it comes from: "heavily" -> "heavy" / "light"), direct antonymy between two dominant
  senses, a satellite against the head its own head is opposed to ("ponderous" / "light"), and a
  short curated list (``data/lexicon_curated.txt``: "dense" / "sparse", "heavily" / "sparsely", which
  WordNet does not link). Two satellites of opposed heads are not antonyms (WordNet opposes every
  cardinal number to every ordinal that way); words that share a sense or a cluster never are.
* Kinds: hypernyms and instance hypernyms, transitively; the general word must not be a root verb
  or one of the top three levels of nouns ("entity", "object", "whole"), which every word reaches.
* Siblings are limited to three safe kinds: two different named instances of comparable classes (one
  class at most two steps above the other, or classes with a common parent) when no reading of one is
  part of a reading of the other (two cities, two countries, two US states, two physicists; not
  "Georgia" / "United States"); nationality words of two such places ("Dutch" / "Belgian"); members
  of a few closed classes (weekdays, months, seasons, compass points, currencies) in a dominant
  sense. Names that are also everyday words are left out ("nice", "mobile", "day", "banks"), and
  common nouns in general are never siblings: "dog" / "cat" give None.
* Function words (articles, pronouns, auxiliaries, modals, short prepositions) and single letters
  only ever relate as "same".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final, Literal

from graphcite.language.lexicon_data import lexicon_digest
from graphcite.language.lexicon_data import load_tables as _lexicon
from graphcite.language.lexicon_forms import (
    ADJ,
    ADV,
    NOUN,
    Senses,
    base_form,
    base_forms,
    degree_pairs,
    is_known,
    is_verb_form,
    normalise,
    pos_letter,
    readings_of,
    senses_of,
)
from graphcite.language.lexicon_sets import (
    NONE,
    all_ancestors,
    all_near_classes,
    all_parents,
    ancestors,
    classes_above,
    depth,
    general_of,
    instance_classes,
    lemma_opposites,
    noun_classes,
    opposites,
    steps_up,
    topics,
    wholes,
    with_adjectives,
    with_heads,
    with_pertained,
)

__all__ = [
    "RELATIONS",
    "Relation",
    "antonyms",
    "base_form",
    "base_forms",
    "is_adjective",
    "is_adverb_only",
    "is_antonym",
    "is_class_of",
    "is_cohyponym",
    "is_derived",
    "is_kind_of",
    "is_known",
    "is_sibling",
    "is_similar",
    "is_synonym",
    "is_verb_form",
    "lexicon_digest",
    "name_class",
    "nationality_of",
    "related",
    "same_attribute",
    "synonyms",
]

Relation = Literal["same", "synonym", "antonym", "hypernym", "hyponym", "derived", "sibling", "topic"]
RELATIONS: Final[tuple[str, ...]] = ("same", "synonym", "antonym", "hypernym", "hyponym", "derived",
                                     "sibling", "topic")
"""What :func:`related` can answer, in the order it tests them (the first that holds wins)."""


# -- synonyms ------------------------------------------------------------------------------------


@lru_cache(maxsize=65_536)
def synonyms(word: str, pos: str | None = None) -> frozenset[str]:
    """Lemmas that share a dominant synset of theirs with a dominant synset of ``word``: exactly the
    words ``w`` for which ``is_synonym(word, w)`` holds (the word itself left out).

    "physician" -> {"doctor", "doc", "md", "dr.", "medico"}; "break_up" and "break up" give the same
    set. Function words and comparatives/superlatives ("strongest") have none.
    """
    form = normalise(word)
    found = senses_of(form, pos_letter(pos))
    lex = _lexicon()
    if not found.active:
        return frozenset()
    own = found.lemmas.get(0, frozenset())
    return frozenset(lex.words[m] for s in found.by_degree.get(0, ()) for m in lex.members[s]
                     if m not in own and s in lex.core(m) and lex.words[m] not in lex.function_words)


def _synonymous(a: Senses, b: Senses) -> bool:
    return any(sa & sb for sa, sb in degree_pairs(a, b))


def is_synonym(a: str, b: str) -> bool:
    """Whether two words share a WordNet synset at the same degree ("big"/"large", "biggest"/"largest")."""
    return _test("synonym", normalise(a), normalise(b))


# -- antonyms ------------------------------------------------------------------------------------


def _opposed(a: Senses, b: Senses) -> bool:
    for degree, lemmas in a.lemmas.items():
        others = b.lemmas.get(degree)
        if others and lemma_opposites(lemmas) & with_adjectives(others):
            return True
    for sa, sb in degree_pairs(a, b):
        own_a, own_b = with_pertained(sa), with_pertained(sb)
        if opposites(own_a) & own_b:
            return True  # a direct WordNet antonym between two dominant senses
        up_a, up_b = with_heads(sa), with_heads(sb)
        if up_a & up_b:
            continue  # the words share a cluster: near-synonyms in some sense, so no indirect opposition
        if opposites(up_a) & own_b or opposites(up_b) & own_a:
            return True  # a satellite against the head its own head is opposed to ("ponderous"/"light")
    return False


def is_antonym(a: str, b: str) -> bool:
    """Whether the words are opposites: "increase"/"decrease", "alive"/"dead", "strongest"/"weakest".

    At the same degree: a lemma-level WordNet or curated antonym pair (an adverb stands for its
    adjective: "heavily"/"lightly"), a direct antonym between dominant senses, or a satellite against
    the opposed head ("ponderous"/"light"); never for words that also share a synset.
    """
    return _test("antonym", normalise(a), normalise(b))


@lru_cache(maxsize=65_536)
def antonyms(word: str, pos: str | None = None) -> frozenset[str]:
    """The word's lemma-level antonyms (WordNet's and the curated ones), through its base forms and,
    for an adverb, the adjective it comes from: "increase" -> {"decrease"}, "heavily" -> {"lightly", ...}."""
    lex = _lexicon()
    found = senses_of(normalise(word), pos_letter(pos))
    if not found.active:
        return frozenset()
    return frozenset(lex.words[y] for y in lemma_opposites(found.lemmas.get(0, frozenset())))


# -- kinds ---------------------------------------------------------------------------------------


def _kind_of(a: Senses, b: Senses) -> bool:
    general = general_of(b.by_degree.get(0, NONE))
    if not general:
        return False
    return not all_ancestors(a.by_degree.get(0, NONE)).isdisjoint(general)


def _kind_of_either(a: Senses, b: Senses) -> bool:
    """A direct kind through one side's less used senses, the other side's senses staying dominant:
    "hike" (its walking sense) is a kind of "walk"; "meat" of "food" (its general sense). One step
    only: further up, a rare sense reaches almost anything ("lead" as graphite, a kind of carbon)."""
    general = general_of(b.by_degree.get(0, NONE))
    return (not all_parents(a.every).isdisjoint(general)
            or not all_parents(a.by_degree.get(0, NONE)).isdisjoint(general_of(b.every)))


def is_kind_of(a: str, b: str) -> bool:
    """Whether a dominant sense of ``a`` is a kind or an instance of a dominant sense of ``b``.

    "beijing" is a kind of "city" and of "location"; "car" of "vehicle"; "physician" of "person".
    """
    return _test("kind", normalise(a), normalise(b))


def _class_of(general: Senses, specific: Senses) -> bool:
    classes = noun_classes(general.every)
    return bool(classes) and not classes_above(specific.by_degree.get(0, NONE)).isdisjoint(classes)


@lru_cache(maxsize=262_144)
def is_class_of(general: str, specific: str) -> bool:
    """Whether some noun sense of ``general``, a less used one included, is a class at most three steps
    above a dominant noun sense of ``specific``: "instrument" / "guitar" (a guitar is a stringed, so a
    musical instrument, a less used sense of "instrument"), "kid" / "boy".

    The specific word picks the general word's sense: a passage about a guitar speaks of an instrument
    in its musical sense, whatever the most used sense of "instrument" is. Stricter than the
    dominant-sense :func:`is_kind_of` on the specific side and looser on the general side; callers
    compare nouns only (a verb form such as "wearing" is not the noun "wear", clothing).
    """
    return _test("class", normalise(general), normalise(specific))


# -- derivations and topics ----------------------------------------------------------------------


def _derived(a: Senses, b: Senses) -> bool:
    """A lemma-level derivation or pertainym between the words, in any sense: they share a stem."""
    links = _lexicon().derived_words
    for degree, lemmas in a.lemmas.items():
        others = b.lemmas.get(degree, frozenset())
        if any(links.get(x, frozenset()) & others for x in lemmas):
            return True
    return False


def _topical(a: Senses, b: Senses) -> bool:
    """A topic domain of one word's dominant senses, or of a synset derived from them, is a dominant
    sense of the other ("physician" -> "doctor" (verb) -> medicine)."""
    for first, second in ((a, b), (b, a)):
        mine, theirs = first.by_degree.get(0), second.by_degree.get(0)
        if mine and theirs and not topics(mine).isdisjoint(theirs):
            return True
    return False


def is_derived(a: str, b: str) -> bool:
    """Whether WordNet links the words by derivation or pertainym: "politician"/"politics", "dutch"/"netherlands"."""
    return _test("derived", normalise(a), normalise(b))


# -- siblings ------------------------------------------------------------------------------------


def _comparable(x: int, y: int) -> bool:
    """Whether two instances are of one kind: one's class is at most two steps above the other's
    ("Lyon" a city, "Paris" a national capital, a kind of city), or their classes share a parent
    ("Turkey" a country, "Greece" a Balkan country; not "Ohio" an American state and "France")."""
    (dx, px, gx), (dy, py, gy) = instance_classes(x), instance_classes(y)
    return bool(dx & gy or dy & gx or px & py)


@lru_cache(maxsize=65_536)
def _places(form: str) -> frozenset[int]:
    """The named instances a word may stand for: its own instance senses, the places of a nationality word."""
    lex = _lexicon()
    out: set[int] = set()
    for reading in readings_of(form):
        if reading.degree:
            continue
        if reading.pos_mask & (NOUN | ADJ):  # "polished" is not read as "Polish"
            out.update(lex.nationality.get(reading.lemma, ()))
        if reading.pos_mask & NOUN and reading.lemma in lex.instance_words:
            out.update(s for s in lex.senses[reading.lemma] if s in lex.instance_of)
    return frozenset(out)


def _instance_siblings(a: frozenset[int], b: frozenset[int]) -> bool:
    """Two readings of comparable classes, and no two readings the same or one inside the other
    ("georgia" / "united states": the state is part of the country, so not siblings)."""
    if a & b or any(y in wholes(x) or x in wholes(y) for x in a for y in b):
        return False
    return any(_comparable(x, y) for x in a for y in b)


@lru_cache(maxsize=65_536)
def _members(form: str) -> frozenset[int]:
    """The synsets of a word that are members of a safe sibling class (weekdays, months, ...)."""
    lex = _lexicon()
    safe, allowed = lex.safe_class, lex.safe_words
    return frozenset(s for r in readings_of(form) if not r.degree and r.pos_mask & NOUN and r.lemma in allowed
                     for s in lex.senses[r.lemma] if s in safe)


def _class_siblings(form_a: str, form_b: str) -> bool:
    safe = _lexicon().safe_class
    sa, sb = _members(form_a), _members(form_b)
    if sa & sb:
        return False
    return any(safe[x] == safe[y] and y not in ancestors(x) and x not in ancestors(y) for x in sa for y in sb)


def _siblings(form_a: str, form_b: str) -> bool:
    return _instance_siblings(_places(form_a), _places(form_b)) or _class_siblings(form_a, form_b)


@lru_cache(maxsize=131_072)
def is_cohyponym(a: str, b: str) -> bool:
    """Whether two common nouns, in their dominant senses, are different physical kinds of one near
    class: "snow" / "rain" (precipitation), "flute" / "guitar" (musical instrument), "sofa" / "bed".

    Weaker than :func:`is_sibling` (a claim may name the class by another member only when the
    evidence stands in the same place), so callers anchor it; never for related words.
    """
    fa, fb = normalise(a), normalise(b)
    if fa == fb or _related(fa, fb) is not None:
        return False
    sa, sb = senses_of(fa, "n"), senses_of(fb, "n")
    if not (sa.active and sb.active):
        return False
    return not all_near_classes(sa.by_degree.get(0, NONE)).isdisjoint(all_near_classes(sb.by_degree.get(0, NONE)))


def is_sibling(a: str, b: str) -> bool:
    """Whether the words name different members of one class, so one cannot stand for the other.

    Two places or people of comparable classes ("paris"/"lyon", "ohio"/"texas"), two nationality
    words ("dutch"/"belgian"), two weekdays, months, seasons, compass points or currencies. Never a
    place and what contains it ("lyon"/"france"), and never common nouns in general ("dog"/"cat").
    """
    return _test("sibling", normalise(a), normalise(b))


@lru_cache(maxsize=65_536)
def nationality_of(word: str) -> str | None:
    """The place a nationality or demonym word belongs to: "dutch" -> "netherlands", "belgian" -> "belgium"."""
    lex = _lexicon()
    for reading in readings_of(normalise(word)):
        places = lex.nationality.get(reading.lemma)
        if places and not reading.degree and reading.pos_mask & (NOUN | ADJ):
            return lex.words[lex.members[places[0]][0]]
    return None


@lru_cache(maxsize=65_536)
def name_class(word: str) -> str | None:
    """The class of the named instance a word names, in its first such reading: "paris" -> "national
    capital", "ohio" -> "american state", "einstein" -> "physicist"; None for a word that names nothing."""
    lex = _lexicon()
    for instance in sorted(_places(normalise(word))):
        classes = lex.instance_of.get(instance, ())
        if classes:
            return lex.words[lex.members[classes[0]][0]]
    return None


@lru_cache(maxsize=65_536)
def is_adjective(word: str) -> bool:
    """Whether WordNet reads ``word`` as a plain adjective in some sense ("rocky", "blue", "thick")."""
    form = normalise(word)
    return len(form) > 1 and form not in _lexicon().function_words and any(
        r.pos_mask & ADJ and not r.degree for r in readings_of(form))


@lru_cache(maxsize=65_536)
def is_adverb_only(word: str) -> bool:
    """Whether WordNet reads ``word`` as an adverb and as nothing else ("carefully", "slowly"; not
    "fast" or "home", which are also adjectives or nouns): a word that cannot head a noun phrase."""
    readings = readings_of(normalise(word))
    return bool(readings) and all(r.pos_mask == ADV for r in readings)


def _adjective_clusters(form: str) -> frozenset[int]:
    """Every adjective sense of a word and of the words it derives from, with their cluster heads."""
    lex = _lexicon()
    found = senses_of(form)
    synsets = {s for s in found.every if lex.pos[s] in "as"}
    for lemma in found.lemmas.get(0, frozenset()):  # "darkened" -> "darken" -> "dark"
        for other in lex.derived_words.get(lemma, frozenset()):
            synsets.update(s for s in lex.senses[other] if lex.pos[s] in "as")
    return with_heads(frozenset(synsets))


_MIN_ATTRIBUTE_DEPTH = 4  # "color" (visual property), not "condition" or "property"


@lru_cache(maxsize=65_536)
def _attribute_classes(form: str) -> frozenset[int]:
    """The noun classes an adjective's derived nouns fall under, at most two steps up ("blue" ->
    "blueness" -> chromatic color, color), deep enough to be one kind of property."""
    lex = _lexicon()
    found = senses_of(form)
    nouns = {s for lemma in found.lemmas.get(0, frozenset()) for other in lex.derived_words.get(lemma, frozenset())
             for s in lex.senses[other] if lex.pos[s] == "n"}
    classes = set(nouns).union(*(steps_up(s, 2) for s in nouns)) if nouns else set()
    return frozenset(c for c in classes if depth(c) >= _MIN_ATTRIBUTE_DEPTH)


def same_attribute(a: str, b: str) -> bool:
    """Whether two adjectives name values of one property: "blue" / "green" (colours), so that one in
    the other's place describes the thing otherwise; "slow" / "large" (speed, size) do not compete."""
    fa, fb = normalise(a), normalise(b)
    return fa != fb and bool(_attribute_classes(fa) & _attribute_classes(fb))


def is_similar(a: str, b: str) -> bool:
    """Whether two adjectives share a WordNet cluster in any of their senses, or one derives from a
    word that does: "huge" / "big", "muddy" / "dirty", "darkened" / "dark". Looser than a synonym:
    for telling a rewording ("a huge stick" / "a big stick") from another description ("a rocky
    beach" / "a sandy beach"); never for antonyms."""
    fa, fb = normalise(a), normalise(b)
    return fa == fb or (not is_antonym(fa, fb) and bool(_adjective_clusters(fa) & _adjective_clusters(fb)))


# -- one answer ----------------------------------------------------------------------------------


@lru_cache(maxsize=262_144)
def _test(test: str, fa: str, fb: str) -> bool:
    """One yes/no relation between two normalised forms, cached per pair."""
    sa, sb = senses_of(fa), senses_of(fb)
    if not (sa.active and sb.active):
        return False
    if test == "synonym":
        return _synonymous(sa, sb)
    if test == "antonym":
        return not _synonymous(sa, sb) and _opposed(sa, sb)
    if test == "kind":
        return _kind_of(sa, sb)
    if test == "class":
        return _class_of(sa, sb)
    if test == "derived":
        return _derived(sa, sb)
    # sibling: never the same word, a synonym, or a kind of the other ("paris" / "city")
    return (fa != fb and not _synonymous(sa, sb) and not _kind_of(sa, sb) and not _kind_of(sb, sa)
            and _siblings(fa, fb))


@lru_cache(maxsize=262_144)
def _related(fa: str, fb: str) -> Relation | None:
    if fa == fb:
        return "same"
    sa, sb = senses_of(fa), senses_of(fb)
    if any(la & lb for la, lb in ((sa.lemmas[d], sb.lemmas.get(d, frozenset())) for d in sa.lemmas)):
        return "same"
    if not (sa.active and sb.active and sa.lemmas and sb.lemmas):
        return None  # a word WordNet does not know (a name, a code) relates to nothing: no test can hold
    if _synonymous(sa, sb):
        return "synonym"
    if _opposed(sa, sb):
        return "antonym"
    if _kind_of(sa, sb):
        return "hypernym"
    if _kind_of(sb, sa):
        return "hyponym"
    if _derived(sa, sb):
        return "derived"
    if _siblings(fa, fb):
        return "sibling"
    up, down = _kind_of_either(sa, sb), _kind_of_either(sb, sa)
    if up != down:  # a kind each way through rare senses says nothing
        return "hypernym" if up else "hyponym"
    if _topical(sa, sb):
        return "topic"
    return None


@lru_cache(maxsize=262_144)
def related(a: str, b: str) -> Relation | None:
    """How WordNet relates ``b`` to ``a``, or None: the first of :data:`RELATIONS` that holds.

    * ``same``: one lemma at the same degree ("cities"/"city", "ran"/"run"; not "stronger"/"strong");
    * ``synonym``: a shared synset ("physician"/"doctor");
    * ``antonym``: opposites (see :func:`is_antonym`);
    * ``hypernym``: ``b`` is more general than ``a`` ("beijing"/"city"); ``hyponym``: the reverse;
    * ``derived``: derivation or pertainym ("dissolve"/"dissolution", "dutch"/"netherlands");
    * ``sibling``: different members of one class (see :func:`is_sibling`);
    * ``topic``: ``b`` is the topic domain of ``a`` or of a word derived from it ("physician"/"medicine").

    Accept ``same``/``synonym``/``hypernym``/``derived`` as paraphrase, veto ``antonym``/``sibling``;
    ``hyponym`` (more specific) and ``topic`` are weaker and left to the caller.
    """
    return _related(normalise(a), normalise(b))  # remembered by the words as given: normalising costs more
