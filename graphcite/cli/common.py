"""What every CLI module shares: the consoles, the error contract, option checks, answer input, JSON output.

The error contract: a user mistake is one line on stderr, ``error: CODE message (fix)``, and exit
code 2, whether the library refused it (a :class:`GraphciteError`) or the command line could not be
parsed (click's usage errors, reformatted by :class:`OneLineErrors`). A bug prints one line too,
with code E009 and exit code 70; ``GRAPHCITE_DEBUG=1`` shows its traceback.

An ANSWER argument is an existing file, a stored answer id or revision, or ``-`` (stdin); the answer's
text is read inline only from ``--text``. Numeric options are checked here (finite, in range) before
any file or store is opened, so a refused command changes nothing.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from typer.core import TyperGroup

from graphcite.errors import GraphciteError, make_error

__all__ = [
    "STYLES",
    "SYMBOLS",
    "AnswerArgument",
    "AudienceOption",
    "DbOption",
    "DocumentsOption",
    "FormatOption",
    "JsonOption",
    "MaxAnswerMbOption",
    "MaxClaimCharsOption",
    "MaxClaimsOption",
    "ModelOption",
    "OneLineErrors",
    "SourceMapOption",
    "TextOption",
    "answer_input",
    "answer_limits",
    "check_audience",
    "check_input_file",
    "check_int",
    "check_number",
    "check_output_dir",
    "err",
    "error_line",
    "handles_errors",
    "json_line",
    "open_cli_store",
    "out",
    "print_json",
    "split_documents",
    "stored_answer",
]

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DbOption = Annotated[str | None, typer.Option("--db", help="DuckDB file or postgresql://USER@HOST:PORT/DB URL (default $GRAPHCITE_DB or ./graphcite.duckdb)")]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of a table or tree")]
AudienceOption = Annotated[str, typer.Option("--audience", help="public hides restricted sources' text and ids")]


class _StatusTable(Mapping[str, str]):
    """status -> one field of its display (symbol, word, colour), from the one table in graphcite.models.

    Filled on first use: importing graphcite.models (SQLModel) is most of what ``graphcite --help``
    would otherwise spend starting up, and most commands print no status at all.
    """

    def __init__(self, shown: Callable[[tuple[str, str, str]], str]) -> None:
        self._shown = shown
        self._table: dict[str, str] | None = None

    def _filled(self) -> dict[str, str]:
        if self._table is None:
            from graphcite.models import STATUS_DISPLAY, UNVERIFIED_DISPLAY

            self._table = {**{str(status): self._shown(display) for status, display in STATUS_DISPLAY.items()},
                           "unverified": self._shown(UNVERIFIED_DISPLAY)}
        return self._table

    def __getitem__(self, status: str) -> str:
        return self._filled()[status]

    def __iter__(self) -> Iterator[str]:
        return iter(self._filled())

    def __len__(self) -> int:
        return len(self._filled())


#: symbol + word for each status
SYMBOLS: Mapping[str, str] = _StatusTable(lambda display: f"{display[0]} {display[1]}")
#: rich colour for each status
STYLES: Mapping[str, str] = _StatusTable(lambda display: display[2])

EXIT_USAGE = 2
EXIT_BUG = 70  # EX_SOFTWARE: not the user's fault


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """``name`` from typer's vendored click and from click itself, whichever are installed."""
    found: list[type[BaseException]] = []
    for module in ("typer._click.exceptions", "typer.exceptions", "click.exceptions"):
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        if cls not in found:
            found.append(cls)
    return tuple(found)


_NO_ARGS = _click_classes("NoArgsIsHelpError")
_USAGE = _click_classes("UsageError")
_CLICK = _click_classes("ClickException")
_ABORT = _click_classes("Abort")


def error_line(exc: GraphciteError) -> str:
    """The one line a refused command prints: ``error: CODE where: cause (fix)``."""
    return f"error: {exc.code} {exc}"


def _print_error(line: str) -> None:
    err.print(line.replace("\n", " ").replace("\r", " "), markup=False, soft_wrap=True)


