"""The graphcite command line: thin typer wrappers over the library functions of the same names.

Every command opens the store, calls one library function and formats its result (rich for people,
``--json`` for machines). A :class:`GraphciteError` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from graphcite.cli.batch import AddressOption, EngineOption, WorkersOption
from graphcite.cli.common import (
    AnswerArgument,
    AudienceOption,
    DbOption,
    DocumentsOption,
    FormatOption,
    JsonOption,
    MaxAnswerMbOption,
    MaxClaimCharsOption,
    MaxClaimsOption,
    ModelOption,
    OneLineErrors,
    SourceMapOption,
    TextOption,
    answer_input,
    answer_limits,
    check_audience,
    check_input_file,
    check_int,
    check_number,
    check_output_dir,
    err,
    handles_errors,
    json_line,
    open_cli_store,
    out,
    print_json,
    split_documents,
    stored_answer,
)
from graphcite.cli.render import print_table, render_report
from graphcite.errors import make_error

app = typer.Typer(cls=OneLineErrors, add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False, help="graphcite: check what a cited sentence really rests on.")
rules_app = typer.Typer(add_completion=False, invoke_without_command=True,
                        help="List the verification rules, or explain one.")
app.add_typer(rules_app, name="rules")
errors_app = typer.Typer(add_completion=False, invoke_without_command=True,
                         help="List the error codes (code, area, message), or explain one.")
app.add_typer(errors_app, name="errors")

_print_json = print_json


_store = open_cli_store


# ----------------------------------------------------------------------------------------------
# ingest
# ----------------------------------------------------------------------------------------------


@app.command()
@handles_errors
def ingest(paths: Annotated[list[str], typer.Argument(help="files or folders to ingest")],
           db: DbOption = None,
           prefix: Annotated[str, typer.Option(help="prepended to every source key")] = "",
           jobs: Annotated[int, typer.Option("--jobs", "-j", help="worker processes for parsing")] = 1,
           max_file_mb: Annotated[float, typer.Option(help="refuse files larger than this (MB = 10^6 bytes)")] = 100.0,
           engine: EngineOption = "local", address: AddressOption = None, workers: WorkersOption = None,
           quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar or summary")] = False,
           strict: Annotated[bool, typer.Option("--strict", help="refuse everything when one file fails (exit 2); "
                                                "by default the rest is ingested and each refused file listed, exit 1")] = False,
           follow_symlinks: Annotated[bool, typer.Option("--follow-symlinks", help="follow links that lead out of "
                                                         "a folder given (skipped with a warning by default)")] = False,
           as_json: JsonOption = False) -> None:
    """Ingest files and folders: immutable revisions, evidence units, heading status, typed values, lineage."""
    from graphcite.cli.batch import check_engine_options, ingest_progress
    from graphcite.ingest import ingest as run_ingest

    check_int(jobs, "--jobs", minimum=1, maximum=max(64, os.cpu_count() or 1))
    check_int(workers, "--workers", minimum=1, maximum=4096)
    check_number(max_file_mb, "--max-file-mb", minimum=0, above_minimum=True)
    if any(not p.strip() for p in paths):
        raise make_error("E101", where="PATHS", detail="an empty path names no file",
                         fix="pass a file or folder; use . for the current folder")
    check_engine_options(engine, workers, address)
    options: dict[str, Any] = {"prefix": prefix, "jobs": jobs, "max_file_mb": max_file_mb, "engine": engine,
                               "workers": workers, "address": address, "strict": strict,
                               "follow_symlinks": follow_symlinks}
    with _store(db) as store, ingest_progress(enabled=not (quiet or as_json)) as tick:
        report = run_ingest(store, paths, progress=tick, **options)
    for refused in report.refused:  # each refused file on its own line (exit 1, or 2 when none was ingested)
        err.print(f"error: {refused['code']} {refused['message']}", markup=False, soft_wrap=True)
    if as_json:
        _print_json(report.as_dict())
    if as_json or quiet or report.exit_code == 2:  # 2: nothing ingested, nothing to sum up
        raise typer.Exit(report.exit_code)
    out.print(f"{len(report.added)} added, {len(report.updated)} updated, {len(report.unchanged)} unchanged; "
              f"{report.units} units, {report.values} typed values, {report.links} lineage links")
    if report.skipped_ext:
        skipped = ", ".join(f"{n} {ext}" for ext, n in report.skipped_ext.items())
        out.print(f"skipped (unsupported extension): {skipped}")
    for link in report.dangling:
        out.print(f"dangling link: {link['from_key']} {link['relation']} {link['to_key']} (not ingested)")
    for warning in report.warnings:  # skipped special files, visibility disagreements, supersession cycles
        err.print(f"warning: {warning}", markup=False)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


@app.command()
@handles_errors
def sources(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List ingested sources with their current revision, status, kind and visibility."""
    from graphcite.ingest import list_sources

    with _store(db, read_only=True) as store:
        rows = list_sources(store)
    if as_json:
        _print_json(rows)
        return
    table = Table("key", "kind", "status", "visibility", "revisions", "units", "values", "title")
    for r in rows:
        table.add_row(r["key"], r["kind"], r["status"], r["visibility"], str(r["revisions"]), str(r["units"]),
                      str(r["values"]), r["title"] or "")
    print_table(table)


