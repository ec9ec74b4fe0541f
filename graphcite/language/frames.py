"""Statements as frames: one typed reading of every clause, for claims and evidence alike.

A :class:`Frame` is what one clause says: its subject (and the restrictions on it), its predicate
(lemma, voice, polarity, modality, tense), its arguments, the conditions attached to the predicate,
and the measurements in it. It is read from the dependency parse of the trained pipeline
(:mod:`graphcite.language.parse`), so a negation, a modal or a condition belongs to the clause whose
predicate it modifies, not to whatever clause happens to share the sentence.

A :class:`Measurement` says what a number measures: the thing (``latency``, ``downtime``, the verb
``keep`` in "kept for 72 hours"), the statistic or selector (p95, mean, max, min, total; "the greater
of"), and the unit it is counted per ("per dose", "a day", "daily"). Values are compared only between
measurements of the same statistic and period (``graphcite.verify.rules.quantity``). In a table row the
column header says what each cell measures and the row's first cell says of what (:func:`cells_of`).

Word lists (statistic words, periods, condition markers, modal verbs) are data in ``data/words.json``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from graphcite.language import lexicon
from graphcite.language.lexicon_forms import is_verb_form
from graphcite.language.nlp import lemma
from graphcite.language.parse import layout, parse
from graphcite.language.predicates import event_nouns
from graphcite.language.words import STOPWORDS, word_list, word_map, words_of

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = [
    "Cell",
    "Frame",
    "Measurement",
    "aligned_frames",
    "asserts_something",
    "cells_of",
    "frame_for",
    "frames_of",
    "main_frame",
    "measurement_at",
    "modality_of",
    "names_a_statistic",
    "period_names",
    "stated_periods",
    "statistic_of",
    "supposed",
    "table_measurement",
    "whichever_selector",
]

_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "acl:relcl", "parataxis", "csubj", "xcomp", "acl"})
_SUBJECT_DEPS = ("nsubj", "nsubj:pass", "csubj", "csubj:pass", "expl")
_ARGUMENT_DEPS = frozenset({"obj", "iobj", "obl", "obl:tmod", "obl:npmod", "obl:agent", "xcomp", "ccomp"})
_SCOPE_DEPS = frozenset({"acl:relcl", "acl", "nmod", "amod"})
_PERCENTILE = re.compile(r"^p(\d{1,2}(?:\.\d+)?)$", re.I)
_ORDINAL = re.compile(r"^(\d{1,2}(?:\.\d+)?)(?:st|nd|rd|th)$", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")


@dataclass(frozen=True, slots=True)
class Measurement:
    """What one number in a text measures: offsets of the value, the thing, the statistic, the period."""

    start: int
    end: int
    measured: frozenset[str]
    statistic: str | None = None
    per: str | None = None
    row: str | None = None  # a table cell: the row's label (what the row is about)


@dataclass(frozen=True, slots=True)
class Frame:
    """One clause as a typed statement; offsets are code points into the text it was read from."""

    start: int
    end: int
    predicate: str
    subject: str | None
    subject_head: str | None
    pronoun_subject: bool
    voice: str
    negated: bool
    negation_cue: str | None
    modality: str
    modality_cue: str | None
    tense: str
    arguments: tuple[tuple[str, str], ...]
    conditions: tuple[str, ...]
    scope: tuple[str, ...]
    quantifier: str | None
    words: frozenset[str]
    embedded: bool  # a clause inside another one (relative, adverbial, complement)
    imperative: bool = False  # an instruction: a bare verb opening the sentence, no subject ("Reject ...")


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a table row: its text's offsets in the row, the column's header and the row's label."""

    start: int
    end: int
    text: str
    column: str
    row: str


@lru_cache(maxsize=1)
def _statistics() -> dict[str, str]:
    """Statistic word -> normalised statistic ("average" -> "mean", "peak" -> "max")."""
    return {word: name for name, words in word_map("statistic_words").items() for word in words}


@lru_cache(maxsize=1)
def _selectors() -> dict[str, str]:
    """Comparative that selects one of several values when followed by "of" ("the greater of")."""
    return {word: name for name, words in word_map("selector_words").items() for word in words}


@lru_cache(maxsize=1)
def _periods() -> dict[str, str]:
    """Adjective or noun of a period or portion a value is counted per ("daily" -> "day")."""
    return {word: name for name, words in word_map("period_words").items() for word in words}


