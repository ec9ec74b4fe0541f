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

Every error is an :class:`~graphcite.errors.AnswerFormatError` (coded E2xx) whose ``where`` is the
JSON path (``claims[3].citations[0].quote``) or ``line N`` for marker files, and whose cause says what
was expected. Only an answer that cannot be read is refused: an offset or page that is negative,
reversed, not an integer or beyond 2^63 - 1 does not refuse the answer but gives its citation a
``defect``, which verification reports as an invalid citation (GC105). :class:`AnswerLimits` bounds
the bytes read, the number of claims and the length of a claim (never above spaCy's 1,000,000).

A ``str`` given to :func:`load_answer` is a path unless it is plainly content (several lines, or
JSON); :func:`load_answer_text` reads text explicitly, as ``--text`` and ``-`` (stdin) do.
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from graphcite.claims.markers import parse_markers
from graphcite.errors import AnswerFormatError, make_error
from graphcite.models import CLAIM_TYPES, CitationRef, InputAnswer, InputClaim

__all__ = ["DEFAULT_LIMITS", "FORMATS", "MAX_OFFSET", "NO_LIMITS", "SPACY_MAX_LENGTH", "AnswerLimits",
           "answer_to_dict", "detect_format", "load_answer", "load_answer_text", "parse_json", "read_answer_file"]

FORMATS = ("native", "cairn", "anthropic", "markers")
MAX_OFFSET = 2**63 - 1  # the largest offset or page a 64-bit column holds; beyond it a citation is invalid
SPACY_MAX_LENGTH = 1_000_000  # spaCy's default nlp.max_length (its error E088): no claim may be longer

_CAIRN_FIELDS = frozenset({"supported", "support_score"})
_CLAIM_KEYS = frozenset({"text", "citations", "type", "premises", "id", *_CAIRN_FIELDS})
# each kind also tolerates the other kind's key set to null; "defect" is written by answer_to_dict
_SOURCE_CITATION_KEYS = frozenset({"source", "revision", "start", "end", "quote", "role", "page", "page_end",
                                   "chunk_id", "defect"})
_CHUNK_CITATION_KEYS = frozenset({"chunk_id", "start", "end", "quote", "role", "page", "page_end", "source",
                                  "defect"})
_LONG_INT_DIGITS = 40  # JSON integers longer than this are kept as digits, never converted


@dataclass(frozen=True, slots=True)
class AnswerLimits:
    """Bounds on what one answer may cost: bytes read, claims, characters per claim (None: no bound).

    The defaults keep a check within seconds and a few hundred MB; the CLI exposes each one
    (``--max-answer-mb``, ``--max-claims``, ``--max-claim-chars``).
    """

    max_bytes: int | None = 20_000_000
    max_claims: int | None = 10_000
    max_claim_chars: int | None = 10_000

    def check_claims(self, count: int, where: str = "claims") -> None:
        """Refuse an answer with more claims than allowed (E204)."""
        if self.max_claims is not None and count > self.max_claims:
            raise make_error("E204", where=where, count=count, limit=self.max_claims)

    def check_claim_text(self, text: str, where: str) -> None:
        """Refuse a claim longer than allowed (E205); never longer than spaCy can read."""
        limit = min(self.max_claim_chars or SPACY_MAX_LENGTH, SPACY_MAX_LENGTH)
        if len(text) > limit:
            raise make_error("E205", where=where, length=len(text), limit=limit)

    def check_bytes(self, size: int, where: str) -> None:
        """Refuse an answer larger than allowed (E203)."""
        if self.max_bytes is not None and size > self.max_bytes:
            raise make_error("E203", where=where, size=size, limit=self.max_bytes)


DEFAULT_LIMITS = AnswerLimits()
NO_LIMITS = AnswerLimits(max_bytes=None, max_claims=None, max_claim_chars=SPACY_MAX_LENGTH)


class _LongNumber:
    """A JSON integer too long to convert (Python refuses over 4,300 digits); kept as its digit count."""

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<{self.digits}-digit number>"


def _parse_int(text: str) -> int | _LongNumber:
    return int(text) if len(text) <= _LONG_INT_DIGITS else _LongNumber(text)


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def load_answer(
    source: str | Path | Mapping[str, Any],
    *,
    format: str | None = None,
    documents: list[str] | None = None,
    limits: AnswerLimits = DEFAULT_LIMITS,
) -> InputAnswer:
    """Read an answer from a file path, JSON text or a parsed dict into an InputAnswer.

    A ``str`` is JSON or marker text when it spans several lines or starts with ``{`` or ``[``;
    any other ``str`` is a file path, so a mistyped name is "not found", never an answer whose text is
    the typo. Use :func:`load_answer_text` for one-line marker text. ``format`` forces one of
    :data:`FORMATS`; ``documents`` maps Anthropic ``document_index`` and bare ``[n]`` markers to
    source keys; ``limits`` bounds bytes, claims and claim length.
    """
    format, documents = _check_options(format, documents)
    if isinstance(source, Mapping):
        return _load_data(dict(source), format, documents, limits)
    if isinstance(source, Path):
        return _load_text(read_answer_file(source, limits), format, documents, limits)
    if isinstance(source, str):
        if "\n" in source or "\r" in source or source.lstrip("\ufeff \t").startswith(("{", "[")):
            return load_answer_text(source, format=format, documents=documents, limits=limits)
        return _load_text(read_answer_file(Path(source), limits), format, documents, limits)
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
) -> InputAnswer:
    """Read an answer given as text (JSON or markers): the explicit way, as ``--text`` and stdin do."""
    format, documents = _check_options(format, documents)
    if not isinstance(text, str):
        raise AnswerFormatError(f"expected the answer's text, found {type(text).__name__}", where=where)
    if limits.max_bytes is not None and len(text) * 4 > limits.max_bytes:
        limits.check_bytes(len(text.encode("utf-8", "surrogatepass")), where)
    return _load_text(text, format, documents, limits)


