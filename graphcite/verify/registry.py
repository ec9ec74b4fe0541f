"""The rule registry: one rule = code, symbol, family, effect, docstring, and good/bad cases.

Rules register here through :func:`rule` (pylint style). A rule is a small function of one atomic
claim and one piece of evidence that returns ``None`` when it does not apply (skip), ``""`` when it
passes, or a detail string when it fails. The registry turns that into a :class:`Finding`.
Each rule carries good and bad cases (claim text, evidence text, evidence metadata); a meta-test runs
every case through the real pipeline, so a rule without cases, or with cases it gets wrong, fails CI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphcite.models import AtomicClaim
    from graphcite.verify.evidence import Evidence

__all__ = ["RULES", "RULES_VERSION", "Case", "Finding", "Rule", "get_rule", "rule"]

RULES_VERSION = "2026.11.1"


@dataclass(frozen=True, slots=True)
class Finding:
    """What one rule concluded about one citation of one claim."""

    code: str
    rule: str
    outcome: str  # pass | fail | skip
    detail: str = ""
    effect: str | None = None  # the relation a failure forces: contradicts, contextualizes, insufficient

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "outcome": self.outcome, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Case:
    """An example for a rule: claim text against evidence text with metadata overrides."""

    claim: str
    evidence: str
    meta: dict[str, Any] = field(default_factory=dict)


CheckFn = Callable[["AtomicClaim", "Evidence"], "str | None"]


@dataclass(frozen=True, slots=True)
class Rule:
    """A registered qualifier rule."""

    code: str
    symbol: str
    family: str
    effect: str
    check: CheckFn
    good: tuple[Case, ...]
    bad: tuple[Case, ...]

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()

    def run(self, claim: AtomicClaim, evidence: Evidence) -> Finding:
        detail = self.check(claim, evidence)
        if detail is None:
            return Finding(self.code, self.symbol, "skip")
        if detail == "":
            return Finding(self.code, self.symbol, "pass")
        return Finding(self.code, self.symbol, "fail", detail, self.effect)


RULES: dict[str, Rule] = {}


def rule(code: str, symbol: str, *, family: str, effect: str,
         good: list[Case | tuple[str, str] | tuple[str, str, dict[str, Any]]],
         bad: list[Case | tuple[str, str] | tuple[str, str, dict[str, Any]]]) -> Callable[[CheckFn], CheckFn]:
    """Register a rule; its ``good`` cases must pass and its ``bad`` cases must fail (meta-test)."""

    def as_case(item: Case | tuple[Any, ...]) -> Case:
        return item if isinstance(item, Case) else Case(*item)

    def decorate(fn: CheckFn) -> CheckFn:
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        if not fn.__doc__:
            raise ValueError(f"rule {code} needs a docstring saying why it matters")
        RULES[code] = Rule(code, symbol, family, effect, fn,
                           tuple(as_case(c) for c in good), tuple(as_case(c) for c in bad))
        return fn

    return decorate


def get_rule(code_or_symbol: str) -> Rule:
    """Look a rule up by code (GC301) or symbol (value-mismatch)."""
    from graphcite.errors import NotFoundError
    from graphcite.verify import rules as _rules  # noqa: F401 - registers the rules

    key = code_or_symbol.strip()
    if key.upper() in RULES:
        return RULES[key.upper()]
    for item in RULES.values():
        if item.symbol == key:
            return item
    raise NotFoundError(f"no rule {key!r}", where="rules explain", fix="run `graphcite rules` to list them")
