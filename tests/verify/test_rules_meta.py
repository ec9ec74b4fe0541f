"""Every rule has a docstring, good cases that pass and bad cases that fail, through the real pipeline."""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.models import AtomicClaim
from graphcite.verify import explain_rule, list_rules
from graphcite.verify import rules as _rules  # noqa: F401
from graphcite.verify.evidence import evidence_from_text
from graphcite.verify.registry import RULES, Case, Rule

CASES = [(code, kind, i) for code, r in sorted(RULES.items())
         for kind, cases in (("good", r.good), ("bad", r.bad)) for i in range(len(cases))]


def _outcomes(rule: Rule, case: Case) -> list[str]:
    parts = decompose(case.claim) or [AtomicClaim(text=case.claim, span=(0, len(case.claim)))]
    evidence = evidence_from_text(case.evidence, **dict(case.meta))
    return [rule.run(part, evidence).outcome for part in parts]


def test_every_rule_has_good_and_bad_cases_and_a_docstring() -> None:
    assert len(RULES) >= 15
    for code, item in RULES.items():
        assert item.good, f"{code} has no good case"
        assert item.bad, f"{code} has no bad case"
        assert len(item.doc) > 40, f"{code} needs a docstring that says why"
        assert code.startswith("GC") and code[2:].isdigit()


@pytest.mark.parametrize("code, kind, index", CASES)
def test_rule_case(code: str, kind: str, index: int) -> None:
    item = RULES[code]
    case = (item.good if kind == "good" else item.bad)[index]
    outcomes = _outcomes(item, case)
    if kind == "good":
        assert "fail" not in outcomes and "pass" in outcomes, (code, case, outcomes)
    else:
        assert "fail" in outcomes, (code, case, outcomes)


def test_rules_list_and_explain() -> None:
    rows = list_rules()
    codes = [r["code"] for r in rows]
    assert codes == sorted(codes) and "GC101" in codes and "GC301" in codes
    text = explain_rule("GC601")
    assert "Rejected alternatives" in text and "passes:" in text and "fails:" in text
    assert explain_rule("value-mismatch").startswith("GC301")
