"""The ``serve`` command: registered like the graph commands, with help, and one-line refusals (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from serve_support import ROOT, copy_db, load_answer_json, start_server, stop_server
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
                   "--max-quote-chars", "--verify-workers"):
        assert option in result.output


@pytest.mark.parametrize(("args", "code"), [(["--port", "70000"], "E103"), (["--audience", "everyone"], "E104"),
                                            (["--timeout", "0"], "E103"), (["--log-level", "loud"], "E105"),
                                            (["--max-quote-chars", "5"], "E103"), (["--workers", "2"], "E101"),
                                            (["--max-body-mb", "nan"], "E103"),
                                            (["--verify-workers", "-1"], "E103"), (["--verify-workers", "65"], "E103")])
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


def test_the_environment_s_bad_worker_count_is_one_line(app: typer.Typer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHCITE_VERIFY_WORKERS", "many")
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 2 and "error: E101" in result.output and "GRAPHCITE_VERIFY_WORKERS" in result.output


def _children(pid: int) -> list[int]:
    return [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
            for c in (task / "children").read_text().split()]


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the worker process from /proc")
def test_serve_with_a_verification_worker_answers_a_new_answer_through_it(serve_db: Path, tmp_path: Path) -> None:
    """A real `graphcite serve --verify-workers 1`: one worker process beside it, which prepares a new answer
    (its CPU time grows), and the report is the library's."""
    import httpx

    from graphcite.store import Store
    from graphcite.verify.check import scratch_check

    answer = load_answer_json("clean.json")
    with Store(copy_db(serve_db, tmp_path, "library.duckdb"), read_only=True) as store:
        expected = scratch_check(store, answer)
    server = start_server(copy_db(serve_db, tmp_path), "--verify-workers", "1")
    try:
        assert "1 verification worker)" in server.log()
        workers = [pid for pid in _children(server.process.pid)
                   if "graphcite.serve.pool" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) == 1, server.log()
        before = _cpu_ticks(workers[0])
        response = httpx.post(f"{server.url}/v1/check", json=answer, timeout=120)
        assert response.status_code == 200, response.text
        report = response.json()
        assert _cpu_ticks(workers[0]) > before  # the worker prepared it
    finally:
        assert stop_server(server) in (0, -15)
    assert [(c["claim_id"], c["status"]) for c in report["claims"]] == \
        [(c["claim_id"], c["status"]) for c in expected["claims"]]
    assert report["claims"] == expected["claims"]
