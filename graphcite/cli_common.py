"""What every CLI module shares: the consoles, the error contract, JSON output and common options."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from graphcite.errors import GraphciteError

__all__ = ["SYMBOLS", "AudienceOption", "DbOption", "JsonOption", "err", "handles_errors", "out", "print_json"]

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DbOption = Annotated[str | None, typer.Option("--db", help="DuckDB file (default $GRAPHCITE_DB or ./graphcite.duckdb)")]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of a table or tree")]
AudienceOption = Annotated[str, typer.Option("--audience", help="public hides restricted sources' text and ids")]

SYMBOLS = {"supported": "✔ supported", "contradicted": "✘ contradicted", "conflict": "⚠ conflict",
           "insufficient": "? insufficient", "unsupported": "∅ unsupported", "invalid": "✘ invalid",
           "unverified": "… not verified"}


def handles_errors(fn: F) -> F:
    """Turn library errors into one line on stderr and exit 2; never a traceback for a user mistake."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GraphciteError as exc:
            err.print(f"error: {exc}", markup=False)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print("interrupted; nothing was written by the unfinished step", markup=False)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def print_json(data: Any) -> None:
    """One JSON document on stdout (non-ASCII kept, dates as strings)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