def statistic_of(words: list[str]) -> str | None:
    """The statistic the words name (``["p99", "latency"]`` -> ``"p99"``; "95th percentile" -> p95)."""
    lowered = [w.lower() for w in words]
    for index, word in enumerate(lowered):
        found = _PERCENTILE.match(word)
        if found:
            return f"p{found.group(1)}"
        ordinal = _ORDINAL.match(word)
        if ordinal and index + 1 < len(lowered) and lowered[index + 1].startswith("percentile"):
            return f"p{ordinal.group(1)}"
        if word in _statistics():
            return _statistics()[word]
        if word in _selectors() and index + 1 < len(lowered) and lowered[index + 1] == "of":
            return _selectors()[word]
    return None


# "..., whichever comes first": the selector closes the coordination of values before it
_WHICHEVER = re.compile(r"^[^.;:!?]*?\bwhichever\s+(?:is|comes|occurs|happens|falls|applies|arrives|ends)?\s*"
                        r"(?:the\s+)?([a-z]+)", re.I)


@lru_cache(maxsize=1)
def _whichever() -> dict[str, str]:
    """Word after "whichever (comes)" -> selector: the amount selectors and the order ones ("first")."""
    return {**_selectors(), **{word: name for name, words in word_map("order_selector_words").items()
                               for word in words}}


def whichever_selector(text_after: str) -> str | None:
    """The selector a "whichever ..." phrase later in the same sentence puts on a value ("after 1,400
    landings or at the check, whichever comes first" -> min)."""
    found = _WHICHEVER.match(text_after)
    return _whichever().get(found.group(1).lower()) if found else None


_UNITS_OF_TIME = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})


@lru_cache(maxsize=65_536)
def names_a_statistic(text: str) -> bool:
    """Whether ``text`` has a word that names a statistic, a selector or a period at all (a cheap test
    before any parse: most sentences name none, and their values need no measurement)."""
    for word in _WORD.findall(text):
        low = word.lower()
        if low in _statistics() or low in _selectors() or _PERCENTILE.match(low) or low.startswith("percentile") \
                or low == "whichever":
            return True
        if lemma(low) in _periods() and lemma(low) not in _UNITS_OF_TIME:
            return True  # "daily", "per dose", "monthly"; a bare "days" is a unit, not a period
        if low in {"per", "each", "every"} or low in word_list("total_words"):
            return True  # "per night", "for the whole stay"
    return bool(re.search(r"\b(?:an?)\s+(?:day|week|month|year|hour|night|dose)\b", text, re.I))


def _per_after(doc: Doc, end: int) -> str | None:
    """"per dose", "a day", "each month" right after a value (up to three tokens on)."""
    after = [t for t in doc if t.idx >= end][:3]
    for index, token in enumerate(after):
        low = token.lower_
        if token.is_punct and low not in {"/"}:
            return None
        if low in {"per", "a", "an", "each", "every", "/"} and index + 1 < len(after):
            counted = after[index + 1]
            if counted.dep_ == "compound" and counted.head.i > counted.i and counted.head.is_alpha:
                counted = counted.head  # "per flight hour": counted per hour of flight, not per flight
            noun = lemma(counted.lower_)
            if noun in _periods():
                return _periods()[noun]
            if low in {"per", "/"} and after[index + 1].is_alpha:
                return noun
    return None


def _per_before(tokens: list[Token]) -> str | None:
    for token in tokens:
        name = _periods().get(token.lower_)
        if name is not None and token.pos_ in {"ADJ", "ADV"}:
            return name  # "daily limit", "monthly fee"
    return None


@lru_cache(maxsize=1)
def period_names() -> frozenset[str]:
    """The periods and portions a value may be counted per ("day", "month", "dose", ...)."""
    return frozenset(_periods().values())


def stated_periods(text: str) -> frozenset[str]:
    """Every period ``text`` counts something per, wherever it stands: a period adjective ("the yearly
    bill", "monthly fee") or "per / a / each / every" before a period noun ("twice a week"). A time
    reference ("this year", "last month") names no period."""
    if not names_a_statistic(text):
        return frozenset()
    doc = parse(text)
    found = {_periods()[t.lower_] for t in doc if t.lower_ in _periods() and t.pos_ in {"ADJ", "ADV"}}
    for token, after in pairwise(doc):
        if token.lower_ in {"per", "a", "an", "each", "every", "/"} and lemma(after.lower_) in _periods():
            found.add(_periods()[lemma(after.lower_)])
    return frozenset(found)


