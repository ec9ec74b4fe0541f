"""Evidence as the rule engine sees it: the quote, its envelope, and cues read off the evidence text.

An :class:`Evidence` is built from a resolved citation (engine) or from plain text plus metadata (rule
cases and tests). Evidence-side cues (negation, modality, conditions, link words) are read with compiled
patterns on a lowercased copy; the stored text itself is never changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graphcite.language.cues import negation_pattern
from graphcite.language.domain import active
from graphcite.models import ExtractedValue

__all__ = [
    "CONDITION_RE",
    "ELLIPTICAL",
    "Evidence",
    "clause_for",
    "conditions_of",
    "evidence_from_text",
    "lead_in_of",
    "link_family",
    "modality_of",
    "negation_of",
]

NEGATION_RE = negation_pattern()  # the same cue list the claim reader uses
# Conditions and exceptions: the clause runs to the next comma, semicolon or end of sentence.
CONDITION_RE = re.compile(
    r"\b(only if|only after|only when|only for|unless|provided that|as long as|if|when|whenever|once|"
    r"except(?: for| when)?)\b([^,;.]*)",
    re.IGNORECASE)
_MODALITY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("must-not", re.compile(r"\b(must not|mustn't|shall not|may not|is not allowed|are not allowed|"
                            r"is forbidden|are forbidden|is prohibited|are prohibited)\b", re.I)),
    ("must", re.compile(r"\b(must|shall|is required to|are required to|has to|have to|is mandatory)\b", re.I)),
    ("should", re.compile(r"\b(should|ought to|is recommended|are recommended|we recommend)\b", re.I)),
    ("proposed", re.compile(r"\b(propose|proposes|proposed|proposal|suggests?|suggested)\b", re.I)),
    ("considered", re.compile(r"\b(considered|considering|evaluated|explored|discussed|investigated)\b", re.I)),
    ("planned", re.compile(r"\b(plans? to|planned|scheduled to|intends? to|roadmap|will be (?:added|built|"
                           r"introduced|shipped|rolled out))\b", re.I)),
    ("may", re.compile(r"\b(may|might|could|is allowed|are allowed|is permitted|are permitted|"
                       r"optionally)\b", re.I)),
    ("can", re.compile(r"\b(can|is able to|are able to)\b", re.I)),
    ("completed", re.compile(r"\b(shipped|completed|rolled out|launched|released|went live|was deployed|"
                             r"were deployed|landed)\b", re.I)),
)
LINK_FAMILIES: dict[str, re.Pattern[str]] = {
    "causal": re.compile(r"\b(because|due to|caused|causes|cause|led to|leads to|lead to|as a result|"
                         r"resulted in|results in|therefore|so that|consequently|owing to|since|triggered|"
                         r"which is why|the reason)\b", re.I),
    "temporal": re.compile(r"\b(after|before|then|followed|following|once|until|prior to|later)\b", re.I),
    "comparative": re.compile(r"\b(more than|less than|fewer than|faster|slower|higher|lower|greater|"
                              r"smaller|larger|exceeds?|compared|than)\b", re.I),
    "concessive": re.compile(r"\b(despite|although|even though|though|however|nevertheless|but)\b", re.I),
}
CONNECTIVE_FAMILY: dict[str, str] = {
    "because": "causal", "therefore": "causal", "so": "causal", "since": "causal", "thus": "causal",
    "hence": "causal", "which caused": "causal", "leads to": "causal", "led to": "causal",
    "caused": "causal", "due to": "causal", "as a result": "causal",
    "after": "temporal", "before": "temporal", "then": "temporal", "until": "temporal",
    "more than": "comparative", "less than": "comparative", "fewer than": "comparative",
    "faster than": "comparative", "slower than": "comparative",
    "despite": "concessive", "although": "concessive", "even though": "concessive",
}


def _strip_conditions(text: str) -> str:
    return CONDITION_RE.sub(" ", text)


@lru_cache(maxsize=65_536)
def negation_of(text: str) -> str | None:
    """The first negation cue of the main clause (conditions removed), or None."""
    found = NEGATION_RE.search(_strip_conditions(text))
    return found.group(0).lower() if found else None


@lru_cache(maxsize=16)
def _imperative(verbs: frozenset[str]) -> re.Pattern[str] | None:
    """An instruction opening with one of the domain's imperative verbs ("Reject events ...")."""
    if not verbs:
        return None
    alternatives = "|".join(sorted(re.escape(v) for v in verbs))
    return re.compile(rf"^\s*(?:do not|don't|never|always|please )?\s*(?:{alternatives})\b", re.I)


