"""Slot alignment: each content word and name of a claim is found in the evidence, or found by
paraphrase (synonym, derivation, a more specific word), or filled by something else (an antonym, a
sibling name), or missing.

This replaces "share of shared words" as the support test: a swapped city keeps the share high but
fills the place slot with another city; "broke up" and "dissolved" share no word but are synonyms.
Numbers and dates are not slots here: the value and date rules compare them as typed values.
Matching reads lowercased copies of both texts; the stored text is never changed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from graphcite.language import lexicon
from graphcite.language.domain import active
from graphcite.language.nlp import lemma
from graphcite.language.predicates import is_verb
from graphcite.language.words import STOPWORDS, Word, _data, phrase_at, word_list, words_of

__all__ = ["WEIGHT_LIGHT", "Alignment", "Slot", "align"]

_WEIGHT_NAME = 2.0
_WEIGHT_LIGHT = 0.25
WEIGHT_LIGHT = _WEIGHT_LIGHT  # what a light verb weighs among the slots
_MEMO_MAX = 4096  # searches remembered per evidence text
_UNKNOWN = object()  # a search not remembered (None is a remembered answer)


@dataclass(frozen=True, slots=True)
class Slot:
    """One claim slot and what the evidence has in its place."""

    text: str
    kind: str  # name | word
    status: str  # found | paraphrase | missing | opposite | other
    by: str | None = None  # the evidence word that found, opposed or replaced it
    relation: str | None = None  # how: synonym, derived, hyponym, antonym, sibling
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Alignment:
    """The slots of a claim against one evidence text, and the weighted share found."""

    slots: tuple[Slot, ...]

    @property
    def score(self) -> float:
        total = sum(s.weight for s in self.slots)
        if not total:
            return 1.0
        return sum(s.weight for s in self.slots if s.status in {"found", "paraphrase"}) / total

    def with_status(self, *statuses: str) -> list[Slot]:
        return [s for s in self.slots if s.status in statuses]

    @property
    def missing_names(self) -> list[Slot]:
        return [s for s in self.slots if s.kind == "name" and s.status == "missing"]


def _names(words: tuple[Word, ...], text: str) -> list[list[Word]]:
    """Runs of name words separated by one space: "Maria Lopez", "New York"; "Bergen, Norway" is two."""
    runs: list[list[Word]] = []
    for word in words:
        if word.proper:
            if runs and text[runs[-1][-1].end:word.start] == " ":
                runs[-1].append(word)
            else:
                runs.append([word])
    return runs


_JOINERS = frozenset({"of", "on", "for", "and", "the", "de", "in", "to"})


def _initials(words: tuple[Word, ...], text: str) -> dict[str, str]:
    """What each run of capitalised words abbreviates to, small joining words skipped: "Intergovernmental
    Panel on Climate Change" -> "ipcc" (and "ip", "ipc", ...; "pcc", ...), mapped to the run."""
    out: dict[str, str] = {}
    for i, word in enumerate(words):
        if not word.surface[0].isupper() or word.lower in _JOINERS:
            continue
        initials, run = "", []
        for other in words[i:]:
            if other.surface[0].isupper() and other.lower not in _JOINERS:
                initials += other.lower[0]
                run.append(other.surface)
                if len(initials) > 1:
                    out.setdefault(initials, " ".join(run).lower())
            elif other.lower not in _JOINERS:
                break
    return out


def _accepted() -> frozenset[str]:
    return active().paraphrase | {"same"}


def _relation(claim_word: str, evidence_word: str) -> str | None:
    if claim_word == evidence_word:
        return "same"
    return lexicon.related(claim_word, evidence_word)


def _match_word(word: str, evidence: tuple[str, ...], lemmas: frozenset[str],
                accepted: frozenset[str]) -> tuple[str, str | None, str | None]:
    if word in lemmas:
        return "found", word, "same"
    opposed: tuple[str, str] | None = None
    for other in evidence:
        relation = _relation(word, other)
        if relation in accepted:
            return "paraphrase", other, relation
        if relation == "antonym" and opposed is None:
            opposed = (other, relation)
    if opposed:
        return "opposite", opposed[0], opposed[1]
    return "missing", None, None


