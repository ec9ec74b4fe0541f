"""Sentence structure for claim decomposition: connectives, conditions and conjuncts.

A sentence becomes a list of drafts (clause, noun-phrase and link drafts) that
:mod:`graphcite.claims.qualifiers` then reads qualifiers from. Connectives split a sentence into two
sides plus a link; conditions are cut out of the clause they qualify; coordinated verb phrases and
clauses become separate drafts sharing the subject where they have none of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphcite.claims import cues as C
from graphcite.claims.syntax import (
    TO_VERBS,
    Cue,
    Doc,
    Pred,
    clause_at,
    dotted_end,
    find_predicate,
    has_label,
    has_words,
    is_adverb,
    is_aux,
    is_numberish,
    is_year,
    labelled_cue,
    plural_subject,
    top_comma,
    trim_span,
    verb_form,
    verb_group,
)

__all__ = ["INFER", "RESULT", "Draft", "last_clause_claim", "sentence_spans", "split_region"]

_INITIAL_ADVERBIALS = frozenset({"however", "also", "instead", "additionally", "moreover", "furthermore",
                                 "meanwhile", "otherwise", "overall", "finally", "first", "second", "then",
                                 "still", "in practice", "in short", "in addition", "in general", "notably",
                                 "importantly", "similarly", "likewise", "again", "yes", "no"})
RESULT = frozenset({"so", "therefore", "thus", "hence", "consequently", "as a result", "accordingly"})
INFER = frozenset({"therefore", "thus", "hence", "we conclude", "we conclude that", "so we conclude",
                   "so we conclude that", "it follows that", "we infer", "we infer that"})
_SUBORDINATE = frozenset({"because", "since", "although", "though", "even though", "whereas", "after", "before",
                          "despite", "in spite of", "because of", "due to", "owing to", "as a result of"})
_NP_CONNECTIVES = frozenset({"because of", "due to", "owing to", "as a result of", "despite", "in spite of"})
_CAUSAL_VERBS = frozenset({"leads to", "lead to", "led to", "results in", "resulted in", "result in", "causes",
                           "caused", "cause", "caused by"})
_REL_CAUSAL = frozenset({"which caused", "which causes", "which led to", "which leads to", "which resulted in",
                         "which results in", "leading to"})
_AMOUNT_WORDS = frozenset({"second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade",
                           "millisecond", "dozen", "hundred", "thousand", "million", "third", "half",
                           "few", "couple", "fraction", "percent", "tenth"})


@dataclass(slots=True)
class Draft:
    """A claim before its qualifiers are read: token ranges and the structure around it."""

    kind: str  # clause, np, link
    a: int
    b: int
    subject: tuple[int, int] | None = None
    pred: Pred | None = None
    obj: tuple[int, int] | None = None
    carried: tuple[int, ...] = ()
    shared: bool = False
    conditions: list[tuple[int, int]] = field(default_factory=list)
    context: list[tuple[int, int]] = field(default_factory=list)
    connective: str | None = None
    joins: tuple[int, int] | None = None
    inference: bool = False
    negated_link: str | None = None
    link_modal: tuple[str, str] | None = None
    inherit: int | None = None  # np claims take their tense from this draft
    forced_negation: str | None = None  # "nor" before a conjunct


def sentence_spans(d: Doc) -> list[tuple[int, int]]:
    """Token ranges of the sentences in the text (split at . ! ? before a capital)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for i, w in enumerate(d.lower):
        if (w in {".", "!", "?"} or (dotted_end(d, i) and not _initial(d, i))) and not d.opaque[i] and i + 1 < d.n:
            nxt = d.words[i + 1]
            if nxt[:1].isupper() or nxt[:1] in {'"', "“", "("} or nxt[:1].isdigit():
                spans.append((start, i + 1))
                start = i + 1
    if start < d.n:
        spans.append((start, d.n))
    return [s for s in spans if any(ch.isalpha() for w in d.words[s[0]:s[1]] for ch in w)]


def _initial(d: Doc, i: int) -> bool:
    """A middle initial between two parts of a name ("Jacqueline B. Wender", "George W. Bush"), not a
    sentence's last word ("use adapter X. Then ...")."""
    w = d.words[i]
    return len(w) == 2 and w[0].isupper() and i > 0 and d.words[i - 1][:1].isupper() and d.words[i - 1].isalpha() \
        and i + 1 < d.n and d.words[i + 1][:1].isupper()


