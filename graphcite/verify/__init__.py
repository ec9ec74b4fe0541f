"""Verify: integrity, lexical support or a judge, then the qualifier rules; versioned results."""

from __future__ import annotations

from typing import Any

from graphcite.verify.check import check_answer, gate_answer, gate_stream, history, verify_answer
from graphcite.verify.config import VerifierConfig, load_config
from graphcite.verify.registry import RULES, get_rule

__all__ = ["RULES", "VerifierConfig", "check_answer", "explain_rule", "gate_answer", "gate_stream", "history",
           "list_rules", "load_config", "verify_answer"]


def list_rules() -> list[dict[str, Any]]:
    """Every registered rule (integrity rules included) with its code, name, family and one-line why."""
    from graphcite.verify import rules as _rules  # noqa: F401
    from graphcite.verify.resolve import INTEGRITY_RULES

    rows = [{"code": code, "rule": name, "family": "integrity", "effect": "invalid",
             "summary": "citation integrity (see `graphcite rules explain`)"} for code, name in INTEGRITY_RULES.items()]
    rows.append({"code": "GC201", "rule": "lexical-support", "family": "support", "effect": "mentions/insufficient",
                 "summary": "share of the claim's content terms in the quote and headings, threshold 0.5"})
    for code, item in sorted(RULES.items()):
        rows.append({"code": code, "rule": item.symbol, "family": item.family, "effect": item.effect,
                     "summary": item.doc.splitlines()[0] if item.doc else ""})
    rows.append({"code": "GC951", "rule": "joint-support", "family": "multi-source", "effect": "supports",
                 "summary": "several citations may support a claim together when none does alone"})
    rows.append({"code": "GC952", "rule": "citation-adds-nothing", "family": "multi-source", "effect": "note",
                 "summary": "a citation whose claim terms are all covered by other citations"})
    return sorted(rows, key=lambda r: r["code"])


def explain_rule(code: str) -> str:
    """The docstring and the good and bad cases of one rule, as text."""
    from graphcite.verify.resolve import INTEGRITY_RULES
    from graphcite.verify.resolve import __doc__ as integrity_doc

    key = code.strip().upper()
    if key in INTEGRITY_RULES:
        return f"{key} {INTEGRITY_RULES[key]} (integrity)\n\n{(integrity_doc or '').strip()}"
    item = get_rule(code)
    lines = [f"{item.code} {item.symbol} ({item.family}; a failure makes the citation {item.effect})", "", item.doc, ""]
    for title, cases in (("passes", item.good), ("fails", item.bad)):
        for case in cases:
            meta = f"  [{', '.join(f'{k}={v}' for k, v in case.meta.items())}]" if case.meta else ""
            lines.append(f"{title}: claim “{case.claim}” / evidence “{case.evidence}”{meta}")
    return "\n".join(lines)