@lru_cache(maxsize=65_536)
def modality_of(text: str, imperative: bool = True,
                verbs: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """(modality, cue) of the evidence text: the strongest marker in its main clause.

    An instruction ("Reject events older than five minutes") is an obligation.
    """
    main = _strip_conditions(text)
    for name, pattern in _MODALITY_PATTERNS:
        found = pattern.search(main)
        if found:
            return name, found.group(0).lower()
    pattern = _imperative(verbs) if imperative else None
    order = pattern.match(text) if pattern is not None else None
    if order:
        negated = order.group(0).lower().startswith(("do not", "don't", "never"))
        return ("must-not" if negated else "must"), order.group(0).strip().lower()
    return "asserted", None


@lru_cache(maxsize=65_536)
def conditions_of(text: str) -> tuple[str, ...]:
    """Condition and exception phrases ("only after a confirmed timeout") in the evidence text."""
    out = []
    for match in CONDITION_RE.finditer(text):
        phrase = (match.group(1) + match.group(2)).strip()
        if len(phrase.split()) >= 2:
            out.append(phrase)
    return tuple(out)


_CLAUSE_SPLIT = re.compile(r"\s*(?:;|:|,\s*(?:and|but|so|while|whereas)\b|\band\b(?=\s+(?:the|a|an|it|they|\w+s)\b))\s*",
                           re.IGNORECASE)


_PRONOUN = re.compile(r"\b(they|it|this|these|those|them|its|their)\b", re.I)
ELLIPTICAL = re.compile(r"\b(?:it|this|that|they|he|she)\s+(?:does|do|did|is|are|was|were|has|have|had|can|will)"
                         r"\s*(not|n't)\s*[.!]?\s*$", re.I)
_QUOTED = re.compile(r"[\"“”][^\"“”]{0,80}[\"“”]")
_AUX_WORDS = frozenset({"be", "is", "are", "was", "were", "been", "do", "does", "did", "have", "has", "had", "not",
                        "no", "never", "can", "could", "may", "might", "must", "should", "will", "would"})
_NEGATIVE_CELLS = frozenset({"no", "off", "false", "disabled", "none", "never", "n/a", "-"})


def _table_negation(row: str, headers: tuple[str, ...], claim_text: str) -> str | None:
    """A no/off cell negates the row when the row is a flag or its column is named in the claim."""
    from graphcite.verify.rules.common import word_lemmas

    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    claim_words = word_lemmas(claim_text)
    for index, cell in enumerate(cells):
        if cell.lower() not in _NEGATIVE_CELLS:
            continue
        header = headers[index] if index < len(headers) else ""
        if len(cells) <= 2 or (header and word_lemmas(header) & claim_words - _AUX_WORDS):
            return cell.lower()
    return None


@lru_cache(maxsize=65_536)
def clause_for(quote: str, claim_text: str) -> str:
    """The clause of ``quote`` that shares most content terms with the claim (for polarity and modality).

    "X is not a timeout and may be retried" holds two clauses; the negation of one says nothing about
    the other.
    """
    from graphcite.verify.lexical import support_terms

    clauses = [c for c in _CLAUSE_SPLIT.split(quote) if c and c.strip()]
    if len(clauses) < 2:
        return quote
    wanted = support_terms(claim_text)
    return max(clauses, key=lambda c: (len(support_terms(c) & wanted), -clauses.index(c)))


def link_family(connective: str | None) -> str | None:
    """The family (causal, temporal, comparative, concessive) of a claim connective."""
    if not connective:
        return None
    return CONNECTIVE_FAMILY.get(connective.lower().strip(), "causal")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One cited span with its envelope: what every qualifier rule reads."""

    quote: str
    context: str = ""
    heading_path: tuple[str, ...] = ()
    status: str = "current"
    status_cue: str | None = None
    kind: str = "note"
    format: str = "markdown"
    build_role: str | None = None
    visibility: str = "public"
    source_key: str = "example.md"
    title: str | None = None
    symbol: str | None = None
    page: int | None = None
    revision_id: str | None = None
    is_current_revision: bool = True
    values: tuple[ExtractedValue, ...] = ()
    context_values: tuple[ExtractedValue, ...] = ()
    superseded_by: tuple[tuple[str, str | None], ...] = ()
    source_text: str | None = None
    effective: str | None = None
    block_type: str = "paragraph"
    table_headers: tuple[str, ...] = ()
    lead_in: str = ""  # the sentence that introduces a table or list ("In the earlier study, the times were:")
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def envelope(self) -> str:
        """Quote plus heading path, table headers, code symbol and title: what lexical support may use.

        A quote whose subject is a pronoun ("After 24 hours they are deleted") also brings the sentence
        before it in its unit, which says what the pronoun stands for. Built once per distinct evidence
        (the rules ask for it many times per pair), so the same string comes back and its hash is kept.
        """
        return _envelope(self.quote, self.context, self.heading_path, self.table_headers, self.symbol, self.title,
                         self.lead_in)

    @property
    def antecedent(self) -> str:
        return _antecedent(self.quote, self.context)

    @property
    def negation(self) -> str | None:
        if self.block_type == "table_row":
            return None  # "no" in a yes/no column is a value, not a negation
        return negation_of(self.quote)

    def negation_for(self, claim_text: str, predicate: str | None = None) -> str | None:
        """Negation cue of the clause that talks about the claim.

        A negated clause that carries the claim's predicate wins ("label creation ... were not
        affected"); otherwise the clause sharing most terms decides ("X is not a timeout and may be
        retried" is not a negation of "may be retried"). Quoted words are mentions, not negations, and
        in a table row a no/off cell counts when its column is about the claim.
        """
        if self.block_type == "table_row":
            return _table_negation(self.quote, self.table_headers, claim_text)
        quote = _QUOTED.sub(" ", self.quote)
        elliptical = ELLIPTICAL.search(quote)
        if elliptical:  # "... meant five retries, and it does not": the negation takes the clause before
            return elliptical.group(1).lower()
        if predicate:
            from graphcite.verify.rules.common import same_predicate, word_lemmas

            verbs = [w for w in word_lemmas(predicate) if w not in _AUX_WORDS]
            for clause in _CLAUSE_SPLIT.split(quote):
                cue = negation_of(clause) if clause else None
                if cue and verbs and any(same_predicate(v, word_lemmas(clause)) for v in verbs):
                    return cue
        return negation_of(clause_for(quote, claim_text))

    def modality_for(self, claim_text: str) -> tuple[str, str | None]:
        """Modality of the clause that talks about the claim (a docstring's "Ask ..." is no order)."""
        return modality_of(clause_for(self.quote, claim_text), not self.is_code, active().imperative_verbs)

    @property
    def modality(self) -> tuple[str, str | None]:
        return modality_of(self.quote, True, active().imperative_verbs)

    @property
    def conditions(self) -> tuple[str, ...]:
        return conditions_of(self.quote)

    @property
    def is_code(self) -> bool:
        return self.format == "python" or self.kind in {"code", "test"}


@lru_cache(maxsize=65_536)
def _envelope(quote: str, context: str, heading_path: tuple[str, ...], table_headers: tuple[str, ...],
              symbol: str | None, title: str | None, lead_in: str = "") -> str:
    spaced = (symbol or "").replace("_", " ").replace(".", " ")
    return " ".join([_antecedent(quote, context), quote, *heading_path, *table_headers, spaced, title or ""]
                    + ([lead_in] if lead_in else []))


_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")
_LEAD_IN_CHARS = 400  # a lead-in introduces: a sentence or two, not a section


def lead_in_of(text: str, start: int, block_type: str) -> str:
    """The sentence that introduces the table or list a row or item at ``text[start]`` belongs to: the
    paragraph right before the block's first line ("Berth holders get:", "In the earlier study, the time
    to onset was:"), its last sentence when it ends with a colon; "" for other blocks, or when a heading
    comes first (the heading path already names it). Read from the stored Markdown or plain text, which is never changed."""
    if block_type not in {"table_row", "list_item"} or not text:
        return ""
    same = (lambda line: line.lstrip().startswith("|")) if block_type == "table_row" else (
        lambda line: bool(_LIST_LINE.match(line)) or line.startswith(("  ", "\t")))
    end = text.rfind("\n", 0, start) + 1
    blanks = 0
    while end > 0:
        begin = text.rfind("\n", 0, end - 1) + 1
        line = text[begin:end - 1]
        if same(line):
            end = begin
            continue
        if not line.strip() and blanks == 0:
            blanks, end = 1, begin
            continue
        break
    paragraph_end = end - 1 if end > 0 else 0
    lines = []
    while end > 0:
        begin = text.rfind("\n", 0, end - 1) + 1
        line = text[begin:end - 1]
        if not line.strip() or same(line):
            break
        lines.insert(0, line.strip())
        end = begin
    if not lines or lines[0].startswith("#") or paragraph_end - end > 4 * _LEAD_IN_CHARS:
        return ""
    paragraph = " ".join(lines)
    cut = max(paragraph.rfind(". ", 0, max(0, len(paragraph) - 2)), -1)
    sentence = paragraph[cut + 1:].strip() if cut >= 0 else paragraph
    # only a sentence that says it introduces what follows (it ends with a colon): a paragraph that
    # merely stands before a table says something of its own
    return sentence if len(sentence) <= _LEAD_IN_CHARS and sentence.endswith(":") else ""


def _antecedent(quote: str, context: str) -> str:
    """The sentence before ``quote`` in ``context`` when the quote has a pronoun (else "")."""
    if not _PRONOUN.search(quote) or not context:
        return ""
    at = context.find(quote)
    if at <= 0:
        return ""
    before = context[:at].rstrip()
    cut = max(before.rfind(". ", 0, len(before) - 1), before.rfind("\n"))
    return before[cut + 1:].strip()


def evidence_from_text(quote: str, **meta: Any) -> Evidence:
    """Evidence for rule cases and tests: values are extracted from the quote with the real extractor."""
    from graphcite.language.values import extract_values

    superseded = tuple(tuple(item) for item in meta.pop("superseded_by", ()))
    heading = tuple(meta.pop("heading_path", ()))
    return Evidence(quote=quote, context=meta.pop("context", quote), heading_path=heading,
                    values=tuple(extract_values(quote)), superseded_by=superseded,  # type: ignore[arg-type]
                    **meta)