def split_region(d: Doc, a: int, b: int, out: list[Draft], *, inference: bool = False) -> tuple[int, int]:
    """Append drafts for [a, b) to out (connectives split it); return (first, last) index of its claims."""
    a, b = trim_span(d, a, b)
    if a >= b or not has_words(d, a, b):
        return len(out), len(out) - 1
    split = _find_connective(d, a, b)
    if split is None:
        first = len(out)
        _clause(d, a, b, out, inference=inference)
        return first, len(out) - 1
    kind, k, cue, left, right = split
    first = len(out)
    phrase = cue.phrase
    if kind == "lead":  # "Because A, B": sub side first in the sentence
        sub_first, _ = _side(d, left, out, np=phrase in _NP_CONNECTIVES)
        main_first, _ = split_region(d, right[0], right[1], out, inference=inference)
        head, dep = main_first, sub_first
        inherit_from = main_first
    elif kind == "causal":
        left_first, _ = _side(d, left, out, np=True)
        right_first, _ = _side(d, right, out, np=True)
        head, dep = left_first, right_first
        inherit_from = None
    else:
        _, left_last = split_region(d, left[0], left[1], out, inference=inference)
        infer = inference or phrase in INFER
        if kind == "result":
            right_first, _ = split_region(d, right[0], right[1], out, inference=infer)
        else:
            right_first, _ = _side(d, right, out, np=phrase in _NP_CONNECTIVES)
        head, dep = left_last, right_first
        inherit_from = left_last
    for draft in out[first:]:
        if draft.kind == "np" and draft.inherit is None:
            draft.inherit = inherit_from
    link = Draft("link", a, b, connective=_connective_name(d, cue, kind), joins=(head, dep),
                  inference=inference or phrase in INFER)
    if kind == "causal":
        link.link_modal = _causal_modal(d, a, cue.start)
        link.inherit = None
        link.pred = find_predicate(d, a, b)
    if k - 1 >= a and d.lower[k - 1] in {"not", "n't"}:
        link.negated_link = d.words[k - 1]
    out.append(link)
    for draft in out[first:-1]:
        if draft.kind == "np" and draft.inherit is None:
            draft.inherit = len(out) - 1
    return first, len(out) - 1


def _side(d: Doc, span: tuple[int, int], out: list[Draft], *, np: bool) -> tuple[int, int]:
    """Drafts for one side of a connective: a clause when it has a verb, else a noun phrase."""
    a, b = trim_span(d, *span)
    if not np and find_predicate(d, a, b) is not None:
        return split_region(d, a, b, out)
    if a >= b:
        a, b = span
    out.append(Draft("np", a, b, subject=(a, b)))
    return len(out) - 1, len(out) - 1


def _connective_name(d: Doc, cue: Cue, kind: str) -> str:
    """The connective as stored: the cue, or more/less/fewer ... than for comparisons."""
    if kind != "compare" or cue.phrase != "than":
        return cue.phrase
    k = cue.start
    for back in range(k - 1, max(k - 4, -1), -1):
        if d.lower[back] in {"more", "less", "fewer"}:
            return f"{d.lower[back]} than"
    return "than"


def _causal_modal(d: Doc, a: int, k: int) -> tuple[str, str] | None:
    """A modal before a causal verb ("can lead to"), kept as the link's modality."""
    for i in range(max(a, k - 3), k):
        cue = labelled_cue(d, i, "MOD:")
        if cue is not None:
            label = next(lab for lab in cue.labels if lab.startswith("MOD:"))
            return label[4:], cue.phrase
    return None


def _find_connective(d: Doc, a: int, b: int) -> tuple[str, int, Cue, tuple[int, int], tuple[int, int]] | None:
    """The connective splitting [a, b) into two non-empty sides, or None."""
    found = _connective_split(d, a, b)
    if found is None:
        return None
    left, right = found[3], found[4]
    if has_words(d, *left) and has_words(d, *right):
        return found
    return None


