"""The one spaCy pipeline graphcite uses, built once per process (claims and evidence alike).

Default: spaCy's blank English with a lookup lemmatizer (tables from spacy-lookups-data, read from
site-packages, nothing downloaded). A trained pipeline is used only when installed and asked for.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING

from graphcite.errors import make_error

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["get_nlp", "lemma", "lemma_lookup", "tokenize_lemmas"]


@lru_cache(maxsize=4)
def get_nlp(model: str | None = None) -> Language:
    """Return the shared pipeline: blank English (its tokenizer; lemmas come from the lookup table),
    or the named trained pipeline.

    spaCy is imported here, not at module level: lemmas and word lists do not need it, and a process
    that only ingests starts half a second sooner.
    """
    import spacy

    if model:
        try:
            return spacy.load(model)
        except OSError as exc:
            raise make_error("E402", model=model, where="--spacy-model",
                             fix="install it with pip or omit --spacy-model to use the blank English pipeline") from exc
    # the tokenizer only: lemmas come from the lookup table (lemma(), build_doc), never from a pipe,
    # so a lookup lemmatizer here would load the table into spaCy a second time for nothing
    return spacy.blank("en")


# function words the lookup table reads as inflected nouns ("does" as the plural of "doe", "as" of "a")
_FUNCTION_LEMMAS = {"does": "do", "as": "as"}


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """Lowercased lookup lemma of one word ("retries" -> "retry"); the word itself when unknown."""
    lowered = word.lower()
    if lowered in _FUNCTION_LEMMAS:
        return _FUNCTION_LEMMAS[lowered]
    table = lemma_lookup()  # the lookup lemmatizer's own table, without building the pipeline
    found = table.get(lowered)
    if found is None:
        found = table.get(word)
    found = (found or lowered).lower()
    irregular = _verb_exceptions().get(lowered)
    if irregular and found != lowered and found not in irregular:
        return irregular[0]  # WordNet's irregular verb forms win: "putting" is "put", not "putt"; "dying" is "die"
    return found


@lru_cache(maxsize=1)
def _verb_exceptions() -> dict[str, list[str]]:
    from graphcite.language.lexicon_data import load_tables

    return load_tables().exceptions["v"]


def tokenize_lemmas(text: str) -> list[str]:
    """Lowercased lemmas of the word tokens of ``text`` using spaCy's tokenizer (no other components)."""
    tokenizer = get_nlp().tokenizer
    return [lemma(tok.text) for tok in tokenizer(text) if not tok.is_space and not tok.is_punct]


@lru_cache(maxsize=1)
def lemma_lookup() -> dict[str, str]:
    """spaCy's English word -> lemma lookup table, read once from spacy-lookups-data."""
    raw = files("spacy_lookups_data").joinpath("data/en_lemma_lookup.json.gz").read_bytes()
    return json.loads(gzip.decompress(raw))