@app.command()
@handles_errors
def show(unit_id: Annotated[str, typer.Argument(help="evidence unit id (chunk_id)")], db: DbOption = None,
         audience: AudienceOption = "internal", as_json: JsonOption = False) -> None:
    """Show one evidence unit: text, offsets, heading path, status, page or symbol, typed values."""
    from graphcite.audience import visible_unit

    check_audience(audience)
    with _store(db, read_only=True) as store:
        unit = visible_unit(store, unit_id, audience)  # the one audience decision (issue 23 items 5, 9)
    if as_json:
        _print_json(unit)
        return
    where = f"page {unit['page']}" if unit["page"] else (f"symbol {unit['symbol']}" if unit["symbol"] else "")
    out.print(f"{unit['unit_id']}  {unit['source']} [{unit['start']}:{unit['end']}] {unit['block_type']} "
              f"status={unit['status']} {where}", markup=False)
    out.print(" > ".join(unit["heading_path"]) or "(no heading)", markup=False)
    out.print(unit["text"], markup=False)
    for v in unit["values"]:
        out.print(f"  value {v['surface']!r}: {v['magnitude']} {v['unit'] or ''} kind={v['kind']} "
                  f"noun={v['counted_noun']} bound={v['bound']} role={v['role']}", markup=False)


# ----------------------------------------------------------------------------------------------
# answers and claims
# ----------------------------------------------------------------------------------------------


@app.command()
@handles_errors
def claims(answer: AnswerArgument = None, text: TextOption = None,
           db: DbOption = None, fmt: FormatOption = None, documents: DocumentsOption = None, source_map: SourceMapOption = None,
           spacy_model: ModelOption = None, max_claims: MaxClaimsOption = 10_000,
           max_answer_mb: MaxAnswerMbOption = 20.0, max_claim_chars: MaxClaimCharsOption = 10_000,
           as_json: JsonOption = False) -> None:
    """Print an answer's atomic claims with their qualifiers."""
    from graphcite.claims import atomic_to_dict, parts_for

    limits = answer_limits(max_claims, max_answer_mb, max_claim_chars)
    loaded = answer_input(answer, text, fmt=fmt, documents=documents, limits=limits, source_map=source_map)
    if isinstance(loaded, str):
        loaded = stored_answer(db, loaded)[1]
    parts = parts_for(loaded, model=spacy_model)
    rows = [{"claim": i, "text": c.text, "parts": [atomic_to_dict(p) for p in ps]}
            for i, (c, ps) in enumerate(zip(loaded.claims, parts, strict=True))]
    if as_json:
        _print_json({"answer_id": loaded.answer_id, "claims": rows, "not_claims": list(loaded.not_claims)})
        return
    table = Table("#", "atomic claim", "neg", "modality", "tense", "conditions", "values", "link", "type")
    for row in rows:
        for j, p in enumerate(row["parts"]):
            table.add_row(f"{row['claim'] + 1}.{j + 1}", p["text"], p["negation_cue"] or "", p["modality"], p["tense"],
                          "; ".join(p["conditions"]), ", ".join(v["surface"] for v in p["values"]),
                          p["connective"] or "", p["claim_type"])
    print_table(table)
    for sentence in loaded.not_claims:
        out.print(f"not a claim (asserts nothing; not checked): {sentence}", markup=False)


