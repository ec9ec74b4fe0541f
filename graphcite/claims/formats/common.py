"""What every answer reader shares: limits, JSON reading, field checks that name the JSON path, and
the one canonical form (:func:`answer_to_dict`) an answer is hashed and stored in.

Every error is an :class:`~graphcite.errors.AnswerFormatError` (coded E2xx) whose ``where`` is the
JSON path (``claims[3].citations[0].quote``) or ``line N``. Only an answer that cannot be read is
refused: an offset or page that is negative, reversed, not an integer or beyond 2^63 - 1 gives its
citation a ``defect`` instead, which verification reports as an invalid citation (GC105).
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphcite.errors import AnswerFormatError, make_error
from graphcite.models import CitationRef, InputAnswer, InputClaim, Passage

__all__ = [
    "CITATION_FIELDS",
    "DEFAULT_LIMITS",
    "JSON_LINES_FIX",
    "MAX_OFFSET",
    "NO_LIMITS",
    "SPACY_MAX_LENGTH",
    "AnswerLimits",
    "LongNumber",
    "ReadOptions",
    "answer_to_dict",
    "array",
    "asserts_nothing",
    "check_documents",
    "check_keys",
    "check_text",
    "finish",
    "index_value",
    "is_sentence",
    "join_defects",
    "json_type",
    "locator",
    "mapping",
    "optional_array",
    "parse_json",
    "read_answer_file",
    "short",
    "span",
    "split_not_claims",
    "string",
]

MAX_OFFSET = 2**63 - 1  # the largest offset or page a 64-bit column holds; beyond it a citation is invalid
SPACY_MAX_LENGTH = 1_000_000  # spaCy's default nlp.max_length (its error E088): no claim may be longer
LONG_INT_DIGITS = 40  # JSON integers longer than this are kept as digits, never converted


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


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """What a reader is told besides the data: the source keys of ``document_index`` / ``[n]``, the
    limits, and the source map (a producer's file id, file name, URL or title -> source key)."""

    documents: list[str] | None = None
    limits: AnswerLimits = DEFAULT_LIMITS
    source_map: Mapping[str, str] | None = None

    def source_for(self, *names: Any) -> str | None:
        """The source key for the first name the map knows, else the first usable name as given.

        graphcite then resolves a name that is not a source key by file name, path suffix, front-matter
        ``url`` or title (see :mod:`graphcite.verify.resolve`)."""
        usable = [n.strip() for n in names if isinstance(n, str) and n.strip()]
        if self.source_map:
            for name in usable:
                if name in self.source_map:
                    return self.source_map[name]
        return usable[0] if usable else None


class LongNumber:
    """A JSON integer too long to convert (Python refuses over 4,300 digits); kept as its digit count."""

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<{self.digits}-digit number>"


def parse_int(text: str) -> int | LongNumber:
    return int(text) if len(text) <= LONG_INT_DIGITS else LongNumber(text)


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


#: what to do with a file of several answers, one JSON object a line, where one answer is read
JSON_LINES_FIX = ("this is JSON Lines, one object a line: give one answer per file, or check a data set of samples "
                  "with `graphcite eval-rag FILE`")


def parse_json(text: str | bytes, where: str = "$") -> Any:
    """``json.loads`` that never raises anything but an AnswerFormatError (E206, E207).

    Integers longer than 40 digits stay unconverted (they are out of every range anyway), so a
    5,000-digit number is an invalid offset, not a crash.
    """
    try:
        return json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if where == "$" else f"{where} column {exc.colno}"
        lines = exc.msg == "Extra data" and exc.colno == 1 and exc.lineno > 1  # a second object opens a line
        raise make_error("E206", where=at, detail=exc.msg, fix=JSON_LINES_FIX if lines else None) from None
    except RecursionError:
        raise make_error("E207", where=where) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise make_error("E206", where=where, detail=str(exc).splitlines()[0][:200]) from None


def answer_to_dict(answer: InputAnswer) -> dict[str, Any]:
    """The canonical native dict of an answer: fixed key order, absent fields left out.

    Loading this dict with :func:`load_answer` gives back the same claims, so it is what gets
    hashed and stored whatever format the answer arrived in. A citation's ``defect`` is kept, so
    a stored answer reports the same invalid citation as the file it came from.
    """
    out: dict[str, Any] = {"answer_id": answer.answer_id, "question": answer.question}
    if answer.documents:
        out["documents"] = list(answer.documents)
    out["claims"] = [claim_to_dict(claim) for claim in answer.claims]
    if answer.not_claims:
        out["not_claims"] = list(answer.not_claims)
    if answer.passages:
        from graphcite.claims.formats.passages import passage_to_dict

        out["passages"] = [passage_to_dict(p) for p in answer.passages]
    return out


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | LongNumber):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def check_text(value: str, where: str) -> str:
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


