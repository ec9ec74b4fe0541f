"""Long runs show progress on a terminal (issue 25): ``eval``, ``eval-rag``, ``ingest`` of a folder and
``recheck --stale`` draw a bar on stderr when it is a terminal (a real pseudo-terminal here, the real CLI
in a subprocess), and nothing when stderr is piped."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "graphcite" / "examples"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def graphcite(*args: str) -> list[str]:
    return [sys.executable, "-m", "graphcite", *args]


def on_terminal(args: list[str], timeout: float = 120) -> tuple[int, str, str]:
    """Run ``args`` with stderr on a pseudo-terminal: (exit code, stdout, the terminal's text without colours)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, cwd=ROOT, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    else:
        proc.kill()
    assert proc.stdout is not None
    stdout = proc.stdout.read().decode("utf-8")
    proc.wait(timeout=30)
    os.close(master)
    return proc.returncode, stdout, ANSI.sub("", b"".join(chunks).decode("utf-8", errors="replace"))


def frames(screen: str) -> list[str]:
    """The bar's successive states (rich redraws the line after a carriage return)."""
    return [f.strip() for f in screen.replace("\n", "\r").split("\r") if f.strip()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a copy of the bundled corpus, a store with it ingested)."""
    root = tmp_path_factory.mktemp("progress")
    folder = root / "corpus"
    shutil.copytree(EXAMPLES / "corpus", folder)
    db = root / "corpus.duckdb"
    subprocess.run(graphcite("ingest", str(folder), "--db", str(db), "--quiet"), check=True, cwd=ROOT,
                   capture_output=True, timeout=120)
    return folder, db


def test_eval_shows_its_progress_and_its_table(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    labelled = tmp_path / "small.jsonl"
    lines = (EXAMPLES / "labelled" / "set.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    labelled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, stdout, screen = on_terminal(graphcite("eval", str(labelled), "--db", str(corpus[1])))
    assert code == 0, screen[-1500:]  # an unknown total at the start once crashed the bar (E009)
    states = [f for f in frames(screen) if "checking labelled items" in f]
    assert states and states[-1].split("checking labelled items")[1].split()[1] == "6/6", states[-3:]
    assert "false_support" in stdout or "false support" in stdout


def test_eval_rag_shows_samples_done_of_total() -> None:
    code, stdout, screen = on_terminal(graphcite("eval-rag", str(EXAMPLES / "rag" / "samples.jsonl")))
    assert code == 0, screen[-1500:]
    states = [f for f in frames(screen) if "checking samples" in f]
    assert any("/10 done" in f for f in states) and "10/10 done" in states[-1]
    assert "citation_validity" in stdout


def test_ingest_of_a_folder_counts_files(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(40):
        (folder / f"note-{i:02}.md").write_text(f"# Note {i}\n\nThe relay keeps logs for {i + 1} days.\n",
                                                encoding="utf-8")
    code, stdout, screen = on_terminal(graphcite("ingest", str(folder), "--db", str(tmp_path / "s.duckdb")))
    assert code == 0, screen[-1500:]
    states = [f for f in frames(screen) if f.startswith(("ingesting", "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"))]
    assert any(" 40 files" in f for f in states), states[-3:]
    assert "40 added" in stdout


def test_no_bar_when_stderr_is_piped() -> None:
    result = subprocess.run(graphcite("eval-rag", str(EXAMPLES / "rag" / "samples.jsonl")), capture_output=True,
                            text=True, cwd=ROOT, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0 and "checking samples" not in result.stderr and "━" not in result.stderr
    assert "citation_validity" in result.stdout


def test_recheck_stale_shows_progress(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, db = corpus
    store = tmp_path / "stale.duckdb"
    shutil.copy(db, store)
    checked = subprocess.run(graphcite("check", str(EXAMPLES / "answers" / "clean.json"), "--db", str(store)),
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr[-800:]
    changed = tmp_path / "changed"
    shutil.copytree(folder, changed)
    policy = changed / "decisions" / "dr-017-webhook-retries.md"
    policy.write_text(policy.read_text(encoding="utf-8") + "\nA note added later changes this revision.\n",
                      encoding="utf-8")
    subprocess.run(graphcite("ingest", str(changed), "--db", str(store), "--quiet"), check=True, cwd=ROOT,
                   capture_output=True, timeout=120)
    code, stdout, screen = on_terminal(graphcite("recheck", "--stale", "--db", str(store)))
    assert code == 0, screen[-1500:]
    assert "appended" in stdout
    assert any("rechecking stale claims" in f for f in frames(screen)), screen[-800:]
