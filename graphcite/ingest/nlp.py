"""The shared spaCy pipeline now lives in :mod:`graphcite.language.nlp`; this name stays for ingest code."""

from __future__ import annotations

from graphcite.language.nlp import get_nlp, lemma, lemma_lookup, tokenize_lemmas

__all__ = ["get_nlp", "lemma", "lemma_lookup", "tokenize_lemmas"]