def _connective_split(d: Doc, a: int, b: int) -> tuple[str, int, Cue, tuple[int, int], tuple[int, int]] | None:
    """The connective in [a, b) that links two parts, with the parts' token ranges.

    Result connectives joining whole clauses (", so", "; therefore") bind loosest and are tried
    first; otherwise the leftmost connective wins and the parts are split again recursively.
    """
    for k in range(a + 1, b):
        cue = labelled_cue(d, k, "CONN")
        if cue is None or cue.phrase not in RESULT:
            continue
        if d.lower[k - 1] not in {",", ";", "and", "—", "-"} or cue.end >= b:
            continue
        if cue.phrase == "so" and (d.lower[cue.end] in {"that", "far", "on", "-"} or clause_at(d, cue.end, b) is None):
            continue
        return "result", k, cue, (a, k - 1), (cue.end, b)
    for k in range(a, b):
        cue = labelled_cue(d, k, "CONN")
        if cue is None:
            continue
        phrase, end = cue.phrase, cue.end
        if phrase in RESULT:
            continue  # handled below with punctuation checks
        if k == a and phrase in _SUBORDINATE:
            comma = top_comma(d, end, b)
            if comma is None or comma + 1 >= b:
                continue
            if phrase in {"after", "before", "since", "until"} and _takes_a_noun(d, k):
                continue  # "After the fifth failed attempt the event is parked ...": a time phrase, no clause
            sub = (end, comma)
            if phrase in _NP_CONNECTIVES or clause_at(d, end, comma) is not None:
                return "lead", k, cue, sub, (comma + 1, b)
            continue
        if k == a:
            continue
        if phrase in _SUBORDINATE:
            if phrase in {"after", "before", "since"} and (clause_at(d, end, b) is None or d.lower[k - 1] == "only"):
                continue  # "only after X" is a condition on the claim, not a link between two claims
            if phrase in {"because", "although", "though", "even though", "whereas"} and end >= b:
                continue
            if find_predicate(d, a, k) is None:
                continue
            return "sub", k, cue, (a, k), (end, b)
        if phrase in _REL_CAUSAL:
            return "rel", k, cue, (a, k), (end, b)
        if phrase in _CAUSAL_VERBS:
            pred = find_predicate(d, a, b)
            if pred is None or not (pred.main == k or pred.head == k or pred.main in range(k, end)):
                continue
            left_end = pred.start
            return "causal", k, cue, (a, left_end), (end, b)
        if phrase in {"than", "more than", "less than", "fewer than"}:
            if end >= b or is_numberish(d, end) or d.lower[end] in {"expected", "usual", "planned",
                                                                       "necessary", "needed", "allowed"}:
                continue
            if d.lower[end] in {"a", "an"} and end + 1 < b and (d.lemma[end + 1] in _AMOUNT_WORDS
                                                               or is_numberish(d, end + 1)):
                continue  # "more than a minute", "less than a dozen": a bound, not a comparison
            if (k - 1 >= a and d.lower[k - 1] in {"rather", "other"}) or (k - 2 >= a and d.lower[k - 2] == "no"):
                continue
            if find_predicate(d, a, k) is None:
                continue
            return "compare", k, cue, (a, k), (end, b)
    return None



def _takes_a_noun(d: Doc, k: int) -> bool:
    """Whether the parse reads the word at ``k`` as a preposition of a noun phrase ("after the fifth
    attempt"), not as the opener of a clause ("after the storm passed"): the word shapes read a verb
    form in "failed attempt" as a clause's verb."""
    from graphcite.language.parse import layout, parse

    flat = layout(d.text)
    at = flat.flat_span(d.starts[k], d.starts[k] + 1)[0]
    token = next((t for t in parse(flat.flat) if t.idx == at), None)
    return token is not None and token.dep_ == "case"


def _time_is_subject(d: Doc, cue: Cue, b: int) -> bool:
    """A time phrase read as the subject: the verb follows it at once ("Last week was the wettest")."""
    after = cue.end
    if not has_label(cue, "TIME:") or after >= b or d.opaque[after]:
        return False
    return is_aux(d, after) or verb_form(d, after) in ("s", "past")