def handles_errors(fn: F) -> F:
    """Turn library errors into one line on stderr and exit 2; never a traceback for a user mistake."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GraphciteError as exc:
            _print_error(error_line(exc))
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt:
            err.print("interrupted; nothing was written by the unfinished step", markup=False)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


class OneLineErrors(TyperGroup):
    """The top-level command group: usage errors and bugs become one ``error:`` line, never a traceback."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _NO_ARGS as exc:
            exc.show()  # type: ignore[attr-defined]
            sys.exit(EXIT_USAGE)
        except _USAGE as exc:
            ctx = getattr(exc, "ctx", None)
            where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            _print_error(f"error: E102 {exc.format_message()}{where}")  # type: ignore[attr-defined]
            sys.exit(EXIT_USAGE)
        except _CLICK as exc:
            _print_error(f"error: E101 {exc.format_message()}")  # type: ignore[attr-defined]
            sys.exit(getattr(exc, "exit_code", 1))
        except _ABORT:
            _print_error("error: E101 aborted")
            sys.exit(1)
        except GraphciteError as exc:  # raised outside a command body (a callback)
            _print_error(error_line(exc))
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # a bug: one line by default, the traceback on request
            if os.environ.get("GRAPHCITE_DEBUG"):
                raise
            text = str(exc).splitlines()[0][:200] if str(exc).strip() else ""
            _print_error(error_line(make_error("E009", detail=f"{type(exc).__name__}: {text}".rstrip(": "))))
            sys.exit(EXIT_BUG)
        sys.exit(code if isinstance(code, int) else 0)


def check_int(value: int | None, option: str, *, minimum: int = 1, maximum: int | None = None) -> int | None:
    """``value`` when it lies in ``minimum..maximum``; else E103 naming the option."""
    if value is None:
        return None
    if value < minimum or (maximum is not None and value > maximum):
        expected = f"an integer from {minimum:,} to {maximum:,}" if maximum is not None \
            else f"an integer of at least {minimum:,}"
        raise make_error("E103", option=option, expected=expected, value=value)
    return value


def check_number(value: float | None, option: str, *, minimum: float, maximum: float | None = None,
                 above_minimum: bool = False) -> float | None:
    """``value`` when finite and in range (``above_minimum``: strictly above); else E103 naming the option."""
    if value is None:
        return None
    low_ok = value > minimum if above_minimum else value >= minimum
    if not math.isfinite(value) or not low_ok or (maximum is not None and value > maximum):
        bound = f"above {minimum:g}" if above_minimum else f"at least {minimum:g}"
        expected = f"a finite number {bound}" + (f" and at most {maximum:g}" if maximum is not None else "")
        raise make_error("E103", option=option, expected=expected, value=value)
    return value


def check_audience(audience: str) -> str:
    """The audience, or E104 (:func:`graphcite.audience.check_audience`, the one decision)."""
    from graphcite.audience import check_audience as checked

    return checked(audience)


def check_input_file(path: str | None, option: str) -> str | None:
    """``path`` when it names a regular file; a folder, device, FIFO or missing path is E101 (never read)."""
    if path is None:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        reason = "file not found" if isinstance(exc, FileNotFoundError) else f"cannot read it ({type(exc).__name__})"
        raise make_error("E101", where=f"{option} {path}", detail=reason, fix="check the path") from None
    if not stat.S_ISREG(info.st_mode):
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, FIFO or socket)"
        raise make_error("E101", where=f"{option} {path}", detail=f"it is {what}", fix="pass a regular file")
    return path


def check_output_dir(path: Path, option: str) -> Path:
    """A folder the command may write into: existing and writable, or creatable; never a file or device."""
    target = path.expanduser()
    probe = target
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    try:
        info = os.stat(probe)
    except OSError as exc:
        raise make_error("E701", where=f"{option} {path}", detail=exc.strerror or type(exc).__name__) from None
    if not stat.S_ISDIR(info.st_mode):
        what = "a file" if stat.S_ISREG(info.st_mode) else "not a folder (a device, FIFO or socket)"
        raise make_error("E701", where=f"{option} {path}", detail=f"{probe} is {what}",
                         fix="pass a folder, or a new path whose parent is a writable folder")
    if not os.access(probe, os.W_OK | os.X_OK) or str(probe.resolve()).startswith(("/proc", "/sys")):
        raise make_error("E701", where=f"{option} {path}", detail=f"{probe} is not writable")
    return target


# -- answers on the command line ------------------------------------------------------------

FormatOption = Annotated[str | None, typer.Option("--format", help="an answer format (`graphcite formats` lists them); "
                                                   "detected when absent")]
SourceMapOption = Annotated[str | None, typer.Option("--source-map", help="JSON/YAML mapping file ids, file names, URLs "
                                                     "or titles to source keys")]
DocumentsOption = Annotated[str | None, typer.Option("--documents", help="KEY,KEY,... for document_index / [n]")]
ModelOption = Annotated[str | None, typer.Option("--spacy-model", help="an installed trained spaCy pipeline")]
AnswerArgument = Annotated[str | None, typer.Argument(
    help="answer file, stored answer id or revision, or - to read the answer from stdin")]
TextOption = Annotated[str | None, typer.Option("--text", help="the answer itself (JSON or marker text)")]
MaxClaimsOption = Annotated[int, typer.Option("--max-claims", help="refuse answers with more claims")]
MaxAnswerMbOption = Annotated[float, typer.Option("--max-answer-mb",
                                                  help="refuse answers larger than this (MB, 10^6 bytes)")]
