"""The graphcite exception hierarchy and its catalogue of coded errors.

Every error a user can cause is a :class:`GraphciteError`; the CLI prints ``error: CODE message``
and exits 2. Like spaCy's ``Errors``, each code has one entry in :data:`CATALOGUE` with a message
template, the usual cause and the fix; ``graphcite errors`` lists them. Like pint's errors, each
class also inherits a stdlib type, so ``except ValueError`` catches bad input, ``except KeyError``
an unknown id and ``except OSError`` an unwritable output. Structured fields (``code``, ``where``,
``cause``, ``fix``) are kept and the message is built in ``__str__``.

Two ways to raise, both keep working::

    raise NotFoundError("no claim 'c1'", where="CLAIM", fix="take an id from `check --json`")
    raise make_error("E502", where="ANSWER", ref="demo-clen", fix="did you mean 'demo-clean'?")

The first gets its class's default code (``NotFoundError.default_code``), or ``code=`` when given;
the second formats the catalogue entry and picks the class the entry names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CATALOGUE",
    "AnswerFormatError",
    "ConfigError",
    "ErrorSpec",
    "GraphciteError",
    "IngestError",
    "InputError",
    "NotFoundError",
    "OutputError",
    "StoreError",
    "StoreLockedError",
    "explain_error",
    "make_error",
]


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    """One catalogue entry: the code, the class raised, a message template, the usual cause, the fix."""

    code: str
    kind: str
    message: str
    cause: str
    fix: str

    @property
    def area(self) -> str:
        """The area a code belongs to, from its hundreds digit (E2xx: answers)."""
        return AREAS.get(self.code[1], "general")


AREAS = {"0": "general", "1": "command-line input", "2": "answers", "3": "ingest", "4": "configuration",
         "5": "not found", "6": "store", "7": "output"}

_SPECS = (
    ErrorSpec("E001", "GraphciteError", "{detail}",
              "an error raised through the bare base class instead of a typed subclass",
              "report it: it should carry its own code"),
    ErrorSpec("E009", "GraphciteError", "internal error ({detail})",
              "a bug in graphcite, not a mistake in the input; the CLI exits 70, not 2",
              "rerun with GRAPHCITE_DEBUG=1 to see the traceback and report it"),
    ErrorSpec("E010", "GraphciteError", "{detail}",
              "the environment failed under the command, not the input: a Ray worker, raylet or GCS died, or a "
              "local Ray runtime did not start; the command wrote nothing, and the CLI exits 2",
              "rerun the command; if it fails again, use fewer --workers, free memory, or omit --engine ray"),
    # -- command-line input -----------------------------------------------------------------
    ErrorSpec("E101", "InputError", "{detail}", "an argument or option value is not acceptable",
              "see the command's --help"),
    ErrorSpec("E102", "InputError", "{detail}",
              "the command line could not be parsed: an unknown option, a missing argument, a wrong type",
              "see `graphcite COMMAND --help`"),
    ErrorSpec("E103", "InputError", "{option} must be {expected}, got {value}",
              "a numeric option is out of range, zero, NaN or infinite",
              "pass a finite number in the range given"),
    ErrorSpec("E104", "InputError", "unknown audience {audience!r}",
              "--audience takes one of two audiences", "use public or internal"),
    ErrorSpec("E105", "InputError", "unknown {what} {value!r}",
              "an option takes one of a fixed set of names", "use one of {choices}"),
    ErrorSpec("E106", "InputError", "{detail}",
              "the command needs one input and got none, or got two that exclude each other",
              "see the command's --help"),
    # -- answers ----------------------------------------------------------------------------
    ErrorSpec("E201", "AnswerFormatError", "{detail}",
              "the answer does not have the shape of any accepted format; `where` is the JSON path or line",
              "see schema/examples/ for one answer in each format"),
    ErrorSpec("E202", "AnswerFormatError", "cannot read the answer: {detail}",
              "the answer path is a folder, a device or a FIFO, or not UTF-8 text",
              "pass a regular UTF-8 file, `-` for stdin or --text"),
    ErrorSpec("E203", "AnswerFormatError", "the answer is {size:,} bytes, over the limit of {limit:,}",
              "an answer larger than the byte limit is refused before it is read",
              "split the answer, or raise --max-answer-mb"),
    ErrorSpec("E204", "AnswerFormatError", "the answer has {count:,} claims, over the limit of {limit:,}",
              "very large answers take minutes and gigabytes to verify",
              "split the answer, or raise --max-claims"),
    ErrorSpec("E205", "AnswerFormatError", "the claim is {length:,} characters long, over the limit of {limit:,}",
              "a claim is one sentence; a longer text cannot be decomposed (spaCy's E088 limit is 1,000,000)",
              "split the text into sentences, or raise --max-claim-chars"),
    ErrorSpec("E206", "AnswerFormatError", "not valid JSON: {detail}",
              "the answer starts like JSON but does not parse",
              "fix the JSON, or pass plain text with [n] markers and --format markers"),
    ErrorSpec("E207", "AnswerFormatError", "JSON nested too deeply",
              "arrays or objects nested thousands of levels deep", "flatten the answer"),
    ErrorSpec("E208", "AnswerFormatError", "the answer is empty", "nothing to read",
              "give a JSON answer or marker text"),
    ErrorSpec("E209", "AnswerFormatError", "{detail}",
              "a marker answer's passage list or header cannot be read; `where` is the line",
              "see schema/examples/markers.txt"),
    ErrorSpec("E210", "AnswerFormatError", "the line is longer than {limit:,} characters",
              "a stream line longer than the limit is skipped unread", "send one claim per line"),
    # -- ingest -----------------------------------------------------------------------------
    ErrorSpec("E301", "IngestError", "{detail}",
              "a file could not be ingested: missing, unreadable, binary, bad encoding or front matter",
              "fix the file or leave it out"),
    # -- configuration ----------------------------------------------------------------------
    ErrorSpec("E401", "ConfigError", "{detail}",
              "the verifier configuration (a file or --judge options) is not usable",
              "see VerifierConfig in graphcite/verify/config.py"),
    ErrorSpec("E402", "ConfigError", "spaCy pipeline {model!r} is not installed",
              "--spacy-model names a pipeline that is not installed",
              "install it with pip, or omit --spacy-model"),
    # -- not found --------------------------------------------------------------------------
    ErrorSpec("E501", "NotFoundError", "{detail}",
              "an id (unit, claim, answer, source, rule) does not exist in the store",
              "list what exists with `graphcite sources` / `graphcite answers`"),
    ErrorSpec("E502", "NotFoundError", "no answer file or stored answer {ref!r}",
              "the ANSWER argument is neither an existing file nor a stored answer id or revision; "
              "inline text is read only with --text or `-` (stdin)",
              "pass a file, a stored id (`graphcite answers`), --text \"...\" or `-`"),
    ErrorSpec("E503", "NotFoundError", "no unit {unit!r} visible to audience {audience}",
              "the unit does not exist or belongs to a restricted source",
              "take a unit id from `graphcite check --json`"),
    ErrorSpec("E504", "NotFoundError", "no claim {ref!r}",
              "the claim id is not in the store", "take a claim_id from `graphcite check --json`"),
    # -- store ------------------------------------------------------------------------------
    ErrorSpec("E601", "StoreError", "{detail}", "the store cannot be opened or written",
              "check --db, the folder and its permissions"),
    ErrorSpec("E602", "StoreLockedError", "store is locked by another process",
              "DuckDB allows one writer at a time",
              "stop the other graphcite process that has this store open (a `graphcite serve` holds it until "
              "stopped), or give this command another --db; a PostgreSQL store takes several processes"),
    ErrorSpec("E603", "StoreError", "not a graphcite store: {detail}",
              "--db names a file that graphcite did not create", "pass --db with a store written by graphcite"),
    ErrorSpec("E604", "StoreError", "cannot connect to the PostgreSQL store: {detail}",
              "the --db URL names a server that is not reachable, a database that does not exist, or a user "
              "or password the server refuses (the password is never printed)",
              "check the host, port, database name and credentials in --db / $GRAPHCITE_DB; "
              "create the database with `createdb` first"),
    ErrorSpec("E605", "StoreError", "lost the connection to the PostgreSQL store: {detail}{rolled}",
              "the server stopped, restarted or dropped the connection in the middle of a command",
              "start the server again and rerun the command: it starts from the store as it was"),
    # -- output -----------------------------------------------------------------------------
    ErrorSpec("E701", "OutputError", "cannot write here: {detail}",
              "the output path is unwritable, a device, a folder where a file is wanted, or in /proc",
              "choose a writable path"),
)

CATALOGUE: dict[str, ErrorSpec] = {spec.code: spec for spec in _SPECS}


class GraphciteError(Exception):
    """Base class: a user-facing error with a code, a location, a cause and a fix."""

    default_code = "E001"

    def __init__(self, cause: str, *, where: str | None = None, fix: str | None = None,
                 code: str | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.where = where
        self.fix = fix
        self.code = code or type(self).default_code

    def __str__(self) -> str:
        parts = []
        if self.where:
            parts.append(f"{self.where}: {self.cause}")
        else:
            parts.append(self.cause)
        if self.fix:
            parts.append(f"({self.fix})")
        return " ".join(parts).replace("\n", " ").replace("\r", " ")

    def as_dict(self) -> dict[str, Any]:
        """The error as JSON-ready fields (the CLI's stream records and a service's error bodies)."""
        return {"code": self.code, "message": str(self), "where": self.where, "cause": self.cause,
                "fix": self.fix}


class InputError(ValueError, GraphciteError):
    """A command-line argument or option value, or a library argument, is not acceptable."""

    default_code = "E101"
    __init__ = GraphciteError.__init__
    __str__ = GraphciteError.__str__


class AnswerFormatError(InputError):
    """An answer cannot be read: no accepted format fits, or a limit is exceeded; ``where`` is the path."""

    default_code = "E201"


class IngestError(InputError):
    """A file could not be ingested: missing, unreadable, binary, bad encoding, bad front matter."""

    default_code = "E301"


class ConfigError(InputError):
    """A verifier configuration (file, judge, spaCy pipeline) is not usable."""

    default_code = "E401"


class StoreError(RuntimeError, GraphciteError):
    """The store cannot be opened or written."""

    default_code = "E601"
    __init__ = GraphciteError.__init__
    __str__ = GraphciteError.__str__


class StoreLockedError(StoreError):
    """Another process holds the DuckDB write lock."""

    default_code = "E602"


class NotFoundError(KeyError, GraphciteError):
    """An id (unit, claim, answer, source, rule) does not exist in the store."""

    default_code = "E501"
    __init__ = GraphciteError.__init__
    __str__ = GraphciteError.__str__  # KeyError would quote the message


class OutputError(OSError, GraphciteError):
    """An output path cannot be written."""

    default_code = "E701"
    __init__ = GraphciteError.__init__
    __str__ = GraphciteError.__str__


_CLASSES: dict[str, type[GraphciteError]] = {cls.__name__: cls for cls in (
    GraphciteError, InputError, AnswerFormatError, IngestError, ConfigError, StoreError, StoreLockedError,
    NotFoundError, OutputError)}


def make_error(code: str, *, where: str | None = None, fix: str | None = None, **fields: Any) -> GraphciteError:
    """The error a catalogue code names, its message formatted from ``fields``; ``fix`` overrides the entry's."""
    spec = CATALOGUE[code]
    message = spec.message.format(**fields)
    default_fix = spec.fix.format(**fields) if "{" in spec.fix else spec.fix
    return _CLASSES[spec.kind](message, where=where, fix=default_fix if fix is None else fix, code=code)


def explain_error(code: str) -> str:
    """The catalogue entry of one code as text: class, area, message, cause and fix."""
    key = code.strip().upper()
    spec = CATALOGUE.get(key)
    if spec is None:
        raise make_error("E501", where="CODE", detail=f"no error code {code!r}",
                         fix="list the codes with `graphcite errors`")
    return (f"{spec.code} {spec.kind} ({spec.area})\n\nmessage: {spec.message}\ncause:   {spec.cause}\n"
            f"fix:     {spec.fix}")
