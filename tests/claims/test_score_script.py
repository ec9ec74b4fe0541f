"""scripts/score_sentences.py: the claim reader's accuracy per qualifier, printed by a script, not by the library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SENTENCES = ROOT / "tests" / "claims" / "data" / "sentences.jsonl"


def test_the_script_prints_each_qualifier_s_accuracy() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "score_sentences.py"), str(SENTENCES)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names[:3] == ["parts", "negated", "modality"] and names[-1] == "seconds"


def test_a_missing_sentence_set_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "score_sentences.py"), str(tmp_path / "none.jsonl")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "none.jsonl" in done.stderr


def test_the_claims_package_neither_prints_nor_runs_as_a_script() -> None:
    for path in (ROOT / "graphcite" / "claims").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert "print" not in calls, path
        assert "__main__" not in {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)}, path
