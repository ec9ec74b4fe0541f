"""Read an answer in any accepted format into one :class:`~graphcite.models.InputAnswer`.

:func:`load_answer` detects the format unless ``format`` forces one of :data:`FORMATS`; each has a
module here, a JSON Schema in ``schema/answer-NAME.schema.json`` and an example in
``schema/examples/`` (``graphcite formats`` lists them):

``native`` / ``cairn``   graphcite's own claims with citations (:mod:`.native`)
``anthropic``            a Messages API response with citations (:mod:`.anthropic`)
``markers``              plain text with ``[n]`` markers and a passage list (:mod:`graphcite.claims.markers`)
``openai``               Responses (or Chat Completions) output with file/url citations (:mod:`.openai`)
``gemini``               a response with ``groundingMetadata`` (:mod:`.gemini`)
``cohere``               chat v2 with ``message.citations`` (:mod:`.cohere`)
``langchain``            a retrieval chain's answer and documents (:mod:`.retrieval`)
``llamaindex``           a Response with ``source_nodes`` (:mod:`.retrieval`)
``alce``                 ALCE ``output`` with ``docs`` (:mod:`.alce`)
``ragas``                a RAG evaluation sample: question, answer, ``contexts`` (:mod:`.ragas`)

Each format is one module that registers its reader with :func:`.registry.answer_format`; this package
imports every module in it, so a new format is one module and one registration. Formats whose
documents carry their text (LangChain, LlamaIndex, ALCE, RAGAS, a native citation's ``passage``) read
it as passages the claims are verified against (:mod:`.passages`).

Citations that name only a file, a URL, a document or a chunk (most producers) carry no span:
verification locates the evidence in the cited source. Producers' offsets are converted to code
points from their documented unit (Gemini: UTF-8 bytes; OpenAI, Cohere: characters). A source map
(``source_map=``, ``--source-map FILE``) ties a producer's file ids, file names, URLs or titles to
source keys; without it, names are matched to sources when checked (file name, path ending,
front-matter ``url:``, title).

Every error is an :class:`~graphcite.errors.AnswerFormatError` (coded E2xx) whose ``where`` is the JSON
path or ``line N``; a document that looks like a format but lacks a field says which format and which
field. Only an answer that cannot be read is refused: a bad offset, page or index makes its citation
defective, which verification reports as an invalid citation for that claim only. :class:`AnswerLimits`
bounds the bytes read, the number of claims and the length of a claim.

A ``str`` given to :func:`load_answer` is a path unless it is plainly content (several lines, or
JSON); :func:`load_answer_text` reads text explicitly, as ``--text`` and ``-`` (stdin) do.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphcite.claims.formats.alce import load_alce_run
from graphcite.claims.formats.common import (
    DEFAULT_LIMITS,
    MAX_OFFSET,
    NO_LIMITS,
    SPACY_MAX_LENGTH,
    AnswerLimits,
    ReadOptions,
    answer_to_dict,
    check_documents,
    check_text,
    json_type,
    parse_json,
    read_answer_file,
)
from graphcite.claims.formats.registry import (
    FormatInfo,
    TextReader,
    answer_format,
    detection_order,
    formats,
    get_format,
)
from graphcite.claims.markers import looks_like_markers
from graphcite.errors import AnswerFormatError, make_error
from graphcite.models import InputAnswer

__all__ = [
    "DEFAULT_LIMITS",
    "FORMATS",
    "FORMAT_INFO",
    "MAX_OFFSET",
    "NO_LIMITS",
    "SPACY_MAX_LENGTH",
    "AnswerLimits",
    "FormatInfo",
    "answer_format",
    "answer_to_dict",
    "detect_format",
    "list_formats",
    "load_answer",
    "load_answer_text",
    "load_answers",
    "load_source_map",
    "parse_json",
    "read_answer_file",
]


for _module in pkgutil.iter_modules(__path__):  # every format module registers itself on import
    importlib.import_module(f"{__name__}.{_module.name}")

FORMAT_INFO: tuple[FormatInfo, ...] = tuple(f.info for f in formats())
FORMATS: tuple[str, ...] = tuple(f.name for f in FORMAT_INFO)

# the repository's schema/ folder (examples and schemas are not part of the wheel)
SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"

# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def load_answer(
    source: str | Path | Mapping[str, Any],
    *,
    format: str | None = None,
    documents: list[str] | None = None,
    limits: AnswerLimits = DEFAULT_LIMITS,
    source_map: Mapping[str, str] | None = None,
) -> InputAnswer:
    """Read an answer from a file path, JSON text or a parsed dict into an InputAnswer.

    A ``str`` is JSON or marker text when it spans several lines or starts with ``{`` or ``[``;
    any other ``str`` is a file path, so a mistyped name is "not found", never an answer whose text is
    the typo. Use :func:`load_answer_text` for one-line marker text. ``format`` forces one of
    :data:`FORMATS`; ``documents`` maps Anthropic ``document_index`` and bare ``[n]`` markers to
    source keys; ``limits`` bounds bytes, claims and claim length; ``source_map`` maps a producer's
    file ids, file names, URLs or titles to source keys (see :func:`load_source_map`).
    """
    options = _options(format, documents, limits, source_map)
    if isinstance(source, Mapping):
        return _load_data(dict(source), format, options)
    if isinstance(source, Path):
        return _load_text(read_answer_file(source, limits), format, options)
    if isinstance(source, str):
        if "\n" in source or "\r" in source or source.lstrip("\ufeff \t").startswith(("{", "[")):
            return load_answer_text(source, format=format, documents=documents, limits=limits, source_map=source_map)
        return _load_text(read_answer_file(Path(source), limits), format, options)
    raise AnswerFormatError(
        f"cannot read an answer from a {type(source).__name__}",
        fix="pass a file path, the answer's text or a dict",
    )


def load_answer_text(
    text: str,
    *,
    format: str | None = None,
    documents: list[str] | None = None,
    limits: AnswerLimits = DEFAULT_LIMITS,
    where: str = "--text",
    source_map: Mapping[str, str] | None = None,
) -> InputAnswer:
    """Read an answer given as text (JSON or markers): the explicit way, as ``--text`` and stdin do."""
    options = _options(format, documents, limits, source_map)
    if not isinstance(text, str):
        raise AnswerFormatError(f"expected the answer's text, found {type(text).__name__}", where=where)
    if limits.max_bytes is not None and len(text) * 4 > limits.max_bytes:
        limits.check_bytes(len(text.encode("utf-8", "surrogatepass")), where)
    return _load_text(text, format, options)


def load_answers(
    source: str | Path | Mapping[str, Any],
    *,
    format: str | None = None,
    documents: list[str] | None = None,
    limits: AnswerLimits = DEFAULT_LIMITS,
    source_map: Mapping[str, str] | None = None,
) -> list[InputAnswer]:
    """Every answer a file holds: each item of an ALCE run file (``{"data": [...]}``), else the one answer."""
    options = _options(format, documents, limits, source_map)
    data: Any = source
    if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip("\ufeff \t").startswith("{")
                                    and "\n" not in source):
        data = read_answer_file(Path(source), limits)
    if isinstance(data, str):
        stripped = data.lstrip("\ufeff \t\r\n")
        if not stripped.startswith("{"):
            return [_load_text(data, format, options)]
        data = parse_json(data)
    if isinstance(data, Mapping) and (format or detect_format(data)) == "alce":
        return load_alce_run(data, options)
    return [_load_data(data, format, options)]


def load_source_map(path: str | Path) -> dict[str, str]:
    """A source map file: a JSON or YAML object from a producer's names (file ids, file names, URLs,
    titles, document ids) to source keys. Errors name the file and the entry (E101)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0]
        raise make_error("E101", where=where, detail=f"cannot read the source map: {reason}",
                         fix="give a JSON or YAML file mapping names to source keys") from None
    try:
        if text.lstrip().startswith("{"):
            data = json.loads(text)
        else:
            from graphcite.ingest.safe_yaml import load_yaml

            data = load_yaml(text)
    except (ValueError, RecursionError) as exc:
        raise make_error("E101", where=where, detail=f"the source map is not JSON or YAML: "
                         f"{str(exc).splitlines()[0][:200]}", fix="write one 'name: source key' per line") from None
    except Exception as exc:  # yaml.YAMLError (syntax): any parser failure is a bad file, not a bug
        raise make_error("E101", where=where, detail=f"the source map is not YAML: "
                         f"{str(exc).splitlines()[0][:200]}", fix="write one 'name: source key' per line") from None
    if not isinstance(data, Mapping):
        raise make_error("E101", where=where, detail=f"the source map must be an object, found {json_type(data)}",
                         fix="write one 'name: source key' per line")
    out: dict[str, str] = {}
    for name, key in data.items():
        if not isinstance(name, str) or not isinstance(key, str) or not name.strip() or not key.strip():
            raise make_error("E101", where=f"{where}: {str(name)[:80]!r}",
                             detail="each entry maps a name to a source key, both non-empty strings",
                             fix="quote names and keys that YAML would read as numbers or dates")
        check_text(name, where)
        check_text(key, where)
        out[name.strip()] = key.strip()
    return out