def _noun_lemmas(token: Token) -> frozenset[str]:
    """A noun's lemma with its compound modifiers' ("search API latency" -> search, api, latency)."""
    out = {token.lemma_.lower()}
    out |= {c.lemma_.lower() for c in token.children if c.dep_ in {"compound", "flat"} and c.is_alpha}
    return frozenset(w for w in out if w)


def _tokens_in(doc: Doc, start: int, end: int) -> list[Token]:
    return [t for t in doc if t.idx < end and t.idx + len(t.text) > start]


def _is_clause_head(token: Token) -> bool:
    if token.dep_ == "ROOT":
        return True
    if token.dep_ not in _CLAUSE_DEPS:
        return False
    if token.pos_ in {"VERB", "AUX"}:
        return True
    return any(c.dep_ in _SUBJECT_DEPS or c.dep_ == "cop" for c in token.children)


def _clause_of(token: Token) -> Token:
    """The head of the clause a token belongs to."""
    current = token
    for _ in range(64):
        if _is_clause_head(current):
            return current
        if current.head.i == current.i:
            return current
        current = current.head
    return current


def _subject_of(head: Token) -> Token | None:
    for child in head.children:
        if child.dep_ in _SUBJECT_DEPS and child.dep_ != "expl":
            return child
    if head.dep_ in {"conj", "xcomp"} and head.head.i != head.i:
        return _subject_of(head.head)  # "it rose and then fell": the conjunct shares the subject
    return None


def _phrase_words(token: Token) -> list[str]:
    return [t.text for t in token.subtree if not (t.dep_ in {"acl:relcl", "acl"} and t.i != token.i)]


def measurement_at(text: str, start: int, end: int) -> Measurement:
    """What the value at ``text[start:end]`` measures, read from the parse of ``text``."""
    original = (start, end)
    flat = layout(text)
    text = flat.flat
    start, end = flat.flat_span(*original)
    doc = parse(text)
    inside = _tokens_in(doc, start, end)
    if not inside:
        return Measurement(*original, frozenset())
    anchor = next((t for t in inside if not (t.head.idx < end and t.head.idx + len(t.head.text) > start)
                   or t.head.i == t.i), inside[-1])
    clause = _clause_of(anchor)
    measured: frozenset[str] = frozenset()
    nearby: list[str] = []
    # "43 minutes of downtime": the thing is the "of" noun the unit governs
    for child in anchor.children:
        if child.dep_ == "nmod" and any(c.lower_ == "of" for c in child.children) and child.idx >= end:
            measured = _noun_lemmas(child)
            nearby += [child.text, *(c.text for c in child.children if c.dep_ in {"compound", "amod"})]
            break
    current = anchor
    steps = 0
    while not measured and steps < 6:
        steps += 1
        if current.i == clause.i:
            if clause.pos_ == "VERB" and anchor.i != clause.i:
                subject = _subject_of(clause)
                measured = frozenset({clause.lemma_.lower()})
                if subject is not None and subject.pos_ in {"NOUN", "PROPN"}:
                    measured |= _noun_lemmas(subject)
                    nearby += _phrase_words(subject)
            else:  # a copular clause: "p99 latency is 40 ms", the subject is what is measured
                subject = _subject_of(clause)
                if subject is not None:
                    measured = _noun_lemmas(subject)
                    nearby += _phrase_words(subject)
            break
        head = current.head
        if _in(head, _statistics()) or _in(head, _selectors()):
            nearby.append(head.text)  # "the greater of £20 ...", "the maximum of 8": a selector, not the thing
        elif head.pos_ in {"NOUN", "PROPN"} and not (start <= head.idx < end):
            measured = _noun_lemmas(head)
            nearby += [head.text, *(c.text for c in head.children if c.dep_ in {"compound", "amod", "nmod:npmod"})]
            break
        current = head
    before = []
    for token in reversed([t for t in doc if t.idx < start and _clause_of(t).i == clause.i][-5:]):
        if token.like_num or token.pos_ in {"CCONJ", "PUNCT"}:
            break  # "40 ms at p95 and 85 ms": the words before the last number are that number's
        before.insert(0, token)
    after = [t.text for t in doc if t.idx >= end][:3]
    attached = after[:2] if after and after[0].lower() in {"at", "for", "in", "as"} else after[:1]
    statistic = next((found for words in (
        [t.text for t in inside], attached, [t.text for t in before], nearby) if (found := statistic_of(words))), None)
    if statistic is None and "whichever" in text[end:].lower():
        statistic = whichever_selector(text[end:])
    per = _per_after(doc, end) or _per_before([*before, *(t for t in doc if t.text in nearby)]) or _total(clause, anchor)
    return Measurement(*original, measured, statistic, per)