MaxClaimCharsOption = Annotated[int, typer.Option("--max-claim-chars",
                                                  help="refuse claims longer than this (at most 1,000,000)")]


def json_line(data: Any) -> str:
    """One JSON Lines record; line separators other than \\n (U+0085, U+2028, U+2029) are escaped too,
    so a reader that splits on any line break still sees one record per line."""
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def split_documents(documents: str | None) -> list[str] | None:
    """``--documents a.md,b.md`` as a list of source keys (None when not given)."""
    return [d.strip() for d in documents.split(",") if d.strip()] if documents else None


def answer_limits(max_claims: int, max_answer_mb: float, max_claim_chars: int) -> Any:
    """The checked ``--max-claims``, ``--max-answer-mb`` and ``--max-claim-chars`` as AnswerLimits."""
    from graphcite.claims.formats import SPACY_MAX_LENGTH, AnswerLimits

    check_int(max_claims, "--max-claims", minimum=1)
    check_number(max_answer_mb, "--max-answer-mb", minimum=0, maximum=1_000_000, above_minimum=True)
    check_int(max_claim_chars, "--max-claim-chars", minimum=1, maximum=SPACY_MAX_LENGTH)
    return AnswerLimits(max_bytes=int(max_answer_mb * 1_000_000), max_claims=max_claims,
                        max_claim_chars=max_claim_chars)


def _read_stdin(limits: Any) -> str:
    stream = getattr(sys.stdin, "buffer", None)
    limit = limits.max_bytes
    data = stream.read(limit + 1 if limit is not None else -1) if stream is not None \
        else sys.stdin.read(limit + 1 if limit is not None else -1).encode("utf-8", "surrogatepass")
    limits.check_bytes(len(data), "stdin")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise make_error("E202", where="stdin", detail=f"not UTF-8 text (bad byte at offset {exc.start})",
                         fix="send the answer as UTF-8") from None


def answer_input(answer: str | None, text: str | None, *, fmt: str | None, documents: str | None,
                  limits: Any, source_map: str | None = None) -> Any:
    """The answer an argument names: an InputAnswer read from a file, stdin or --text, or a stored id (str).

    Inline text is read only from --text or `-`; any other argument must be an existing path or,
    failing that, a stored answer id (checked against the store by the caller).
    """
    from graphcite.claims.formats import load_answer, load_answer_text, load_source_map

    mapping = load_source_map(source_map) if source_map else None
    if text is not None and answer is not None:
        raise make_error("E106", where="ANSWER", detail="give either ANSWER or --text, not both")
    if text is not None:
        return load_answer_text(text, format=fmt, documents=split_documents(documents), limits=limits, where="--text",
                                source_map=mapping)
    if answer is None:
        raise make_error("E106", where="ANSWER", detail="no answer given",
                         fix="pass a file, a stored answer id, - for stdin, or --text \"...\"")
    if answer == "-":
        return load_answer_text(_read_stdin(limits), format=fmt, documents=split_documents(documents), limits=limits,
                                where="stdin", source_map=mapping)
    if answer and "\0" not in answer and os.path.lexists(answer):
        return load_answer(Path(answer), format=fmt, documents=split_documents(documents), limits=limits,
                           source_map=mapping)
    return answer


def stored_answer(db: str | None, ref: str) -> tuple[str, Any]:
    """A stored answer by id or revision, looked up read-only (E502 with the closest id when unknown)."""
    from graphcite.store import is_postgres_url, resolve_db_path
    from graphcite.verify.check import resolve_answer

    path = resolve_db_path(db)
    if path != ":memory:" and not is_postgres_url(path) and not os.path.exists(path):
        shown = ref if len(ref) <= 80 else ref[:77] + "..."
        raise make_error("E502", where="ANSWER", ref=shown,
                         fix=f"there is no store at {path} yet; pass an answer file, - for stdin or --text")
    with open_cli_store(db, read_only=True) as store:
        found = resolve_answer(store, ref)
    assert isinstance(found, tuple)
    return found


def open_cli_store(db: str | None, *, read_only: bool = False) -> Any:
    """Open the store at ``db``; a path that exists but is not a regular file is E603, never opened."""
    from graphcite.errors import StoreError
    from graphcite.store import is_postgres_url, open_store, resolve_db_path

    path = resolve_db_path(db)
    if path != ":memory:" and not is_postgres_url(path) and os.path.exists(path) and not os.path.isfile(path):
        raise StoreError("not a regular file", where=f"--db {path}", fix="pass --db with a DuckDB file",
                         code="E603")
    return open_store(db, read_only=read_only)


def print_json(data: Any) -> None:
    """One JSON document on stdout (non-ASCII kept, dates as strings)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
