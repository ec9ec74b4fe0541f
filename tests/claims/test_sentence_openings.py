"""How a sentence opens: a time phrase that is the subject, and first/last as adjectives.

A leading time phrase is context ("Last year the pump failed": the pump failed, in the past), but
when the verb follows it at once the phrase is the subject, and reading it as context left the
claim without a subject, a predicate or its negation.
"""

from __future__ import annotations

import pytest

from graphcite.claims.decompose import decompose


@pytest.mark.parametrize(("text", "subject", "predicate", "negated"), [
    ("Last year was not the coldest on record.", "Last year", "was not", True),
    ("Last week brought hail to the valley.", "Last week", "brought", False),
    ("Yesterday brought hail to the valley.", "Yesterday", "brought", False),
    ("Last year the ferry did not run.", "the ferry", "did not run", True),
    ("Last year, the ferry stopped.", "the ferry", "stopped", False),
    ("Last winter the lake did not freeze.", "the lake", "did not freeze", True),
    ("Last summer brought drought to the valley.", "Last summer", "brought", False),
    ("First responders were not warned about the gas.", "First responders", "were not warned", True),
    ("First, the valve was not closed.", "the valve", "was not closed", True),
    ("The crew last inspected the hull in 2019.", "The crew", "last inspected", False),
])
def test_sentence_openings(text: str, subject: str, predicate: str, negated: bool) -> None:
    (claim,) = decompose(text)
    assert (claim.subject, claim.predicate, claim.negated) == (subject, predicate, negated)
    assert claim.tense == "past" or not text.startswith(("Last", "Yesterday"))
