"""Bad engine options are one line and exit 2 before anything is written; progress bars only on a terminal."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from graphcite.cli import app
from graphcite.cli import batch as cli_batch
from graphcite.errors import GraphciteError
from graphcite.ingest import ingest
from graphcite.store import Store
from tests.conftest import ANSWERS, CORPUS

runner = CliRunner()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("command", ["ingest", "check-batch"])
def test_an_unreachable_address_is_one_line_naming_it(tmp_path: Path, command: str) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    target = str(CORPUS) if command == "ingest" else str(ANSWERS / "clean.json")
    db = tmp_path / "x.duckdb"
    done = runner.invoke(app, [command, target, "--db", str(db), "--engine", "ray", "--address", address])
    assert done.exit_code == 2
    assert address in _one_error_line(done.output)
    assert not db.exists()  # refused before the store is opened


@pytest.mark.parametrize("command", ["ingest", "check-batch"])
@pytest.mark.parametrize("options", [["--engine", "ray", "--workers", "0"], ["--engine", "spark"],
                                     ["--workers", "2"]])
def test_bad_engine_options_are_one_line(tmp_path: Path, command: str, options: list[str]) -> None:
    target = str(CORPUS) if command == "ingest" else str(ANSWERS / "clean.json")
    done = runner.invoke(app, [command, target, "--db", str(tmp_path / "x.duckdb"), *options])
    assert done.exit_code == 2
    line = _one_error_line(done.output)
    assert options[-1] in line or "--engine ray" in line


def test_the_python_api_refuses_zero_workers(tmp_path: Path) -> None:
    with Store(tmp_path / "x.duckdb") as store, pytest.raises(GraphciteError, match="--workers"):
        ingest(store, [CORPUS], engine="ray", workers=0)


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = runner.invoke(app, ["ingest", str(CORPUS), "--db", str(tmp_path / "x.duckdb")])
    assert done.exit_code == 0
    assert "units/s" not in done.output and "MB" not in done.stderr


def test_the_progress_bar_shows_files_megabytes_and_units_per_second(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(cli_batch, "err", Console(file=screen, force_terminal=True, width=160))
    with Store(tmp_path / "x.duckdb") as store, cli_batch.ingest_progress(enabled=True) as tick:
        assert tick is not None
        ingest(store, [CORPUS], progress=tick)
    shown = screen.getvalue()
    assert "28 files" in shown and "MB" in shown and "units/s" in shown