def _total(clause: Token, anchor: Token) -> str | None:
    """"total" when the value's clause counts it over a whole ("for their whole stay", "in total",
    "altogether": words.json ``total_words``), which a figure per night or per visit is not."""
    words = word_list("total_words")
    own = [t for t in clause.subtree if _clause_of(t).i == clause.i and t.i != anchor.i]
    return "total" if any(t.lower_ in words for t in own) else None


def cells_of(row: str, headers: tuple[str, ...]) -> tuple[Cell, ...]:
    """The cells of a Markdown or HTML table row (``| a | b |`` or ``a | b``) with their headers.

    The first cell names what the row is about; each cell's column header says what it holds.
    """
    cells: list[Cell] = []
    position = 0
    spans: list[tuple[int, int]] = []
    for piece in row.split("|"):
        begin, finish = position, position + len(piece)
        position = finish + 1
        stripped = piece.strip()
        if not stripped:
            continue
        lead = len(piece) - len(piece.lstrip())
        spans.append((begin + lead, begin + lead + len(stripped)))
    if not spans:
        return ()
    label = row[spans[0][0]:spans[0][1]]
    for index, (begin, finish) in enumerate(spans):
        column = headers[index] if index < len(headers) else ""
        cells.append(Cell(begin, finish, row[begin:finish], column, label))
    return tuple(cells)


def _header_terms(text: str) -> frozenset[str]:
    return frozenset(lemma(w.lower()) for w in _WORD.findall(text) if w.lower() not in STOPWORDS)


def _shared(header: frozenset[str], wanted: frozenset[str], names: frozenset[str] = frozenset()) -> int:
    """How many header words the claim says, itself or by a WordNet paraphrase ("cost" / "Price"); a name
    in the header (a capitalised word after its first: "Credit for Business") only as itself, since
    WordNet's "enterprise" is a "business" but the plan called Enterprise is not the one called Business."""
    return sum(1 for h in header if h in wanted or (h not in names and any(
        lexicon.related(w, h) in _HEADER_LINKS for w in wanted if len(w) > 2 and len(h) > 2)))


def _header_names(text: str) -> frozenset[str]:
    return frozenset(lemma(w.lower()) for w in _WORD.findall(text)[1:] if w[:1].isupper())


_HEADER_LINKS = frozenset({"same", "synonym", "hypernym", "hyponym", "derived"})


def named_column(claim: str, row: str, headers: tuple[str, ...], holds: Callable[[Cell], bool],
                 near: str = "") -> Cell | None:
    """The cell of ``row`` whose column the claim names: of the cells that ``holds`` admits (a value the
    claim's could be compared with), the one whose header shares most words with the words ``near`` the
    value (the whole claim when none are given, or to break a tie between the headers they name); None when
    no header shares a word or two still tie. "Children aged 7
    to 11 can take 300 mg in a single dose" names "Amount per dose", not "Most in 24 hours", though
    both hold milligrams; in "lost six of their 22 games" the six is the "Lost" column's, the 22 not.

    The row's label column never counts: it names the row, not a measurement."""
    cells = cells_of(row, headers)
    candidates = [i for i, c in enumerate(cells) if i and c.column and holds(c)]
    for text in (near, claim) if _header_terms(near) else (claim,):
        wanted = _header_terms(text)
        scored = sorted(((_shared(_header_terms(cells[i].column), wanted, _header_names(cells[i].column)), i)
                         for i in candidates), reverse=True)
        if scored and scored[0][0] and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            return cells[scored[0][1]]
        if scored and scored[0][0]:
            # two columns tie on the words next to the value ("gets a 60% credit": "Credit for Business",
            # "Credit for Enterprise"): the rest of the claim may name one ("A Business customer ...")
            candidates = [i for n, i in scored if n == scored[0][0]]
    return None


