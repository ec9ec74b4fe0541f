"""Roles: who does what to whom. The same words in exchanged places are another claim."""

from __future__ import annotations

import re

from spacy.tokens import Token

from graphcite.language import lexicon
from graphcite.language.frames import aligned_frames, main_frame
from graphcite.language.nlp import lemma
from graphcite.language.parse import parse
from graphcite.language.words import STOPWORDS, singular, word_list
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule
from graphcite.verify.rules.slots import alignment_for

__all__ = ["head_noun", "passive_doer", "roles_of"]

_WORD = re.compile(r"[^\W\d_][\w'\-]*")
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re"})
# words that end a noun phrase's head: prepositions, relative words, conjunctions
_PHRASE_END = frozenset({"with", "in", "on", "at", "of", "from", "to", "into", "onto", "for", "by", "near", "under",
                         "over", "across", "through", "while", "which", "who", "that", "and", "or", "but", "as",
                         "behind", "beside", "inside", "outside", "around", "along", "up", "down", "out", "off",
                         "between", "among", "against", "without", "within", "toward", "towards", "beneath",
                         "below", "above", "after", "before", "during", "like", "than", "beyond", "past",
                         "underneath", "amid", "upon", "where", "whose", "whom", "when"})
_PREPOSITION = re.compile(r"\s*(?:to|with|at|for|about|from|on|in|into|of|by|near|over|under)\b", re.I)
_BY = re.compile(r"\bby\s+", re.I)
# a relative clause with an active verb and a direct object: "a boy who is hitting a ball"
_RELATIVE = re.compile(r"(?P<noun>[^,;]+?)\s+(?:who|that|which)\s+(?:is|are|was|were)\s+(?P<verb>[a-z]+ing)\s+"
                       r"(?P<object>(?:a|an|the|his|her|their|its|some|two|three)\s+[^,;]+)", re.I)
_TIME_WORDS = frozenset({"end", "time", "now", "then", "start", "beginning", "middle"})
_SAME_THING = frozenset({"same", "synonym", "hypernym", "hyponym"})


def head_noun(phrase: str) -> str | None:
    """The head noun of a noun phrase: its last word before a preposition, a relative word or a
    conjunction ("a man in a red hat" -> "man"); after "of" when the first noun is a collective or
    partitive one ("a group of boys", "a piece of bread" -> "boy", "bread"). None for a pronoun."""
    words: list[str] = []
    collective = word_list("collective_nouns") | word_list("partitive_nouns")
    for word in _WORD.findall(phrase.lower()):
        if word == "of" and words and words[-1] in collective:
            words = []
            continue
        if word in {"and", "or"} and words and all(lexicon.is_adjective(w) for w in words if w not in STOPWORDS):
            continue  # coordinated modifiers: "a black and white dog" is a dog
        if word in _PHRASE_END and words:
            break
        words.append(word)
    # a manner adverb after the noun is no part of it: "driving a car carefully" drives a car
    content = [w for w in words if w not in STOPWORDS and not lexicon.is_adverb_only(w)]
    return lemma(content[-1]) if content else None


