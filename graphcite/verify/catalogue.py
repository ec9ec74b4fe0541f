"""The codes the engine itself reports: citation integrity (GC101-GC110), support (GC201), the
multi-citation codes (GC951-GC953) and the declared-type code GC954. Together with the qualifier
rules in :mod:`graphcite.verify.registry` they make one catalogue: `graphcite rules` lists every code, `graphcite rules explain CODE` prints
its why and its cases, and a meta-test runs every case through a real store.

These codes are not functions of one claim and one span (they need the store, the audience or all of
a claim's citations), so their cases are whole citations against a small case corpus
(:data:`CASE_CORPUS`), checked end to end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CASE_CORPUS", "CODES", "CitationCase", "CodeEntry", "code_entry"]

# The documents every case cites. "cases/policy.md" gets a second revision in the meta-test
# (CASE_POLICY_V2), so "@first" names a revision that is no longer current.
CASE_CORPUS: dict[str, str] = {
    "cases/policy.md": "---\ntitle: Returns policy\nstatus: current\n---\n# Returns\n\n"
                       "Refunds are accepted for 14 days after delivery.\n\n"
                       "The help desk answers within one working day.\n\n"
                       "Refund questions go to the help desk.\n",
    "cases/secret.md": "---\ntitle: Staff returns\nvisibility: restricted\n---\n# Staff returns\n\n"
                       "Staff refunds are accepted for 60 days after delivery.\n",
    "cases/depot.md": "# Depot\n\nParcels wait at the depot. Parcels wait at the depot.\n",
    "cases/relay.md": "# Relay\n\n## Routing\n\n"
                      "The relay forwards urgent parcels first. It holds the rest until the evening run.\n\n"
                      "The evening run leaves the depot at six.\n\n"
                      "## Staffing\n\nTwo couriers work the evening shift.\n\n"
                      "## Flags\n\nThe relay's \"hold\" flag \u2014 set by the dispatcher \u2014 pauses forwarding.\n",
}
CASE_POLICY_V2 = CASE_CORPUS["cases/policy.md"] + "\nStore credit never expires.\n"


@dataclass(frozen=True, slots=True)
class CitationCase:
    """A claim with its citations (native answer form) and the audience it is checked for.

    Citation revisions may be "@first" or "@current": the meta-test puts the real revision ids in.
    """

    claim: str
    citations: tuple[dict[str, Any], ...]
    audience: str = "internal"
    claim_type: str | None = None  # the type the answer declares ("background", ...)


@dataclass(frozen=True, slots=True)
class CodeEntry:
    """One engine code: what it is called, what its failure does, why it matters, and its cases.

    ``good`` cases must not fail the code; ``bad`` cases must (as a failure or, for a code whose effect
    is a note, as a note). For a code that reports success (``reports="pass"``), good cases must show
    it passing and bad cases must not.
    """

    code: str
    symbol: str
    family: str
    effect: str
    doc: str
    good: tuple[CitationCase, ...]
    bad: tuple[CitationCase, ...]
    reports: str = "fail"
    extra: dict[str, Any] = field(default_factory=dict)


CODES: dict[str, CodeEntry] = {}


def _entry(code: str, symbol: str, family: str, effect: str, doc: str, good: list[CitationCase],
           bad: list[CitationCase], reports: str = "fail") -> None:
    if code in CODES:
        raise ValueError(f"code {code} registered twice")
    CODES[code] = CodeEntry(code, symbol, family, effect, " ".join(doc.split()), tuple(good), tuple(bad), reports)


def code_entry(code: str) -> CodeEntry | None:
    """The entry for an engine code or its name (None when it is a qualifier rule or unknown)."""
    key = code.strip()
    return CODES.get(key.upper()) or next((e for e in CODES.values() if e.symbol == key), None)


_REFUND = "Refunds are accepted for 14 days after delivery."
_POLICY = "cases/policy.md"


def _cite(quote: str | None = None, source: str = _POLICY, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"source": source, **extra}
    if quote is not None:
        out["quote"] = quote
    return out


_entry("GC101", "invented-identifier", "integrity", "invalid",
       """The cited source or evidence unit must exist in the store. A citation to a file or chunk id
       that was never ingested is invented: nothing can be checked against it, so the claim is invalid,
       whatever its words. For the public audience a restricted source, revision or unit is exactly a
       missing one (same code, same words): a public answer may not rest on it, and the report must not
       tell that it exists (GC104, which named it, is retired).""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, "cases/nope.md"),)),
            CitationCase("Refunds are accepted for 14 days.", ({"chunk_id": "0123456789abcdef", "quote": "x"},)),
            CitationCase("Staff refunds are accepted for 60 days.",
                         (_cite("Staff refunds are accepted for 60 days after delivery.", "cases/secret.md"),),
                         "public")])
_entry("GC102", "revision-unknown", "integrity", "invalid",
       """A citation that names a revision must name one the source has. Revisions are immutable, so
       a revision id is the only way to say exactly which text was read; an unknown one cannot be
       checked.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, revision="@current"),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, revision="ffffffffffffffff"),))])
_entry("GC103", "revision-not-current", "integrity", "note",
       """A citation to an older revision is checked against that revision's text, and the report says
       a newer one exists: the passage may have changed since the answer was written.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, revision="@current"),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, revision="@first"),))])
