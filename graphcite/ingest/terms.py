"""The term index: lemmatised content terms per evidence unit, read by one function on both sides.

Candidate lookup (contradictions, locate, origin, answerable) needs "which current units talk about
retries?" without a full scan and without downloadable extensions (no FTS). A unit's postings are
:func:`content_terms` of its text, computed in the per-file work (:mod:`graphcite.ingest.prepare`, so
in worker processes and Ray tasks as well) and written in bulk with the units; a claim or a query is
read by the same function, so the two sides agree on every word ("putting" is "put" on both).
"""

from __future__ import annotations

import re

from graphcite.language.nlp import lemma
from graphcite.language.words import STOPWORDS

__all__ = ["STOPWORDS", "TOKEN_PATTERN", "content_terms"]

#: Runs of ASCII letters and digits, inner dots and hyphens allowed ("v1.2", "long-term"), in lowercased
#: text; the repeats are possessive (never give back a character), which spares the matcher its backtracking.
TOKEN_PATTERN = r"[a-z0-9]++(?:[.\-][a-z0-9]++)*+"
_TOKEN_RE = re.compile(TOKEN_PATTERN)


def _term(word: str) -> str | None:
    """The index term of one lowercased token, or None for a stopword (before or after lemmatising)
    and a single letter."""
    if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
        return None
    term = lemma(word)
    return None if term in STOPWORDS else term


class _Terms(dict[str, str | None]):
    """token -> index term (None for a stopword), filled on first sight. A plain dict's lookup is what
    ``content_terms`` pays per distinct token of every unit (a third less than an ``lru_cache`` call);
    past :data:`_TERMS_HELD` tokens it starts afresh, so memory stays bounded on any corpus."""

    def __missing__(self, word: str) -> str | None:
        if len(self) >= _TERMS_HELD:
            self.clear()
        term = self[word] = _term(word)
        return term


_TERMS_HELD = 200_000
_TERMS = _Terms()


def content_terms(text: str) -> list[str]:
    """Distinct lemmatised content terms of ``text`` in first-seen order (stopwords dropped, numbers kept)."""
    terms = dict.fromkeys(map(_TERMS.__getitem__, dict.fromkeys(_TOKEN_RE.findall(text.lower()))))
    terms.pop(None, None)
    return list(terms)