@app.command("add-answer")
@handles_errors
def add_answer(file: AnswerArgument = None, text: TextOption = None, db: DbOption = None,
               fmt: FormatOption = None, documents: DocumentsOption = None, source_map: SourceMapOption = None,
               corrects: Annotated[str | None, typer.Option(help="answer revision this corrects")] = None,
               rationale: Annotated[str | None, typer.Option(help="why the correction was made")] = None,
               missing_evidence: Annotated[str | None, typer.Option(help="the evidence that was missing")] = None,
               max_claims: MaxClaimsOption = 10_000, max_answer_mb: MaxAnswerMbOption = 20.0,
               max_claim_chars: MaxClaimCharsOption = 10_000) -> None:
    """Store an answer as an immutable revision (a correction links to the revision it corrects)."""
    from graphcite.claims import add_answer as store_answer

    limits = answer_limits(max_claims, max_answer_mb, max_claim_chars)
    loaded = answer_input(file, text, fmt=fmt, documents=documents, limits=limits, source_map=source_map)
    if isinstance(loaded, str):
        rev, stored = stored_answer(db, loaded)
        out.print(f"{stored.answer_id} is already stored as revision {rev}", markup=False)
        return
    with _store(db) as store:
        rev = store_answer(store, loaded, corrects=corrects, rationale=rationale, missing_evidence=missing_evidence)
    out.print(f"stored {loaded.answer_id} as revision {rev}", markup=False)