def roles_of(part: AtomicClaim) -> tuple[str, str, str] | None:
    """(doer, verb, done-to) of a clause with a subject, a verb and an object: "a man is cutting a
    potato" and "a potato is being cut by a man" both give ("man", "cut", "potato"). None when the
    clause has no object or its verb is only a form of "be"."""
    subject, predicate, obj = part.subject or "", part.predicate or "", part.object or ""
    verbs = [w.lower() for w in _WORD.findall(predicate)]
    if not subject or not obj or not verbs:
        return None
    participle = _WORD.match(obj.strip())
    if verbs[-1] in _BE:  # "is" + "doing a trick", "is being" + "eaten by a girl": the verb left in the object
        if participle is None:
            return None
        first = participle.group(0).lower()
        if first.endswith("ing") and lemma(first) != first:
            verbs.append(first)
            obj = obj.strip()[participle.end():]
        elif _BY.search(obj):
            verbs.append(first)
        else:
            return None
    verb = lemma(verbs[-1])
    if len(verbs) > 1 and verbs[-2] in _BE and not verbs[-1].endswith("ing"):
        by = list(_BY.finditer(obj))
        if not by:
            return None
        doer, done_to = head_noun(obj[by[-1].end():]), head_noun(subject)
        if doer is not None and _is_time(doer):
            return None  # "was finished by noon", "by the end of May": a deadline, not a doer
    elif _PREPOSITION.match(obj):
        return None  # no direct object: "talks to the man", "dances with her" are often mutual
    else:
        doer, done_to = head_noun(subject), head_noun(obj)
    if doer is None or done_to is None or doer == done_to:
        return None
    return doer, verb, done_to


def _frames_exchanged(claim: AtomicClaim, evidence: Evidence) -> str | None:
    """The parse's reading of the same check, for clauses the word-shape reader leaves (names of
    several words: "Harbour Lane beat Old Tannery FC" against "Old Tannery FC beat Harbour Lane"):
    the aligned evidence clause has the claim's verb, its subject among the claim's objects and its
    object in the claim's subject. A verb whose two sides may change places ("met", "drew with":
    words.json ``symmetric_verbs``) is left alone."""
    mine, theirs = aligned_frames(claim.text, evidence.quote)
    if mine is None or theirs is None or not mine.subject or not theirs.subject or mine.voice != theirs.voice:
        return None
    if not _same_verb(mine.predicate, theirs.predicate) or mine.predicate in word_list("symmetric_verbs"):
        return None
    my_objects = {a for dep, a in mine.arguments if dep == "obj"}
    their_objects = {a for dep, a in theirs.arguments if dep == "obj"}
    my_subject = {lemma(w.lower()) for w in _WORD.findall(mine.subject)} - STOPWORDS
    their_subject = {lemma(w.lower()) for w in _WORD.findall(theirs.subject)} - STOPWORDS
    if not my_objects or not their_objects or my_subject & their_subject:
        return None  # the same doer on both sides: no exchange
    if their_objects & my_subject and their_subject & my_objects:
        return (f"the claim has {mine.subject!r} {mine.predicate} the other side; the evidence has "
                f"{theirs.subject!r} {theirs.predicate} {mine.subject!r}")
    return None


def _is_time(word: str) -> bool:
    """Whether a noun names a time ("noon", "Friday", "summer", "the end"), which "by" makes a deadline."""
    return word in _TIME_WORDS or lexicon.is_class_of("time", word) or lexicon.is_kind_of(word, "time period")


def _same(a: str, b: str) -> bool:
    """The claim's word ``a`` and the evidence's ``b`` name one thing: the same word, a synonym, a kind
    either way, or ``a`` naming ``b`` by its class ("instrument" for "guitar")."""
    return a == b or lexicon.related(a, b) in _SAME_THING or lexicon.is_class_of(a, b)


def _same_verb(a: str, b: str) -> bool:
    return a == b or lexicon.related(a, b) in {"same", "synonym", "hypernym", "hyponym", "derived"}


def _evidence_roles(quote: str) -> list[tuple[str, str, str]]:
    """Who does what to whom in the evidence: each clause's roles, and those of a relative clause
    on a noun ("watching a boy who is hitting a ball": the boy hits the ball)."""
    from graphcite.claims import decompose

    found = []
    for part in decompose(quote):
        roles = roles_of(part)
        if roles is not None:
            found.append(roles)
        for phrase in (part.subject or "", part.object or ""):
            relative = _RELATIVE.search(phrase)
            if relative is None:
                continue
            doer, done_to = head_noun(relative.group("noun")), head_noun(relative.group("object"))
            if doer is not None and done_to is not None and doer != done_to:
                found.append((doer, lemma(relative.group("verb").lower()), done_to))
    return found