def _neighbours(words: tuple[Word, ...], at: int, reach: int) -> frozenset[str]:
    """Content lemmas within ``reach`` words of position ``at``: what anchors a word to its place."""
    out = set()
    for word in words[max(0, at - reach):at + reach + 1]:
        if word.lemma not in STOPWORDS and word.lower not in STOPWORDS:
            out.add(word.lemma)
    return frozenset(out)


def _content_neighbours(words: tuple[Word, ...], at: int, reach: int = 2) -> frozenset[str]:
    """The lemmas of the ``reach`` nearest content words on each side of position ``at``."""
    out: set[str] = set()
    for side in (range(at - 1, -1, -1), range(at + 1, len(words))):
        taken = 0
        for i in side:
            if words[i].lemma in STOPWORDS or words[i].lower in STOPWORDS:
                continue
            out.add(words[i].lemma)
            taken += 1
            if taken == reach:
                break
    return frozenset(out)


class _Text:
    """One side of an alignment, read once per process: its words and, kept when asked, each position's neighbours."""

    __slots__ = ("_near", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = words_of(text)
        self._near: dict[tuple[int, int, bool], frozenset[str]] = {}

    def neighbours(self, at: int, reach: int) -> frozenset[str]:
        """:func:`_neighbours` of position ``at``, worked out once."""
        key = (at, reach, False)
        found = self._near.get(key)
        if found is None:
            found = self._near[key] = _neighbours(self.words, at, reach)
        return found

    def content_near(self, at: int, reach: int = 2) -> frozenset[str]:
        """:func:`_content_neighbours` of position ``at``, worked out once."""
        key = (at, reach, True)
        found = self._near.get(key)
        if found is None:
            found = self._near[key] = _content_neighbours(self.words, at, reach)
        return found


class _Claim(_Text):
    """The claim side: name runs, two-word terms and lemmas, shared by every evidence it is aligned with."""

    __slots__ = ("lemmas", "plan", "runs", "terms")

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.runs = _names(self.words, text)
        in_names = {w.start for run in self.runs for w in run}
        self.terms = _terms(self.words, text, in_names)
        self.lemmas = frozenset(w.lemma for w in self.words)  # an opposite the claim itself uses is no opposite
        self.plan = _plan(self.words, in_names)


class _Step(NamedTuple):
    """A claim word to look for (``slot``) or to see opposed (``oppose``), with what it needs of the claim."""

    at: int
    lemma: str
    lower: str
    action: str  # slot | oppose
    weight: float
    parts: str | None  # a hyphenated word's content lemmas, space-separated ("long-term": "long term")
    phrasal: str | None  # the word with the particle after it ("set up")
    verbal: bool  # the word is used as a verb (see _verbal)
    after_word: bool  # the word directly follows the previous word (one space)


def _plan(words: tuple[Word, ...], in_names: set[int]) -> tuple[_Step, ...]:
    """The claim words a search looks at, in order, each once (by lemma): what depends on the claim only."""
    light = _word_list("light_verbs")
    particles = _word_list("particles")
    negations = _word_list("negation")  # polarity rules compare negation; it is not a slot to find
    weak = _word_list("weak_words") | _word_list("month_names")
    collective = _word_list("collective_nouns")  # "a group of people" claims no more than "people"
    opposable = _word_list("opposable_words") | _word_list("opposite_particles")
    seen: set[str] = set()
    steps: list[_Step] = []
    fixed = _in_function_phrases(words)
    for at, word in enumerate(words):
        if at in fixed:
            continue  # "as long as", "in order to": a connective, whatever its words mean alone
        if word.start in in_names or word.lemma in STOPWORDS or word.lower in STOPWORDS or word.lemma in weak \
                or word.lower in negations:
            if (word.lower in opposable or word.lemma in opposable) and word.lemma not in seen:
                seen.add(word.lemma)
                steps.append(_Step(at, word.lemma, word.lower, "oppose", 1.0, None, None, False, False))
            continue
        if len(word.lemma) < 2 or word.lemma in seen:
            continue
        if word.lower in collective and at + 1 < len(words) and words[at + 1].lower == "of":
            continue
        seen.add(word.lemma)
        parts = _parts(word)
        phrasal = f"{word.lemma} {words[at + 1].lower}" if at + 1 < len(words) and words[at + 1].lower in particles \
            else None
        steps.append(_Step(at, word.lemma, word.lower, "slot", _WEIGHT_LIGHT if word.lemma in light else 1.0,
                           " ".join(parts) if parts else None, phrasal, _verbal(words, at),
                           bool(at) and words[at - 1].end + 1 == word.start))
    return tuple(steps)


_DENY_THINGS = frozenset({"no", "none", "nobody", "nothing", "nowhere", "neither", "nor"})


def _negated(words: tuple[Word, ...], at: int) -> bool:
    """Whether a negation of a predicate stands among the three words before ``words[at]`` ("cannot attend",
    "did not miss"); "no", "none", "nobody" deny a thing, not what it does ("no woman" is not "a man")."""
    negations = _word_list("negation") - _DENY_THINGS
    return any(w.lower in negations or w.lower.endswith(("n't", "n’t")) for w in words[max(0, at - 3):at])


def _negated_word(words: tuple[Word, ...], word: str) -> bool:
    """Whether every use of ``word`` (a lemma or written form) in ``words`` is negated."""
    places = [at for at, w in enumerate(words) if word in (w.lemma, w.lower)]
    return bool(places) and all(_negated(words, at) for at in places)


def _in_function_phrases(words: tuple[Word, ...]) -> frozenset[int]:
    """The positions of words that belong to a fixed connective (words.json ``function_phrases``)."""
    lowered = [w.lower for w in words]
    out: set[int] = set()
    for at in range(len(lowered)):
        out.update(range(at, at + phrase_at(lowered, at, "function_phrases")))
    return frozenset(out)


class _Evidence(_Text):
    """The evidence side: the forms a claim word is looked up in, and the searches' answers (by claim word)."""

    __slots__ = ("_by_neighbour", "acronyms", "at_form", "at_lemma", "content", "initials", "joined", "lemmas",
                 "lower", "memo", "names", "pair_lemmas", "pairs", "squashed", "squashed_words")

    def __init__(self, evidence: str) -> None:
        super().__init__(evidence)
        ev_words = self.words
        self.lower = " ".join(w.lower for w in ev_words)
        self.squashed = self.lower.replace(" ", "").replace("-", "")
        ev_parts = [p for w in ev_words for p in _parts(w)]  # "human-caused" holds "human" and "cause"
        self.lemmas = frozenset(w.lemma for w in ev_words) | frozenset(w.lower for w in ev_words) | frozenset(ev_parts)
        self.content = tuple(dict.fromkeys([*(w.lemma for w in ev_words if w.lemma not in STOPWORDS), *ev_parts]))
        # a compound written as one word on one side and two on the other: "heatwave" / "heat waves"
        self.joined = {joined: f"{a.lower} {b.lower}" for a, b in pairwise(ev_words)
                       if evidence[a.end:b.start] in {" ", "-"} and a.lemma not in STOPWORDS
                       for joined in (a.lower + b.lower, a.lower + b.lemma)}
        self.squashed_words = {w.lower.replace("-", ""): w.lower for w in ev_words}
        self.pair_lemmas = frozenset(f"{a.lemma} {b.lemma}" for a, b in pairwise(ev_words))
        # two-word terms of the evidence ("carbon dioxide"), for claim words the lexicon knows as one unit
        self.pairs = tuple(dict.fromkeys(f"{a.lower} {b.lower}" for a, b in pairwise(ev_words)
                                         if a.lemma not in STOPWORDS and b.lemma not in STOPWORDS
                                         and evidence[a.end:b.start] == " "))
        self.names = tuple(" ".join(w.lower for w in run) for run in _names(ev_words, evidence))
        self.initials = _initials(ev_words, evidence)  # "IPCC" in the claim, spelled out in the evidence
        self.acronyms = {w.lower: w.lower for w in ev_words if w.surface.isupper() and len(w.surface) > 1}
        # tuples of ints, which the collector stops tracking: a cache of many texts is not walked each time
        self.at_lemma = _positions((w.lemma,) for w in ev_words)
        self.at_form = _positions((w.lemma, w.lower) for w in ev_words)
        self.memo: dict[tuple[object, ...], object] = {}
        self._by_neighbour: dict[str, tuple[int, ...]] | None = None

    def remember(self, key: tuple[object, ...], value: object) -> None:
        """Keep a search's answer; a text met with very many claims starts its memory afresh."""
        if len(self.memo) >= _MEMO_MAX:
            self.memo.clear()
        self.memo[key] = value

    def by_neighbour(self) -> dict[str, tuple[int, ...]]:
        """Lemma -> the positions (in order) whose two nearest content words on a side include it."""
        if self._by_neighbour is None:
            index: dict[str, list[int]] = {}
            for j in range(len(self.words)):
                for near in self.content_near(j):
                    index.setdefault(near, []).append(j)
            self._by_neighbour = {k: tuple(v) for k, v in index.items()}
        return self._by_neighbour

    def match(self, word: str, among: str, accepted: frozenset[str]) -> tuple[str, str | None, str | None]:
        """:func:`_match_word` over the content lemmas ("content"; "bare": no lemma test) or the terms ("pairs")."""
        key = ("match", word, among, _token(accepted))
        found = self.memo.get(key)
        if found is None:
            if among == "content":
                found = _match_word(word, self.content, self.lemmas, accepted)
            else:
                found = _match_word(word, self.pairs if among == "pairs" else self.content, frozenset(), accepted)
            self.remember(key, found)
        return found  # type: ignore[return-value]

    def related_term(self, term: str, accepted: frozenset[str]) -> tuple[str, str] | None:
        """The first content lemma or two-word term whose relation to ``term`` is accepted, remembered."""
        key = ("term", term, _token(accepted))
        found = self.memo.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = next(((other, rel) for other in (*self.content, *self.pairs)
                          if (rel := _relation(term, other)) in accepted), None)
            self.remember(key, found)
        return found  # type: ignore[return-value]

    def named_by_class(self, word: str) -> str | None:
        """:func:`_named_by_class` over the content lemmas, remembered."""
        key = ("class", word)
        found = self.memo.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = _named_by_class(word, self.content)
            self.remember(key, found)
        return found  # type: ignore[return-value]


def _positions(forms: Iterable[tuple[str, ...]]) -> dict[str, tuple[int, ...]]:  # form -> positions, in order
    found: dict[str, list[int]] = {}
    for j, names in enumerate(forms):
        for name in dict.fromkeys(names):
            found.setdefault(name, []).append(j)
    return {k: tuple(v) for k, v in found.items()}


@lru_cache(maxsize=4096)
def _claim_side(claim: str) -> _Claim:  # the parts of one sentence and their citations share it
    return _Claim(claim)


@lru_cache(maxsize=4096)
def _evidence_side(evidence: str) -> _Evidence:  # a service meets the same cited units again and again
    return _Evidence(evidence)


@lru_cache(maxsize=64)
def _token(accepted: frozenset[str]) -> str:
    """The accepted relations as a string in memo keys (a key of strings alone is not walked by the collector)."""
    return ",".join(sorted(accepted))


@lru_cache(maxsize=64)
def _word_list(name: str) -> frozenset[str]:
    return word_list(name)


def _anchored(claim: _Text, at: int, ev: _Evidence, opposite: str) -> bool:
    """An opposite counts only in the same place: a claim neighbour of the word stands next to the
    opposite in the evidence ("heavily populated" / "sparsely populated"), not anywhere in the text."""
    own = claim.words[at].lemma
    mine = claim.neighbours(at, 2) - {own}
    near = claim.content_near(at, 1) - {own}
    for j in ev.at_form.get(opposite, ()):
        if mine & (ev.neighbours(j, 3) - {opposite}):
            return True
        # the nearest content word on either side agrees though function words lie between: "played
        # by a woman" / "a man is playing", "a wall which is outdoors" / "a wall which is indoors"
        if near & (ev.content_near(j, 1) - {opposite}):
            return True
    return False


def _stand_in(claim: _Claim, at: int, ev: _Evidence) -> str | None:
    """Another kind of the same near class in the missing word's place: "in the rain" where the claim
    says "in the snow", "playing a guitar" for "playing a flute". The evidence then speaks of
    something else, however much of the sentence is shared."""
    word = claim.words[at]
    mine = claim.content_near(at) - {word.lemma}
    if not mine:
        return None
    key = ("stand in", word.lemma, mine)
    known = ev.memo.get(key, _UNKNOWN)
    if known is not _UNKNOWN:
        return known  # type: ignore[return-value]
    index = ev.by_neighbour()
    found = None
    for j in sorted({j for near in mine for j in index.get(near, ())}):  # positions sharing a neighbour
        other = ev.words[j]
        if other.proper or other.lemma in STOPWORDS:
            continue
        if lexicon.is_cohyponym(word.lemma, other.lemma):
            found = other.lemma
            break
    ev.remember(key, found)
    return found


def _other_modifier(claim: _Claim, at: int, ev: _Evidence, accepted: frozenset[str]) -> str | None:
    """Another value of the same property on the same noun in the evidence, where the claim's adjective
    is missing: "a blue mat" against "a green mat". The noun is found, so the share of words stays
    high, but the evidence describes it otherwise. Adjectives of different properties do not compete
    ("a slow endpoint" / "a large endpoint": the evidence is silent on the speed), nor near-synonyms
    ("a huge stick" / "a big stick")."""
    claim_words, ev_words, claim_lemmas = claim.words, ev.words, claim.lemmas
    word = claim_words[at]
    if at + 1 >= len(claim_words) or not lexicon.is_adjective(word.lower):
        return None
    head = claim_words[at + 1]
    if head.lemma in STOPWORDS or head.end - head.start < 2 or word.end + 1 != head.start:
        return None
    for j in ev.at_lemma.get(head.lemma, ()):
        if j < 1:
            continue
        other, noun = ev_words[j - 1], ev_words[j]
        if other.end + 1 != noun.start or other.lemma in STOPWORDS \
                or other.lemma in claim_lemmas or other.lower in claim_lemmas or other.proper:
            continue
        if lexicon.is_adjective(other.lower) and _relation(word.lemma, other.lemma) not in accepted \
                and _relation(word.lower, other.lower) not in accepted \
                and lexicon.same_attribute(word.lower, other.lower) and not lexicon.is_similar(word.lower, other.lower):
            return other.lower
    return None


def _in_its_place(claim: _Claim, at: int, ev: _Evidence) -> str | None:
    """Another content word exactly where the missing word would be: both its neighbours are in the
    evidence side by side with one other word between them ("Swedish prime minister" / "Swedish
    Foreign Minister", "protection in mice during an outbreak" / "protection in humans during an
    outbreak"). The evidence speaks of something else in the same words; no lexicon link is needed
    to see the substitution, only the frame around it. Two function words alone ("in ... during")
    are too weak a frame: then one more word on either side must match too. Verbs are left to the
    predicate rules (GC202), which know how often a verb is reworded."""
    words, text = claim.words, claim.text
    if at == 0 or at + 1 >= len(words):
        return None
    left, word, right = words[at - 1], words[at], words[at + 1]
    if not (_joined(text, left, word) and _joined(text, word, right)):
        return None
    weak = left.lemma in STOPWORDS and right.lemma in STOPWORDS
    ev_words, ev_text = ev.words, ev.text
    for j in ev.at_lemma.get(left.lemma, ()):
        if j + 2 >= len(ev_words) or ev_words[j + 2].lemma != right.lemma:
            continue
        other = ev_words[j + 1]
        if not (_joined(ev_text, ev_words[j], other) and _joined(ev_text, other, ev_words[j + 2])):
            continue
        if other.lemma in STOPWORDS or other.lower in STOPWORDS or other.lemma in claim.lemmas \
                or any(c.isdigit() for c in other.surface):
            continue
        if _akin(word, other):
            continue  # a word the lexicon links to the claim's, in a sense the alignment did not accept
        if weak and not (at >= 2 and j >= 1 and words[at - 2].lemma == ev_words[j - 1].lemma) \
                and not (at + 2 < len(words) and j + 3 < len(ev_words) and words[at + 2].lemma == ev_words[j + 3].lemma):
            continue
        return other.lower
    return None


def _akin(word: Word, other: Word) -> bool:
    """Whether two words may say one thing: forms of one stem the lemmatizer keeps apart, or misspelt
    ("bestseller" / "bestselling", "numbersing" / "numbering": five letters in common at the start), two
    verbs (a verb's rewording is GC202's to judge: "wants" / "intends"), or words the lexicon links by
    anything but their being two kinds of one thing: a synonym through the written form ("sunglasses" /
    "shades"), a broader or narrower word ("shorten" / "cut"), a similar adjective ("muddy" / "dirty")."""
    if len(word.lower) >= _STEM and word.lower[:_STEM] == other.lower[:_STEM]:
        return True
    if is_verb(word.lemma) and is_verb(other.lemma):
        return True
    for a in dict.fromkeys((word.lemma, word.lower)):
        for b in dict.fromkeys((other.lemma, other.lower)):
            if lexicon.related(a, b) not in {None, "sibling", "antonym"} or lexicon.is_similar(a, b):
                return True
    return False


#: letters two words share at the start to be read as forms of one stem
_STEM = 5


def _joined(text: str, a: Word, b: Word) -> bool:
    """Two words written next to each other: nothing but a space or a hyphen between them."""
    return text[a.end:b.start] in {" ", "-"}


def _verbal(words: tuple[Word, ...], at: int) -> bool:
    """The word is used as a verb: an inflected verb form not opened by a determiner ("is wearing",
    "people wearing hats"; not "a building", "the painting")."""
    return lexicon.is_verb_form(words[at].lower) and (
        at == 0 or words[at - 1].lower not in _word_list("noun_determiners"))


def _named_by_class(word: str, evidence: tuple[str, ...]) -> str | None:
    """An evidence word the claim's word names by its class, in any of the claim word's noun senses:
    "instrument" for "guitar", "kid" for "boy" (see :func:`lexicon.is_class_of`)."""
    return next((other for other in evidence if lexicon.is_class_of(word, other)), None)


@lru_cache(maxsize=1)
def _opposite_particles() -> dict[str, tuple[str, ...]]:
    """Opposed particles and prepositions WordNet has no antonym link for ("into" / "out", "front" /
    "behind"), from ``data/words.json``."""
    return {k: tuple(v) for k, v in _data()["opposite_particles"].items()}


def _function_opposite(claim: _Claim, at: int, ev: _Evidence) -> str | None:
    """The opposite of a word too common to be a slot ("up", "into", "empty", "give") standing in its
    place in the evidence: "walking down the stairs" for "walking up the stairs". Such a word is never
    looked for (its absence says little), but its opposite in the same place reverses the claim."""
    word = claim.words[at]
    if word.lower in ev.lemmas or word.lemma in ev.lemmas:
        return None
    particles = _opposite_particles()
    wanted = (lexicon.antonyms(word.lower) | lexicon.antonyms(word.lemma)
              | frozenset(particles.get(word.lower, ())))
    if not wanted:
        return None
    for other in ev.words:
        for form in (other.lower, other.lemma):
            if form in wanted and form not in claim.lemmas and _anchored(claim, at, ev, form):
                return form
    return None


def _plural_match(word: str, ev: _Evidence, accepted: frozenset[str]) -> tuple[str, str | None, str | None]:
    """A word the lemma table does not know, matched in its regular plural or singular form
    ("multihull" / "Multihulls"): an unknown word keeps its plural as its lemma."""
    forms = [f"{word}s", f"{word}es"] if not word.endswith("s") else [word[:-1]] + ([word[:-2]] if word.endswith("es") else [])
    for form in forms:
        if len(form) > 2:
            found = ev.match(form, "content", accepted)
            if found[0] == "found":
                return "found", found[1], "inflection"
    return "missing", None, None


def _phrase_in(phrase: str, lowered: str) -> bool:
    return f" {phrase} " in f" {lowered} "


_PERCENTILE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[\s-]+percentile\b", re.I)
_WHICHEVER = re.compile(r"\bwhichever\s+is\s+(?:the\s+)?(higher|greater|larger|bigger|more|lower|lesser|smaller|less)\b", re.I)
_SELECTOR_OF = re.compile(r"\b(higher|greater|larger|bigger|lower|lesser|smaller)\s+of\b", re.I)
_SELECTOR_WORD = {"higher": "greater", "larger": "greater", "bigger": "greater", "more": "greater",
                  "lesser": "lower", "smaller": "lower", "less": "lower"}


def _folded(text: str) -> str:
    """The copy of ``text`` both sides are matched on: without accents ("El Niño" as "El Nino"), a
    percentile in one spelling ("the 99th percentile" as "p99", as tables head it), and a selector in
    one form ("whichever is higher" as "the greater", "the larger of" as "the greater of")."""
    if "percentile" in text.lower():
        text = _PERCENTILE.sub(lambda m: f"p{m.group(1)}", text)
    if "whichever" in text.lower():
        text = _WHICHEVER.sub(lambda m: "the " + _SELECTOR_WORD.get(m.group(1).lower(), m.group(1).lower()), text)
    text = _SELECTOR_OF.sub(lambda m: _SELECTOR_WORD.get(m.group(1).lower(), m.group(1).lower()) + " of", text)
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _parts(word: Word) -> list[str]:
    """The content lemmas of a hyphenated word ("human-caused": human, cause); none for a plain word."""
    if "-" not in word.lower:
        return []
    return [lemma(p) for p in word.lower.split("-") if len(p) > 1 and p not in STOPWORDS]


def _terms(words: tuple[Word, ...], text: str, skip: set[int]) -> dict[str, tuple[bool, int]]:
    """Two adjacent content words of the claim as one term, by the position of the first: the form
    the lexicon knows ("ping pong", "sea level", "global warming": True) or else the plain pair."""
    out: dict[str, tuple[bool, int]] = {}
    for i, (a, b) in enumerate(pairwise(words)):
        if a.start in skip or b.start in skip or text[a.end:b.start] != " " \
                or a.lemma in STOPWORDS or b.lemma in STOPWORDS:
            continue
        forms = tuple(dict.fromkeys((f"{a.lower} {b.lower}", f"{a.lower} {b.lemma}", f"{a.lemma} {b.lower}")))
        known = next((f for f in forms if lexicon.is_known(f)), None)
        out[known or f"{a.lower} {b.lemma}"] = (known is not None, i)
    return out


def align(claim: str, evidence: str) -> Alignment:
    """Align ``claim`` against ``evidence`` (the quote with its envelope: title, headings, antecedent).

    Which lexical relations count as paraphrase comes from the active domain lexicon."""
    return _align(_folded(claim), _folded(evidence), _accepted())


@lru_cache(maxsize=65_536)
def _align(claim: str, evidence: str, accepted: frozenset[str]) -> Alignment:
    return _aligned(_claim_side(claim), _evidence_side(evidence), accepted)


def _aligned(side: _Claim, ev: _Evidence, accepted: frozenset[str]) -> Alignment:
    """The slots of an analysed claim against an analysed evidence text."""
    claim_lemmas = side.lemmas
    slots: list[Slot] = []
    for run in side.runs:
        phrase = " ".join(w.lower for w in run)
        head = run[-1].lower
        squashed = phrase.replace(" ", "").replace("-", "")
        if _phrase_in(phrase, ev.lower) or _phrase_in(head, ev.lower) or squashed in ev.squashed:
            slots.append(Slot(phrase, "name", "found", head, "same", _WEIGHT_NAME))
            continue
        spelled = ev.initials.get(phrase) if len(run) == 1 and run[0].surface.isupper() else None
        if spelled is None and len(run) > 1:
            spelled = ev.acronyms.get("".join(w.lower[0] for w in run))
        if spelled:
            slots.append(Slot(phrase, "name", "found", spelled, "acronym", _WEIGHT_NAME))
            continue
        status, by, relation = _name_status(ev, phrase, head, accepted)
        slots.append(Slot(phrase, "name", status, by, relation, _WEIGHT_NAME))
    by_term: dict[int, tuple[str, str]] = {}  # claim word position -> (evidence word, relation)
    for term, (known, first) in side.terms.items():
        squashed_term = term.replace(" ", "")
        found_term: tuple[str, str] | None = None
        if squashed_term in ev.squashed_words:
            found_term = (ev.squashed_words[squashed_term], "same")
        elif known:
            found_term = ev.related_term(term, accepted)
        if found_term:
            by_term.setdefault(first, found_term)
            by_term.setdefault(first + 1, found_term)
    unfound: dict[int, bool] = {}  # claim word position -> its slot went unfound
    for at, lemma_, lower, action, weight, parts, phrasal, verbal, after_word in side.plan:
        if action == "oppose":
            opposed = _function_opposite(side, at, ev)
            if opposed:
                slots.append(Slot(lemma_, "word", "opposite", opposed, "antonym"))
            continue
        status, by, relation = ev.match(lemma_, "content", accepted)
        if status == "missing" and lower != lemma_:
            status, by, relation = ev.match(lower, "content", accepted)
        if status == "missing" and not lexicon.is_known(lemma_):
            status, by, relation = _plural_match(lemma_, ev, accepted)
        if status == "missing" and ev.pairs:
            status, by, relation = ev.match(lemma_, "pairs", accepted)
            if status != "paraphrase":
                status, by, relation = "missing", None, None
        if status == "missing" and at in by_term:
            status, (by, relation) = "paraphrase", by_term[at]
        if status == "missing" and (lower in ev.joined or lemma_ in ev.joined):
            status, by, relation = "paraphrase", ev.joined.get(lower, ev.joined.get(lemma_)), "same"
        if status == "missing" and parts and parts in ev.pair_lemmas:
            # written apart in the evidence ("long-term" / "long term"); parts scattered over the
            # sentence are not the compound ("not human-caused" against "human activity has caused")
            status, by, relation = "paraphrase", parts, "parts"
        if status == "missing" and phrasal:  # a phrasal verb: "set up" / "established"
            status, by, relation = ev.match(phrasal, "bare", accepted)
            if status != "paraphrase":
                status, by, relation = "missing", None, None
        if status == "opposite" and by and (by in claim_lemmas or not _anchored(side, at, ev, by)):
            status, by, relation = "missing", None, None
        if status == "opposite" and by and (verbal or lexicon.is_adjective(lemma_) or by in lexicon.antonyms(lemma_, "v")) \
                and _negated(side.words, at) != _negated_word(ev.words, by):
            # "miss" / "cannot attend", "open" / "not closed": one says the other ("no woman" is no man)
            status, relation = "paraphrase", "negated antonym"
        if status == "missing":
            nation = lexicon.nationality_of(lower)
            if nation and _phrase_in(nation, ev.lower):
                status, by, relation = "paraphrase", nation, "derived"
        if status == "missing" and "hyponym" in accepted and not verbal:
            named = ev.named_by_class(lemma_) or (ev.named_by_class(lower) if lower != lemma_ else None)
            if after_word and unfound.get(at - 1):
                named = None  # a modifier the evidence lacks narrows the class: "a wind instrument", "a flute"?
            if named:  # "instrument" in the claim, "guitar" in the evidence: the thing picks the sense
                status, by, relation = "paraphrase", named, "hyponym"
        if status == "missing":
            stand_in = _stand_in(side, at, ev)
            if stand_in:
                status, by, relation = "other", stand_in, "cohyponym"
            elif modifier := _other_modifier(side, at, ev, accepted):
                status, by, relation = "other", modifier, "modifier"
            elif not verbal and (placed := _in_its_place(side, at, ev)):
                status, by, relation = "other", placed, "in its place"
        if status == "paraphrase" and relation == "same" and by in {lower, lemma_}:
            status = "found"  # the word itself, written with a capital the evidence's lemma kept ("Children")
        unfound[at] = status in {"missing", "other"}
        slots.append(Slot(lemma_, "word", status, by, relation, weight))
    return Alignment(tuple(slots))


#: how a common word of the evidence may say a name of the claim: the same word, a synonym ("U.S." /
#: "United States"), a derived word ("Dutch" / "Netherlands"); never its class (hypernym) or a kind of it
_NAME_LINKS = frozenset({"same", "synonym", "derived"})


def _name_status(ev: _Evidence, phrase: str, head: str, accepted: frozenset[str]) -> tuple[str, str | None, str | None]:
    """A claim name not written in the evidence: a paraphrase of it there, another of its kind
    (a sibling or an opposite name), or missing; remembered per evidence text."""
    key = ("name", phrase, head, _token(accepted))
    found = ev.memo.get(key)
    if found is not None:
        return found  # type: ignore[return-value]
    status, by, relation = "missing", None, None
    for other in (*ev.content, *ev.pairs):
        rel = _relation(head, other) or _relation(phrase, other)
        if rel in accepted and rel in _NAME_LINKS:  # "Kenya" is no "African country": a class never names it
            status, by, relation = "paraphrase", other, rel
            break
    if status == "missing":
        for other in ev.names:
            rel = lexicon.related(phrase, other) or lexicon.related(head, other.split()[-1])
            if rel in {"sibling", "antonym"}:
                status, by, relation = "other", other, rel
                break
            if rel in accepted:
                status, by, relation = "paraphrase", other, rel
                break
    ev.remember(key, (status, by, relation))
    return status, by, relation
