"""CLI commands for a verified claim's later life: ``stale``, ``recheck --stale``, ``accept``, ``acceptances``,
``answerable``.

Thin wrappers, sqlite-utils style: each opens the store, calls the library function of the same name in
:mod:`graphcite.lifecycle` and formats the result (rich tables for people, ``--json`` for machines).
``graphcite.cli`` calls :func:`register` to add them to the main app.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from graphcite.cli.common import (
    AudienceOption,
    DbOption,
    JsonOption,
    check_input_file,
    err,
    handles_errors,
    open_cli_store,
    out,
    print_json,
)
from graphcite.cli.render import print_table
from graphcite.errors import make_error

__all__ = ["register"]

ClaimArgument = Annotated[str, typer.Argument(help="a claim id (from `graphcite check --json`)")]


def _render_stale(claims: list[dict[str, Any]]) -> None:
    if not claims:
        out.print("no stale claims: every latest verification and acceptance rests on current revisions",
                  markup=False)
        return
    out.print(f"{len(claims)} stale claim(s)", markup=False)
    for claim in claims:
        relied = ", ".join(f"{r['kind']} {r['id']} ({r['at']})" for r in claim["relied"])
        out.print(Text(f"\n{claim['claim_id']}: {claim['text']}\n  relied on {relied}"))
        for change in claim["changes"]:
            out.print(Text(f"  {change['source']} @ {change['old_revision']}: {change['reason']}"))
            changed = []
            for unit in change["units"]:
                verbatim = "yes" if unit["span_verbatim"] else "no"
                state = unit.get("note") or "cited revision kept"
                out.print(Text(f"    unit {unit['unit_id']}: {state}; cited span verbatim in the current revision: "
                               f"{verbatim}"))
                if unit.get("new_text") is not None and unit["new_text"] != unit["old_text"]:
                    changed.append(unit)
            if changed:
                table = Table(f"old ({change['old_revision']})", f"new ({change['new_revision']})")
                for unit in changed:
                    table.add_row(Text(unit["old_text"]), Text(unit["new_text"]))
                print_table(table)
            elif any(u.get("new_text") is None and change["revised"] for u in change["units"]):
                for unit in change["units"]:
                    out.print(Text(f"    old text: {unit['old_text']}"))


def stale_command(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List claims whose latest verification or acceptance relied on a revision that is no longer current."""
    from graphcite.lifecycle import stale

    with open_cli_store(db, read_only=True) as store:
        claims = stale(store)
    if as_json:
        print_json(claims)
        return
    _render_stale(claims)


def recheck_command(stale_only: Annotated[bool, typer.Option("--stale", help="re-verify the stale claims")] = False,
                    audience: AudienceOption = "internal", db: DbOption = None, as_json: JsonOption = False) -> None:
    """Re-verify stale claims and append new verification records (the old records stay)."""
    from graphcite.lifecycle import recheck_stale
    from graphcite.verify.check import check_audience

    if not stale_only:
        raise make_error("E106", where="recheck", detail="nothing selected to recheck",
                         fix="pass --stale (re-verify every stale claim)")
    check_audience(audience)
    from graphcite.cli.batch import sample_progress

    with open_cli_store(db) as store, sample_progress(None, enabled=not as_json, what="rechecking stale claims",
                                                      unit="answers") as tick:
        results = recheck_stale(store, audience=audience, progress=tick)
    if as_json:
        print_json(results)
        return
    if not results:
        out.print("no stale claims to recheck", markup=False)
        return
    table = Table("claim", "before", "now", "new record")
    for row in results:
        table.add_row(row["claim_id"], str(row["old_status"]), row["status"], row["record_id"])
    print_table(table)
    out.print(f"appended {len(results)} verification record(s); earlier records kept", markup=False)


