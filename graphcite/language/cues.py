"""Cue phrases that claims and evidence share: one list of negation cues, read from ``data/words.json``.

"Failed to win" and "refused to sign" negate their verb as surely as "did not"; the claim reader and
the evidence reader take these phrases from the same list, so a claim and its quote are read alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphcite.language.words import _data

__all__ = ["negation_pattern", "negation_phrases"]


@lru_cache(maxsize=1)
def negation_phrases() -> tuple[str, ...]:
    """Every negation cue: plain ("not", "never") and implicative ("failed to", "refused to").

    Whole contractions ("doesn't") are in the list for readers that take a word whole; here the
    cue is their "n't", which the tokenizer splits off and :func:`negation_pattern` finds."""
    data = _data()
    phrases = [p for p in data["negation"] if p == "n't" or not p.endswith("n't")]
    return tuple(dict.fromkeys([*phrases, *data["implicative_negation_phrases"]]))


@lru_cache(maxsize=1)
def negation_pattern() -> re.Pattern[str]:
    """A regex for any negation cue, longest phrases first (case-insensitive, word-bounded); "n't"
    with either apostrophe ("doesn\u2019t" as well as "doesn't")."""
    phrases = sorted(negation_phrases(), key=len, reverse=True)
    body = "|".join(re.escape(p) for p in phrases if p != "n't")
    return re.compile(rf"\b(?:{body})\b|n['\u2019]t\b", re.IGNORECASE)