def table_measurement(row: str, headers: tuple[str, ...], start: int, end: int) -> Measurement | None:
    """The measurement of the value at ``row[start:end]``: its column's header and its row's label."""
    for cell in cells_of(row, headers):
        if cell.start <= start and end <= cell.end:
            words = _WORD.findall(cell.column)
            measured = frozenset(lemma(w.lower()) for w in words if not statistic_of([w]))
            per = next((_periods()[lemma(w.lower())] for w in words if lemma(w.lower()) in _periods()), None)
            return Measurement(start, end, measured, statistic_of(words), per, cell.row)
    return None


_RESTRICTING = frozenset({"only", "except", "excluding", "solely", "exclusively", "unless"})


@lru_cache(maxsize=1)
def _modal_aux() -> dict[str, str]:
    return {word: name for name, words in word_map("modal_auxiliaries").items() for word in words}


@lru_cache(maxsize=1)
def _modal_heads() -> dict[str, str]:
    """Verbs and adjectives that carry a modality onto the verb they govern ("need to", "is required to")."""
    return {word: name for name, words in word_map("modal_heads").items() for word in words}


def _forms(token: Token) -> tuple[str, ...]:
    """The token's POS-aware lemma, its lookup lemma and its lowercase form (for word-list membership)."""
    return (token.lemma_.lower(), lemma(token.lower_), token.lower_)


def _in(token: Token, words: frozenset[str] | dict[str, str]) -> bool:
    return any(form in words for form in _forms(token))


def _negation(head: Token) -> tuple[bool, str | None]:
    negations = word_list("negation")
    for child in head.children:
        if child.dep_ in {"advmod", "neg", "det", "cc:preconj"} and child.lower_ in negations:
            return True, child.lower_
        if child.dep_ == "aux" and child.lower_ in negations:  # "cannot" as one token
            return True, child.lower_
    for child in head.children:
        if child.dep_ in {"obj", "nsubj", "nsubj:pass", "obl"} and any(
                d.dep_ in {"det", "advmod"} and d.lower_ in {"no", "neither"} for d in child.children):
            return True, "no"
    # "There is no man walking in the rain": a participle clause of a noun that "no" denies is denied too
    if head.dep_ == "acl":  # ... or of a noun inside its phrase ("no man in a hat playing a harp")
        node = head.head
        while True:
            if any(d.dep_ == "det" and d.lower_ in {"no", "neither"} for d in node.children):
                return True, "no"
            if node.dep_ not in {"nmod", "compound", "appos"} or node.head is node:
                break
            node = node.head
    return False, None


def _implicit_negation(head: Token) -> str | None:
    """"failed to ship", "declined to sign", "has yet to win": the governed verb did not happen."""
    implicative = word_list("implicative_negation")
    parent = head.head
    if head.dep_ == "xcomp" and _in(parent, implicative):
        return parent.lemma_.lower()
    if any(c.lower_ == "yet" for c in head.children) and any(c.lower_ == "to" and c.dep_ == "mark" for c in head.children):
        return "yet to"
    return None


def modality_of(head: Token) -> tuple[str, str | None]:
    """(modality, cue) of a clause from its auxiliaries and modal heads; "asserted" when none."""
    negated, _cue = _negation(head)
    chain = [head]
    if head.dep_ == "xcomp" and _in(head.head, _modal_heads()):
        chain.append(head.head)
    for token in chain:
        name = next((_modal_heads()[f] for f in _forms(token) if f in _modal_heads()), None) if token.i != head.i else None
        if name and any(c.lower_ == "yet" for c in (*token.children, *head.children)):
            name = None  # "have yet to show": not yet happened (an implicit negative), no duty
        if name:
            outer, _c = _negation(token)
            if outer and name == "may":
                return "must-not", token.lower_  # "is not allowed to", "may not be permitted"
            if outer and name == "must":  # "does not have to" frees; "is not required" too
                return ("may" if _in(token, frozenset({"have", "need", "require", "required"})) else "must-not",
                        token.lower_)
            return name, token.lower_
        for child in token.children:
            if child.dep_ in {"aux", "aux:pass"}:
                found = _modal_aux().get(child.lower_)
                if found:
                    if negated and found in {"must", "may"}:
                        return "must-not", f"{child.lower_} not"
                    return found, child.lower_
    return "asserted", None