def _clause(d: Doc, a: int, b: int, out: list[Draft], *, inference: bool = False) -> None:
    """Drafts for one clause without top-level connectives: context, conditions and conjuncts."""
    context: list[tuple[int, int]] = []
    conditions: list[tuple[int, int]] = []
    a, b = trim_span(d, a, b)
    if a >= b or not has_words(d, a, b):
        return
    clause_start = a
    while a < b:
        a, b = trim_span(d, a, b)
        if a >= b:
            break
        cue = d.cue_at.get(a)
        if cue is not None and not d.opaque[a] and (has_label(cue, "COND") or d.lower[a] == "without"):
            comma = top_comma(d, cue.end, b)
            if comma is not None and comma + 1 < b and _condition_ok(d, a, cue, comma, leading=True):
                conditions.append((a, comma))
                a = comma + 1
                continue
        if cue is not None and not d.opaque[a] and (has_label(cue, "TIME:") or has_label(cue, "INFER")) and \
                cue.phrase not in {"will", "'ll", "wo", "still"} and not _time_is_subject(d, cue, b):
            context.append((a, cue.end))
            if has_label(cue, "INFER"):
                inference = True
            a = cue.end
            continue
        if d.lower[a] in _INITIAL_ADVERBIALS and a + 1 < b and d.lower[a + 1] == ",":
            a += 2
            continue
        if d.lower[a] in C.PREPOSITIONS and d.lower[a] not in {"than", "like"}:
            comma = top_comma(d, a, b)
            if comma is not None and comma + 1 < b and find_predicate(d, a, comma) is None:
                context.append((a, comma))
                a = comma + 1
                continue
        if d.lower[a] in {"in", "until", "since", "by"} and a + 1 < b and is_year(d.lower[a + 1]):
            context.append((a, a + 2))
            a += 2
            continue
        break
    pred = find_predicate(d, a, b) if a < b else None
    if pred is None:
        out.append(Draft("clause", clause_start, b, subject=(a, b) if a < b else None, context=context,
                          conditions=conditions, inference=inference))
        return
    subject_end = pred.start
    for k in range(a + 1, pred.start):
        cue = labelled_cue(d, k, "COND")
        if cue is not None and cue.phrase in {"except", "except for", "other than", "excluding"}:
            conditions.append((k, pred.start))
            subject_end = k
            break
    tail_conditions = _trailing_conditions(d, pred, b)
    splits = _conjunct_splits(d, pred, a, b, tail_conditions)
    bounds = [pred.end] + [s[2] for s in splits]
    ends = [s[0] for s in splits] + [b]
    subject = (a, subject_end) if subject_end > a else None
    for n, (kind, cstart, cend) in enumerate(
        [("first", a, ends[0])] + [(splits[m][1], splits[m][2], ends[m + 1]) for m in range(len(splits))]
    ):
        own_conditions = [c for c in tail_conditions if cstart <= c[0] < cend]
        if kind == "clause":
            first = len(out)
            _clause(d, cstart, cend, out, inference=inference)
            for draft in out[first:]:
                draft.context = context + draft.context
                draft.conditions = conditions + draft.conditions
            continue
        if kind == "first":
            draft = Draft("clause", clause_start, cend, subject=subject, pred=pred, context=context,
                           inference=inference)
        else:
            vp = _vp_pred(d, cstart, cend)
            carried = _carried(d, pred, vp) if vp is not None else ()
            draft = Draft("clause", cstart, cend, subject=subject, pred=vp, carried=carried, shared=True,
                           context=context, inference=inference)
            split_word = d.lower[splits[n - 1][0]]
            if split_word == "nor" or (split_word == "," and d.lower[splits[n - 1][0] + 1] == "nor"):
                draft.forced_negation = "nor"
        obj_start = draft.pred.end if draft.pred is not None else bounds[n]
        obj_end = min([c[0] for c in own_conditions] + [cend])
        if obj_start < obj_end:
            draft.obj = trim_span(d, obj_start, obj_end)
        draft.conditions = conditions + own_conditions
        for k in range(draft.a, draft.b):
            cue = labelled_cue(d, k, "INFER")
            if cue is not None and k > a:
                draft.inference = True
                draft.connective = draft.connective or cue.phrase
                break
        out.append(draft)


