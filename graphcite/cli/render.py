"""How reports look in a terminal: one table per answer, findings under each claim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console, RenderableType

from graphcite.cli.common import STYLES, SYMBOLS, out
from graphcite.models.findings import (
    CONFIG_HASH_MEANING,
    citation_notes,
    finding_items,
    finding_lines,
    sentence,
)

# the wording of findings lives in graphcite.models.findings; re-exported for the CLI's callers
__all__ = ["CONFIG_HASH_MEANING", "config_line", "finding_items", "finding_lines", "print_table", "render_eval",
           "render_rag", "render_report", "sentence"]


def print_table(table: RenderableType, console: Console | None = None) -> None:
    """Print a table; when the output is not a terminal (a file, a pipe), as wide as its widest row.

    Rich lays a table out to 80 columns when it cannot ask a terminal, cutting source keys and claims
    with an ellipsis: data piped to a file or another program must arrive whole.
    """
    from rich.measure import Measurement

    console = console or out
    if console.is_terminal:
        console.print(table)
        return
    widest = Measurement.get(console, console.options.update(width=1_000_000), table).maximum
    before = console.width
    console.width = max(widest, before)  # Console.print never lays out wider than the console
    try:
        console.print(table, crop=False)
    finally:
        console.width = before


def config_line(report: dict[str, Any], config_name: str | None = None) -> str:
    """Which configuration and audience decided a report, and what its hash means, in one line."""
    verifier = report.get("verifier") or {}
    named = verifier.get("name")
    name = config_name or (f"the configuration {named}" if named and named != "default" else "the default configuration")
    parts = [f"decided by {name}"]
    if verifier.get("config_hash"):
        parts.append(f"configuration hash {verifier['config_hash']} ({CONFIG_HASH_MEANING})")
    if verifier.get("domain"):
        parts.append(f"domain {verifier['domain']}")
    parts.append(f"audience {report.get('audience', 'internal')}")
    return "; ".join(parts)


def render_report(report: dict[str, Any], console: Console, *, config_name: str | None = None,
                  not_claims: Sequence[str] = ()) -> None:
    """Print a check report for people: verdict word and symbol, quote, source, page, heading path.

    The header names the configuration and audience that decided it; a sentence that asserts nothing
    is listed as not a claim; a citation whose evidence was located (the answer gave no span) says so.
    """
    console.print(f"answer {report['answer_id']}" + (f" — {report['question']}" if report.get("question") else ""),
                  markup=False)
    console.print(config_line(report, config_name), markup=False)
    from graphcite.claims.formats.passages import evidence_kind

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
            where.extend(citation_notes({**cit, "evidence_kind": cit.get("evidence_kind")
                                                          or evidence_kind(cit.get("source"))}))
            console.print(f"    [{cit['index'] + 1}] {cit['relation']} ({state}, score {cit['support_score']:.2f}) "
                          + " · ".join(where), markup=False)
            if cit.get("quote"):
                console.print(f"        “{cit['quote']}”", markup=False)
            for line in finding_lines(cit["findings"]):
                console.print(f"        {line}", markup=False)
        inference = claim.get("inference")
        if inference:
            premises = ", ".join(f"{i + 1} ({status})" for i, status in
                                 zip(inference["premises"], inference["premise_status"], strict=True))
            console.print(f"    inference from claim(s) {premises or 'none listed'}; the step itself: "
                          f"{inference['review_state']}", markup=False)
        for item in claim.get("contradicting_evidence", []):
            extra = f", superseded by {item['superseded_by']}" if item.get("superseded_by") else ""
            console.print(f"    against: {item['source']} ({item['status']}{extra}): {item['reason']}", markup=False)
    for text in not_claims:
        console.print(f"\n   not a claim (asserts nothing; not checked, not counted): {text}", markup=False)
    m = report["metrics"]
    faithful = "yes, every claim is supported" if m["faithfulness"] == 1 else "no, some claim is not supported"
    console.print(f"\n{m['supported_claims']}/{m['claims']} claims supported · citation_validity "
                  f"{m['citation_validity']:.2f} (the share of claims their citations support) · faithful: {faithful}",
                  markup=False)
    if m.get("reason"):
        console.print(m["reason"], markup=False)


def render_rag(result: Any, console: Console, *, config_name: str | None = None) -> None:
    """Print a RAG evaluation for people: one row per sample, the claims that failed and why, the totals
    with what each metric means, and the configuration that decided."""
    from rich.table import Table
    from rich.text import Text

    from graphcite.rag import METRIC_MEANINGS

    table = Table("sample", "question", "claims", "supported", "citation_validity", "faithful",
                  "supported_elsewhere", "passages")
    for row in result.sample_rows():
        table.add_row(Text(row["sample"]), Text(row["question"] or ""), str(row["claims"]),
                      str(row["supported_claims"]), f"{row['citation_validity']:.2f}",
                      "yes" if row["faithfulness"] == 1 else "no", f"{row['supported_elsewhere']:.2f}",
                      str(row["passages"]))
    print_table(table, console)
    failing = [r for r in result.claim_rows() if not r["supported"]]
    if failing:
        console.print("\nclaims not supported by what they cite:", markup=False)
    for row in failing:
        elsewhere = ("; another passage of the sample supports it"
                     if row["supported_elsewhere"] and row["status"] != "conflict" else "")
        console.print(f"  {row['sample']} claim {row['claim']} ({row['status']}{elsewhere}): {row['text']}",
                      markup=False)
        for reason in row["reasons"]:
            number, _, rest = reason.partition("] ")
            console.print(f"      {number}] {sentence(rest)}" if rest else f"      {sentence(reason)}", markup=False)
    for sample in result.samples:
        for text in sample.answer.not_claims:
            console.print(f"  {sample.sample_id}: not a claim (asserts nothing; not counted): {text}", markup=False)
    summary = result.summary
    console.print(f"\n{summary['samples']} samples, {summary['claims']} claims, {summary['supported_claims']} "
                  "supported", markup=False)
    for name, meaning in METRIC_MEANINGS.items():
        console.print(f"  {name} {summary[name]:.2f}: {meaning}", markup=False)
    console.print(config_line({"verifier": result.verifier, "audience": result.audience}, config_name),
                  markup=False)


def render_eval(result: dict[str, Any], console: Any, *, categories: bool = True) -> None:
    """Print an evaluation: the runs side by side with what each metric counts, the vetoes by rule, then the
    per-category false supports and misses; every table whole when piped (:func:`print_table`)."""
    from rich.table import Table

    from graphcite.evaluate import METRIC_MEANINGS

    names = list(result["runs"])
    table = Table("metric", *names, "what it counts", title=f"{result['set']}: {result['items']} items")
    for key, meaning in METRIC_MEANINGS.items():
        cells = []
        for name in names:
            value = result["runs"][name]["metrics"][key]
            cells.append("n/a" if value is None else f"{value:.3f}")
        table.add_row(key, *cells, meaning)
    print_table(table, console)
    hashed = [name for name in names if name.startswith("config ")]
    if hashed:
        console.print(f"{', '.join(hashed)}: the configuration given, named by its hash ({CONFIG_HASH_MEANING})",
                      markup=False)
    for name in names:
        rows = result["runs"][name].get("by_rule")
        if rows:
            rules = Table("rule", "vetoed supported", "vetoed unsupported", "rate supp.", "rate unsupp.", "lift",
                          title=f"{name}: vetoes by rule (lift = unsupported rate / supported rate)")
            for row in rows:
                rules.add_row(row["code"], str(row["on_supported"]), str(row["on_unsupported"]),
                              f"{row['rate_supported']:.3f}", f"{row['rate_unsupported']:.3f}",
                              "n/a" if row["lift"] is None else f"{row['lift']:.2f}")
            print_table(rules, console)
    if not categories:
        return
    first = result["runs"][names[0]]
    cat = Table("category", "items", "false support", "recall", title=f"{names[0]} by category")
    for name, m in first["by_category"].items():
        fs = "n/a" if m["false_support_rate"] is None else f"{m['false_support_rate']:.2f}"
        rec = "n/a" if m["support_recall"] is None else f"{m['support_recall']:.2f}"
        cat.add_row(name, str(m["items"]), fs, rec)
    print_table(cat, console)
