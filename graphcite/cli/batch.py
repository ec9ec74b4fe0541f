"""``graphcite check-batch``, the options of the Ray engine, and the progress bars of long runs.

``check-batch`` is a thin wrapper over :func:`graphcite.verify.batch.check_batch`: it opens the store,
verifies every answer and prints one line per answer in input order (``--json``: the report
``check --json`` prints for that answer, as one JSON Lines record, or an error record). Progress bars
go to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

from graphcite.cli.common import (
    AudienceOption,
    DbOption,
    JsonOption,
    MaxAnswerMbOption,
    MaxClaimCharsOption,
    MaxClaimsOption,
    answer_limits,
    check_audience,
    check_input_file,
    check_int,
    err,
    json_line,
    open_cli_store,
    out,
)
from graphcite.errors import make_error

__all__ = ["AddressOption", "EngineOption", "WorkersOption", "batch_progress", "check_engine_options", "ingest_progress", "register",
           "sample_progress"]

EngineOption = Annotated[str, typer.Option("--engine", help="local (this process) or ray (Ray tasks)")]
AddressOption = Annotated[str | None, typer.Option(
    "--address", help="join the Ray cluster at HOST:PORT (or auto); default: start a local runtime")]
WorkersOption = Annotated[int | None, typer.Option(
    "--workers", help="Ray tasks at once (default: the runtime's CPUs)")]
EXIT_SOME_FAILED = 2


def _columns(unit: str) -> tuple[Any, ...]:
    """Spinner, what is being done, bar, "done/total unit" (or "done unit" while the total is unknown),
    the extra figures, time elapsed."""
    from rich.progress import BarColumn, ProgressColumn, SpinnerColumn, Task, TextColumn, TimeElapsedColumn
    from rich.text import Text

    class _Count(ProgressColumn):
        def render(self, task: Task) -> Text:
            total = f"/{task.total:,.0f}" if task.total is not None else ""
            return Text(f"{task.completed:,.0f}{total} {unit}")

    return (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), _Count(),
            TextColumn("{task.fields[extra]}"), TimeElapsedColumn())


@contextlib.contextmanager
def ingest_progress(*, enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress callback for :func:`graphcite.ingest.ingest` (files, MB, units/s), or None when off
    or when stderr is not a terminal."""
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import Progress

    started = time.monotonic()
    totals = {"bytes": 0, "units": 0}
    with Progress(*_columns("files"), console=err, transient=True) as bar:
        task = bar.add_task("ingesting", total=None, extra="")

        def tick(key: str, size: int, units: int) -> None:
            totals["bytes"] += size
            totals["units"] += units
            rate = totals["units"] / max(time.monotonic() - started, 1e-6)
            bar.update(task, advance=1, description=f"ingesting {key[-40:]}",
                       extra=f"{totals['bytes'] / 1e6:,.1f} MB, {rate:,.0f} units/s")

        yield tick


@contextlib.contextmanager
def batch_progress(total: int, *, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback for :func:`check_batch` (answers, claims/s), or None (off, or not a terminal)."""
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import Progress

    started = time.monotonic()
    with Progress(*_columns("answers"), console=err, transient=True) as bar:
        task = bar.add_task("verifying", total=total, extra="")

        def tick(answers: int, claims: int) -> None:
            rate = claims / max(time.monotonic() - started, 1e-6)
            bar.update(task, completed=answers, extra=f"{claims:,} claims, {rate:,.0f} claims/s")

        yield tick


@contextlib.contextmanager
def sample_progress(total: int | None, *, enabled: bool, what: str = "checking samples", unit: str = "done"
                    ) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback ``tick(done, total)`` for :func:`graphcite.rag.evaluate_rag`,
    :func:`graphcite.evaluate.evaluate_set` and a recheck, or None (off, or stderr is not a terminal).
    ``total`` may be unknown (None) until the first tick says it."""
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import Progress

    with Progress(*_columns(unit), console=err, transient=True) as bar:
        task = bar.add_task(what, total=total, extra="")

        def tick(done: int, of: int) -> None:
            bar.update(task, completed=done, total=of)

        yield tick


def check_engine_options(engine: str, workers: int | None, address: str | None) -> None:
    """Refuse bad --engine / --workers / --address values in one line, before the store is opened."""
    from graphcite.distributed.runtime import check_address, check_engine

    check_engine(engine)
    check_int(workers, "--workers", minimum=1, maximum=4096)
    if engine == "local" and (workers is not None or address):
        raise make_error("E106", where="--engine", detail="--workers and --address need --engine ray",
                         fix="add --engine ray")
    if engine == "ray":
        check_address(address)


def _summary(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"{result['answer']}: error: {result['code']} {result['error']}"
    claims = result["claims"]
    supported = sum(1 for c in claims if c["supported"])
    validity = result["metrics"]["citation_validity"]
    return f"{result['answer_id']}: {supported}/{len(claims)} claims supported, citation validity {validity:.2f}"


def check_batch_command(answers: Annotated[list[str], typer.Argument(help="answer files or stored answer ids")],
                        db: DbOption = None, as_json: JsonOption = False, audience: AudienceOption = "internal",
                        config: Annotated[str | None, typer.Option("--config", help="verifier config file")] = None,
                        engine: EngineOption = "local", address: AddressOption = None,
                        workers: WorkersOption = None, max_claims: MaxClaimsOption = 10_000,
                        max_answer_mb: MaxAnswerMbOption = 20.0,
                        max_claim_chars: MaxClaimCharsOption = 10_000) -> None:
    """Verify many answers (in parallel with --engine ray) and record every result in one write.

    One line per answer in input order; --json prints each answer's `check --json` report as a JSON
    Lines record. An answer that cannot be read gets its own error line; the others are verified
    and recorded, and the exit status is 2.
    """
    from graphcite.verify import VerifierConfig, load_config
    from graphcite.verify.batch import check_batch

    check_audience(audience)
    check_engine_options(engine, workers, address)
    check_input_file(config, "--config")
    limits = answer_limits(max_claims, max_answer_mb, max_claim_chars)
    cfg = load_config(config) if config else VerifierConfig()
    with open_cli_store(db) as store, batch_progress(len(answers), enabled=not as_json) as tick:
        results = check_batch(store, answers, config=cfg, audience=audience, engine=engine, workers=workers,
                              address=address, limits=limits, progress=tick)
    for result in results:
        if as_json:
            sys.stdout.write(json_line_of(result))
        else:
            out.print(_summary(result), markup=False)
    failed = sum(1 for r in results if "error" in r)
    if failed:
        err.print(f"{failed} of {len(results)} answer(s) could not be verified", markup=False)
        raise typer.Exit(EXIT_SOME_FAILED)


def json_line_of(result: dict[str, Any]) -> str:
    """A report as one JSON Lines record: what ``check --json`` prints, on one line."""
    import json

    return json_line(json.loads(json.dumps(result, default=str)))


def register(app: typer.Typer) -> None:
    """Add ``check-batch`` to ``app``."""
    from graphcite.cli.common import handles_errors

    app.command("check-batch")(handles_errors(check_batch_command))