def accept_command(claim: ClaimArgument,
                   task: Annotated[str, typer.Option("--task", help="the task this acceptance is for")],
                   destination: Annotated[str, typer.Option("--destination", help="where the claim will be used")],
                   expires: Annotated[str | None, typer.Option("--expires", help="last date, YYYY-MM-DD")] = None,
                   while_current: Annotated[bool, typer.Option(
                       "--while-current", help="lapse once a cited source revision is no longer current")] = False,
                   reviewer: Annotated[str | None, typer.Option("--reviewer", help="who accepts it")] = None,
                   note: Annotated[str | None, typer.Option("--note", help="why")] = None,
                   db: DbOption = None, as_json: JsonOption = False) -> None:
    """Accept a claim for one task and destination (scoped, never global); appends an acceptance record."""
    from graphcite.lifecycle import accept, parse_expiry

    parse_expiry(expires)  # refused before the store is opened
    with open_cli_store(db) as store:
        record = accept(store, claim, task=task, destination=destination, expires=expires,
                        while_current=while_current, reviewer=reviewer, note=note)
    if as_json:
        print_json(record)
        return
    out.print(Text(f"accepted {record['claim_id']} ({record['acceptance_id']}): {record['scope']}; relies on "
                   f"verification {record['verification_record']} ({record['verification_status']}) and "
                   f"{len(record['evidence'])} evidence unit(s)"))


def adopt_command(claim: ClaimArgument,
                  destination: Annotated[str, typer.Option("--destination", help="source key of the maintained document")],
                  file: Annotated[str, typer.Option("--file", help="that document's file on disk")],
                  heading: Annotated[str | None, typer.Option("--heading", help="append to this section")] = None,
                  reviewer: Annotated[str | None, typer.Option("--reviewer", help="who adopts it")] = None,
                  force: Annotated[str | None, typer.Option(
                      "--force", metavar="REASON",
                      help="adopt a claim resting only on restricted evidence into a document that is not restricted; "
                           "the reason is written into the document's adoption note")] = None,
                  db: DbOption = None, as_json: JsonOption = False) -> None:
    """Write an accepted claim into its destination document: a new revision with the document's authority."""
    from graphcite.lifecycle.adopt import adopt

    with open_cli_store(db) as store:
        record = adopt(store, claim, destination=destination, file=file, heading=heading, reviewer=reviewer,
                       force=force)
    if as_json:
        print_json(record)
        return
    where = f"unit {record['unit_id']}" if record["unit_id"] else "a unit"
    out.print(Text(f"adopted {record['claim_id']} into {record['source_key']}: revision {record['revision_id']} "
                   f"(was {record['previous_revision']}), {where}; it is the document's own text now and carries "
                   "no verification of the answer"))


def acceptances_command(claim: ClaimArgument,
                        task: Annotated[str | None, typer.Option("--task", help="only this task's")] = None,
                        db: DbOption = None, as_json: JsonOption = False) -> None:
    """List a claim's acceptances with their scope, each active or lapsed."""
    from graphcite.lifecycle import acceptances

    with open_cli_store(db, read_only=True) as store:
        rows = acceptances(store, claim, task=task)
    if as_json:
        print_json(rows)
        return
    if not rows:
        scope = f" for task {task!r}" if task else ""
        out.print(f"{claim} has no acceptance{scope}: it is not accepted for any use{scope}", markup=False)
        return
    for row in rows:
        state = "active" if row["state"] == "active" else f"LAPSED ({'; '.join(row['lapsed_because'])})"
        evidence = ", ".join(f"{e['unit_id']}@{e['revision_id']}" for e in row["evidence"]) or "none"
        out.print(Text(f"{row['acceptance_id']}  {row['scope']}: {state}\n    accepted {row['accepted_at']}"
                       + (f" by {row['reviewer']}" if row.get("reviewer") else "")
                       + f"; relied on verification {row['verification_record']} ({row['verification_status']});"
                       f" evidence {evidence}"))


