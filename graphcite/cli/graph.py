"""CLI commands for the graph questions and exports: ``chain``, ``audit independence|conflicts``, ``export``.

Thin wrappers, sqlite-utils style: open the store read-only, call :func:`graphcite.graph.chain`,
:func:`graphcite.graph.audit_independence`, :func:`graphcite.graph.conflicts` or
:func:`graphcite.export.export`, and format the result (rich for people, ``--json`` for machines).
``graphcite.cli`` calls :func:`register` to add them to the main app.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from graphcite.cli.common import (
    SYMBOLS,
    AudienceOption,
    DbOption,
    JsonOption,
    err,
    handles_errors,
    out,
    print_json,
)
from graphcite.cli.render import print_table
from graphcite.models.findings import finding_lines

__all__ = ["POINT_READ_THREADS", "finding_lines", "independence_summary", "register", "render_chain", "whole_id"]

RefArgument = Annotated[str, typer.Argument(help="claim id, answer id or answer revision (or a unique start of one)")]
_handles_errors = handles_errors
_print_json = print_json


#: DuckDB worker threads for the point-read commands (``chain``, ``audit independence`` of one claim or
#: answer): a few index lookups gain nothing from the worker pool and pay its hand-offs (on a loaded
#: machine the hand-offs wait for a core). Whole-store questions keep DuckDB's default.
POINT_READ_THREADS = 1


def whole_id(store: Any, ref: str) -> str:
    """``ref``, or the stored id it is a unique start of (:func:`graphcite.claims.answers.expand_prefix`).

    A whole claim id or answer id is taken as it is, without loading the claims stage (spaCy)."""
    from graphcite.store.queries.answers import answer_names, claim_by_id

    ref = ref.strip()
    if len(ref) < 4 or claim_by_id(store, ref) is not None or ref in answer_names(store):
        return ref
    from graphcite.claims.answers import expand_prefix

    return expand_prefix(store, ref)


def _open(db: str | None, *, threads: int | None = None) -> Any:
    from graphcite.store import open_store

    return open_store(db, read_only=True, threads=threads)


# ----------------------------------------------------------------------------------------------
# chain rendering
# ----------------------------------------------------------------------------------------------


def _source_label(source: dict[str, Any]) -> Text:
    if source.get("cycle"):
        return Text(f"{source['key']} (lineage cycle: stops here)")
    parts = [source["key"]]
    if source.get("kind"):
        parts.append(f"({source['kind']})")
    if source.get("title"):
        parts.append(f"— {source['title']}")
    flags = []
    if source.get("primary"):
        flags.append("primary authority")
    if source.get("missing"):
        flags.append("not ingested")
    if source.get("restricted"):
        flags.append("restricted")
    if source.get("status") and source["status"] != "current":
        flags.append(source["status"])
    label = Text("source " + " ".join(parts))
    if flags:
        label.append(f" [{', '.join(flags)}]")
    for item in source.get("superseded_by", []):
        label.append(f" — {item['note']}")
    return label


def _add_lineage(node: Tree, source: dict[str, Any], depth: int = 0) -> None:
    for link in source.get("lineage", []):
        child = node.add(Text(f"{link['relation']} → ").append_text(_source_label(link["source"])))
        if depth < 16 and not link["source"].get("cycle"):
            _add_lineage(child, link["source"], depth + 1)


def _add_unit(node: Tree, unit: dict[str, Any], quote: str | None = None) -> None:
    where = [f"unit {unit['unit_id']}"]
    if unit.get("heading_path"):
        path = unit["heading_path"]
        where.append(" > ".join(str(h) for h in path) if isinstance(path, list | tuple) else str(path))
    if unit.get("page"):
        where.append(f"p. {unit['page']}")
    if unit.get("symbol"):
        where.append(unit["symbol"])
    where.append(f"status {unit['status']}")
    node.add(Text(" · ".join(str(w) for w in where)))
    if quote:
        node.add(Text(f"“{quote}”"))
    elif unit.get("text"):
        node.add(Text(f"“{unit['text']}”"))
    revision = unit["revision"]
    state = "latest revision" if revision["current"] else f"not the latest; latest is {revision.get('current_revision')}"
    effective = f", effective {revision['effective']}" if revision.get("effective") else ""
    node.add(Text(f"revision {revision['seq']} ({revision['revision_id']}, {revision['status']}{effective}, {state})"))
    source_node = node.add(_source_label(revision["source"]))
    _add_lineage(source_node, revision["source"])


def render_chain(tree: dict[str, Any], *, graph_notes: bool = True) -> Tree:
    """A rich Tree of one claim's support chain (all corpus text rendered as plain text, no markup)."""
    root = Tree(Text(f"{SYMBOLS.get(tree['status'], tree['status'])}  {tree['claim_id']}: {tree['text']}"))
    if tree.get("relies_on_restricted"):
        root.add(Text("relied on a restricted source (withheld for the public audience)"))
    if tree.get("withheld"):
        root.add(Text(f"claim text withheld: {tree.get('withheld_reason') or 'restricted'}"))
    for cit in tree["citations"]:
        state = "valid" if cit["valid"] else ("INVALID" if cit["valid"] is False else "unchecked")
        score = f", score {cit['support_score']:.2f}" if isinstance(cit.get("support_score"), int | float) else ""
        role = f", role {cit['role']}" if cit.get("role") else ""
        source = cit.get("source")
        if isinstance(source, dict):  # a source record, not a key
            source = source.get("key")
        node = root.add(Text(f"[{cit['index'] + 1}] {cit['relation']} ({state}{score}{role}) · {source or '?'}"))
        if cit.get("restricted"):
            node.add(Text("evidence withheld: restricted source"))
        elif cit.get("unit"):
            _add_unit(node, cit["unit"], cit.get("quote"))
        elif cit.get("source") is not None and isinstance(cit.get("source"), str):
            node.add(Text("no evidence unit resolved"))
        if cit.get("superseded"):
            node.add(Text(f"⚠ superseded evidence: {cit['superseded']}"))
        if cit.get("primary_authorities"):
            node.add(Text(f"primary authority: {', '.join(cit['primary_authorities'])}"))
        for line in finding_lines(cit.get("findings", [])):
            node.add(Text(line))
    for item in tree.get("contradicting_evidence", []):
        node = root.add(Text(f"against ({item.get('status')}): {item.get('reason') or 'withheld'}"))
        if item.get("superseded"):
            node.add(Text(f"⚠ {item['superseded']}"))
        _add_unit(node, item["unit"])
    for cycle in tree.get("cycles", []) if graph_notes else []:
        root.add(Text(f"lineage cycle: {' ↔ '.join(cycle)}"))
    for link in tree.get("dangling", []) if graph_notes else []:
        root.add(Text(f"dangling link: {link['from_key']} {link['relation']} {link['to_key']} (not ingested)"))
    return root


