"""The term index: lemmatised content terms per evidence unit, built inside the database.

Candidate lookup for contradictions needs "which current units talk about retries?" without a
full scan and without downloadable extensions (no FTS). Ingest fills ``term_posting`` with one
``INSERT ... SELECT`` that tokenises unit text in SQL and lemmatises through ``lemma_lookup``;
:func:`content_terms` tokenises the query side the same way in Python.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pyarrow as pa
from spacy.lang.en.stop_words import STOP_WORDS

from graphcite.ingest.nlp import lemma, lemma_lookup
from graphcite.store import Store

__all__ = ["TOKEN_PATTERN", "content_terms", "ensure_lemma_table", "index_revisions"]

# One pattern for SQL (DuckDB's RE2, PostgreSQL's ARE) and Python: runs of letters/digits, inner dots and hyphens allowed.
TOKEN_PATTERN = r"[a-z0-9]+(?:[.\-][a-z0-9]+)*"
_TOKEN_RE = re.compile(TOKEN_PATTERN)
STOPWORDS: frozenset[str] = frozenset(w.lower() for w in STOP_WORDS) - {"no", "not", "never", "none", "nor"}


@lru_cache(maxsize=50_000)
def _term(word: str) -> str | None:
    if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
        return None
    return lemma(word)


def content_terms(text: str) -> list[str]:
    """Distinct lemmatised content terms of ``text`` in first-seen order (stopwords dropped, numbers kept)."""
    seen: dict[str, None] = {}
    for word in _TOKEN_RE.findall(text.lower()):
        term = _term(word)
        if term and term not in STOPWORDS:
            seen.setdefault(term, None)
    return list(seen)


def ensure_lemma_table(store: Store) -> None:
    """Load spaCy's English lookup lemmas into ``lemma_lookup`` once per store (bulk, via Arrow)."""
    if store.scalar("SELECT count(*) FROM lemma_lookup"):
        return
    words: list[str] = []
    lemmas: list[str] = []
    for word, base in sorted(lemma_lookup().items()):
        low = word.lower()
        if low == word and low != base.lower():
            words.append(low)
            lemmas.append(base.lower())
    store.bulk_insert("lemma_lookup", pa.table({"word": words, "lemma": lemmas}), or_ignore=True)


def index_revisions(store: Store, revision_ids: list[str]) -> int:
    """Add term postings for every unit of the given revisions; returns rows added.

    Units are indexed in groups of about :data:`INDEX_CHUNK_CHARS` characters of text, so the
    tokenising query never holds the words of a whole large ingest at once (a 24 MB file would
    otherwise need half a gigabyte for one ``DISTINCT``).
    """
    if not revision_ids:
        return 0
    with store.temporary("_gc_new_revs", revision_ids):
        sizes = store.rows("""SELECT u.unit_id, length(u.text) AS size FROM evidence_unit u
                              JOIN _gc_new_revs n ON n.id = u.revision_id ORDER BY u.revision_id, u.ordinal""")
    words = store.dialect.tokens("lower(u.text)", TOKEN_PATTERN)
    digit = store.dialect.matches("w.word", "^[0-9]$")
    insert = store.dialect.insert_ignore("term_posting", "term, unit_id", f"""
        SELECT DISTINCT coalesce(l.lemma, w.word) AS term, w.unit_id
        FROM (SELECT u.unit_id, {words} AS word
              FROM evidence_unit u JOIN _gc_index_units c ON c.id = u.unit_id) w
        LEFT JOIN lemma_lookup l ON l.word = w.word
        WHERE w.word NOT IN (SELECT word FROM _gc_stop)
          AND (length(w.word) > 1 OR {digit})
          AND coalesce(l.lemma, w.word) NOT IN (SELECT word FROM _gc_stop)""")
    with store.temporary("_gc_stop", pa.table({"word": sorted(STOPWORDS)})):
        before = store.scalar("SELECT count(*) FROM term_posting")
        for chunk in _chunks(sizes):
            with store.temporary("_gc_index_units", chunk):
                store.execute(insert)
        return int(store.scalar("SELECT count(*) FROM term_posting")) - int(before)


#: Characters of unit text tokenised per indexing query.
INDEX_CHUNK_CHARS = 1_000_000


def _chunks(sizes: list[dict[str, object]]) -> list[list[str]]:
    """Unit ids in groups whose text adds up to about :data:`INDEX_CHUNK_CHARS` characters."""
    chunks: list[list[str]] = []
    current: list[str] = []
    total = 0
    for row in sizes:
        current.append(str(row["unit_id"]))
        total += int(row["size"] or 0)  # type: ignore[call-overload]
        if total >= INDEX_CHUNK_CHARS:
            chunks.append(current)
            current, total = [], 0
    if current:
        chunks.append(current)
    return chunks
