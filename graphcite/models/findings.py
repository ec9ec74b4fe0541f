"""The one wording of findings for people: each detail a sentence, one line per rule of a citation.

The text report (``cli/render``), the HTML export (``export/html``), the chain view (``cli/graph``) and
the review app (``serve/review``) all say findings with these functions, so a reviewer reads the same
words wherever a report is shown. It sits with the models, below every renderer, so none of them
imports upward to reach it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ANSWER_PASSAGE", "CONFIG_HASH_MEANING", "LOCATED", "PASSAGE", "SHOWN_NOTES", "citation_notes", "finding_items",
           "finding_lines", "findings_heading", "sentence"]

#: notes a reviewer must see: an older revision was cited, what a quote changed, how it was normalised
SHOWN_NOTES = frozenset({"GC103", "GC108", "GC110"})

#: what a configuration hash is, in the words every report, evaluation and review page uses
CONFIG_HASH_MEANING = ("one hash of every setting that can change a verdict: rules, thresholds, judge, domain, "
                       "lexicon; reports with the same hash were decided alike")

#: what a citation whose span graphcite found says, in every report (the answer named a source, not a span)
LOCATED = "evidence located by graphcite (the answer gave no span)"

#: what a citation of a passage that came with the answer (not a stored document) says, in every report
PASSAGE = "a passage that came with the answer"

#: a citation's ``evidence_kind`` when its evidence is such a passage (claims.formats.passages.EVIDENCE_KIND)
ANSWER_PASSAGE = "answer-passage"


def sentence(detail: str) -> str:
    """A finding's detail as a sentence for people: a capital first letter and a full stop."""
    text = detail.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    if text.endswith(")") and " (GC" in text:  # "... (GC201)": the code closes the sentence
        body, code = text.rsplit(" (", 1)
        return f"{body.rstrip('.')}. ({code}"
    return text if text[-1] in ".!?" else text + "."


def finding_items(findings: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str, str]]:
    """The findings of one citation as a reviewer reads them, in every report alike:
    ``(outcome, code, rule, text)``, one per rule (a rule that failed for two parts of a claim says both
    in its one text), each detail written as a sentence; the notes a reviewer must see
    (:data:`SHOWN_NOTES`) after the failures. Passes, skips and other notes are left out."""
    said: dict[tuple[str, str, str], list[str]] = {}
    for finding in findings:
        outcome = str(finding.get("outcome", "fail"))
        if (outcome == "note" and finding["code"] not in SHOWN_NOTES) or outcome not in {"fail", "note"}:
            continue
        details = said.setdefault((outcome, finding["code"], finding["rule"]), [])
        detail = sentence(finding.get("detail") or "")
        if detail and detail not in details:
            details.append(detail)
    ordered = sorted(said.items(), key=lambda item: item[0][0] == "note")  # failures first, each in report order
    return [(outcome, code, rule, " ".join(details)) for (outcome, code, rule), details in ordered]


def finding_lines(findings: Sequence[Mapping[str, Any]]) -> list[str]:
    """The findings of one citation as lines of a text report (see :func:`finding_items`); a note is
    marked ``note``."""
    return [(f"note {code} {rule}" if outcome == "note" else f"{code} {rule}") + (f": {text}" if text else "")
            for outcome, code, rule, text in finding_items(findings)]


def citation_notes(citation: Mapping[str, Any]) -> list[str]:
    """Where a citation's evidence came from, when a reader must be told, in the words of every report:
    a passage that came with the answer (:data:`PASSAGE`), evidence graphcite located because the answer
    gave no span (:data:`LOCATED`)."""
    return [note for note, said in ((PASSAGE, citation.get("evidence_kind") == ANSWER_PASSAGE),
                                    (LOCATED, bool(citation.get("located")))) if said]


def findings_heading(items: Sequence[tuple[str, str, str, str]]) -> str:
    """What a list of :func:`finding_items` holds, as its heading says it: "2 failed checks and 1 note"."""
    failed = sum(1 for outcome, *_ in items if outcome != "note")
    notes = len(items) - failed
    said = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((failed, "failed check"), (notes, "note")) if n]
    return " and ".join(said) or "no findings"
