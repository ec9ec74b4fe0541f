"""Python source parser: one code unit per definition, named by its qualified symbol.

Code is evidence too ("the client retries 3 times" can be checked against ``MAX_RETRIES = 3``), so
every line of a module lands in a unit that says where it lives: the module docstring (symbol = the
module's dotted name), each class and function from its first decorator to its last line (symbols
``Class``, ``func``, ``Class.method``, ``outer.inner``), and the code between definitions (module
level: the module's name; inside a class or function: that scope's symbol). A definition that
contains other definitions is cut around them, so units never overlap. All units have block type
``code``; offsets come from line numbers via a table of line starts.
"""

from __future__ import annotations

import ast
from pathlib import PurePosixPath

from graphcite.errors import IngestError
from graphcite.ingest.text import line_starts, unit_for_span
from graphcite.models import ParsedDocument, ParsedUnit

__all__ = ["build_role_for", "module_name", "parse"]

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TEST_DIRS = frozenset({"tests", "test"})


def module_name(path: str) -> str:
    """Dotted module name of a path as given ("pkg/sub/mod.py" -> "pkg.sub.mod"; ``__init__`` dropped)."""
    pure = PurePosixPath(path.replace("\\", "/"))
    parts = [p for p in pure.with_suffix("").parts if p not in ("", ".", "/")]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or pure.stem


def build_role_for(path: str) -> str:
    """"test" for files under a tests/ (or test/) folder or named test_*.py, *_test.py, conftest.py."""
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name
    if any(part in _TEST_DIRS for part in pure.parts[:-1]):
        return "test"
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return "test"
    return "source"


def parse(text: str, *, where: str, path: str = "") -> ParsedDocument:
    """Parse Python ``text``; ``path`` (default ``where``) gives the module name and build role."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise IngestError(f"Python syntax error at line {exc.lineno}: {exc.msg}", where=where,
                          fix="fix the syntax or rename to .txt") from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise IngestError(f"cannot parse Python: {exc}", where=where,
                          fix="fix the syntax or rename to .txt") from exc
    path = path or where
    cutter = _Cutter(text)
    module = module_name(path)
    body = list(tree.body)
    first = 1
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        docstring = body.pop(0)
        cutter.add(first, docstring.lineno - 1, module)
        cutter.add(docstring.lineno, docstring.end_lineno or docstring.lineno, module)
        first = (docstring.end_lineno or docstring.lineno) + 1
    cutter.scope(first, len(cutter.starts), body, module, prefix="")
    return ParsedDocument(text=text, format="python", units=cutter.units, build_role=build_role_for(path))


class _Cutter:
    """Cuts line ranges into units, recursing into definitions that hold definitions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.units: list[ParsedUnit] = []

    def add(self, first: int, last: int, symbol: str) -> None:
        """A unit over 1-based lines ``first..last`` (inclusive) unless they hold only whitespace."""
        if first > last:
            return
        start = self.starts[first - 1] if first - 1 < len(self.starts) else len(self.text)
        end = self.starts[last] if last < len(self.starts) else len(self.text)
        unit = unit_for_span(self.text, self.starts, start, end, "code", symbol=symbol)
        if unit is not None:
            self.units.append(unit)

    def scope(self, first: int, last: int, statements: list[ast.stmt], symbol: str, *, prefix: str) -> None:
        """Lines ``first..last`` of a scope: its own code under ``symbol``, definitions cut out."""
        cursor = first
        for statement in statements:
            if not isinstance(statement, _DEFINITIONS):
                continue
            start = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
            stop = statement.end_lineno or statement.lineno
            self.add(cursor, start - 1, symbol)
            qualified = prefix + statement.name
            self.scope(start, stop, statement.body, qualified, prefix=qualified + ".")
            cursor = stop + 1
        self.add(cursor, last, symbol)