def string(value: Any, where: str, *, optional: bool = False, non_empty: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a non-empty string" if non_empty else "a string"
        raise AnswerFormatError(f"expected {kind}, found {json_type(value)}", where=where)
    check_text(value, where)
    if non_empty and not value.strip():
        raise AnswerFormatError("expected a non-empty string", where=where)
    return value


def index_value(value: Any, where: str, *, optional: bool = False, minimum: int = 0) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or value > MAX_OFFSET:
        what = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise AnswerFormatError(f"expected {what}, found {short(value)}", where=where)
    return value


def short(value: Any) -> str:
    if isinstance(value, LongNumber):
        return f"a {value.digits:,}-digit number"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    return json_type(value)


def locator(value: Any, name: str, *, minimum: int = 0, required: bool = False) -> tuple[int | None, str | None]:
    """An offset or page, or the reason it is unusable: ``(value, None)`` or ``(None, defect)``.

    A bad locator does not make the answer unreadable: it makes its citation invalid (GC105).
    """
    if value is None:
        return None, (f"{name} is missing" if required else None)
    if isinstance(value, LongNumber):
        return None, f"{name} ({short(value)}) is out of range (at most 2^63 - 1)"
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"{name} {short(value)} is not an integer"
    shown = short(value) if value.bit_length() <= 128 else f"({short(value)})"
    if value < minimum:
        return None, f"{name} {shown} is " + ("negative" if minimum == 0 else f"below {minimum}")
    if value > MAX_OFFSET:
        return None, f"{name} {shown} is out of range (at most 2^63 - 1)"
    return value, None


def span(start: Any, end: Any, names: tuple[str, str], *, required: bool = False,
          minimum: int = 0) -> tuple[int | None, int | None, str | None]:
    """A (start, end) pair read with :func:`locator`; a half or reversed pair is a defect too."""
    first, problem_a = locator(start, names[0], minimum=minimum, required=required)
    last, problem_b = locator(end, names[1], minimum=minimum, required=required)
    problems = [p for p in (problem_a, problem_b) if p]
    if not problems and (first is None) != (last is None):
        missing = names[1] if last is None else names[0]
        problems.append(f"{missing} is missing (give both {names[0]} and {names[1]}, or neither)")
    if not problems and first is not None and last is not None and first > last:
        problems.append(f"{names[0]} {first} is after {names[1]} {last}")
    if problems:
        return None, None, "; ".join(problems)
    return first, last, None


def join_defects(*defects: str | None) -> str | None:
    found = [d for d in defects if d]
    return "; ".join(found) if found else None


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AnswerFormatError(f"expected an object, found {json_type(value)}", where=where)
    return value


def array(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise AnswerFormatError(f"expected an array, found {json_type(value)}", where=where)
    return value


def optional_array(value: Any, where: str) -> list[Any]:
    return [] if value is None else array(value, where)


def check_keys(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(str(key) for key in obj if key not in allowed)
    if unknown:
        raise AnswerFormatError(
            f"unknown field {unknown[0]!r}",
            where=where,
            fix=f"allowed fields: {', '.join(sorted(allowed - {'defect'}))}",
        )


def check_documents(value: Any, where: str) -> list[str]:
    keys: list[str] = []
    for i, item in enumerate(array(value, where)):
        if isinstance(item, Mapping):
            item = item.get("key")
            keys.append(string(item, f"{where}[{i}].key") or "")
        else:
            keys.append(string(item, f"{where}[{i}]") or "")
    return keys


def finish(
    answer_id: str | None, question: str | None, claims: tuple[InputClaim, ...], format: str, docs: list[str],
    passages: tuple[Passage, ...] = (), not_claims: tuple[str, ...] = (),
) -> InputAnswer:
    """The InputAnswer a reader returns: each citation learns its claim's text (a citation without a
    span is located for it), sentences that assert nothing move to ``not_claims``
    (:func:`split_not_claims`; not in native answers, whose producer declared each claim), and an answer without an id gets one from a hash of its content."""
    if format not in _DECLARED_CLAIMS:
        claims, not_claims = split_not_claims(claims, not_claims)
    claims = tuple(replace(c, citations=tuple(replace(r, claim=c.text) for r in c.citations)) if c.citations else c
                   for c in claims)
    answer = InputAnswer(answer_id=answer_id or "", question=question, claims=claims, format=format,
                         documents=tuple(docs), passages=tuple(passages), not_claims=not_claims)
    if not answer_id:
        content = answer_to_dict(answer)
        del content["answer_id"]
        digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        answer = replace(answer, answer_id="a-" + digest.hexdigest()[:12])
    return answer


def claim_to_dict(claim: InputClaim) -> dict[str, Any]:
    out: dict[str, Any] = {"text": claim.text, "citations": [citation_to_dict(c) for c in claim.citations]}
    if claim.claim_type is not None:
        out["type"] = claim.claim_type
    if claim.premises:
        out["premises"] = list(claim.premises)
    return out


CITATION_FIELDS = ("source", "revision", "chunk_id", "start", "end", "quote", "role", "page", "page_end", "defect",
                   "passage")


def citation_to_dict(citation: CitationRef) -> dict[str, Any]:
    return {name: getattr(citation, name) for name in CITATION_FIELDS if getattr(citation, name) is not None}


_WORD = re.compile(r"[^\W\d_]+")


def is_sentence(text: str) -> bool:
    """True when an uncited text block holds a whole sentence: three words and an end mark."""
    return bool(re.search(r"\w[^\w\s]*[.!?]", text)) and len(_WORD.findall(text, 0, 10_000)) >= 3




_DECLARED_CLAIMS = frozenset({"native", "cairn"})
# a sentence without one of these words (or a question mark) is not read for being a non-assertion: the
# check parses the sentence, and most sentences of an answer are plainly about the world
@lru_cache(maxsize=1)
def _speaker() -> re.Pattern[str]:
    from graphcite.language.words import word_list

    words = sorted(word_list("speaker_words"), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def asserts_nothing(text: str) -> bool:
    """Whether a sentence of an answer asserts nothing a source could support: a question back, or the
    speaker talking about the answer ("Here is what I found.", "I hope this helps.")."""
    stripped = text.strip()
    if stripped.endswith("?"):
        return True
    if not _speaker().search(stripped):
        return False
    from graphcite.language.frames import asserts_something

    return not asserts_something(stripped)


def split_not_claims(claims: tuple[InputClaim, ...], known: tuple[str, ...] = ()
                     ) -> tuple[tuple[InputClaim, ...], tuple[str, ...]]:
    """(claims, sentences that assert nothing): a claim that is another's premise stays a claim, and
    premises are renumbered so they still point at the same claims."""
    premises = {p for c in claims for p in c.premises}
    dropped = {i for i, c in enumerate(claims) if i not in premises and asserts_nothing(c.text)}
    if not dropped:
        return claims, tuple(known)
    new_index = {}
    for i in range(len(claims)):
        if i not in dropped:
            new_index[i] = len(new_index)
    kept = tuple(replace(c, premises=tuple(new_index[p] for p in c.premises)) if c.premises else c
                 for i, c in enumerate(claims) if i not in dropped)
    return kept, (*known, *(claims[i].text for i in sorted(dropped)))