# ----------------------------------------------------------------------------------------------
# commands
# ----------------------------------------------------------------------------------------------


def chain_command(ref: RefArgument, db: DbOption = None, as_json: JsonOption = False,
                  audience: AudienceOption = "internal") -> None:
    """Show what a claim (or every claim of an answer) rests on: citations, units, revisions, sources, lineage."""
    from graphcite.graph import chain

    with _open(db, threads=POINT_READ_THREADS) as store:
        result = chain(store, whole_id(store, ref), audience=audience)
    if as_json:
        _print_json(result)
        return
    trees = result["claims"] if result["kind"] == "answer" else [result]
    if result["kind"] == "answer":
        out.print(Text(f"answer {result['answer_id']} (revision {result['answer_rev']}): {len(trees)} claims"))
    for tree in trees:
        print_table(render_chain(tree, graph_notes=result["kind"] == "claim"))
    if result["kind"] == "answer":
        for cycle in result["cycles"]:
            out.print(Text(f"lineage cycle: {' ↔ '.join(cycle)}"))
        for link in result["dangling"]:
            out.print(Text(f"dangling link: {link['from_key']} {link['relation']} {link['to_key']} (not ingested)"))


def independence_command(ref: Annotated[str | None, typer.Argument(help="claim id or answer id")] = None,
                         all_claims: Annotated[bool, typer.Option("--all", help="every claim in the store")] = False,
                         db: DbOption = None, as_json: JsonOption = False,
                         audience: AudienceOption = "internal") -> None:
    """Count attestations against independent authorities for every supported claim."""
    from graphcite.graph import audit_independence

    with _open(db, threads=None if all_claims else POINT_READ_THREADS) as store:
        results = audit_independence(store, whole_id(store, ref) if ref else ref, all=all_claims,
                                     audience=audience)
    if as_json:
        _print_json(results)
        return
    if not results:
        out.print("no supported claims to audit", markup=False)
        return
    table = Table("claim", "text", "attestations", "authorities", "flag", "summary")
    for r in results:
        flag = "one authority" if r["rests_on_one_authority"] else ""
        if r["collapsed"]:
            flag = "NOT independent" if r["rests_on_one_authority"] else "partly dependent"
        table.add_row(Text(r["claim_id"]), Text(r.get("text") or "(withheld)"), str(r["attestations"]),
                      str(r["authorities"]), flag, Text(independence_summary(r)))
    print_table(table)
    out.print("An attestation is a source one of the claim's citations supports it from, alone; an authority is "
              "an independent origin those sources derive from (sources derived from one decision are one "
              "authority).", markup=False)