def detect_format(data: Any) -> str:
    """Name the format of parsed answer data (a dict) or answer text (a str); raise when none fits."""
    if isinstance(data, str):
        return "markers"
    if not isinstance(data, Mapping):
        raise AnswerFormatError(
            f"expected a JSON object, found {json_type(data)}",
            where="$",
            fix=f"an answer is an object with 'claims' (native) or a producer's response; formats: {', '.join(FORMATS)}",
        )
    for fmt in detection_order():
        if fmt.detect is not None and fmt.detect(data):
            return fmt.info.name
    raise AnswerFormatError(f"unknown answer format: {_hint(data)}", where="$",
                            fix=f"accepted formats: {', '.join(FORMATS)}; see `graphcite formats`")


def list_formats(name: str | None = None) -> list[dict[str, Any]]:
    """The accepted formats (or the one named), each with what it reads, its offset unit, its schema and
    its example (path and text, when the repository's ``schema/`` folder is there)."""
    if name is not None and name not in FORMATS:
        raise AnswerFormatError(f"unknown answer format {name!r}", where="FORMAT",
                                fix=f"use one of {', '.join(FORMATS)}", code="E105")
    rows = []
    for info in FORMAT_INFO:
        if name is not None and info.name != name:
            continue
        example = SCHEMA_DIR / "examples" / info.example
        rows.append({"format": info.name, "producer": info.title, "reads": info.reads, "offsets": info.offsets,
                     "schema": f"schema/{info.schema}" if info.schema else None,
                     "example": f"schema/examples/{info.example}",
                     "example_text": example.read_text(encoding="utf-8") if example.is_file() else None})
    return rows


