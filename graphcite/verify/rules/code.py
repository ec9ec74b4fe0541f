"""Code evidence: code shows what it contains, not what runs in production."""

from __future__ import annotations

import re

from graphcite.models import AtomicClaim
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import PASS, SKIP, RuleResult, fail, rule

__all__: list[str] = []

_DEPLOYED = re.compile(r"\b(production|prod|deployed|deployment|live|in service|running|customers?|"
                       r"workflow uses|in practice|currently runs?|at runtime)\b", re.I)
_ABOUT_TESTS = re.compile(r"\b(tests?|tested|exercises?|checks?|verif(?:y|ies)|asserts?|suite)\b", re.I)


@rule("GC801", "code-not-deployment", family="code", effect="insufficient",
      good=[("The function plan_attempts makes three attempts.", "def plan_attempts():\n    return 3 attempts",
             {"format": "python", "kind": "code", "symbol": "plan_attempts"})],
      bad=[("Production makes three attempts per delivery.", "def plan_attempts():\n    return 3 attempts",
            {"format": "python", "kind": "code", "symbol": "plan_attempts"})])
def code_not_deployment(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A function body can be unused, test-only or behind a flag: it does not prove deployed behaviour.

    Code supports "function f makes three attempts"; "production makes three attempts" also needs a
    release manifest or an observation.
    """
    if not evidence.is_code:
        return SKIP
    found = _DEPLOYED.search(claim.text)
    if not found:
        return PASS
    return fail(f"code evidence cannot show {found.group(0)!r} behaviour")


@rule("GC802", "test-not-runtime", family="code", effect="insufficient",
      good=[("The test suite checks that three attempts are made.", "assert attempts == 3",
             {"format": "python", "kind": "test", "build_role": "test"})],
      bad=[("The scheduler makes three attempts.", "assert attempts == 3",
            {"format": "python", "kind": "test", "build_role": "test"})])
def test_not_runtime(claim: AtomicClaim, evidence: Evidence) -> RuleResult:
    """A test demonstrates a scenario, not every runtime path: it supports what the test exercises."""
    if evidence.build_role != "test" and evidence.kind != "test":
        return SKIP
    if _ABOUT_TESTS.search(claim.text):
        return PASS
    return fail("test code supports what the test exercises, not the system's behaviour")
