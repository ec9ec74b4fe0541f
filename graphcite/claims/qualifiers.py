"""Qualifiers of one draft claim: negation, modality, tense and time, quantifier and entity.

Each reader looks only at the tokens of its own claim (shared subject and carried auxiliary included,
conditions excluded), so a negation inside "unless the request is not idempotent" or inside a
relative clause in the object does not negate the main claim.
"""

from __future__ import annotations

from graphcite.claims import cues as C
from graphcite.claims.clauses import Draft
from graphcite.claims.syntax import (
    BULLETS,
    END_PUNCT,
    REL,
    Cue,
    Doc,
    Pred,
    dotted_end,
    has_label,
    is_adverb,
    is_aux,
    is_year,
    nounish,
    verb_form,
)
from graphcite.language.words import word_list

__all__ = [
    "char_span", "entity_of", "modality_of", "negation_of", "quantifier_of", "subject_start_of",
    "tense_of",
]

_CONSIDER_FAMILY = frozenset({"discussed", "evaluated", "explored", "debated", "weighed", "looked into",
                              "toyed with", "floated"})
_CONSIDER_TAIL = frozenset({",", ".", ";", "for", "but", "by", "in", "during", "and", "as", "at", "before",
                            "after", "last", "twice", "briefly", "again", "on", "early", "when", "while", "then",
                            "until", "alongside", "once", "earlier", "previously", "instead", "too", "there"})
_DEF_START = frozenset({"a", "an"})
_ENTITY_STRIP = frozenset({"the", "a", "an", "all", "every", "each", "some", "any", "no", "none", "our", "its",
                           "their", "this", "these", "those", "both", "of", "not", "neither", "either", "only",
                           "my", "your"})


def _tokens_of(draft: Draft) -> list[int]:
    """Token indexes of a clause draft that its qualifiers are read from (conditions excluded)."""
    idx: list[int] = []
    if draft.shared and draft.subject is not None:
        idx.extend(range(*draft.subject))
        idx.extend(draft.carried)
    for k in range(draft.a, draft.b):
        if not any(c[0] <= k < c[1] for c in draft.conditions):
            idx.append(k)
    return idx


def negation_of(d: Doc, draft: Draft, subject_start: int | None) -> tuple[bool, str | None]:
    """Negated or not, with the first cue; two cues cancel ("never fails to")."""
    pred = draft.pred
    cues: list[str] = []
    if draft.kind != "clause":
        return False, None
    if draft.subject is not None and subject_start is not None and subject_start < draft.subject[1]:
        cue = d.cue_at.get(subject_start)
        if cue is not None and has_label(cue, "NEG") and not has_label(cue, "NEGX"):
            cues.append(d.text[d.starts[cue.start]:d.ends[cue.end - 1]])
        elif d.lower[subject_start] == "not" and subject_start + 1 < d.n and d.lower[subject_start + 1] in {"all", "every"}:
            cues.append("not")
    if pred is None:
        return bool(cues), cues[0] if cues else None
    region = [k for k in _tokens_of(draft) if k >= pred.start]
    if draft.shared:
        region = sorted(set(region) | set(draft.carried))
    in_relative = False
    neither = False
    seen: set[int] = set()
    for k in region:
        if d.opaque[k]:
            continue
        w = d.lower[k]
        if w in REL and k > pred.end and (w != "that" or nounish(d, k - 1, pred.end)):
            in_relative = True
        if in_relative:
            continue
        cue = d.covered[k]
        if cue is None or id(cue) in seen or not has_label(cue, "NEG") or has_label(cue, "NEGX"):
            continue
        seen.add(id(cue))
        if cue.phrase == "nor" and neither:
            continue
        if cue.phrase == "neither":
            neither = True
        if cue.phrase == "no" and k + 1 < d.n and d.lower[k + 1] in {"more", "less", "fewer", "later", "earlier"}:
            continue
        if cue.phrase == "not" and k > 0 and d.lower[k - 1] == "," and k + 1 < d.n \
                and not is_aux(d, k + 1) and verb_form(d, k + 1) is None:
            continue  # contrast: "treated as uncertain outcomes, not as failures"
        cues.append(d.text[d.starts[cue.start]:d.ends[cue.end - 1]])
    if draft.forced_negation and not in_relative:
        cues.insert(0, draft.forced_negation)
    ceased = _ceased(d, pred, draft.b)
    if ceased:
        cues.append(ceased)
    negated = len(cues) % 2 == 1
    return negated, (cues[0] if cues else None)