def _hint(data: Mapping[str, Any]) -> str:
    """What the document looked like, and what it lacks, in a few words."""
    keys = [str(k) for k in list(data)[:8]]
    if isinstance(data.get("output"), str):
        return "'output' is text, as in ALCE (then 'docs' is missing) or LangChain (then 'context' is missing)"
    if isinstance(data.get("message"), Mapping):
        return "'message' is an object, as in Cohere chat, but it has no 'content' or 'citations'"
    if "text" in data or "citations" in data:
        return "a single claim? wrap it: {\"claims\": [...]}"
    shown = ", ".join(repr(k) for k in keys) if keys else "none"
    return f"no 'claims' list and not a producer's response (top-level keys: {shown})"


def _options(format: str | None, documents: list[str] | None, limits: AnswerLimits,
             source_map: Mapping[str, str] | None) -> ReadOptions:
    if format is not None and format not in FORMATS:
        raise AnswerFormatError(f"unknown answer format {format!r}", where="--format",
                                fix=f"use one of {', '.join(FORMATS)}", code="E105")
    if documents is not None:
        documents = check_documents(documents, "documents (argument)")
    return ReadOptions(documents=documents, limits=limits, source_map=source_map)


def _load_text(text: str, format: str | None, options: ReadOptions) -> InputAnswer:
    stripped = text.lstrip("\ufeff \t\r\n")
    # marker text may open with "[" ("[1] The relay ..."): JSON that parses stays JSON, and text with no
    # marker stays broken JSON (E206), so only a real marker answer is read as markers
    looks_json = not looks_like_markers(stripped)
    chosen = get_format(format) if format is not None else None
    if (chosen is not None and chosen.read_text is not None) or (format is None and not looks_json):
        if not stripped:
            raise make_error("E208", where="$")
        reader = chosen.read_text if chosen is not None and chosen.read_text is not None else _markers()
        return reader(text, options)
    return _load_data(parse_json(text), format, options)


def _markers() -> TextReader:
    """The reader of text that is not JSON (the markers format)."""
    fmt = get_format("markers")
    assert fmt is not None and fmt.read_text is not None
    return fmt.read_text


def _load_data(data: Any, format: str | None, options: ReadOptions) -> InputAnswer:
    fmt = get_format(format or detect_format(data))
    assert fmt is not None  # _options refused an unknown name
    if fmt.read is None:
        raise AnswerFormatError(
            f"format {fmt.info.name!r} expects plain text, got JSON data", where="--format",
            fix="omit --format or choose a JSON format",
        )
    return fmt.read(data, options)
