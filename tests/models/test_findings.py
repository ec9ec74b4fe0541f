"""The one wording of findings (graphcite.models.findings) sits below every renderer that says it.

The text report, the HTML export and the review app must print a finding with the same words; they do
when each calls the one function, and none reaches up into the CLI for it (issue 25, STYLE: imports point
one way).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphcite.cli import render
from graphcite.export import html
from graphcite.models import findings
from graphcite.serve import review

PACKAGE = Path(findings.__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("path", sorted(
    [*(PACKAGE / "export").glob("*.py"), *(PACKAGE / "models").glob("*.py"), PACKAGE / "serve" / "review.py",
     PACKAGE / "serve" / "templates.py"]), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_renderer_below_the_cli_imports_it(path: Path) -> None:
    upward = sorted(name for name in _imports(path) if name == "graphcite.cli" or name.startswith("graphcite.cli."))
    assert upward == [], f"{path.name} imports {upward}"


def test_every_renderer_uses_the_one_wording() -> None:
    assert render.finding_items is findings.finding_items and render.finding_lines is findings.finding_lines
    assert render.sentence is findings.sentence and render.CONFIG_HASH_MEANING is findings.CONFIG_HASH_MEANING
    assert html.finding_items is findings.finding_items
    assert review.environment().globals["finding_items"] is findings.finding_items
    assert review.CONFIG_HASH_MEANING is findings.CONFIG_HASH_MEANING


def test_a_detail_becomes_a_sentence() -> None:
    assert findings.sentence("  the evidence does not say 'rate'") == "The evidence does not say 'rate'."
    assert findings.sentence("is it stated?") == "Is it stated?"
    assert findings.sentence("the value differs (GC301)") == "The value differs. (GC301)"
    assert findings.sentence("the value differs. (GC301)") == "The value differs. (GC301)"
    assert findings.sentence("   ") == ""


def test_failures_come_before_the_notes_a_reviewer_must_see_and_other_outcomes_are_left_out() -> None:
    def finding(code: str, outcome: str, detail: str = "") -> dict[str, str]:
        return {"code": code, "rule": f"rule-{code}", "outcome": outcome, "detail": detail}

    said = findings.finding_items([finding("GC103", "note", "revision 1 was cited"), finding("GC999", "note", "x"),
                                   finding("GC301", "pass"), finding("GC302", "skip", "no value"),
                                   finding("GC201", "fail", "few slots")])
    assert [(outcome, code) for outcome, code, _, _ in said] == [("fail", "GC201"), ("note", "GC103")]
    assert findings.finding_lines([finding("GC103", "note")]) == ["note GC103 rule-GC103"]
    assert findings.finding_lines([{"code": "GC202", "rule": "predicate", "detail": "no verb"}]) == [
        "GC202 predicate: No verb."]  # a finding without an outcome is a failure


def test_a_citation_says_where_its_evidence_came_from() -> None:
    assert findings.citation_notes({"evidence_kind": findings.ANSWER_PASSAGE, "located": True}) == [
        findings.PASSAGE, findings.LOCATED]
    assert findings.citation_notes({"evidence_kind": None, "located": False}) == []
    assert findings.citation_notes({"located": True}) == [findings.LOCATED]
    from graphcite.claims.formats.passages import EVIDENCE_KIND

    assert EVIDENCE_KIND == findings.ANSWER_PASSAGE  # the kind the reports write is the one the wording reads


def test_the_heading_of_a_citations_findings_counts_failures_and_notes() -> None:
    def items(failed: int, notes: int) -> list[tuple[str, str, str, str]]:
        return [("fail", "GC201", "r", "")] * failed + [("note", "GC103", "r", "")] * notes

    assert findings.findings_heading(items(1, 0)) == "1 failed check"
    assert findings.findings_heading(items(2, 1)) == "2 failed checks and 1 note"
    assert findings.findings_heading(items(0, 2)) == "2 notes"
    assert findings.findings_heading([]) == "no findings"