def _ceased(d: Doc, pred: Pred, end: int) -> str | None:
    """"stopped issuing", "ceased trading", "gave up teaching": a verb of ceasing or avoiding whose
    complement is a gerund says the gerund's action does not (or did not) happen, as "no longer" does.
    The verbs are the word list ``implicative_negation`` (with ``cessative_phrases`` for two-word ones)."""
    if pred.end >= min(end, d.n) or verb_form(d, pred.end) != "ing":
        return None
    head = " ".join(d.lemma[pred.start:pred.end]).lower()
    last = d.lemma[pred.end - 1].lower()
    if last in word_list("implicative_negation") or head in word_list("cessative_phrases"):
        return d.text[d.starts[pred.start]:d.ends[pred.end - 1]]
    return None


def modality_of(d: Doc, draft: Draft) -> tuple[str, str | None]:
    """Modality and its cue: the verb group first, then perfect aspect, then the subject."""
    pred = draft.pred
    if draft.kind == "link":
        return draft.link_modal if draft.link_modal else ("asserted", None)
    if draft.kind != "clause":
        return "asserted", None
    tokens = _tokens_of(draft)
    verb_group = set(range(pred.start, pred.end)) | set(draft.carried) if pred is not None else set()
    # 1. cue phrases in the verb group (and right after it, for "is planned for")
    for k in sorted(verb_group) + ([pred.end] if pred is not None and pred.end < draft.b else []):
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k] or not has_label(cue, "MOD:"):
            continue
        found = _read_modality(d, cue, draft)
        if found is not None:
            return found
    if pred is None:
        for k in tokens:
            cue = d.cue_at.get(k)
            if cue is not None and not d.opaque[k] and has_label(cue, "MOD:"):
                found = _read_modality(d, cue, draft)
                if found is not None:
                    return found
    # 2. perfect aspect: has/have/had + participle
    if pred is not None and pred.aux and pred.main != pred.aux[-1]:
        auxes = [d.lower[x] for x in pred.aux]
        if auxes[0] in C.AUX_HAVE and d.lower[pred.main] not in {"to"}:
            return "completed", d.text[d.starts[pred.aux[0]]:d.ends[pred.main]]
    # 3. a proposal or plan named in the subject or a leading phrase ("The proposed design ...")
    subject = range(*draft.subject) if draft.subject is not None else range(0)
    scan = [k for span in draft.context for k in range(*span)] + [k for k in tokens if k in subject]
    for k in scan:
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k]:
            continue
        for label in cue.labels:
            if label in {"MOD:proposed", "MOD:planned"} and cue.phrase not in {"would"}:
                return label[4:], d.text[d.starts[cue.start]:d.ends[cue.end - 1]]
    return "asserted", None


def _read_modality(d: Doc, cue: Cue, draft: Draft) -> tuple[str, str] | None:
    """The modality a MOD cue gives here, or None when the context cancels it."""
    label = next(lab for lab in cue.labels if lab.startswith("MOD:"))[4:]
    phrase = cue.phrase
    start = cue.start
    after = cue.end
    nxt = d.lower[after] if after < d.n else "."
    prev_aux = start > 0 and d.lower[start - 1] in C.AUX_BE | C.AUX_HAVE
    if phrase == "may" and start > 0 and d.words[start][0].isupper():
        return None
    if label == "considered":
        passive = prev_aux or phrase.split()[0] in C.AUX_BE
        if phrase in _CONSIDER_FAMILY:
            if start > 0 and d.lower[start - 1] in {"is", "are", "be"}:
                return None
        elif passive and nxt not in _CONSIDER_TAIL and after < draft.b:
            return None  # "is considered safe"
    if label == "completed" and " " not in phrase and start > 0 and d.lower[start - 1] in {"is", "are", "be", "being"}:
        return None  # "is deployed nightly" describes a routine
    if label == "must" and cue.end < d.n and d.lower[cue.end] in {"not", "n't", "never"}:
        return "must-not", d.text[d.starts[start]:d.ends[cue.end]]
    return label, d.text[d.starts[start]:d.ends[cue.end - 1]]