def _tense(head: Token) -> str:
    auxes = [c for c in head.children if c.dep_ in {"aux", "aux:pass", "cop"}]
    if not auxes and head.tag_ in {"VBG", "VBN"} and head.dep_ in {"parataxis", "conj", "advcl", "xcomp"} \
            and head.head.i != head.i:
        return _tense(head.head)  # a participle has the tense of the clause it hangs on ("was outside, doing ...")
    if any(a.lower_ in {"will", "shall", "'ll"} for a in auxes):
        return "future"
    if any("Past" in a.morph.get("Tense") for a in auxes) or (
            not auxes and "Past" in head.morph.get("Tense") and head.tag_ == "VBD"):
        return "past"
    if not auxes and head.tag_ in {"NN", "JJ"} and head.i > 0 and not head.lower_.endswith("ing") \
            and is_verb_form(head.lower_) and head.doc[head.i - 1].pos_ in {"PROPN", "NOUN", "PRON"}:
        return "past"  # a past form the tagger took for a noun after its subject: "The Titanic sank"
    return "present"


def _conditions(head: Token, text: str, own: list[Token] | None = None,
                subject: Token | None = None) -> tuple[str, ...]:
    """The conditions attached to a predicate: "if ..." / "unless ..." clauses, "when ..." clauses of a
    predicate that is not past (a past "when he was ten", a past event "after striking ice" give a time), and phrases opened by "only" or "except"
    anywhere in the clause but its subject ("... with water, only after a meal")."""
    markers = word_list("condition_markers")
    timed_markers = word_list("temporal_condition_markers")
    out = []
    # an adverbial clause the parse hangs on the predicate's object ("closed to coaches when the field
    # is wet") is the predicate's too
    clauses = [*head.children, *(g for c in head.children if c.dep_ in {"obl", "obj"} for g in c.children)]
    for child in clauses:
        if child.dep_ == "advcl":
            marks = [c.lower_ for c in child.children if c.dep_ == "mark"
                     or (c.dep_ == "advmod" and c.tag_ == "WRB")]
            only = any(c.lower_ in _RESTRICTING for c in child.children if c.dep_ == "advmod")
            timed = [m for m in marks if m in timed_markers]
            if only or any(m in markers for m in marks) or (
                    timed and _tense(child) != "past" and _tense(head) != "past" and not _of_a_time(child)):
                out.append(_span_text(child, text))  # "when it rains" holds a condition; "when he was ten" a time
                # and so does any "after"/"when" clause of a past event ("sank in 1912 after striking ice")
    in_subject = {t.i for t in subject.subtree} if subject is not None else set()
    for token in own or ():
        if token.lower_ not in _RESTRICTING or token.i in in_subject or (
                token.i > 0 and token.doc[token.i - 1].lower_ == "not"):
            continue  # "not only on queue lag" adds a case, it does not restrict
        phrase = token.head if token.head.i != head.i else next(
            (s for s in head.children if s.dep_ in {"obl", "advcl", "obl:tmod"} and s.i > token.i), None)
        if phrase is not None and phrase.i not in in_subject:
            found = _span_text(phrase, text)
            out.append(found if any(t.i == token.i for t in phrase.subtree) else f"{token.text} {found}")
    cleaned = (c.strip(" ,;:") for c in out)
    return tuple(c for c in dict.fromkeys(cleaned) if len(c.split()) >= 2)


def _of_a_time(clause: Token) -> bool:
    """Whether a "when"/"where" clause describes the time or day just before it ("return on Monday,
    when they may be charged"): it says what happens then, it does not restrict the statement."""
    at = clause.left_edge.i - 1
    doc = clause.doc
    while at >= 0 and doc[at].is_punct:
        at -= 1
    if at < 0:
        return False
    word = doc[at].lower_
    return word in word_list("restricted_time_words") or lemma(word) in word_list("time_nouns") \
        or word in word_list("month_names") or doc[at].like_num


def _set_off(token: Token) -> bool:
    """Whether the phrase ``token`` heads is set off by a comma ("American football, also known as
    gridiron, ..."): a non-restrictive phrase describes the thing, it does not narrow it."""
    first = token.left_edge.i
    if first <= token.head.i:
        return False
    return token.doc[first].text == "," or token.doc[first - 1].text == ","


def _span_text(token: Token, text: str) -> str:
    subtree = list(token.subtree)
    return text[subtree[0].idx: subtree[-1].idx + len(subtree[-1].text)]


