"""The subject: a claim about one thing is not supported by a passage about another thing that happens
to do the same."""

from __future__ import annotations

import re

from graphcite.language.nlp import lemma
from graphcite.language.words import STOPWORDS, as_written
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule
from graphcite.verify.rules.common import attributed, reported_clause
from graphcite.verify.rules.roles import head_noun
from graphcite.verify.rules.scope import named_entities
from graphcite.verify.rules.slots import alignment_for

__all__: list[str] = []

_WORD = re.compile(r"[A-Za-z][A-Za-z\-']+")
_CODE = re.compile(r"\w_\w|\w\(|[a-z][A-Z]|\d")
_CLAUSE_OPENERS = frozenset({"what", "whatever", "whoever", "how", "why", "whether"})
_PRONOUNS = frozenset({"it", "they", "he", "she", "this", "that", "these", "those", "we", "you", "i", "one",
                       "there", "which", "who", "someone", "something", "anyone", "everyone", "each", "all"})


def _head(subject: str) -> str | None:
    """The subject's head word: the last word of its first noun phrase, before a preposition or a
    relative word ("the midnight hovercraft", "a woman in a red coat" -> "woman"); the noun after a
    collective one ("a group of boys" -> "boy"). None for a pronoun or a clause ("what they find")."""
    words = _WORD.findall(subject.split(",")[0])
    if not words or words[-1].lower() in _PRONOUNS or words[0].lower() in _CLAUSE_OPENERS:
        return None  # a pronoun, or a clause standing as the subject: "what they find is ..."
    return head_noun(subject.split(",")[0])


def _row_named(subject: str, head: str, evidence: Evidence) -> bool:
    """Whether a cited table row's label (its first cell) is named by the subject's words before its head:
    the head is then the class of what the row lists ("plan", "subscription", "tier"), which a table
    seldom repeats in its rows."""
    if evidence.block_type != "table_row":
        return False
    label = next((c.strip() for c in evidence.quote.strip().strip("|").split("|")), "")
    if any(ch.isdigit() for ch in label):
        return False  # "Below 95.0%": a row of a range of values names no thing
    wanted = {w.lower() for w in _WORD.findall(label)} - STOPWORDS
    modifiers = {w.lower() for w in _WORD.findall(subject)} - {head.lower()}
    return bool(wanted) and wanted <= modifiers


@rule("GC207", "subject-not-in-evidence", family="slots", effect="insufficient",
      good=[("The night ferry carries bicycles on the lower deck.",
             "On the lower deck the night ferry carries bicycles."),
            ("Skippers say that the ferry has carried bicycles on the lower deck.",
             "The ferry carried bicycles on the lower deck."),
            ("The boat carries bicycles on the lower deck.", "The ferry carries bicycles on the lower deck.")],
      bad=[("The midnight hovercraft carries bicycles on the lower deck only.",
            "The ferry carries bicycles on the lower deck only."),
           ("Skippers say that the hovercraft carries bicycles on the lower deck.",
            "The ferry carries bicycles on the lower deck.")])
def subject_not_in_evidence(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """What the claim is about must be what the passage is about.

    "The midnight hovercraft carries bicycles on the lower deck" shares every word but its subject with
    "the ferry carries bicycles on the lower deck", so the share of shared words passes the support
    threshold; yet the passage says nothing about any hovercraft. The rule asks that the head of the
    claim's subject be found in the evidence, its title or headings, directly or as a paraphrase (a
    synonym, a derived form, a narrower or broader word from the lexicon); a pronoun subject is left to
    the antecedent the envelope already adds, and names are GC206's.
    """
    reported = reported_clause(claim)
    subject = (reported.subject if reported is not None else claim.subject) or ""
    head = _head(subject)
    if head is None or named_entities(subject) or _CODE.search(subject) or attributed(claim, evidence):
        return SKIP  # names are GC206's; code symbols the code rules'; a claim about a document reports it
    if claim.connective or (claim.quantifier or "").lower() in {"no", "none"}:
        return SKIP  # a link claim's sides are checked as parts; "no decision ..." has no thing to find
    if claim.modality and claim.modality not in {"asserted", "none"}:
        return SKIP  # duties and permissions come as instructions without a subject ("Reject events ...")
    if _row_named(subject, head, evidence):
        return PASS  # "An Enterprise subscription" against the row "| Enterprise | ...": the row is the thing
    found = alignment_for(claim, evidence)
    wanted = {head, lemma(head)}
    slots = [s for s in found.slots if {w.lower() for w in _WORD.findall(s.text)} & wanted
             or lemma(s.text.lower()) in wanted]
    if not slots:
        return SKIP  # the alignment has no slot for it (a weak or light word): nothing to judge
    if any(s.status in {"found", "paraphrase"} for s in slots):
        return PASS
    return fail(f"the claim is about {subject!r}; the evidence does not mention {as_written(subject, head)!r}")
