"""Read an answer in any accepted format into one :class:`~graphcite.models.InputAnswer`.

Four formats are accepted; :func:`load_answer` detects which one unless ``format`` forces it.

``native``
    ``{"answer_id"?, "question"?, "documents"?, "claims": [CLAIM, ...]}`` where CLAIM is
    ``{"text", "citations"?: [CITATION, ...], "type"?, "premises"?: [claim index, ...]}`` and
    CITATION is either ``{"source": KEY, "revision"?, "start"?, "end"?, "quote"?, "role"?, "page"?,
    "page_end"?}`` (offsets into the source document) or ``{"chunk_id": UNIT_ID, "start"?, "end"?,
    "quote"?, "role"?}`` (offsets into the evidence unit). A missing ``answer_id`` is derived from a
    hash of the content (``"a-"`` + 12 hex), so the same answer always gets the same id.
    ``page_end`` is the last page, inclusive.

``cairn``
    ``native`` plus verifier output fields on each claim (``supported``, ``support_score``, ``id``).
    They are read and ignored: support is decided here, never taken from the input.

``anthropic``
    A Messages API response ``{"type": "message", "content": [BLOCK, ...]}``. Each text block that
    carries ``citations`` is one claim. A text block without citations becomes a claim with no
    citations only when it holds a whole sentence (three or more words and a full stop, ``!`` or
    ``?``): the connecting fragments Claude emits between cited spans ("According to the notes, ")
    are not claims, an uncited full sentence is, so it can be reported as unsupported.
    ``document_index`` is mapped to a source key through the ``documents`` argument or, failing
    that, a top-level ``"documents"`` list (strings, or objects with a ``"key"``) in the file.
    ``char_location`` gives document offsets, ``page_location`` gives ``page`` and ``page_end``
    (Anthropic's ``end_page_number`` is exclusive; ``page_end`` is inclusive), and
    ``content_block_location`` gives the quote only. ``search_result_location`` and
    ``web_search_result_location`` use their ``source`` / ``url`` as the key. The message ``id``
    becomes the answer id; a top-level ``"question"`` may be added next to ``"documents"``.
    Non-text blocks (thinking, tool use) are skipped.

``markers``
    Plain text with inline markers, one claim per sentence: ``[1]``, ``[2][3]`` or ``[1, 2]`` refer
    to a ``Passages:`` list (``[1] policy.md: "quoted text"``), ``[policy.md:120-180]`` cites
    document offsets directly. The syntax is described in :mod:`graphcite.claims.markers`.

Every error is an :class:`~graphcite.errors.AnswerFormatError` whose ``where`` is the JSON path
(``claims[3].citations[0].end``) or ``line N`` for marker files, and whose cause says what was
expected.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphcite.claims.markers import parse_markers
from graphcite.errors import AnswerFormatError
from graphcite.models import CLAIM_TYPES, CitationRef, InputAnswer, InputClaim

__all__ = ["FORMATS", "answer_to_dict", "detect_format", "load_answer"]

FORMATS = ("native", "cairn", "anthropic", "markers")

_CAIRN_FIELDS = frozenset({"supported", "support_score"})
_CLAIM_KEYS = frozenset({"text", "citations", "type", "premises", "id", *_CAIRN_FIELDS})
# each kind also tolerates the other kind's key set to null
_SOURCE_CITATION_KEYS = frozenset({"source", "revision", "start", "end", "quote", "role", "page", "page_end",
                                   "chunk_id"})
_CHUNK_CITATION_KEYS = frozenset({"chunk_id", "start", "end", "quote", "role", "page", "page_end", "source"})
_JSON_SUFFIXES = (".json", ".txt", ".md", ".jsonl", ".markdown")


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def load_answer(
    source: str | Path | Mapping[str, Any],
    *,
    format: str | None = None,
    documents: list[str] | None = None,
) -> InputAnswer:
    """Read an answer from a file path, JSON/marker text or a parsed dict into an InputAnswer.

    A ``str`` is a file path when it names an existing file, or looks like one (a single line
    without ``[`` ending in ``.json``, ``.txt`` or ``.md``); otherwise it is the answer's content.
    ``format`` forces one of :data:`FORMATS`; ``documents`` maps Anthropic ``document_index`` and
    bare ``[n]`` markers to source keys.
    """
    if format is not None and format not in FORMATS:
        raise AnswerFormatError(
            f"unknown answer format {format!r}", where="--format", fix=f"use one of {', '.join(FORMATS)}"
        )
    if documents is not None:
        documents = _check_documents(documents, "documents (argument)")
    if isinstance(source, Mapping):
        return _load_data(dict(source), format, documents)
    if isinstance(source, Path):
        text = _read_file(source)
    elif isinstance(source, str):
        text = _read_file(Path(source)) if _names_a_file(source) else source
    else:
        raise AnswerFormatError(
            f"cannot read an answer from a {type(source).__name__}",
            fix="pass a file path, the answer's text or a dict",
        )
    return _load_text(text, format, documents)


def detect_format(data: Any) -> str:
    """Name the format of parsed answer data (a dict) or answer text (a str); raise when none fits."""
    if isinstance(data, str):
        return "markers"
    if not isinstance(data, Mapping):
        raise AnswerFormatError(
            f"expected a JSON object, found {_json_type(data)}",
            where="$",
            fix=f"an answer is an object with 'claims' (native) or a Messages API response; formats: {', '.join(FORMATS)}",
        )
    if data.get("type") == "message" or (isinstance(data.get("content"), list) and "claims" not in data):
        return "anthropic"
    if "claims" in data:
        claims = data["claims"]
        if isinstance(claims, list) and any(
            isinstance(claim, Mapping) and not _CAIRN_FIELDS.isdisjoint(claim) for claim in claims
        ):
            return "cairn"
        return "native"
    raise AnswerFormatError(
        "unknown answer format: no 'claims' list and not a Messages API response",
        where="$",
        fix=f"accepted formats: {', '.join(FORMATS)}; see schema/examples/",
    )


def answer_to_dict(answer: InputAnswer) -> dict[str, Any]:
    """The canonical native dict of an answer: fixed key order, absent fields left out.

    Loading this dict with :func:`load_answer` gives back the same claims, so it is what gets
    hashed and stored whatever format the answer arrived in.
    """
    out: dict[str, Any] = {"answer_id": answer.answer_id, "question": answer.question}
    if answer.documents:
        out["documents"] = list(answer.documents)
    out["claims"] = [_claim_to_dict(claim) for claim in answer.claims]
    return out


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def _names_a_file(text: str) -> bool:
    if "\n" in text or text.lstrip().startswith(("{", "[")):
        return False
    if len(text) < 4096:
        try:
            if Path(text).is_file():
                return True
        except (OSError, ValueError):
            return False
    return "[" not in text and text.strip().lower().endswith(_JSON_SUFFIXES)


def _read_file(path: Path) -> str:
    where = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AnswerFormatError("answer file not found", where=where, fix="check the path") from None
    except IsADirectoryError:
        raise AnswerFormatError("is a directory, not an answer file", where=where) from None
    except (OSError, ValueError) as exc:
        raise AnswerFormatError(f"cannot read the answer file ({exc.__class__.__name__})", where=where) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AnswerFormatError(
            f"not UTF-8 text (bad byte at offset {exc.start})", where=where, fix="save the answer as UTF-8"
        ) from None


def _load_text(text: str, format: str | None, documents: list[str] | None) -> InputAnswer:
    stripped = text.lstrip("\ufeff \t\r\n")
    looks_json = stripped.startswith(("{", "["))
    if format == "markers" or (format is None and not looks_json):
        if not stripped:
            raise AnswerFormatError("the answer is empty", where="$", fix="give a JSON answer or marker text")
        _check_text(text, "$")
        parsed = parse_markers(text, documents)
        return _finish(parsed.answer_id, parsed.question, parsed.claims, "markers", documents or [])
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AnswerFormatError(
            f"not valid JSON: {exc.msg}",
            where=f"line {exc.lineno} column {exc.colno}",
            fix="fix the JSON, or use --format markers for plain text with [n] markers",
        ) from None
    except RecursionError:
        raise AnswerFormatError("JSON nested too deeply", where="$") from None
    return _load_data(data, format, documents)


def _load_data(data: Any, format: str | None, documents: list[str] | None) -> InputAnswer:
    if format == "markers":
        raise AnswerFormatError(
            "format 'markers' expects plain text, got JSON data", where="--format",
            fix="omit --format or choose native, cairn or anthropic",
        )
    found = detect_format(data)
    chosen = format or found
    if chosen == "anthropic":
        return _load_anthropic(data, documents)
    return _load_native(data, chosen, documents)


# --------------------------------------------------------------------------------------------
# Field checks (each raises AnswerFormatError naming the JSON path)
# --------------------------------------------------------------------------------------------


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _check_text(value: str, where: str) -> str:
    """Reject lone surrogates (they cannot be stored or hashed as UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise AnswerFormatError(
            f"contains a lone surrogate U+{ord(value[exc.start]):04X} at code point {exc.start}",
            where=where,
            fix="fix the text encoding of the producer",
        ) from None
    return value


def _string(value: Any, where: str, *, optional: bool = False, non_empty: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a non-empty string" if non_empty else "a string"
        raise AnswerFormatError(f"expected {kind}, found {_json_type(value)}", where=where)
    _check_text(value, where)
    if non_empty and not value.strip():
        raise AnswerFormatError("expected a non-empty string", where=where)
    return value


def _index(value: Any, where: str, *, optional: bool = False, minimum: int = 0) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        what = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise AnswerFormatError(f"expected {what}, found {_short(value)}", where=where)
    return value


def _short(value: Any) -> str:
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    return _json_type(value)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AnswerFormatError(f"expected an object, found {_json_type(value)}", where=where)
    return value


def _array(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise AnswerFormatError(f"expected an array, found {_json_type(value)}", where=where)
    return value


def _optional_array(value: Any, where: str) -> list[Any]:
    return [] if value is None else _array(value, where)


def _check_keys(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(str(key) for key in obj if key not in allowed)
    if unknown:
        raise AnswerFormatError(
            f"unknown field {unknown[0]!r}",
            where=where,
            fix=f"allowed fields: {', '.join(sorted(allowed))}",
        )


def _check_span(start: int | None, end: int | None, where: str) -> None:
    if (start is None) != (end is None):
        missing = "end" if end is None else "start"
        raise AnswerFormatError(f"{missing} is missing", where=f"{where}.{missing}",
                                fix="give both start and end, or neither")
    if start is not None and end is not None and start > end:
        raise AnswerFormatError(f"start {start} is after end {end}", where=where,
                                fix="offsets are code points, end exclusive")


def _check_documents(value: Any, where: str) -> list[str]:
    keys: list[str] = []
    for i, item in enumerate(_array(value, where)):
        if isinstance(item, Mapping):
            item = item.get("key")
            keys.append(_string(item, f"{where}[{i}].key") or "")
        else:
            keys.append(_string(item, f"{where}[{i}]") or "")
    return keys


# --------------------------------------------------------------------------------------------
# native / cairn
# --------------------------------------------------------------------------------------------


def _load_native(data: Any, format: str, documents: list[str] | None) -> InputAnswer:
    top = _mapping(data, "$")
    if "claims" not in top:
        raise AnswerFormatError("missing required field 'claims'", where="claims",
                                fix="an answer needs a 'claims' list (it may be empty)")
    raw_claims = _array(top["claims"], "claims")
    question = _string(top.get("question"), "question", optional=True, non_empty=False)
    docs = documents if documents is not None else (
        _check_documents(top["documents"], "documents") if top.get("documents") is not None else []
    )
    claims = tuple(_native_claim(raw, i, len(raw_claims)) for i, raw in enumerate(raw_claims))
    answer_id = _string(top.get("answer_id"), "answer_id", optional=True)
    return _finish(answer_id, question, claims, format, docs)


def _native_claim(raw: Any, i: int, count: int) -> InputClaim:
    where = f"claims[{i}]"
    obj = _mapping(raw, where)
    _check_keys(obj, _CLAIM_KEYS, where)
    if "text" not in obj:
        raise AnswerFormatError("missing required field 'text'", where=f"{where}.text")
    text = _string(obj["text"], f"{where}.text") or ""
    citations = tuple(
        _native_citation(c, f"{where}.citations[{j}]")
        for j, c in enumerate(_optional_array(obj.get("citations"), f"{where}.citations"))
    )
    claim_type = _string(obj.get("type"), f"{where}.type", optional=True)
    if claim_type is not None and claim_type not in CLAIM_TYPES:
        raise AnswerFormatError(f"unknown claim type {claim_type!r}", where=f"{where}.type",
                                fix=f"use one of {', '.join(CLAIM_TYPES)}")
    premises: list[int] = []
    for j, p in enumerate(_optional_array(obj.get("premises"), f"{where}.premises")):
        index = _index(p, f"{where}.premises[{j}]") or 0
        if index >= count or index == i:
            raise AnswerFormatError(
                f"premise {index} is not another claim of this answer ({count} claims)",
                where=f"{where}.premises[{j}]", fix="premises are 0-based indexes of other claims",
            )
        premises.append(index)
    supported = obj.get("supported")
    if supported is not None and not isinstance(supported, bool):
        raise AnswerFormatError(f"expected a boolean, found {_json_type(supported)}", where=f"{where}.supported")
    score = obj.get("support_score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise AnswerFormatError(f"expected a number, found {_json_type(score)}", where=f"{where}.support_score")
    return InputClaim(text=text.strip(), citations=citations, claim_type=claim_type, premises=tuple(premises))


def _native_citation(raw: Any, where: str) -> CitationRef:
    obj = _mapping(raw, where)
    has_source, has_chunk = obj.get("source") is not None, obj.get("chunk_id") is not None
    if has_source == has_chunk:
        raise AnswerFormatError(
            "expected exactly one of 'source' and 'chunk_id'" if has_source else "missing 'source' or 'chunk_id'",
            where=where,
            fix="cite a source key (offsets into the document) or a chunk_id (offsets into the unit)",
        )
    _check_keys(obj, _SOURCE_CITATION_KEYS if has_source else _CHUNK_CITATION_KEYS, where)
    start = _index(obj.get("start"), f"{where}.start", optional=True)
    end = _index(obj.get("end"), f"{where}.end", optional=True)
    _check_span(start, end, where)
    page = _index(obj.get("page"), f"{where}.page", optional=True, minimum=1)
    page_end = _index(obj.get("page_end"), f"{where}.page_end", optional=True, minimum=1)
    if page_end is not None and (page is None or page_end < page):
        raise AnswerFormatError("page_end needs a page at or before it", where=f"{where}.page_end")
    return CitationRef(
        source=_string(obj.get("source"), f"{where}.source", optional=True),
        revision=_string(obj.get("revision"), f"{where}.revision", optional=True),
        chunk_id=_string(obj.get("chunk_id"), f"{where}.chunk_id", optional=True),
        start=start,
        end=end,
        quote=_string(obj.get("quote"), f"{where}.quote", optional=True),
        role=_string(obj.get("role"), f"{where}.role", optional=True),
        page=page,
        page_end=page_end,
    )


def _finish(
    answer_id: str | None, question: str | None, claims: tuple[InputClaim, ...], format: str, docs: list[str]
) -> InputAnswer:
    answer = InputAnswer(answer_id=answer_id or "", question=question, claims=claims, format=format,
                         documents=tuple(docs))
    if not answer_id:
        content = answer_to_dict(answer)
        del content["answer_id"]
        digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        answer = InputAnswer(answer_id="a-" + digest.hexdigest()[:12], question=question, claims=claims,
                             format=format, documents=tuple(docs))
    return answer


def _claim_to_dict(claim: InputClaim) -> dict[str, Any]:
    out: dict[str, Any] = {"text": claim.text, "citations": [_citation_to_dict(c) for c in claim.citations]}
    if claim.claim_type is not None:
        out["type"] = claim.claim_type
    if claim.premises:
        out["premises"] = list(claim.premises)
    return out


def _citation_to_dict(citation: CitationRef) -> dict[str, Any]:
    fields = ("source", "revision", "chunk_id", "start", "end", "quote", "role", "page", "page_end")
    return {name: getattr(citation, name) for name in fields if getattr(citation, name) is not None}


# --------------------------------------------------------------------------------------------
# anthropic
# --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+")


def _is_sentence(text: str) -> bool:
    """True when an uncited text block holds a whole sentence: three words and an end mark."""
    return bool(re.search(r"\w[^\w\s]*[.!?]", text)) and len(_WORD.findall(text, 0, 10_000)) >= 3


def _load_anthropic(data: Any, documents: list[str] | None) -> InputAnswer:
    top = _mapping(data, "$")
    kind = top.get("type", "message")
    if kind != "message":
        raise AnswerFormatError(f"expected type 'message', found {_short(kind) if not isinstance(kind, str) else repr(kind)}",
                                where="type", fix="give the Messages API response object")
    if "content" not in top:
        raise AnswerFormatError("missing required field 'content'", where="content",
                                fix="give the Messages API response object")
    blocks = _array(top["content"], "content")
    docs = documents if documents is not None else (
        _check_documents(top["documents"], "documents") if top.get("documents") is not None else []
    )
    claims: list[InputClaim] = []
    for i, raw in enumerate(blocks):
        where = f"content[{i}]"
        block = _mapping(raw, where)
        if not isinstance(block.get("type"), str):
            raise AnswerFormatError("expected a content block with a string 'type'", where=f"{where}.type")
        if block["type"] != "text":
            continue
        text = _string(block.get("text"), f"{where}.text", non_empty=False) or ""
        raw_citations = block.get("citations")
        cites = _optional_array(raw_citations, f"{where}.citations")
        if not cites:
            if _is_sentence(text):
                claims.append(InputClaim(text=text.strip()))
            continue
        if not text.strip():
            raise AnswerFormatError("a cited text block has no text", where=f"{where}.text")
        refs = tuple(_anthropic_citation(c, f"{where}.citations[{j}]", docs) for j, c in enumerate(cites))
        claims.append(InputClaim(text=text.strip(), citations=refs))
    answer_id = _string(top.get("id"), "id", optional=True)
    question = _string(top.get("question"), "question", optional=True, non_empty=False)
    return _finish(answer_id, question, tuple(claims), "anthropic", docs)


def _document_key(obj: Mapping[str, Any], where: str, docs: list[str]) -> str:
    index = _index(obj.get("document_index"), f"{where}.document_index") or 0
    if index >= len(docs):
        raise AnswerFormatError(
            f"document_index {index} has no source key ({len(docs)} documents given)",
            where=f"{where}.document_index",
            fix="list the source keys in request order: a top-level 'documents' list or --documents",
        )
    return docs[index]


def _anthropic_citation(raw: Any, where: str, docs: list[str]) -> CitationRef:
    obj = _mapping(raw, where)
    kind = obj.get("type")
    quote = _string(obj.get("cited_text"), f"{where}.cited_text", optional=True, non_empty=False)
    if kind == "char_location":
        start = _index(obj.get("start_char_index"), f"{where}.start_char_index")
        end = _index(obj.get("end_char_index"), f"{where}.end_char_index")
        _check_span(start, end, where)
        return CitationRef(source=_document_key(obj, where, docs), start=start, end=end, quote=quote)
    if kind == "page_location":
        first = _index(obj.get("start_page_number"), f"{where}.start_page_number", minimum=1) or 1
        stop = _index(obj.get("end_page_number"), f"{where}.end_page_number", minimum=1) or 1
        if stop < first:
            raise AnswerFormatError(f"end_page_number {stop} is before start_page_number {first}", where=where)
        return CitationRef(source=_document_key(obj, where, docs), page=first, page_end=max(first, stop - 1),
                           quote=quote)
    if kind == "content_block_location":
        first = _index(obj.get("start_block_index"), f"{where}.start_block_index")
        stop = _index(obj.get("end_block_index"), f"{where}.end_block_index")
        _check_span(first, stop, where)
        return CitationRef(source=_document_key(obj, where, docs), quote=quote)
    if kind == "search_result_location":
        return CitationRef(source=_string(obj.get("source"), f"{where}.source"), quote=quote)
    if kind == "web_search_result_location":
        return CitationRef(source=_string(obj.get("url"), f"{where}.url"), quote=quote)
    raise AnswerFormatError(
        f"unknown citation type {kind!r}" if isinstance(kind, str) else "citation has no 'type'",
        where=f"{where}.type",
        fix="expected char_location, page_location, content_block_location, search_result_location "
            "or web_search_result_location",
    )