def _scope(subject: Token | None, text: str) -> tuple[tuple[str, ...], str | None]:
    if subject is None:
        return (), None
    restrictions = []
    quantifier = None
    for child in subject.children:
        if child.dep_ in {"det", "det:predet"} and child.lower_ in {"every", "all", "each", "any", "no", "some",
                                                                    "most", "many", "few"}:
            quantifier = child.lower_
        elif child.dep_ in _SCOPE_DEPS and not (child.dep_ == "amod" and child.pos_ == "ADJ") \
                and not _set_off(child):
            restrictions.append(_span_text(child, text))
    return tuple(restrictions), quantifier


_IMPERATIVE_OPENERS = frozenset({"do", "not", "n't", "never", "always", "please", "only", "first", "then", "also"})


def _imperative(head: Token, subject: Token | None) -> bool:
    """A bare verb that opens its sentence with no subject: "Reject events ...", "Do not share ..."."""
    if subject is not None or head.dep_ not in {"ROOT", "conj"} or head.tag_ != "VB" or head.pos_ != "VERB":
        return False
    opening = [t for t in head.sent if not t.is_punct and not t.is_space]
    before = [t for t in opening if t.i < head.i]
    return all(t.lower_ in _IMPERATIVE_OPENERS for t in before) and not any(
        c.dep_ in {"aux", "mark"} and c.lower_ not in _IMPERATIVE_OPENERS for c in head.children)


def _own_tokens(head: Token, heads: set[int]) -> list[Token]:
    out = []
    stack = [head]
    while stack:
        token = stack.pop()
        out.append(token)
        stack.extend(c for c in token.children if c.i not in heads)
    return sorted(out, key=lambda t: t.i)


@lru_cache(maxsize=8192)
def frames_of(text: str) -> tuple[Frame, ...]:
    """Every clause of ``text`` as a :class:`Frame`, in text order (offsets into ``text`` itself)."""
    flat = layout(text)
    text = flat.flat
    doc = parse(text)
    heads = [t for t in doc if _is_clause_head(t) and not t.is_punct]
    # a modal head's complement is the clause's content: "need to renew" reads as renew (must)
    folded = {t.i for t in heads if t.dep_ == "xcomp" and _in(t.head, _modal_heads())}
    carriers = {doc[i].head.i for i in folded}
    head_ids = {t.i for t in heads}
    frames = []
    for head in heads:
        if head.i in carriers:
            continue
        own = _own_tokens(head, head_ids - {head.i})
        if head.i in folded:
            own = sorted({*own, *_own_tokens(head.head, head_ids - {head.head.i, head.i})}, key=lambda t: t.i)
        subject = _subject_of(head.head if head.i in folded else head) or _subject_of(head)
        negated, cue = _negation(head)
        if not negated and head.i in folded:
            negated, cue = _negation(head.head)
        if not negated:
            implicit = _implicit_negation(head)
            negated, cue = implicit is not None, implicit
        modality, modal_cue = modality_of(head)
        scope, quantifier = _scope(subject, text)
        arguments = tuple((c.dep_, c.lemma_.lower()) for c in head.children if c.dep_ in _ARGUMENT_DEPS)
        conditions = _conditions(head, text, own, subject) + (_conditions(head.head, text) if head.i in folded else ())
        words = frozenset(t.lemma_.lower() for t in own if t.is_alpha)
        frames.append(Frame(
            start=flat.original(own[0].idx, own[0].idx + 1)[0],
            end=flat.original(own[-1].idx, own[-1].idx + len(own[-1].text))[1], predicate=head.lemma_.lower(),
            subject=_span_text(subject, text) if subject is not None else None,
            subject_head=subject.lemma_.lower() if subject is not None else None,
            pronoun_subject=subject is not None and subject.pos_ == "PRON",
            voice="passive" if any(c.dep_ in {"nsubj:pass", "aux:pass"} for c in head.children) else "active",
            negated=negated, negation_cue=cue, modality=modality, modality_cue=modal_cue, tense=_tense(head),
            arguments=arguments, conditions=conditions, scope=scope, quantifier=quantifier, words=words,
            embedded=head.dep_ not in {"ROOT", "conj", "parataxis"} and head.i not in folded,
            imperative=_imperative(head, subject)))
    return tuple(frames)