def _reports_past(d: Doc, k: int, end: int) -> bool:
    """Whether the sentence around a time phrase tells of the past: a past auxiliary, or a verb in the
    past tense not inside a passive or perfect ("moved", not "is parked")."""
    for j in [*range(max(0, k - 12), k), *range(end, min(d.n, end + 12))]:
        if d.lower[j] in C.PAST_AUXILIARIES:
            return True
        if (verb_form(d, j) == "past" and j > 0 and d.lower[j] != d.lemma[j]
                and d.lower[j - 1] not in C.AUX_BE | {"has", "have", "had", "get", "got"}):
            return True
    return False


def _condition_ok(d: Doc, k: int, cue: Cue, end: int, *, leading: bool) -> bool:
    """Is the COND cue at k a condition here ("once" as a count and "is provided by" are not)?"""
    phrase = cue.phrase
    if phrase == "while" and not leading and k > 0 and d.lower[k - 1] == ",":
        return False  # ", while the investigation took six hours" contrasts two claims
    if k > 0 and is_aux(d, k - 1):
        return False  # "is provided by"
    if phrase == "once":
        return clause_at(d, cue.end, end) is not None
    if phrase in {"after", "before"}:
        # "only after a confirmed timeout" and a rule's "may retry after a failure" restrict the claim;
        # in a report of the past ("moved to Paris after the war") the phrase only dates the event
        if k > 0 and d.lower[k - 1] == "only":
            return True
        return (leading or clause_at(d, cue.end, end) is None) and not _reports_past(d, k, end)
    if phrase in {"until", "while"}:
        return cue.end < end and not is_year(d.lower[cue.end])
    return cue.end < end


def _trailing_conditions(d: Doc, pred: Pred, b: int) -> list[tuple[int, int]]:
    """Conditions after the verb group, each up to a comma or the next conjunct."""
    found: list[tuple[int, int]] = []
    k = pred.end
    while k < b:
        cue = labelled_cue(d, k, "COND")
        if cue is None:
            k += 1
            continue
        end = _condition_end(d, pred, cue.end, b)
        if _condition_ok(d, k, cue, end, leading=False):
            found.append((k, end))
            k = end
        else:
            k = cue.end
    return found


def _condition_end(d: Doc, pred: Pred, k: int, b: int) -> int:
    """Where a trailing condition ends: a comma, or a conjunction opening a new conjunct."""
    for j in range(k, b):
        if d.opaque[j]:
            continue
        w = d.lower[j]
        if w in {",", ";"}:
            return j
        if w in {"and", "or"} and j + 1 < b and labelled_cue(d, j + 1, "COND") is not None:
            return j  # "before each retry and after each restart": two conditions
        if w in {"and", "but", "yet"} and j + 1 < b and (
            _vp_start(d, j + 1, b, pred, strict=True) is not None
            or clause_at(d, j + 1, _next_stop(d, j + 1, b)) is not None
        ):
            return j
    return b


_BEFORE_ADVERBIAL_YET = frozenset({"not", "n't", "never", "is", "are", "was", "were", "has", "have", "had", "be"})


def _adverbial_yet(d: Doc, k: int) -> bool:
    """Whether "yet" at ``k`` is the adverb of "has not yet", "is yet to", "have yet to", not the
    conjunction of "small, yet fast": a negation or an auxiliary before it, or "to" after it."""
    return (k > 0 and d.lower[k - 1] in _BEFORE_ADVERBIAL_YET) or (k + 1 < len(d.lower) and d.lower[k + 1] == "to")


