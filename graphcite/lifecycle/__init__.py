"""The life of a verified claim after its first check: staleness, scoped acceptance, adoption (and the
circular citation it can lead to), answerability.

These functions read what ingest, claims and verify stored and append their own records; nothing
earlier in the pipeline imports them.
"""

from __future__ import annotations

from graphcite.lifecycle.accept import accept, acceptances, parse_expiry
from graphcite.lifecycle.answerable import answerable, load_plan
from graphcite.lifecycle.circular import circular_citations
from graphcite.lifecycle.stale import find_stale, recheck_stale, stale

__all__ = ["accept", "acceptances", "answerable", "circular_citations", "find_stale", "load_plan", "parse_expiry",
           "recheck_stale", "stale"]
