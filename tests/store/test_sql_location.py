"""SQL lives behind the store: no module outside ``graphcite/store/`` holds a SQL statement.

Every stage calls typed query functions in ``graphcite/store/queries/``, so the two engines'
differences and the statements' cost are reviewed in one place. The scan reads string literals
(f-strings included, docstrings excluded) through the AST, so prose that mentions SQL is not
counted and a statement split over several literals is.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "graphcite"
STATEMENT = re.compile(
    r"^\s*\(?\s*(?:SELECT\b[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+IGNORE\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|WITH\s+(?:RECURSIVE\s+)?\w+\s*(?:\([^)]*\))?\s+AS\b|CREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+)?"
    r"(?:TABLE|INDEX|VIEW)\b|DROP\s+(?:TABLE|VIEW|INDEX)\b)")
#: Pieces of a statement built elsewhere: a condition, an ordering, an IN list.
FRAGMENT = re.compile(r"^\s*(?:AND|OR|WHERE|ORDER BY|GROUP BY|(?:LEFT )?JOIN|UNION|HAVING)\s+[a-z_(\"]"
                      r"|\bIN \((?:SELECT\b|x\))")

#: Modules still holding SQL, each with the reason; the list may only shrink.
NOT_YET_MOVED: dict[str, str] = {}


def _literals(tree: ast.AST) -> list[tuple[int, str]]:
    """Each string literal with its line; an f-string's constant parts joined with a placeholder."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found: list[tuple[int, str]] = []
    inside_fstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "x" for v in node.values]
            inside_fstrings.update(id(v) for v in node.values)
            found.append((node.lineno, "".join(str(p) for p in parts)))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                and id(node) not in inside_fstrings):
            found.append((node.lineno, node.value))
    return found


def sql_statements(path: Path) -> list[str]:
    """``line: start of statement`` for every SQL statement literal in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{line}: {' '.join(text.split())[:60]}" for line, text in sorted(_literals(tree))
            if STATEMENT.match(text) or FRAGMENT.search(text)]


def test_the_scan_finds_statements_and_skips_prose(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""SELECT words FROM a docstring are prose."""\n'
                      'A = "SELECT key FROM source WHERE key = ?"\n'
                      'B = f"INSERT INTO {table} (a) SELECT a FROM {view}"\n'
                      'C = "select the best one from the list, AND then stop"\n'
                      'D = ("WITH RECURSIVE up(k) AS (SELECT 1) "\n     "SELECT k FROM up")\n'
                      'E = f"{column} IN ({marks})"\n'
                      'F = "AND task = ?"\n', encoding="utf-8")
    assert [found.split(":")[0] for found in sql_statements(module)] == ["2", "3", "5", "7", "8"]


def test_no_module_outside_the_store_holds_sql() -> None:
    holding = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT.parent).as_posix()
        if relative.startswith("graphcite/store/"):
            continue
        statements = sql_statements(path)
        if statements:
            holding[relative] = statements
    unexpected = {name: found for name, found in holding.items() if name not in NOT_YET_MOVED}
    assert not unexpected, f"SQL outside graphcite/store/ (move it into store/queries/): {unexpected}"
    moved = sorted(set(NOT_YET_MOVED) - set(holding))
    assert not moved, f"these modules hold no SQL any more; drop them from NOT_YET_MOVED: {moved}"
