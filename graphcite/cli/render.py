"""How reports look in a terminal: one table per answer, findings under each claim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console, RenderableType

from graphcite.cli.common import STYLES, SYMBOLS, out

__all__ = ["CONFIG_HASH_MEANING", "config_line", "finding_items", "finding_lines", "print_table", "render_rag",
           "render_report", "sentence"]

# notes a reviewer must see: an older revision was cited, what a quote changed, how it was normalised
_SHOWN_NOTES = frozenset({"GC103", "GC108", "GC110"})


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


#: what a configuration hash is, in the words every report, evaluation and review page uses
CONFIG_HASH_MEANING = ("one hash of every setting that can change a verdict: rules, thresholds, judge, domain, "
                       "lexicon; reports with the same hash were decided alike")


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
    from graphcite.claims.formats.passages import EVIDENCE_KIND, evidence_kind

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
            if (cit.get("evidence_kind") or evidence_kind(cit.get("source"))) == EVIDENCE_KIND:
                where.append("a passage that came with the answer")
            if cit.get("located"):
                where.append("evidence located by graphcite (the answer gave no span)")
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
        elsewhere = "; another passage of the sample supports it" if row["supported_elsewhere"] else ""
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


def finding_lines(findings: Sequence[dict[str, Any]]) -> list[str]:
    """The findings of one citation as lines of the text report (see :func:`finding_items`); a note is
    marked ``note``."""
    return [(f"note {code} {rule}" if outcome == "note" else f"{code} {rule}") + (f": {text}" if text else "")
            for outcome, code, rule, text in finding_items(findings)]


def finding_items(findings: Sequence[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """The findings of one citation as a reviewer reads them, in the text report and the review app
    alike: ``(outcome, code, rule, text)``, one per rule (a rule that failed for two parts of a claim
    says both in its one text), each detail written as a sentence; the notes a reviewer must see
    (:data:`_SHOWN_NOTES`) after the failures."""
    said: dict[tuple[str, str, str], list[str]] = {}
    for finding in findings:
        outcome = str(finding.get("outcome", "fail"))
        if (outcome == "note" and finding["code"] not in _SHOWN_NOTES) or outcome not in {"fail", "note"}:
            continue
        details = said.setdefault((outcome, finding["code"], finding["rule"]), [])
        detail = sentence(finding.get("detail") or "")
        if detail and detail not in details:
            details.append(detail)
    ordered = sorted(said.items(), key=lambda item: item[0][0] == "note")  # failures first, each in report order
    return [(outcome, code, rule, " ".join(details)) for (outcome, code, rule), details in ordered]


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
