"""The ``serve`` command: registered like the graph commands, with help, and one-line refusals (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from serve_support import ROOT, copy_db
from typer.testing import CliRunner

from graphcite.cli.common import OneLineErrors
from graphcite.cli.serve import register

runner = CliRunner()


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    main = typer.Typer(cls=OneLineErrors, add_completion=False, rich_markup_mode=None)

    @main.command()
    def other() -> None:
        """A second command, so `serve` is a subcommand as in the real app."""

    register(main)
    return main


def test_help_names_every_option(app: typer.Typer) -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--audience", "--config", "--max-body-mb", "--timeout",
                   "--max-quote-chars"):
        assert option in result.output


@pytest.mark.parametrize(("args", "code"), [(["--port", "70000"], "E103"), (["--audience", "everyone"], "E104"),
                                            (["--timeout", "0"], "E103"), (["--log-level", "loud"], "E105"),
                                            (["--max-quote-chars", "5"], "E103"), (["--workers", "2"], "E101"),
                                            (["--max-body-mb", "nan"], "E103")])
def test_bad_options_are_one_line_errors(app: typer.Typer, args: list[str], code: str) -> None:
    result = runner.invoke(app, ["serve", *args])
    assert result.exit_code == 2 and f"error: {code}" in result.output and "Traceback" not in result.output


def test_a_store_in_use_is_refused_before_listening(serve_db: Path, tmp_path: Path) -> None:
    db = copy_db(serve_db, tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, duckdb; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); sys.stdin.read()", str(db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "graphcite.serve", "--db", str(db), "--port", "0"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
    finally:
        holder.communicate("", timeout=30)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: E602") and "Traceback" not in done.stderr
