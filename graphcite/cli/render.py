"""How reports look in a terminal: one table per answer, findings under each claim."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from graphcite.cli.common import STYLES, SYMBOLS

__all__ = ["render_report"]

_SHOWN_NOTES = frozenset({"GC108", "GC110"})  # quote transformations and normalisation


def render_report(report: dict[str, Any], console: Console) -> None:
    """Print a check report for people: verdict word and symbol, quote, source, page, heading path."""
    console.print(f"answer {report['answer_id']}" + (f" — {report['question']}" if report.get("question") else ""),
                  markup=False)
    earlier = report.get("earlier")
    if earlier:
        changed = [c for c in earlier["claims"] if c.get("status_changed")]
        judged = [c for c in earlier["claims"] if c.get("judgements")]
        line = (f"verified before: {earlier['checks']} check(s) of this revision, last at {earlier['last_verified_at']}"
                f"; {len(changed)} claim(s) changed status since; {len(judged)} claim(s) have reviewers' judgements")
        if earlier["corrected_by"]:
            line += f"; corrected by newer revision(s) {', '.join(earlier['corrected_by'])}"
        console.print(line, markup=False)
    for claim in report["claims"]:
        label = SYMBOLS[claim["status"]]
        console.print(f"\n[{STYLES[claim['status']]}]{label}[/]  {claim['index'] + 1}. ", end="")
        console.print(claim["text"], markup=False)
        for part in claim.get("parts", []):
            console.print(f"    part: {SYMBOLS[part['status']]}  ", end="", markup=False)
            console.print(part["text"], markup=False)
        for cit in claim["citations"]:
            where = [cit["source"] or cit["chunk_id"] or "?"]
            if cit.get("page"):
                where.append(f"p. {cit['page']}")
            if cit.get("symbol"):
                where.append(cit["symbol"])
            if cit.get("heading_path"):
                where.append(" > ".join(cit["heading_path"]))
            state = "valid" if cit["valid"] else "INVALID"
            console.print(f"    [{cit['index'] + 1}] {cit['relation']} ({state}, score {cit['support_score']:.2f}) "
                          + " · ".join(where), markup=False)
            if cit.get("quote"):
                console.print(f"        “{cit['quote']}”", markup=False)
            for f in cit["findings"]:
                if f["outcome"] == "fail":
                    console.print(f"        {f['code']} {f['rule']}: {f['detail']}", markup=False)
                elif f["outcome"] == "note" and f["code"] in _SHOWN_NOTES:  # what a quote changed, said openly
                    console.print(f"        note {f['code']} {f['rule']}: {f['detail']}", markup=False)
        inference = claim.get("inference")
        if inference:
            premises = ", ".join(f"{i + 1} ({status})" for i, status in
                                 zip(inference["premises"], inference["premise_status"], strict=True))
            console.print(f"    inference from claim(s) {premises or 'none listed'}; the step itself: "
                          f"{inference['review_state']}", markup=False)
        for item in claim.get("contradicting_evidence", []):
            extra = f", superseded by {item['superseded_by']}" if item.get("superseded_by") else ""
            console.print(f"    against: {item['source']} ({item['status']}{extra}): {item['reason']}", markup=False)
    m = report["metrics"]
    console.print(f"\ncitation_validity {m['citation_validity']:.2f} · faithfulness {m['faithfulness']:.0f} · "
                  f"{m['supported_claims']}/{m['claims']} claims supported", markup=False)
    if m.get("reason"):
        console.print(m["reason"], markup=False)