@app.command()
@handles_errors
def answers(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List stored answer revisions."""
    from graphcite.claims import list_answers

    with _store(db, read_only=True) as store:
        rows = list_answers(store)
    if as_json:
        _print_json(rows)
        return
    table = Table("revision", "answer id", "claims", "corrects", "question")
    for r in rows:
        table.add_row(r["answer_rev"], r["answer_id"], str(r["claims"]), r["corrects"] or "", r["question"] or "")
    print_table(table)


# ----------------------------------------------------------------------------------------------
# verification
# ----------------------------------------------------------------------------------------------


def _config(config_file: str | None, judge: str | None, threshold: float | None, judge_url: str | None,
            judge_model: str | None) -> Any:
    from graphcite.verify import VerifierConfig, load_config

    check_number(threshold, "--threshold", minimum=0, maximum=1)
    check_input_file(config_file, "--config")
    from graphcite.verify.judges import prepare_judge

    base = load_config(config_file) if config_file else VerifierConfig()
    config = base.with_overrides(judge=judge, threshold=threshold, judge_url=judge_url, judge_model=judge_model)
    prepare_judge(config)  # a bad judge setting is one line now, not an error in the middle of a check
    return config


JudgeOption = Annotated[str | None, typer.Option("--judge", help="heuristic (default: slot alignment), http, or "
                                                 "local:DIR (an NLI model on disk; pip install 'graphcite[local-judge]')")]
ThresholdOption = Annotated[float | None, typer.Option("--threshold", help="lexical support threshold (0.5)")]
ConfigOption = Annotated[str | None, typer.Option("--config", help="verifier config file (YAML/JSON)")]
JudgeUrlOption = Annotated[str | None, typer.Option("--judge-url", help="OpenAI-compatible base URL")]
JudgeModelOption = Annotated[str | None, typer.Option("--judge-model", help="model name for the http judge")]


@app.command()
@handles_errors
def check(answer: AnswerArgument = None, text: TextOption = None,
          db: DbOption = None, as_json: JsonOption = False, audience: AudienceOption = "internal",
          judge: JudgeOption = None, threshold: ThresholdOption = None, config: ConfigOption = None,
          judge_url: JudgeUrlOption = None, judge_model: JudgeModelOption = None,
          fail_under: Annotated[float | None, typer.Option(help="exit 1 when citation_validity is lower")] = None,
          fmt: FormatOption = None, documents: DocumentsOption = None, source_map: SourceMapOption = None, max_claims: MaxClaimsOption = 10_000,
          max_answer_mb: MaxAnswerMbOption = 20.0, max_claim_chars: MaxClaimCharsOption = 10_000) -> None:
    """Verify every claim of an answer against the store and record the result."""
    from graphcite.verify import check_answer

    check_audience(audience)
    check_number(fail_under, "--fail-under", minimum=0, maximum=1)
    limits = answer_limits(max_claims, max_answer_mb, max_claim_chars)
    cfg = _config(config, judge, threshold, judge_url, judge_model)
    loaded = answer_input(answer, text, fmt=fmt, documents=documents, limits=limits, source_map=source_map)
    if isinstance(loaded, str):
        stored_answer(db, loaded)  # an unknown id is refused before the store is opened for writing
    with _store(db) as store:
        loaded = _with_passages(store, loaded, audience)
        report = check_answer(store, loaded, config=cfg, audience=audience, format=fmt,
                              documents=split_documents(documents), limits=limits)
        not_claims = _not_claims(store, loaded)
    if as_json:
        _print_json(report)
    else:
        render_report(report, out, config_name=_config_name(config), not_claims=not_claims)
    if fail_under is not None and report["metrics"]["citation_validity"] < fail_under:
        raise typer.Exit(1)


EXIT_DECLINED = 1  # `gate` declined: no claim of the answer is supported (documented in `gate --help`)


def _with_passages(store: Any, loaded: Any, audience: str = "internal") -> Any:
    """An answer read from a file with the passages it carries stored and its citations pointed at them
    (for ``audience``: a public check matches no passage to a restricted document)."""
    if isinstance(loaded, str) or not getattr(loaded, "passages", ()):
        return loaded
    from graphcite.rag import store_passages

    return store_passages(store, loaded, audience=audience)


def _not_claims(store: Any, loaded: Any) -> tuple[str, ...]:
    """The sentences of the answer that assert nothing (a stored answer's too)."""
    if not isinstance(loaded, str):
        return tuple(getattr(loaded, "not_claims", ()))
    from graphcite.claims.answers import get_answer

    return get_answer(store, loaded.strip())[1].not_claims


def _config_name(config_file: str | None) -> str:
    return f"the configuration in {config_file}" if config_file else "the default configuration"


@app.command()
@handles_errors
def gate(answer: AnswerArgument = None, text: TextOption = None,
         db: DbOption = None, stream: Annotated[bool, typer.Option(help="read one claim JSON per line on stdin")] = False,
         audience: AudienceOption = "internal", max_claims: MaxClaimsOption = 10_000,
         max_answer_mb: MaxAnswerMbOption = 20.0, max_claim_chars: MaxClaimCharsOption = 10_000,
         as_json: JsonOption = False) -> None:
    """No span, no claim: print only the supported claims, or a decline.

    Exit codes: 0 some claims are supported (printed), 1 declined (no claim is supported; the reason
    is printed; with --stream, known at the stream's end: no line passed), 2 usage or input error.
    """
    from graphcite.verify import VerifierConfig, gate_answer, gate_stream, verify_answer
    from graphcite.verify.check import read_lines, resolve_answer

    check_audience(audience)
    limits = answer_limits(max_claims, max_answer_mb, max_claim_chars)
    if stream:
        if answer is not None or text is not None:
            raise make_error("E106", where="--stream", detail="--stream reads stdin; it takes no ANSWER or --text")
        with _store(db, read_only=True) as store:
            lines = read_lines(getattr(sys.stdin, "buffer", sys.stdin))
            passed = False
            for verdict in gate_stream(store, lines, config=VerifierConfig(), audience=audience, limits=limits):
                sys.stdout.write(json_line(verdict))
                sys.stdout.flush()
                passed = passed or bool(verdict.get("passed"))
        if not passed:
            raise typer.Exit(EXIT_DECLINED)  # a stream's exit code is known at its end: 1 when no line passed
        return
    if answer is None and text is None:
        raise make_error("E106", where="gate", detail="give an ANSWER, --text or --stream",
                         fix="see `graphcite gate --help`")
    loaded = answer_input(answer, text, fmt=None, documents=None, limits=limits)
    carries = not isinstance(loaded, str) and bool(getattr(loaded, "passages", ()))
    with _store(db, read_only=not carries) as store:  # passages that came with the answer are stored first
        found = resolve_answer(store, _with_passages(store, loaded, audience), limits=limits)
        parsed = found[1] if isinstance(found, tuple) else found
        result = gate_answer(verify_answer(store, parsed, audience=audience))
    if as_json:
        _print_json(result)
    elif result["declined"]:
        out.print(f"declined: {result['reason']}", markup=False)
    else:
        out.print(result["text"], markup=False)
    if result["declined"]:
        raise typer.Exit(EXIT_DECLINED)


@app.command("history")
@handles_errors
def history_cmd(claim_id: Annotated[str, typer.Argument(help="claim id (or a unique start of one)")], db: DbOption = None,
                audience: AudienceOption = "internal", as_json: JsonOption = False) -> None:
    """List every verification record of a claim made for one audience (records are appended, never updated)."""
    from graphcite.claims.answers import expand_prefix
    from graphcite.verify import history

    check_audience(audience)
    with _store(db, read_only=True) as store:
        rows = history(store, expand_prefix(store, claim_id, answers=False), audience=audience)
    if as_json:
        _print_json(rows)
        return
    table = Table("verified at", "status", "config", "evidence revisions", "record")
    for r in rows:
        table.add_row(r["verified_at"], r["status"], r["config_hash"], ", ".join(r["evidence_revisions"]),
                      r["record_id"])
    print_table(table)


@rules_app.callback()
@handles_errors
def rules(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List the verification rules with code, name and family."""
    if ctx.invoked_subcommand:
        return
    from graphcite.verify import list_rules

    rows = list_rules()
    if as_json:
        _print_json(rows)
        return
    table = Table("code", "rule", "family", "on failure", "why")
    for r in rows:
        table.add_row(r["code"], r["rule"], r["family"], r["effect"], r["summary"])
    print_table(table)


@rules_app.command("explain")
@handles_errors
def rules_explain(code: Annotated[str, typer.Argument(help="rule code (GC301) or name")]) -> None:
    """Print a rule's docstring and its good and bad cases."""
    from graphcite.verify import explain_rule

    out.print(explain_rule(code), markup=False)


@errors_app.callback()
@handles_errors
def errors(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List the error codes with their area, class, message template and fix."""
    if ctx.invoked_subcommand:
        return
    from graphcite.errors import CATALOGUE

    rows = [{"code": s.code, "area": s.area, "class": s.kind, "message": s.message, "cause": s.cause, "fix": s.fix}
            for s in CATALOGUE.values()]
    if as_json:
        _print_json(rows)
        return
    table = Table("code", "area", "class", "message", "fix")
    for r in rows:
        table.add_row(r["code"], r["area"], r["class"], r["message"], r["fix"])
    print_table(table)


@errors_app.command("explain")
@handles_errors
def errors_explain(code: Annotated[str, typer.Argument(help="error code, e.g. E502")]) -> None:
    """Print one error code's class, area, message, usual cause and fix."""
    from graphcite.errors import explain_error

    out.print(explain_error(code), markup=False)


# ----------------------------------------------------------------------------------------------
# evaluation
# ----------------------------------------------------------------------------------------------


@app.command()
@handles_errors
def annotate(claim_id: Annotated[str, typer.Argument(help="claim id (from check --json), or a unique start of one")],
             citation: Annotated[int, typer.Option("--citation", help="citation number as reports show it: [1] is 1")],
             label: Annotated[str, typer.Option("--label", help="supports|contradicts|contextualizes|mentions|insufficient")],
             rationale: Annotated[str, typer.Option("--rationale", help="why this label")],
             reviewer: Annotated[str, typer.Option("--reviewer", help="who judged")],
             adjudicate: Annotated[bool, typer.Option("--adjudicate", help="record as the adjudication")] = False,
             db: DbOption = None) -> None:
    """Record a human judgement of one citation (several reviewers per item; adjudication is its own record)."""
    from graphcite.evaluate import annotate as record

    check_int(citation, "--citation", minimum=1)
    from graphcite.claims.answers import expand_prefix

    with _store(db) as store:
        claim_id = expand_prefix(store, claim_id, answers=False)
        row = record(store, claim_id, citation=citation - 1, label=label, rationale=rationale, reviewer=reviewer,
                     adjudication=adjudicate)
    out.print(f"recorded {row['annotation_id']}: {reviewer} says {label} for citation [{citation}] of claim "
              f"{claim_id}", markup=False)


@app.command("annotations")
@handles_errors
def annotations_cmd(db: DbOption = None, contested: Annotated[bool, typer.Option(help="only disagreements")] = False,
                    as_json: JsonOption = False) -> None:
    """List human judgements per citation; disagreements stay visible."""
    from graphcite.evaluate import annotations

    with _store(db, read_only=True) as store:
        rows = annotations(store, contested=contested)
    if as_json:
        _print_json(rows)
        return
    table = Table("claim", "citation", "labels", "contested", "adjudicated", "reviewers")
    for r in rows:
        table.add_row(r["claim_id"], f"[{r['citation'] + 1}]", ", ".join(r["labels"]), "yes" if r["contested"] else "no",
                      r["adjudicated"] or "", ", ".join(j["reviewer"] for j in r["judgements"]))
    print_table(table)


@app.command("eval")
@handles_errors
def eval_cmd(labelled_set: Annotated[str, typer.Argument(help="labelled set (JSONL)")], db: DbOption = None,
             judge: JudgeOption = None, config: ConfigOption = None,
             baseline: Annotated[str | None, typer.Option(help="also run a baseline: lexical")] = None,
             by_rule: Annotated[bool, typer.Option("--by-rule", help="per rule: vetoes on gold-supported vs "
                                                    "gold-unsupported items")] = False,
             as_json: JsonOption = False) -> None:
    """Run the verifier over a labelled set: false-support, recall, precision, confusion matrix, by category."""
    from graphcite.cli.batch import sample_progress
    from graphcite.cli.render import render_eval
    from graphcite.evaluate import evaluate_set

    check_input_file(labelled_set, "LABELLED_SET")
    cfg = _config(config, judge, None, None, None)
    with _store(db) as store, sample_progress(None, enabled=not as_json, what="checking labelled items") as tick:
        result = evaluate_set(store, Path(labelled_set), config=cfg, baseline=baseline, by_rule=by_rule,
                              progress=tick)
    if as_json:
        _print_json(result)
    else:
        render_eval(result, out)


@app.command("eval-rag")
@handles_errors
def eval_rag_cmd(samples: Annotated[str, typer.Argument(help="RAG samples: JSON Lines, a JSON list or columns")],
                 db: Annotated[str | None, typer.Option("--db", help="a store holding the corpus the passages came "
                                                        "from (default: none, each passage is verified alone)")] = None,
                 audience: AudienceOption = "internal", judge: JudgeOption = None, config: ConfigOption = None,
                 fmt: FormatOption = None, parquet: Annotated[str | None, typer.Option(
                     "--parquet", help="also write one row per claim to this Parquet file")] = None,
                 as_json: JsonOption = False) -> None:
    """Check a RAG data set's answers against the passages each sample carries: per sample and per claim
    verdicts with reasons, citation validity, faithfulness and supported_elsewhere."""
    from graphcite.cli.batch import sample_progress
    from graphcite.cli.render import render_rag
    from graphcite.rag import evaluate_rag, load_samples

    check_audience(audience)
    check_input_file(samples, "SAMPLES")
    cfg = _config(config, judge, None, None, None)
    rows = load_samples(Path(samples))
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(_store(db)) if db else None
        tick = stack.enter_context(sample_progress(len(rows), enabled=not as_json))
        result = evaluate_rag(rows, store=store, config=cfg, audience=audience, format=fmt, progress=tick)
    if parquet:
        check_output_dir(Path(parquet).parent, "--parquet")
        result.write_parquet(parquet)
    if as_json:
        _print_json(result.as_dict())
    else:
        render_rag(result, out, config_name=_config_name(config))


@app.command("gate-verifier")
@handles_errors
def gate_verifier_cmd(labelled_set: Annotated[str, typer.Argument(help="labelled set (JSONL)")],
                      baseline: Annotated[str, typer.Option("--baseline", help="config file, or 'default' / 'lexical'")],
                      candidate: Annotated[str, typer.Option("--candidate", help="config file, or 'default' / 'lexical'")],
                      db: DbOption = None, as_json: JsonOption = False) -> None:
    """Refuse (exit 1) a candidate verifier that raises false-support or lowers agreement with gold labels."""
    from graphcite.evaluate import gate_verifier
    from graphcite.verify import VerifierConfig, load_config

    def pick(value: str, option: str) -> VerifierConfig:
        if value == "default":
            return VerifierConfig()
        if value == "lexical":
            return VerifierConfig.lexical_baseline()
        return load_config(check_input_file(value, option) or value)

    check_input_file(labelled_set, "LABELLED_SET")

    with _store(db) as store:
        result = gate_verifier(store, Path(labelled_set), pick(baseline, "--baseline"),
                               pick(candidate, "--candidate"))
    if as_json:
        _print_json(result)
    else:
        verdict = "accepted" if result["accepted"] else "refused: " + "; ".join(result["reasons"])
        out.print(f"candidate {verdict}", markup=False)
        out.print(f"baseline  {result['baseline']}", markup=False)
        out.print(f"candidate {result['candidate']}", markup=False)
        for item in result["changed"]:
            out.print(f"  changed {item['id']} ({item['category']}): {item['baseline']} -> {item['candidate']} "
                      f"(gold supported: {item['gold_supported']})", markup=False)
    if not result["accepted"]:
        raise typer.Exit(1)


# ----------------------------------------------------------------------------------------------
# demo
# ----------------------------------------------------------------------------------------------


@app.command()
@handles_errors
def demo(db: Annotated[str, typer.Option("--db", help="store for the demo")] = "graphcite-demo.duckdb",
         out_dir: Annotated[str, typer.Option("--out", help="folder for the review page")] = "out") -> None:
    """Ingest the bundled corpus, check a clean and a trap-laden answer, print reports and metrics."""
    from graphcite.cli.demo import run_demo

    if not out_dir.strip():
        raise make_error("E101", where="--out", detail="an empty path names no folder", fix="pass a folder")
    run_demo(db=db, out_dir=check_output_dir(Path(out_dir), "--out"), console=out)


# Command groups that live in their own modules, each with a register(app) function; imported here so
# `graphcite --help` lists them (each module defers its heavy imports to the command bodies).
_COMMAND_MODULES = ("graphcite.cli.graph", "graphcite.cli.formats", "graphcite.cli.serve",
                    "graphcite.cli.reviewers", "graphcite.cli.lifecycle", "graphcite.cli.batch")


def _register_command_modules() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_command_modules()


def main() -> None:
    """Console-script entry point.

    A command is one short process that allocates about a million objects while it imports and loads
    its pipelines; the default collector thresholds spend 0.2-0.5 s of it in full collections of a heap
    that only grows. The console entry raises them (never the library, which runs inside others' processes)."""
    import gc

    gc.set_threshold(50_000, 20, 10)
    app(prog_name="graphcite")


if __name__ == "__main__":
    main()