def answerable_command(plan: Annotated[str, typer.Argument(help="PLAN.json: the needs of the planned answer")],
                       audience: Annotated[str | None, typer.Option(
                           "--audience", help="public hides restricted sources (default: the plan's, else internal)")]
                       = None,
                       db: DbOption = None, as_json: JsonOption = False) -> None:
    """Report which needs of a planned answer have current, visible evidence, before anything is written."""
    from graphcite.lifecycle import answerable, load_plan

    check_input_file(plan, "PLAN")
    load_plan(plan)  # a bad plan is refused before the store is opened
    with open_cli_store(db, read_only=True) as store:
        result = answerable(store, plan, audience=audience)
    if as_json:
        print_json(result)
        return
    table = Table("need", "query", "state", "evidence")
    for need in result["needs"]:
        if need["units"]:
            evidence = "; ".join(f"{u['source']} [{u['start']}:{u['end']}]" for u in need["units"])
        else:
            evidence = ", ".join(f"{why}: {v['count']}" for why, v in need["unavailable"].items()) or need["note"]
        table.add_row(Text(need["id"]), Text(need["query"]), need["state"], Text(evidence or "-"))
    print_table(table)
    verdict = "answerable" if result["answerable"] else "NOT answerable: decline or narrow the answer"
    out.print(f"{verdict} ({result['audience']} audience)", markup=False)
    if not result["answerable"]:
        err.print("warning: some needs lack current, visible evidence", markup=False)


def check_summary_command(summary: Annotated[str, typer.Argument(help="summary file (text or Markdown)")],
                          source: Annotated[str, typer.Option("--source", help="KEY or KEY@REVISION it summarises")],
                          selective: Annotated[bool, typer.Option("--selective", help="the task allows omissions: "
                                                                  "omitted sections become notes")] = False,
                          config: Annotated[str | None, typer.Option("--config", help="verifier configuration")] = None,
                          audience: AudienceOption = "internal", db: DbOption = None,
                          as_json: JsonOption = False) -> None:
    """Check a summary against one source revision: every sentence verified, key sections covered."""
    from pathlib import Path

    from graphcite.lifecycle.summary import check_summary
    from graphcite.verify.check import check_audience
    from graphcite.verify.config import VerifierConfig, load_config

    check_input_file(summary, "SUMMARY")
    check_input_file(config, "--config")
    check_audience(audience)
    try:
        text = Path(summary).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise make_error("E202", where=summary, detail="not UTF-8 text") from exc
    cfg = load_config(config) if config else VerifierConfig()
    with open_cli_store(db, read_only=True) as store:
        result = check_summary(store, text, source, config=cfg, audience=audience, selective=selective)
    if as_json:
        print_json(result)
        return
    table = Table("sentence", "status")
    for claim in result["sentences"]:
        table.add_row(Text(claim["text"]), claim["status"])
    print_table(table)
    sections = Table("section", "why", "coverage")
    for item in result["coverage"]:
        sections.add_row(Text(item["section"]), Text(item["why"]), item["outcome"])
    print_table(sections)
    for shift in result["shifts"]:
        where = f"sentence {shift['sentence'] + 1}" if shift["sentence"] is not None else shift.get("section")
        out.print(f"{shift['kind']}: {where}: {shift['what']}", markup=False)
    out.print("faithful summary" if result["faithful"] else "not a faithful summary of this revision", markup=False)
    if not result["faithful"]:
        raise typer.Exit(1)


def circular_command(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List citations that rest on a sentence their own answer adopted into a document."""
    from graphcite.lifecycle import circular_citations

    with open_cli_store(db, read_only=True) as store:
        found = circular_citations(store)
    if as_json:
        print_json(found)
        return
    if not found:
        out.print("no circular citations: no claim cites a sentence adopted from its own answer", markup=False)
        return
    out.print(f"{len(found)} circular citation(s)", markup=False)
    for finding in found:
        out.print(Text(finding["detail"]))


def register(app: typer.Typer) -> None:
    """Add ``stale``, ``recheck``, ``accept``, ``acceptances``, ``adopt``, ``circular``, ``answerable``
    and ``check-summary`` to ``app``."""
    app.command("stale")(handles_errors(stale_command))
    app.command("recheck")(handles_errors(recheck_command))
    app.command("accept")(handles_errors(accept_command))
    app.command("acceptances")(handles_errors(acceptances_command))
    app.command("adopt")(handles_errors(adopt_command))
    app.command("circular")(handles_errors(circular_command))
    app.command("answerable")(handles_errors(answerable_command))
    app.command("check-summary")(handles_errors(check_summary_command))