def frame_for(text: str, wanted: frozenset[str]) -> Frame | None:
    """The clause of ``text`` that says most of ``wanted`` (lemmas); a main clause wins a tie."""
    frames = frames_of(text)
    if not frames:
        return None
    return max(frames, key=lambda f: (len(f.words & wanted), f.predicate in wanted, not f.embedded, -f.start))


_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})


@lru_cache(maxsize=8192)
def asserts_something(text: str) -> bool:
    """Whether ``text`` states anything a source could support: a clause with a content word.

    "OK.", "x", "It is so.", "{}", "%s", "I hope this helps." and a question back assert nothing
    checkable; such a sentence is never supported, whatever its quote says.
    """
    stripped = text.strip()
    if not stripped or stripped.endswith("?"):
        return False
    doc = parse(layout(stripped).flat)
    personal = word_list("non_assertion_verbs")
    content = [t for t in doc if t.pos_ in _CONTENT_POS and (t.is_digit or (t.is_alpha and len(t.text) > 1))
               and t.lower_ not in word_list("weak_words") and not t.is_stop]
    formulae = word_list("answer_formulae")
    said = [t for t in doc if t.is_alpha and not t.is_stop and t.lower_ not in STOPWORDS]
    if said and all(t.lower_ in formulae or t.lemma_.lower() in formulae for t in said):
        return False  # "Sure!", "Thanks for asking.", "Let me know if you have other questions."
    if not content:
        return False
    # "I hope this helps.", "Here is what I found.": the speaker talks about the answer, not the world
    speaker = any(t.dep_.startswith("nsubj") and t.lower_ in {"i", "we"} for t in doc)
    return not ((speaker and all(_in(t, personal) or (t.pos_ != "VERB" and t.pos_ != "NOUN") for t in content))
                or all(t.lower_ in personal for t in content))


def main_frame(text: str) -> Frame | None:
    """The clause ``text`` asserts: its first main clause (a relative or adverbial clause only when alone)."""
    frames = frames_of(text)
    return next((f for f in frames if not f.embedded), frames[0] if frames else None)


def content_words(frame: Frame) -> frozenset[str]:
    return frozenset(w for w in frame.words if w not in word_list("light_verbs") and len(w) > 2
                     and w not in STOPWORDS)


@lru_cache(maxsize=65_536)
def supposed(text: str, frame: Frame) -> bool:
    """Whether ``frame`` (read from ``text``) is only supposed: its clause, or one it sits in, is opened
    by a condition marker ("if", "unless", "whether": words.json ``condition_markers``), so the text
    does not assert it ("If the ruling is that the secrets were stolen, ..." asserts no theft)."""
    markers = word_list("condition_markers")
    flat = layout(text)
    doc = parse(flat.flat)
    heads = [t for t in doc if frame.start <= flat.original(t.idx, t.idx + 1)[0] < frame.end
             and t.lemma_.lower() == frame.predicate]
    for token in heads[:1]:
        for node in (token, *token.ancestors):
            if node.dep_ in {"advcl", "csubj"} and any(c.dep_ == "mark" and c.lower_ in markers for c in node.children):
                return True
    return False


@lru_cache(maxsize=65_536)
def aligned_frames(claim: str, evidence: str) -> tuple[Frame | None, Frame | None]:
    """The claim's main clause and the evidence clause that says most of it: polarity, modality,
    conditions and measurements are compared between these two only, never with another clause."""
    mine = main_frame(claim)
    if mine is None:
        return None, None
    wanted = content_words(mine) | {mine.predicate}
    frames = frames_of(evidence)
    if not frames:
        return mine, None
    subject = _subject_words(mine)
    said = {mine.predicate} | event_nouns(mine.predicate)  # "removed" is said by "removal"

    def score(f: Frame) -> tuple[bool, int, bool, bool, int]:
        # the clause about the claim's own subject wins: "Dissolving stitches need no removal; other
        # stitches are taken out at the check" has the claim's "check" in its second clause
        theirs = _subject_words(f)
        return (bool(subject) and subject <= theirs, len(f.words & wanted) + len(theirs & subject),
                bool(f.words & said), not f.embedded, -f.start)

    return mine, max(frames, key=score)


def _subject_words(frame: Frame) -> frozenset[str]:
    """The content lemmas of a frame's subject phrase ("dissolving stitches" -> dissolving, stitch)."""
    if not frame.subject:
        return frozenset()
    return frozenset(w.lemma for w in words_of(frame.subject) if w.lemma not in STOPWORDS and len(w.lemma) > 2)

