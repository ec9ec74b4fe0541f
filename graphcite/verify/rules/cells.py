"""Table cells of words: a claim about a row says what the row's cell says, not what its header offers."""

from __future__ import annotations

import re

from graphcite.language import lexicon
from graphcite.language.frames import Cell, cells_of, named_column
from graphcite.language.values import values_agree
from graphcite.language.values.extract import values_in
from graphcite.language.words import STOPWORDS, as_written, words_of
from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule

_FLAGS = frozenset({"yes", "no", "on", "off", "true", "false", "none", "n/a", "-", "included", "enabled", "disabled"})
_LINKS = frozenset({"same", "synonym", "derived", "hypernym", "hyponym"})


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lemma for w in words_of(text) if w.lower not in STOPWORDS and len(w.lower) > 1)


def _word_cell(cell: Cell) -> bool:
    """A cell whose value is words ("Replace", "Back to the same card"), not a figure or a flag."""
    text = cell.text.strip()
    return bool(_words(text)) and not values_in(text) and text.lower() not in _FLAGS \
        and not re.search(r"\d", text)


def _says(claim_words: frozenset[str], cell_words: frozenset[str]) -> bool:
    return bool(claim_words & cell_words) or any(
        lexicon.related(c, w) in _LINKS for c in claim_words for w in cell_words if len(c) > 2 and len(w) > 2)


def _figure_elsewhere(claim: AtomicClaim, evidence: Evidence, cell: Cell) -> bool:
    """Whether a figure of the claim is the figure of another cell of the row: the claim is about that
    column, whatever words it shares with the word cell's header."""
    others = [c for c in cells_of(evidence.quote, evidence.table_headers) if c.start != cell.start]
    return any(values_agree(mine, theirs) is True for mine in claim.values for c in others
               for theirs in values_in(c.text))


@rule("GC210", "cell-not-said", family="slots", effect="insufficient",
      good=[("Phones are replaced under the warranty.", "| Phones | 1 year | 1 year | Replace |",
             {"block_type": "table_row", "table_headers": ("Product type", "Parts covered", "Labour covered",
                                                           "Repair or replace")})],
      bad=[("Phones are repaired first under the warranty.", "| Phones | 1 year | 1 year | Replace |",
            {"block_type": "table_row", "table_headers": ("Product type", "Parts covered", "Labour covered",
                                                          "Repair or replace")})])
def cell_not_said(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """The words of a row's cell are its value: a claim naming the column must say them.

    "Phones are repaired first" against the row "| Phones | ... | Replace |" under "Repair or replace":
    every claim word is in the row or its headers ("repair" in the header), so the share of found
    words passes, yet the row's value is "Replace"; "repair first" is the value of other rows. The
    column the claim's words name (:func:`graphcite.language.frames.named_column`) among the cells of
    words (not figures or yes/no flags, which the value and polarity rules read) must have a word of its
    cell in the claim, itself or by a WordNet paraphrase.
    """
    if evidence.block_type != "table_row" or not evidence.table_headers:
        return SKIP
    claim_words = _words(claim.text)
    cell = named_column(claim.text, evidence.quote, evidence.table_headers, _word_cell)
    if cell is None or not claim_words & _words(cell.column):
        return SKIP  # a veto needs the claim to name the column in its own words, not through a WordNet link
    if _figure_elsewhere(claim, evidence, cell):
        return SKIP  # "leave 8 hours between doses": the claim gives the figure of another column
    cell_words = _words(cell.text)
    # the words naming the column do not also say its value ("watered" names "Water supply"; that
    # WordNet files "hose" under "water" does not make it say "Hose point")
    if not cell_words or _says(claim_words - (_words(cell.column) - cell_words), cell_words):
        return PASS
    return fail(f"the row says {as_written(evidence.quote, cell.text)!r} in the column the claim names, "
                "which the claim does not say")
