"""Heading cues that give a block its status ("Rejected alternatives" -> rejected).

A sentence means something different under "Current decision" than under "Rejected alternatives";
the status travels with every evidence unit so rules can tell them apart. The cue table is plain
data: add a row to teach a new heading. Headings are matched on a normalised copy (casefolded,
section numbers and punctuation removed), by whole words, at the start or the end of the heading:
"3.2 Rejected alternatives", "Alternatives considered" and "Option B (rejected)" match, while
"Handling rejected requests" does not.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["HEADING_CUES", "heading_status", "normalise_heading", "status_for"]

#: (cue phrase, status). Phrases are written already normalised: lowercase words, single spaces.
HEADING_CUES: tuple[tuple[str, str], ...] = (
    ("current decision", "current"),
    ("current behaviour", "current"),
    ("current behavior", "current"),
    ("previous behaviour", "historical"),
    ("previous behavior", "historical"),
    ("history", "historical"),
    ("historical", "historical"),
    ("historical context", "historical"),
    ("superseded", "superseded"),
    ("proposal", "proposal"),
    ("proposals", "proposal"),
    ("proposed", "proposal"),
    ("rejected alternatives", "rejected"),
    ("alternatives considered", "rejected"),
    ("rejected", "rejected"),
    ("do not implement", "forbidden"),
    ("must not implement", "forbidden"),
    ("forbidden", "forbidden"),
    ("draft", "draft"),
)

# Leading section numbers: "3", "3.2", "3.2.1.", "IV.", "A)" (a single letter or roman numeral
# followed by "." or ")").
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[ivxlcdm]+[.)]|[a-z][.)])\s+")
_NOT_WORD = re.compile(r"[\W_]+")

# Longest cues first so "rejected alternatives" reports itself rather than "rejected".
_CUES_BY_LENGTH = sorted(HEADING_CUES, key=lambda row: len(row[0]), reverse=True)


def normalise_heading(heading: str) -> str:
    """NFKC-casefolded words of ``heading``, without section numbers or punctuation."""
    folded = unicodedata.normalize("NFKC", heading).casefold()
    folded = _NUMBERING.sub("", folded)
    return " ".join(_NOT_WORD.sub(" ", folded).split())


@lru_cache(maxsize=100_000)  # a corpus repeats its headings ("Notes", "Usage") under ever new paths
def heading_status(heading: str) -> str | None:
    """The status a single heading names, or None when it names none."""
    words = normalise_heading(heading)
    if not words:
        return None
    for cue, status in _CUES_BY_LENGTH:
        if words == cue or words.startswith(cue + " ") or words.endswith(" " + cue):
            return status
    return None


def status_for(heading_path: tuple[str, ...], document_status: str | None) -> tuple[str, str | None]:
    """(status, cue) for a block under ``heading_path`` in a document whose front matter says
    ``document_status``.

    The deepest heading that names a status wins; otherwise the document status applies (cue
    "front matter"), and without one the block is "current" with no cue. One exception: a
    "Current decision" heading does not lift a document that is itself superseded, historical,
    rejected, draft or a proposal -- the document's own status is the stronger signal there.
    """
    for heading in reversed(heading_path):
        status = heading_status(heading)
        if status is None:
            continue
        if status == "current" and document_status not in (None, "current"):
            break
        return status, heading
    if document_status:
        return document_status, "front matter"
    return "current", None