_entry("GC105", "span-out-of-range", "integrity", "invalid",
       """Offsets must be non-negative integers with start before end, inside the cited text. A span
       past the end, reversed or negative points at nothing; that citation is invalid and the rest of
       the answer is still checked.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(start=57, end=105),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite(start=105, end=57),)),
            CitationCase("Refunds are accepted for 14 days.", (_cite(start=0, end=10_000_000),))])
_entry("GC106", "quote-not-verbatim", "integrity", "invalid",
       """When a citation gives offsets and a quote, the stored text at those offsets must be the quote,
       character for character. A paraphrased quote says the source said something it did not.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND, start=57, end=105),))],
       bad=[CitationCase("Refunds are accepted for 14 days.",
                         (_cite("Refunds are taken for 14 days after delivery.", start=57, end=105),))])
_entry("GC107", "quote-not-located", "integrity", "invalid",
       """A quote without offsets must occur exactly once in the cited text: a quote that does not occur
       was paraphrased or invented, and one that occurs twice does not say which passage is meant.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite("Refunds are welcome for two weeks."),)),
            CitationCase("Parcels wait at the depot.", (_cite("Parcels wait at the depot.", "cases/depot.md"),))])
_entry("GC201", "lexical-support", "support", "mentions/insufficient",
       """The span must say what the claim says: each name and content word of the claim is found in the
       quote or its envelope (title, headings, the sentence a pronoun points to), directly or by a
       paraphrase from the lexicon. Below the threshold share the citation only mentions the topic.
       With a judge configured (http, local:DIR) the judge answers this question instead.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("The warehouse ships pallets on Sundays.", (_cite(_REFUND),))])
_entry("GC951", "joint-support", "multi-source", "supports",
       """Several citations may support a claim together when none does alone (one gives the who, another
       the when); the report says which citations did so. Each must still pass every rule on its own.""",
       good=[CitationCase("The help desk answers refund questions within one working day.",
                          (_cite("Refund questions go to the help desk."),
                           _cite("The help desk answers within one working day.")))],
       bad=[CitationCase("The help desk answers refund questions within one working day.",
                         (_cite("Refund questions go to the help desk."), _cite(_REFUND)))],
       reports="pass")
_entry("GC952", "citation-adds-nothing", "multi-source", "note",
       """A citation that supports no part of the claim while others do is padding: it makes the answer
       look better sourced than it is, so the report points it out.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("Refunds are accepted for 14 days.",
                         (_cite(_REFUND), _cite("The help desk answers within one working day.")))])
_entry("GC953", "restricted-origin", "multi-source", "note",
       """A claim whose decisive figure or term appears only in a restricted unit it does not cite has
       that restricted source as its origin (laundering through a public neighbour). The internal
       report names the unit; a public report says only that the origin is withheld.""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("Refunds are accepted for 60 days after delivery.", (_cite(_REFUND),))])

_entry("GC954", "background-cited", "claim-type", "insufficient",
       """A claim the answer declares general background is outside the corpus by its own account, so
       it may not borrow a citation from archive evidence: a passage that happens to agree would make
       background look sourced. The citation is reported and counts for nothing; declare the claim
       direct (and cite) or background (and do not).""",
       good=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),))],
       bad=[CitationCase("Refunds are accepted for 14 days.", (_cite(_REFUND),), claim_type="background")])

_RELAY = "cases/relay.md"
_FORWARDS = "The relay forwards urgent parcels first."
_EVENING = "The evening run leaves the depot at six."
_entry("GC108", "quote-transformed", "integrity", "note",
       """A quote may leave words out with an ellipsis ("...") and add an editor's clarification in square
       brackets ("[the relay]"), as long as it says so. Every verbatim piece must occur at its offsets, in
       the quoted order, in one unit or adjacent units of one section; the report then notes the
       transformation, lists the pieces with their offsets and shows them rendered from the stored text,
       the ellipses and insertions marked as such, never blended into the source's words.""",
       good=[CitationCase("The relay forwards urgent parcels first.", (_cite(_FORWARDS, _RELAY),))],
       bad=[CitationCase("The relay forwards urgent parcels first.",
                         (_cite("The relay forwards … parcels first.", _RELAY),)),
            CitationCase("The relay holds the rest until the evening run.",
                         (_cite("[The relay] holds the rest until the evening run.", _RELAY),))])
_entry("GC109", "quote-pieces-unrelated", "integrity", "invalid",
       """The pieces of a quote with an ellipsis must read in the order the source has them and come from
       one passage: one unit, or adjacent units of one section. A quote that reverses its pieces or joins
       sentences from different sections (or documents) puts words together that the source never put
       together, so the citation is invalid.""",
       good=[CitationCase("The relay forwards urgent parcels first and the evening run leaves at six.",
                          (_cite(f"{_FORWARDS} … {_EVENING}", _RELAY),))],
       bad=[CitationCase("The evening run leaves at six and the relay forwards urgent parcels first.",
                         (_cite(f"{_EVENING} … {_FORWARDS}", _RELAY),)),
            CitationCase("The evening run leaves at six with two couriers.",
                         (_cite(f"{_EVENING} … Two couriers work the evening shift.", _RELAY),))])
_entry("GC110", "quote-normalised", "integrity", "note",
       """Matching a quote may ignore typography that answers often change (curly for straight quotes,
       an en dash for an em dash, non-breaking spaces, runs of whitespace), but never silently: the
       report names what had to be normalised, and the quote shown is the stored characters at the
       stored offsets.""",
       good=[CitationCase("The hold flag pauses forwarding.",
                          (_cite("The relay's \"hold\" flag \u2014 set by the dispatcher \u2014 pauses forwarding.",
                                 _RELAY),))],
       bad=[CitationCase("The hold flag pauses forwarding.",
                         (_cite("The relay\u2019s \u201chold\u201d flag \u2013 set by the dispatcher \u2013 pauses "
                                "forwarding.", _RELAY),))])
