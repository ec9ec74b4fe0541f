"""Kinds of error seen on real text, one small made-up pair each, through the real pipeline.

Each row is claim, evidence, expected relation. These are kinds, not data-set sentences: the real-text
figures come from ``benchmarks/realtext.py``.
"""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.models import AtomicClaim
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import evaluate_pair
from graphcite.verify.evidence import evidence_from_text

SUPPORTED = [
    # paraphrase through general lexical knowledge
    ("The firm was set up in 1994.", "The firm was established in 1994."),
    ("The council put off the vote.", "The council postponed the vote until May."),
    ("Maria Lopez was a physician.", "Maria Lopez worked as a doctor in Lisbon for thirty years."),
    ("The mayor bought a car.", "The mayor purchased a small car last spring."),
    ("Kessler grew up in a large city.", "Kessler grew up in Chicago."),
    ("The plant employs more than 300 workers.", "The plant employs 315 workers."),
    ("Under 40% of voters took part.", "Only 38% of voters took part."),
    ("The bridge opened in 1998.", "The bridge was opened to traffic on March 3, 1998."),
    ("The ferry leaves at 09:30.", "The first ferry leaves at 09:30 every morning."),
    ("She left three daughters.", "She died in 1950 and left three daughters.", {"title": "Ada Brook"}),
    ("Ada Brook left three daughters.", "She left three daughters.", {"title": "Ada Brook"}),
    ("The museum is in Oslo.", "The museum is located in Oslo, Norway."),
    ("The novel was published in May 2004.", "The novel was published in May 2004 by a small press."),
    ("The film was a box-office success.", "The film was a box-office success, earning twice its budget."),
]

UNSUPPORTED = [
    # swapped entity or attribute
    ("The factory is in Ohio.", "The factory is located in Toledo, Spain."),
    ("Jan Visser was a Dutch painter.", "Jan Visser was a Belgian painter."),
    ("The museum is in Oslo.", "The museum is located in Bergen, Norway."),
    # dates, years, times
    ("The bridge opened on March 3, 1998.", "The bridge opened on March 13, 1998."),
    ("The album was released in 2011.", "The album was released in 2013."),
    ("The ferry leaves at 09:30.", "The ferry leaves at 10:30."),
    ("She was the third woman to hold the post.", "She was the fourth woman to hold the post."),
    # bounds
    ("The club has fewer than five members.", "The club has five members."),
    ("The tax is at most 20 percent.", "The tax is set within 30 percent."),
    # antonyms and lexical negation
    ("The valley is heavily populated.", "The valley is sparsely populated."),
    ("It is the strongest team in the league.", "It is the weakest team in the league."),
    ("The senator signed the treaty.", "The senator refused to sign the treaty."),
    ("The team won the final.", "The team failed to win the final."),
    ("The company avoided bankruptcy.", "The company went into bankruptcy."),
    ("Prices increased in 2010.", "Prices decreased in 2010."),
    # a claim more specific than its evidence
    ("Kessler grew up in Chicago.", "Kessler grew up in a large city."),
]


def _relation(claim: str, evidence: str, meta: dict | None = None) -> str:
    parts = decompose(claim) or [AtomicClaim(text=claim, span=(0, len(claim)))]
    ev = evidence_from_text(evidence, **(meta or {}))
    relations = [evaluate_pair(part, ev, VerifierConfig()).relation for part in parts]
    return "supports" if all(r == "supports" for r in relations) else next(r for r in relations if r != "supports")


@pytest.mark.parametrize("row", SUPPORTED, ids=[r[0] for r in SUPPORTED])
def test_paraphrase_and_bounds_support(row: tuple) -> None:
    assert _relation(*row) == "supports"


@pytest.mark.parametrize("row", UNSUPPORTED, ids=[r[0] + " / " + r[1] for r in UNSUPPORTED])
def test_changed_slot_does_not_support(row: tuple) -> None:
    assert _relation(*row) != "supports"