def _conjunct_splits(
    d: Doc, pred: Pred, a: int, b: int, conditions: list[tuple[int, int]]
) -> list[tuple[int, str, int]]:
    """Split points after the first verb group: (token of the split, 'vp' or 'clause', conjunct start)."""
    splits: list[tuple[int, str, int]] = []
    k = pred.end
    plural = pred.start > a and (verb_form(d, pred.head) == "base" or plural_subject(d, a, pred.start - 1))
    not_only = any(d.cue_at.get(i) is not None and d.cue_at[i].phrase == "not only" for i in range(a, b))
    while k < b:
        inside = next((c for c in conditions if c[0] <= k < c[1]), None)
        if inside is not None:
            k = inside[1]
            continue
        w = d.lower[k]
        if d.opaque[k] or w not in {"and", "but", ",", ";", "nor", "yet"} or (w == "yet" and _adverbial_yet(d, k)):
            k += 1
            continue
        j = k + 1
        if w == "," and j < b and d.lower[j] in {"and", "but", "nor", "while", "yet"}:
            j += 1
        if j < b and d.lower[j] in {"also", "then"}:
            j += 1
        if j >= b:
            break
        if w == "but" and not_only and d.lower[k + 1] != "also":
            k += 1
            continue
        if _vp_start(d, j, b, pred, strict=False, subject_plural=plural) is not None:
            splits.append((k, "vp", j))
            k = j
            continue
        if (w in {"and", "but", ";", "nor", "yet"} or d.lower[k + 1] in {"and", "but", "while", "yet"}) \
                and clause_at(d, j, _next_stop(d, j, b)):
            splits.append((k, "clause", j))
            k = j
            continue
        if w == ";":
            splits.append((k, "clause", j))
            k = j
            continue
        k += 1
    return splits


def _next_stop(d: Doc, j: int, b: int) -> int:
    """The next comma or semicolon in [j, b), else b."""
    for k in range(j, b):
        if d.lower[k] in {",", ";"} and not d.opaque[k]:
            return k
    return b


def _vp_start(d: Doc, j: int, b: int, pred: Pred, *, strict: bool, subject_plural: bool = False) -> int | None:
    """Index of the verb when [j, b) opens a verb phrase sharing the first clause's subject."""
    t = j
    while t < b and (is_adverb(d, t) or d.lower[t] in {"no", "longer", "neither"}) and d.lower[t] != "once":
        t += 1
    if t >= b or d.opaque[t]:
        return None
    if is_aux(d, t):
        return t
    form = verb_form(d, t)
    if form is None or is_numberish(d, t):
        return None
    at_end = t + 1 >= b or d.lower[t + 1] in {",", ";", "and", "or"}
    first_has_object = pred.end < b and d.lower[pred.end] not in {"and", ",", "but", "nor"}
    if at_end and first_has_object and form != "past":
        return None
    if t + 1 < b and is_aux(d, t + 1):
        return None
    if form in ("s", "past"):
        if form == "past" and pred.aux and d.lower[pred.aux[0]] in C.AUX_BE | C.AUX_HAVE:
            return t
        if strict and form == "past":
            return None
        return t
    aux_words = {d.lower[x] for x in pred.aux}
    if form == "base":
        if aux_words & (C.MODALS | C.AUX_DO) or d.lemma[pred.main] in TO_VERBS:
            return None if strict else t
        if not pred.aux and subject_plural:
            return None if strict else t
        return None
    if form == "ing" and aux_words & C.AUX_BE:
        return None if strict else t
    return None


def _vp_pred(d: Doc, j: int, b: int) -> Pred | None:
    """The verb group of a verb-phrase conjunct starting at j (after its adverbs)."""
    t = j
    while t < b and (is_adverb(d, t) or d.lower[t] in {"no", "longer", "neither", "nor"}) and not is_aux(d, t):
        if verb_form(d, t) is not None and d.lower[t] not in C.ADVERBS:
            break
        t += 1
    if t >= b:
        return None
    pred = verb_group(d, j - 1, t, b)
    return Pred(max(j, pred.start), pred.head, pred.main, pred.end, pred.aux)


def _carried(d: Doc, first: Pred, vp: Pred) -> tuple[int, ...]:
    """Auxiliaries of the first verb group that a bare conjunct verb shares ("must retry and page")."""
    if vp.aux or not first.aux:
        return ()
    form = verb_form(d, vp.main)
    kinds = {d.lower[x] for x in first.aux}
    if form == "base" and kinds & (C.MODALS | C.AUX_DO):
        return tuple(x for x in first.aux if d.lower[x] in C.MODALS)
    if form == "past" and kinds & (C.AUX_BE | C.AUX_HAVE):
        return first.aux
    if form == "ing" and kinds & C.AUX_BE:
        return first.aux
    return ()


def last_clause_claim(drafts: list[Draft], first: int) -> int | None:
    """Index of the last clause draft from ``first`` on (a link when there is none)."""
    for i in range(len(drafts) - 1, first - 1, -1):
        if drafts[i].kind == "clause":
            return i
    return len(drafts) - 1 if len(drafts) > first else None