def read_answer_file(path: Path, limits: AnswerLimits = DEFAULT_LIMITS) -> str:
    """The UTF-8 text of an answer file: a regular file within the byte limit, never a folder or device."""
    where = str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise make_error("E202", where=where, detail="file not found", fix="check the path") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or exc.__class__.__name__
        raise make_error("E202", where=where[:300], detail=reason.lower()) from None
    if stat.S_ISDIR(info.st_mode):
        raise make_error("E202", where=where, detail="it is a directory, not an answer file")
    if not stat.S_ISREG(info.st_mode):
        raise make_error("E202", where=where, detail="not a regular file (a device, FIFO or socket)")
    limits.check_bytes(info.st_size, where)
    try:
        with path.open("rb") as handle:
            data = handle.read(limits.max_bytes + 1 if limits.max_bytes is not None else -1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or exc.__class__.__name__
        raise make_error("E202", where=where, detail=reason.lower()) from None
    limits.check_bytes(len(data), where)  # the file grew after stat
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise make_error("E202", where=where, detail=f"not UTF-8 text (bad byte at offset {exc.start})",
                         fix="save the answer as UTF-8") from None


def parse_json(text: str | bytes, where: str = "$") -> Any:
    """``json.loads`` that never raises anything but an AnswerFormatError (E206, E207).

    Integers longer than 40 digits stay unconverted (they are out of every range anyway), so a
    5,000-digit number is an invalid offset, not a crash.
    """
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if where == "$" else f"{where} column {exc.colno}"
        raise make_error("E206", where=at, detail=exc.msg) from None
    except RecursionError:
        raise make_error("E207", where=where) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise make_error("E206", where=where, detail=str(exc).splitlines()[0][:200]) from None


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
    hashed and stored whatever format the answer arrived in. A citation's ``defect`` is kept, so
    a stored answer reports the same invalid citation as the file it came from.
    """
    out: dict[str, Any] = {"answer_id": answer.answer_id, "question": answer.question}
    if answer.documents:
        out["documents"] = list(answer.documents)
    out["claims"] = [_claim_to_dict(claim) for claim in answer.claims]
    return out


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def _check_options(format: str | None, documents: list[str] | None) -> tuple[str | None, list[str] | None]:
    if format is not None and format not in FORMATS:
        raise AnswerFormatError(f"unknown answer format {format!r}", where="--format",
                                fix=f"use one of {', '.join(FORMATS)}", code="E105")
    if documents is not None:
        documents = _check_documents(documents, "documents (argument)")
    return format, documents


def _load_text(text: str, format: str | None, documents: list[str] | None, limits: AnswerLimits) -> InputAnswer:
    stripped = text.lstrip("\ufeff \t\r\n")
    looks_json = stripped.startswith(("{", "["))
    if format == "markers" or (format is None and not looks_json):
        if not stripped:
            raise make_error("E208", where="$")
        _check_text(text, "$")
        parsed = parse_markers(text, documents, max_claim_chars=min(limits.max_claim_chars or SPACY_MAX_LENGTH,
                                                                    SPACY_MAX_LENGTH))
        limits.check_claims(len(parsed.claims), where="$")
        return _finish(parsed.answer_id, parsed.question, parsed.claims, "markers", documents or [])
    return _load_data(parse_json(text), format, documents, limits)


def _load_data(data: Any, format: str | None, documents: list[str] | None, limits: AnswerLimits) -> InputAnswer:
    if format == "markers":
        raise AnswerFormatError(
            "format 'markers' expects plain text, got JSON data", where="--format",
            fix="omit --format or choose native, cairn or anthropic",
        )
    found = detect_format(data)
    chosen = format or found
    if chosen == "anthropic":
        return _load_anthropic(data, documents, limits)
    return _load_native(data, chosen, documents, limits)


# --------------------------------------------------------------------------------------------
# Field checks (each raises AnswerFormatError naming the JSON path)
# --------------------------------------------------------------------------------------------


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | _LongNumber):
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
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or value > MAX_OFFSET:
        what = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise AnswerFormatError(f"expected {what}, found {_short(value)}", where=where)
    return value


def _short(value: Any) -> str:
    if isinstance(value, _LongNumber):
        return f"a {value.digits:,}-digit number"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    return _json_type(value)


def _locator(value: Any, name: str, *, minimum: int = 0, required: bool = False) -> tuple[int | None, str | None]:
    """An offset or page, or the reason it is unusable: ``(value, None)`` or ``(None, defect)``.

    A bad locator does not make the answer unreadable: it makes its citation invalid (GC105).
    """
    if value is None:
        return None, (f"{name} is missing" if required else None)
    if isinstance(value, _LongNumber):
        return None, f"{name} ({_short(value)}) is out of range (at most 2^63 - 1)"
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"{name} {_short(value)} is not an integer"
    shown = _short(value) if value.bit_length() <= 128 else f"({_short(value)})"
    if value < minimum:
        return None, f"{name} {shown} is " + ("negative" if minimum == 0 else f"below {minimum}")
    if value > MAX_OFFSET:
        return None, f"{name} {shown} is out of range (at most 2^63 - 1)"
    return value, None


def _span(start: Any, end: Any, names: tuple[str, str], *, required: bool = False,
          minimum: int = 0) -> tuple[int | None, int | None, str | None]:
    """A (start, end) pair read with :func:`_locator`; a half or reversed pair is a defect too."""
    first, problem_a = _locator(start, names[0], minimum=minimum, required=required)
    last, problem_b = _locator(end, names[1], minimum=minimum, required=required)
    problems = [p for p in (problem_a, problem_b) if p]
    if not problems and (first is None) != (last is None):
        missing = names[1] if last is None else names[0]
        problems.append(f"{missing} is missing (give both {names[0]} and {names[1]}, or neither)")
    if not problems and first is not None and last is not None and first > last:
        problems.append(f"{names[0]} {first} is after {names[1]} {last}")
    if problems:
        return None, None, "; ".join(problems)
    return first, last, None


def _join_defects(*defects: str | None) -> str | None:
    found = [d for d in defects if d]
    return "; ".join(found) if found else None


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
            fix=f"allowed fields: {', '.join(sorted(allowed - {'defect'}))}",
        )


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


def _load_native(data: Any, format: str, documents: list[str] | None, limits: AnswerLimits) -> InputAnswer:
    top = _mapping(data, "$")
    if "claims" not in top:
        raise AnswerFormatError("missing required field 'claims'", where="claims",
                                fix="an answer needs a 'claims' list (it may be empty)")
    raw_claims = _array(top["claims"], "claims")
    limits.check_claims(len(raw_claims))
    question = _string(top.get("question"), "question", optional=True, non_empty=False)
    docs = documents if documents is not None else (
        _check_documents(top["documents"], "documents") if top.get("documents") is not None else []
    )
    claims = tuple(_native_claim(raw, i, len(raw_claims), limits) for i, raw in enumerate(raw_claims))
    answer_id = _string(top.get("answer_id"), "answer_id", optional=True)
    return _finish(answer_id, question, claims, format, docs)


def _native_claim(raw: Any, i: int, count: int, limits: AnswerLimits) -> InputClaim:
    where = f"claims[{i}]"
    obj = _mapping(raw, where)
    _check_keys(obj, _CLAIM_KEYS, where)
    if "text" not in obj:
        raise AnswerFormatError("missing required field 'text'", where=f"{where}.text")
    text = (_string(obj["text"], f"{where}.text") or "").strip()
    limits.check_claim_text(text, f"{where}.text")
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
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float | _LongNumber)):
        raise AnswerFormatError(f"expected a number, found {_json_type(score)}", where=f"{where}.support_score")
    return InputClaim(text=text, citations=citations, claim_type=claim_type, premises=tuple(premises))


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
    start, end, span_defect = _span(obj.get("start"), obj.get("end"), ("start", "end"))
    page, page_defect = _locator(obj.get("page"), "page", minimum=1)
    page_end, page_end_defect = _locator(obj.get("page_end"), "page_end", minimum=1)
    if page_end is not None and (page is None or page_end < page) and not page_defect:
        page_end_defect = f"page_end {page_end} needs a page at or before it"
    if page_defect or page_end_defect:
        page = page_end = None
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
        defect=_join_defects(_string(obj.get("defect"), f"{where}.defect", optional=True), span_defect,
                             page_defect, page_end_defect),
    )


def _finish(
    answer_id: str | None, question: str | None, claims: tuple[InputClaim, ...], format: str, docs: list[str]
) -> InputAnswer:
    # each citation learns the text of its claim: a citation without a span is located for it
    claims = tuple(replace(c, citations=tuple(replace(r, claim=c.text) for r in c.citations)) if c.citations else c
                   for c in claims)
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


_CITATION_FIELDS = ("source", "revision", "chunk_id", "start", "end", "quote", "role", "page", "page_end", "defect")


def _citation_to_dict(citation: CitationRef) -> dict[str, Any]:
    return {name: getattr(citation, name) for name in _CITATION_FIELDS if getattr(citation, name) is not None}


# --------------------------------------------------------------------------------------------
# anthropic
# --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+")


def _is_sentence(text: str) -> bool:
    """True when an uncited text block holds a whole sentence: three words and an end mark."""
    return bool(re.search(r"\w[^\w\s]*[.!?]", text)) and len(_WORD.findall(text, 0, 10_000)) >= 3


def _load_anthropic(data: Any, documents: list[str] | None, limits: AnswerLimits) -> InputAnswer:
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
                limits.check_claim_text(text.strip(), f"{where}.text")
                claims.append(InputClaim(text=text.strip()))
                limits.check_claims(len(claims), where="content")
            continue
        if not text.strip():
            raise AnswerFormatError("a cited text block has no text", where=f"{where}.text")
        limits.check_claim_text(text.strip(), f"{where}.text")
        refs = tuple(_anthropic_citation(c, f"{where}.citations[{j}]", docs) for j, c in enumerate(cites))
        claims.append(InputClaim(text=text.strip(), citations=refs))
        limits.check_claims(len(claims), where="content")
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
        start, end, defect = _span(obj.get("start_char_index"), obj.get("end_char_index"),
                                   ("start_char_index", "end_char_index"), required=True)
        return CitationRef(source=_document_key(obj, where, docs), start=start, end=end, quote=quote, defect=defect)
    if kind == "page_location":
        first, stop, defect = _span(obj.get("start_page_number"), obj.get("end_page_number"),
                                    ("start_page_number", "end_page_number"), required=True, minimum=1)
        if first is None or stop is None:
            return CitationRef(source=_document_key(obj, where, docs), quote=quote, defect=defect)
        return CitationRef(source=_document_key(obj, where, docs), page=first, page_end=max(first, stop - 1),
                           quote=quote)
    if kind == "content_block_location":
        _, _, defect = _span(obj.get("start_block_index"), obj.get("end_block_index"),
                             ("start_block_index", "end_block_index"), required=True)
        return CitationRef(source=_document_key(obj, where, docs), quote=quote, defect=defect)
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