def tense_of(d: Doc, draft: Draft, subject_start: int | None) -> tuple[str, str | None]:
    """Tense and the cue that decided it (future > past time > past verb > present cue > timeless)."""
    tokens = [k for span in draft.context if d.lower[span[0]] != "since" for k in range(*span)]
    tokens += [k for k in _tokens_of(draft) if not any(s[0] <= k < s[1] for s in draft.context)]
    pred = draft.pred
    past_cue = current_cue = None
    for k in tokens:
        cue = d.cue_at.get(k)
        if cue is None or d.opaque[k]:
            continue
        if has_label(cue, "TIME:future"):
            if cue.phrase in {"will", "'ll", "wo"} and pred is not None and k not in range(pred.start, pred.end) \
                    and k not in draft.carried:
                continue
            return "future", cue.phrase
        if has_label(cue, "TIME:past") and past_cue is None:
            if cue.phrase == "used to" and k > 0 and d.lower[k - 1] in C.AUX_BE | {"get", "got"}:
                continue
            past_cue = d.text[d.starts[cue.start]:d.ends[cue.end - 1]]
        if has_label(cue, "TIME:current") and current_cue is None:
            current_cue = d.text[d.starts[cue.start]:d.ends[cue.end - 1]]
    for span in draft.context:
        if span[1] - span[0] == 2 and d.lower[span[0]] == "until" and is_year(d.lower[span[0] + 1]):
            past_cue = past_cue or d.text[d.starts[span[0]]:d.ends[span[1] - 1]]
    if past_cue:
        return "past", past_cue
    if pred is not None:
        auxes = list(draft.carried) + list(pred.aux)
        if auxes:
            first = d.lower[auxes[0]]
            if first in C.PAST_AUXILIARIES:
                return "past", d.words[auxes[0]]
        elif verb_form(d, pred.head) == "past":
            return "past", d.words[pred.head]
    if current_cue:
        return "current", current_cue
    if _definitional(d, draft, subject_start):
        return "timeless", None
    return "current", None


def _definitional(d: Doc, draft: Draft, subject_start: int | None) -> bool:
    """Is the claim a definition with a generic subject ("A timeout is a ...")?"""
    pred = draft.pred
    if pred is None or draft.subject is None or subject_start is None or draft.shared:
        return False
    subject = range(subject_start, draft.subject[1])
    if any((d.words[k][:1].isupper() and k > subject_start) or any(ch.isdigit() or ch in "_./" for ch in d.words[k])
           for k in subject):
        return False
    first = d.lower[subject_start]
    generic = first in _DEF_START or (first not in C.DETERMINERS and first not in C.PRONOUNS)
    if not generic:
        return False
    for k in range(pred.start, min(pred.end + 1, d.n)):
        cue = d.cue_at.get(k)
        if cue is not None and has_label(cue, "DEF"):
            return True
    return (d.lower[pred.main] in {"is", "are"} and len(pred.aux) == 1 and pred.end < d.n
            and d.lower[pred.end] in {"a", "an"} and first in _DEF_START)


def quantifier_of(d: Doc, draft: Draft, subject_start: int | None) -> str | None:
    """The first quantifier word of the subject, else of the object."""
    ranges: list[range] = []
    if draft.subject is not None and subject_start is not None:
        ranges.append(range(subject_start, draft.subject[1]))
    if draft.obj is not None:
        ranges.append(range(*draft.obj))
    for span in ranges:
        for k in span:
            w = d.lower[k]
            if w not in C.QUANTIFIERS or d.opaque[k]:
                continue
            cue = d.covered[k]
            if cue is not None and (has_label(cue, "NEGX") or (cue.end - cue.start > 1 and w == "no")):
                continue
            if w == "all" and k > 0 and d.lower[k - 1] == "at":
                continue
            if w == "any" and k + 1 < d.n and d.lower[k + 1] in {"longer", "more"}:
                continue
            return w
    return None


def subject_start_of(d: Doc, draft: Draft) -> int | None:
    """First token of the subject after leading punctuation and adverbs."""
    if draft.subject is None:
        return None
    a, b = draft.subject
    while a < b and (d.lower[a] in END_PUNCT or (is_adverb(d, a) and d.lower[a] not in {"no", "only", "not"})):
        a += 1
    return a if a < b else None


def entity_of(d: Doc, draft: Draft, subject_start: int | None) -> str | None:
    """The subject without determiners and quantifiers; None for a pronoun."""
    if draft.subject is None or subject_start is None:
        return None
    a, b = subject_start, draft.subject[1]
    while a < b and (d.lower[a] in _ENTITY_STRIP or d.lower[a] in END_PUNCT):
        a += 1
    if a >= b or (b - a == 1 and d.lower[a] in C.PRONOUNS):
        return None
    chars = char_span(d, a, b)
    return d.text[chars[0]:chars[1]] if chars else None


def char_span(d: Doc, a: int, b: int) -> tuple[int, int] | None:
    """Character offsets of tokens [a, b), without edge punctuation or a swallowed full stop."""
    while a < b and d.lower[a] in END_PUNCT | BULLETS:
        a += 1
    while b > a and d.lower[b - 1] in END_PUNCT:
        b -= 1
    if a >= b:
        return None
    end = d.ends[b - 1]
    if dotted_end(d, b - 1) and (b == d.n or d.words[b][:1].isupper() or d.words[b] in END_PUNCT):
        end -= 1
    return d.starts[a], end