def independence_summary(row: dict[str, Any]) -> str:
    """The audit's summary, with the reason when a supported claim has no attestation."""
    summary = row["summary"]
    if row.get("supported") and not row["attestations"]:
        summary += (": supported jointly, part by part; no single citation supports the whole claim, so "
                    "no source attests it alone")
    return summary


def conflicts_command(db: DbOption = None, as_json: JsonOption = False, audience: AudienceOption = "internal",
                      same_source: Annotated[bool, typer.Option(help="also pair units of one source")] = False) -> None:
    """List pairs of current units that contradict each other on the same subject."""
    from graphcite.audience import audience_view
    from graphcite.graph import conflicts
    from graphcite.ingest.lineage import supersession_cycles

    with _open(db) as store:
        pairs = conflicts(store, audience=audience, same_source=same_source)
        view = audience_view(store, audience)  # a cycle through a restricted source is not the public's to see
        cycles = [c for c in supersession_cycles(store) if all(view.sees_source(key) for key in c)]
    for cycle in cycles:  # a cycle supersedes nobody; say so wherever conflicts are audited
        err.print(f"warning: supersession cycle {' -> '.join([*cycle, cycle[0]])}: neither side is superseded",
                  markup=False)
    if as_json:
        _print_json(pairs)
        return
    if not pairs:
        out.print("no conflicts between current sources", markup=False)
        return
    table = Table("source A", "says", "source B", "says", "why")
    for pair in pairs:
        a, b = pair["a"], pair["b"]
        table.add_row(Text(f"{a['source']} ({a['doc_status']})"), Text(a["sentence"]),
                      Text(f"{b['source']} ({b['doc_status']})"), Text(b["sentence"]), Text(pair["reason"]))
    print_table(table)


def export_command(fmt: Annotated[str, typer.Option("--format", help="graphml, gexf, cytoscape, json, prov, webanno, "
                                                                     "html or parquet")],
                   out_path: Annotated[str, typer.Option("--out", help="output file, FIFO or - for stdout (a folder "
                                                                       "for parquet); replaced atomically")],
                   claim: Annotated[str | None, typer.Option("--claim", help="one claim id")] = None,
                   answer: Annotated[str | None, typer.Option("--answer", help="an answer id or revision")] = None,
                   all_claims: Annotated[bool, typer.Option("--all", help="every claim in the store")] = False,
                   follow_symlinks: Annotated[bool, typer.Option(
                       "--follow-symlinks", help="write to the target of a symlinked --out instead of refusing")] = False,
                   max_quote_chars: Annotated[int | None, typer.Option(
                       "--max-quote-chars", help="most code points of a source any excerpt reproduces (default 500)")] = None,
                   audience: AudienceOption = "internal", db: DbOption = None, as_json: JsonOption = False) -> None:
    """Export the evidence graph of a claim, an answer or the whole store."""
    from graphcite.export import export

    with _open(db) as store:
        summary = export(store, fmt, out_path, claim=claim, answer=answer, all=all_claims, audience=audience,
                         max_quote_chars=max_quote_chars,
                         follow_symlinks=follow_symlinks)
    to_stdout = out_path.strip() in {"-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"}
    for warning in summary.get("warnings", []):
        err.print(f"warning: {warning}", markup=False)
    if as_json:
        if to_stdout:  # the export itself is on stdout
            err.print(json.dumps(summary, ensure_ascii=False, default=str), markup=False)
        else:
            _print_json(summary)
        return
    counts = (", ".join(f"{k} {v}" for k, v in summary["tables"].items()) if "tables" in summary
              else f"{summary['nodes']} nodes, {summary['edges']} edges")
    withheld = f"; {summary['withheld_claims']} claim texts withheld" if summary.get("withheld_claims") else ""
    (err if to_stdout else out).print(Text(
        f"wrote {fmt} ({summary['audience']} audience) to {summary['path']}: {summary['claims']} claims; "
        f"{counts}{withheld}"))


def register(app: typer.Typer) -> None:
    """Add ``chain``, ``audit independence``, ``audit conflicts`` and ``export`` to ``app``."""
    app.command("chain")(_handles_errors(chain_command))
    audit_app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                            help="Audit the evidence: independence of a claim's sources, conflicts in the store.")
    audit_app.command("independence")(_handles_errors(independence_command))
    audit_app.command("conflicts")(_handles_errors(conflicts_command))
    app.add_typer(audit_app, name="audit")
    app.command("export")(_handles_errors(export_command))