@rule("GC208", "roles-exchanged", family="slots", effect="insufficient",
      good=[("The heron caught the frog.", "At dawn the heron caught the frog."),
            ("Norway met Spain in Oslo.", "Spain met Norway in Oslo."),
            ("The frog was caught by the heron.", "The heron caught the frog at dawn.")],
      bad=[("The frog caught the heron.", "At dawn the heron caught the frog."),
           ("The heron was caught by the frog.", "The heron caught the frog at dawn."),
           ("The instrument is playing the boy.", "The boy is playing a cello."),
           ("Harbour Lane beat Old Tannery FC.", "Old Tannery FC beat Harbour Lane 2-1 after extra time.")])
def roles_exchanged(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The evidence has the same action with doer and done-to in each other's places.

    "The frog caught the heron" shares every word with "the heron caught the frog", so every slot is
    found and word overlap is complete; the claim still says the opposite of what happened. The rule
    reads who does what to whom on both sides (an active clause's subject, a passive clause's "by"
    phrase) and fails when the evidence's doer is the claim's done-to and the reverse, for the same
    verb (or a synonym of it). A passive paraphrase keeps the roles and passes.
    """
    mine = roles_of(claim)
    if mine is None:
        swapped = _frames_exchanged(claim, evidence)
        return fail(swapped) if swapped else SKIP
    doer, verb, done_to = mine
    if verb in word_list("symmetric_verbs"):
        return PASS  # "Norway met Spain" is "Spain met Norway": the roles may change places
    theirs = [r for r in _evidence_roles(evidence.quote) if _same_verb(verb, r[1])]
    if not theirs:  # the word reader finds no such action there: the parse may (multi-word names)
        swapped = _frames_exchanged(claim, evidence)
        return fail(swapped) if swapped else SKIP
    kept = max((_fit(doer, done_to, d, t) for d, _, t in theirs), default=0)
    for their_doer, their_verb, their_done_to in theirs:
        exchanged = _fit(doer, done_to, their_done_to, their_doer)
        if exchanged > kept:  # the words themselves first: a "bull" is also a kind of "man" in WordNet
            return fail(f"the claim has {doer!r} {verb} {done_to!r}; "
                    f"the evidence has {their_doer!r} {their_verb} {their_done_to!r}")
    return PASS


def _fit(doer: str, done_to: str, their_doer: str, their_done_to: str) -> int:
    """How well the evidence's doer and done-to stand for the claim's: 0 when either does not, else
    one point for each that names the same thing and two for each that is the same word."""
    first, second = _match(doer, their_doer), _match(done_to, their_done_to)
    return first + second if first and second else 0


def _match(mine: str, theirs: str) -> int:
    return 2 if mine == theirs else 1 if _same(mine, theirs) else 0


def passive_doer(part: AtomicClaim) -> str | None:
    """The head of a passive clause's "by" phrase, the one who does the action ("the onion is being
    cut by the cook" -> "cook"); None for an active clause or a passive one that names no doer."""
    found = roles_of(part)
    if found is None or found[2] != head_noun(part.subject or ""):
        return None
    return found[0]


@rule("GC209", "doer-not-in-evidence", family="slots", effect="insufficient",
      good=[("The letter was signed by the mayor.", "The mayor signed the letter on Friday."),
            ("The hedge is being trimmed by a child.", "A boy is trimming the hedge.")],
      bad=[("The letter was signed by the mayor.", "The clerk signed the letter on Friday."),
           ("The hedge is being trimmed by a woman.", "A man is trimming the hedge.")])
def doer_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """Who did it is part of what a passive claim says.

    "The letter was signed by the mayor" against "the clerk signed the letter" shares the letter, the
    signing and most words, so the share of found words passes; the doer, last in the sentence, is
    the one slot that differs. The rule asks that the head of a passive claim's "by" phrase be found
    in the evidence, directly or as a paraphrase (a synonym, a more general or more specific word),
    as GC207 asks of the subject of an active claim.
    """
    doer = passive_doer(claim)
    if doer is None or any(ch.isdigit() for ch in doer):
        return SKIP  # "pushed back by at most 10%": a "by" of how much, which the quantity rules compare
    found = alignment_for(claim, evidence)
    slots = [s for s in found.slots if s.text == doer or lemma(s.text.lower()) == doer]
    if not slots:
        return SKIP  # no slot for it (a pronoun, a light word): nothing to judge
    if any(s.status in {"found", "paraphrase"} for s in slots):
        return PASS
    return fail(f"the claim says it was done by {doer!r}; the evidence does not name {doer!r}")


def _doers(text: str, verb: str, transitive: bool = False) -> list[Token] | None:
    """The nouns doing ``verb`` (a lemma) in the clauses of ``text``, read from the parse: an active
    clause's subject, a passive one's "by" phrase; None when a clause of the verb has a pronoun or no
    doer (its doer cannot be compared)."""
    out: list[Token] = []
    for token in parse(text):
        if token.pos_ != "VERB" or not (token.lemma_.lower() == verb or lexicon.is_synonym(verb, token.lemma_.lower())):
            continue
        if transitive and not any(c.dep_ in {"obj", "iobj", "obl:unmarked"} for c in token.children):
            return None  # "waste transport delayed": a headline's passive without its "was"
        if token.dep_ == "conj" and token.head.pos_ in {"NOUN", "PROPN"}:
            return None  # a clause coordinated with a noun phrase: the parse has lost the subject
        subjects = [c for c in token.children if c.dep_ in {"nsubj", "nsubj:pass", "csubj"}]
        if subjects and subjects[0].dep_ == "nsubj:pass":
            subjects = [c for c in token.children if c.dep_.startswith("obl") and any(g.lower_ == "by" for g in c.children)]
        if not subjects or subjects[0].dep_ in {"nsubj:pass", "csubj"} or subjects[0].pos_ not in {"NOUN", "PROPN"}:
            return None
        out.append(subjects[0])
    return out


def _patient(verb: Token) -> frozenset[str]:
    """The content lemmas of what ``verb`` acts on: its object, or a passive clause's subject."""
    passive = any(c.dep_ == "nsubj:pass" for c in verb.children)
    deps = {"nsubj:pass"} if passive else {"obj"}
    return frozenset(t.lemma_.lower() for c in verb.children if c.dep_ in deps for t in c.subtree
                     if t.pos_ in {"NOUN", "PROPN"})


_PHRASE_REACH = 4  # "concerns over apathy": the words a doer's phrase runs on, which a parse may attach elsewhere


def _phrase_after(token: Token) -> frozenset[str]:
    """The lemmas of ``token``'s phrase and of the few words after it up to a verb or a punctuation."""
    out = {t.lemma_.lower() for t in token.subtree}
    for t in token.doc[token.i + 1:token.i + 1 + _PHRASE_REACH]:
        if t.is_punct or t.pos_ in {"VERB", "AUX"}:
            break
        out.add(t.lemma_.lower())
    return frozenset(out)


def _is_name(token: Token) -> bool:
    """A name, not a description: a proper noun, or a capitalised noun headed phrase inside a sentence
    whose modifiers are names ("the Alde Harbour Trust", which the parse may tag a common noun)."""
    if token.pos_ == "PROPN":
        return True
    return token.i > token.sent.start and token.text[:1].isupper() and any(
        c.dep_ in {"compound", "flat"} and c.pos_ == "PROPN" for c in token.children)


def _aligned_to(claim: AtomicClaim, evidence: Evidence, doer: Token) -> frozenset[str]:
    """The evidence words the alignment found the claim's doer by (an acronym spelled out, a kind of it:
    "people" said by "men")."""
    forms = {doer.lower_, doer.lemma_.lower()}
    out: set[str] = set()
    for slot in alignment_for(claim, evidence).slots:
        if slot.status in {"found", "paraphrase"} and slot.by and forms & set(slot.text.lower().split()):
            out.update(slot.by.lower().split())
    return frozenset(out)


def _phrase_lemmas(token: Token) -> frozenset[str]:
    """A doer noun's lemma with its compounds' ("panda bears" -> panda, bear)."""
    return frozenset(singular(w) for w in (token.lemma_.lower(), *(c.lemma_.lower() for c in token.children
                                                                      if c.dep_ == "compound")))


def _same_doer(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Two doers name one thing: a shared word, or words the lexicon links (a synonym, a kind, a derived
    word: "racers" / "runners" both from what they do)."""
    return bool(mine & theirs) or any(_same(a, b) or lexicon.related(a, b) == "derived" for a in mine for b in theirs)


@rule("GC214", "doer-of-another", family="slots", effect="insufficient",
      good=[("The otter is catching a fish.", "An otter is catching a small fish in the river."),
            ("The otter is catching a fish.", "The fish is caught by an otter.")],
      bad=[("The otter is catching a fish.", "The heron is catching a fish near an otter."),
           ("A kangaroo is picking up the baby.", "The woman is picking up a baby kangaroo."),
           ("The buoy moorings are let by Saltmoor Marina.", "The buoy moorings are let by the Alde Harbour Trust.")])
def doer_of_another(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The evidence has the claim's action done by someone else.

    "A kangaroo is picking up the baby" against "the woman is picking up a baby kangaroo": every word is
    there, so the share passes and no roles are exchanged (the woman is in neither of the claim's
    places), yet the evidence's doer is the woman. Read from the parse: the claim's clause names a
    thing as its doer (an active clause's subject, a passive one's "by" phrase: "let by the marina"
    against "let by the harbour trust"); every clause of the evidence with that verb (or a synonym) has another
    thing as its doer, not the claim's, nor a kind of it or a name against a common noun (which may
    name the same thing).
    """
    if evidence.block_type == "table_row" or claim.connective:
        return SKIP
    mine = main_frame(claim.text)
    if mine is None or mine.predicate in word_list("light_verbs") or (mine.voice == "active" and mine.pronoun_subject):
        return SKIP
    doers = _doers(claim.text, mine.predicate, transitive=mine.voice == "active")
    if not doers or len(doers) != 1:
        return SKIP
    doer = doers[0]
    theirs = _doers(evidence.quote, mine.predicate)
    if not theirs:
        return SKIP
    own = _phrase_lemmas(doer)
    said_by = _aligned_to(claim, evidence, doer)
    patient = _patient(doer.head)
    theirs = [t for t in theirs if not (patient and (other := _patient(t.head)) and not patient & other)]
    if not theirs:
        return SKIP  # the evidence's clauses of that verb act on other things ("producing the film")
    for their in theirs:
        if _is_name(their) != _is_name(doer) or _same_doer(own, _phrase_lemmas(their)) \
                or doer.lemma_.lower() in _phrase_after(their):
            return PASS  # the same doer, a name against a description that may be it, or a phrase
            # holding it ("clouded by apathy" / "clouded by concerns over apathy")
        if said_by & {w for t in their.subtree for w in (t.lower_, t.lemma_.lower())}:
            return PASS  # the alignment says the doer by the evidence's ("FAA" / "Federal Aviation Administration")
    shown = ", ".join(sorted({_name_text(t) for t in theirs}))
    return fail(f"the evidence has {shown!r} {mine.predicate}, not {_name_text(doer)!r}")


def _name_text(token: Token) -> str:
    """A doer as written with its compounds ("Alde Harbour Trust", not "Trust")."""
    words = [token]
    for word in words:
        words += [c for c in word.children if c.dep_ in {"compound", "flat"}]
    indexes = [t.i for t in words]
    return token.doc[min(indexes):max(indexes) + 1].text
