"""Verify: integrity, lexical support or a judge, then the qualifier rules; versioned results."""

from __future__ import annotations

from typing import Any

from graphcite.verify.check import check_answer, gate_answer, gate_stream, history, verify_answer
from graphcite.verify.config import VerifierConfig, load_config
from graphcite.verify.registry import RULES, get_rule

__all__ = ["RULES", "VerifierConfig", "check_answer", "explain_rule", "gate_answer", "gate_stream", "history",
           "list_rules", "load_config", "verify_answer"]


def list_rules() -> list[dict[str, Any]]:
    """Every code the verifier reports (integrity, support, qualifier rules, multi-citation) with its
    name, family, effect and one-line why."""
    from graphcite.verify import rules as _rules  # noqa: F401
    from graphcite.verify.catalogue import CODES

    rows = [{"code": code, "rule": e.symbol, "family": e.family, "effect": e.effect,
             "summary": e.doc.split(". ")[0].rstrip(".") + "."} for code, e in CODES.items()]
    for code, item in sorted(RULES.items()):
        rows.append({"code": code, "rule": item.symbol, "family": item.family, "effect": item.effect,
                     "summary": item.doc.splitlines()[0] if item.doc else ""})
    return sorted(rows, key=lambda r: r["code"])


def explain_rule(code: str) -> str:
    """The docstring and the good and bad cases of one code, as text."""
    from graphcite.verify.catalogue import code_entry

    entry = code_entry(code)
    if entry is not None:
        lines = [f"{entry.code} {entry.symbol} ({entry.family}; effect: {entry.effect})", "", entry.doc, ""]
        for title, cases in (("passes", entry.good), ("fails", entry.bad)):
            for case in cases:
                cites = "; ".join(", ".join(f"{k}={v}" for k, v in c.items()) for c in case.citations)
                lines.append(f"{title}: claim “{case.claim}” citing [{cites}] (audience {case.audience})")
        return "\n".join(lines)
    item = get_rule(code)
    lines = [f"{item.code} {item.symbol} ({item.family}; a failure makes the citation {item.effect})", "", item.doc, ""]
    for title, cases in (("passes", item.good), ("fails", item.bad)):
        for case in cases:
            meta = f"  [{', '.join(f'{k}={v}' for k, v in case.meta.items())}]" if case.meta else ""
            lines.append(f"{title}: claim “{case.claim}” / evidence “{case.evidence}”{meta}")
    return "\n".join(lines)
