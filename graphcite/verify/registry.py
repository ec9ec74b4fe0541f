"""The rule registry: one rule = code, symbol, family, effect, docstring, and good/bad cases.

Rules register here through :func:`rule` (pylint style). A rule is a small function of one atomic
claim and one piece of evidence that returns a :class:`RuleResult`: :data:`SKIP` when it does not
apply, :data:`PASS` when it passes, :func:`fail` with a message when it fails (:func:`failures` for a
list of problems, which passes when the list is empty). The registry turns that into a :class:`Finding`
carrying the rule's effect. Each rule carries good and bad cases (claim text, evidence text, evidence
metadata); a meta-test runs every case through the real pipeline, so a rule without cases, or with
cases it gets wrong, fails CI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphcite.models.reports import Outcome, Relation

if TYPE_CHECKING:
    from graphcite.models import AtomicClaim
    from graphcite.verify.evidence import Evidence

__all__ = ["PASS", "RULES", "RULES_VERSION", "SKIP", "Case", "Finding", "Outcome", "Rule", "RuleResult", "fail",
           "failures", "get_rule", "note", "rule"]

RULES_VERSION = "2026.11.1"


@dataclass(frozen=True, slots=True)
class RuleResult:
    """What a rule's check concluded, before the registry adds the rule's code and effect: an outcome
    and, for a failure or a note, the message that says why."""

    outcome: Outcome
    message: str = ""


#: the check passed: the evidence says what the rule asks of it
PASS = RuleResult(Outcome.PASS)
#: the rule does not apply to this claim and evidence
SKIP = RuleResult(Outcome.SKIP)


def fail(message: str) -> RuleResult:
    """A failure with the message a reader sees ("claim says '14 days', evidence says '30 days'")."""
    if not message:
        raise ValueError("a failing rule must say why")
    return RuleResult(Outcome.FAIL, message)


def note(message: str) -> RuleResult:
    """Something worth reporting that has no effect on the verdict."""
    return RuleResult(Outcome.NOTE, message)


def failures(problems: Iterable[str]) -> RuleResult:
    """:data:`PASS` when there are no problems, else a failure listing them (joined by "; ")."""
    message = "; ".join(problems)
    return RuleResult(Outcome.FAIL, message) if message else PASS


@dataclass(frozen=True, slots=True)
class Finding:
    """What one rule concluded about one citation of one claim.

    ``effect`` is the relation a failure forces (contradicts, contextualizes, insufficient, mentions);
    a pass, a note or a skip has none. ``contribution`` is what a soft finding adds to the calibrated
    decision, in log-odds (the support finding GC201 and the notes; a veto has none). Plain strings
    are accepted and typed on the way in, so callers outside the rules (the integrity checks) say the
    same thing the same way.
    """

    code: str
    rule: str
    outcome: Outcome
    detail: str = ""
    effect: Relation | None = None
    contribution: float | None = None

    def __post_init__(self) -> None:
        if type(self.outcome) is not Outcome:
            object.__setattr__(self, "outcome", Outcome(self.outcome))
        if self.effect is not None and type(self.effect) is not Relation:
            object.__setattr__(self, "effect", Relation(self.effect))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "rule": self.rule, "outcome": self.outcome, "detail": self.detail}
        if self.contribution is not None:
            out["contribution"] = self.contribution
        return out


@dataclass(frozen=True, slots=True)
class Case:
    """An example for a rule: claim text against evidence text with metadata overrides."""

    claim: str
    evidence: str
    meta: dict[str, Any] = field(default_factory=dict)


CheckFn = Callable[["AtomicClaim", "Evidence"], RuleResult]


@dataclass(frozen=True, slots=True)
class Rule:
    """A registered qualifier rule."""

    code: str
    symbol: str
    family: str
    effect: Relation
    check: CheckFn
    good: tuple[Case, ...]
    bad: tuple[Case, ...]

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()

    def run(self, claim: AtomicClaim, evidence: Evidence) -> Finding:
        result = self.check(claim, evidence)
        outcome = result.outcome
        if outcome is Outcome.FAIL:
            return Finding(self.code, self.symbol, outcome, result.message, self.effect)
        if outcome is Outcome.SKIP:
            return Finding(self.code, self.symbol, outcome)
        return Finding(self.code, self.symbol, outcome, result.message)


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
        RULES[code] = Rule(code, symbol, family, Relation(effect), fn,
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
