"""Document metadata: YAML front matter, ``.meta.yaml`` sidecars, and validation of known keys.

Metadata says what a document is (a decision, a manual), whether it is still in force (status,
effective date) and which documents it derives from or supersedes. Front matter is a leading
``---`` ... ``---`` (or ``...``) YAML block; files that cannot carry front matter (PDF, HTML, code,
plain text) take the same keys from a sidecar ``NAME.meta.yaml``. Errors name the file and the line in it.

Metadata fails closed: a document that tries to declare metadata and gets it wrong (no closing fence, a
blank line before the opening one, ``----`` or TOML's ``+++`` fences, ``visibilty:``, ``visibility:
null``, ``access: restricted``) is refused, never stored as a public document with its "visibility"
line in the body. Other unknown keys are kept, and :func:`metadata_notes` names the nearest known key;
a ``kind`` outside the vocabulary is kept as written and read as a general document.

Both are read with :mod:`graphcite.ingest.safe_yaml`: dates stay text until a key that holds one
(``effective``) validates it, a key written twice is an error (also when two spellings name one
known key), and aliases, nesting and size are capped. When a document and its sidecar disagree on
``visibility``, the more restrictive value wins and the ingest reports both.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from graphcite.errors import IngestError
from graphcite.ingest.files import read_regular_file
from graphcite.ingest.safe_yaml import MAX_YAML_CHARS, YamlProblem, load_yaml
from graphcite.ingest.text import line_number, line_starts
from graphcite.models import KINDS, STATUSES

__all__ = [
    "KNOWN_KEYS",
    "LIST_KEYS",
    "READER_KEYS",
    "VISIBILITIES",
    "load_sidecar",
    "merge_metadata",
    "metadata_json",
    "metadata_notes",
    "nearest_known_key",
    "normalise_metadata",
    "refuse_unread_front_matter",
    "split_front_matter",
]

VISIBILITIES = ("public", "restricted")
#: Keys whose value is one source key or a list of them; always normalised to ``list[str]``.
LIST_KEYS = ("supersedes", "superseded_by", "derived_from", "quotes", "implements")
KNOWN_KEYS = ("title", "status", "effective", "visibility", "kind", *LIST_KEYS)
#: Keys a document reader adds to the metadata itself (the PDF reader's page count and page offsets): never
#: an author's misspelling, so no warning names them.
READER_KEYS = ("pages", "page_starts")

_OPENING_FENCE = re.compile(r"---[ \t]*(?:\r\n?|\n)")
# A closing fence is a whole line "---" or "..." right after a line break.
_CLOSING_FENCE = re.compile(r"(?<=[\r\n])(?:---|\.\.\.)[ \t]*(?:\r\n?|\n|\Z)")
_YAML_FIX = "fix the YAML"
_LOOKS_LIKE_DATE = re.compile(r"[+-]?\d{4,}-\d")
# Any line that may have been meant as a front-matter fence: dashes, TOML's pluses, YAML's end mark.
_FENCE_LIKE = re.compile(r"(?:(?<=[\r\n])|^)[ \t]*(-{3,}|\+{3,}|\.{3})[ \t]*(?=\r\n?|\n|\Z)")
# A line that reads as metadata ("key: value", TOML's "key = value"): a front-matter block's first line.
_KEY_LINE = re.compile(r"[ \t]*(?:[?-][ \t]+)?[\"']?[\w<][\w .<-]{0,60}[\"']?[ \t]*(?::(?:[ \t]|$)|=)")
_FIX_FENCES = "start the file with a line '---' and end the metadata with a line '---'"
#: Unknown keys and values that show an attempt to restrict a document: refused, not kept as unknown keys.
_RESTRICTING_WORDS = frozenset({"restricted", "private", "internal", "confidential", "secret", "hidden",
                                "sensitive", "classified"})
_RESTRICTING_KEYS = _RESTRICTING_WORDS | {"access", "audience", "public", "visible", "classification"}


def split_front_matter(text: str, *, where: str) -> tuple[dict[str, Any], int]:
    """(metadata, body offset) of a leading YAML front-matter block; ``({}, 0)`` when there is none.

    A ``---`` first line followed by a line that is not ``key: value`` is not front matter (it may
    be a thematic break). A block that looks like metadata but is not read as such is refused with
    the reason (see the module docstring), so its keys never end up as body text.
    The metadata is returned as written; pass it to :func:`normalise_metadata` to validate it.
    """
    opening = _OPENING_FENCE.match(text)
    if opening is None:
        _refuse_misplaced_fences(text, where=where)
        return {}, 0
    fence = _FENCE_LIKE.search(text, opening.end())
    closing = _CLOSING_FENCE.match(text, fence.start()) if fence is not None else None
    if closing is None:
        if not _starts_with_key(text, opening.end()):
            return {}, 0  # a thematic break, not metadata
        if fence is None:
            raise IngestError("front matter has no closing '---' line", where=where, fix=_FIX_FENCES)
        line = line_number(line_starts(text), fence.start())
        raise IngestError(f"front matter closes with {fence.group().strip()!r} at line {line}; "
                          "the closing line must be exactly '---'", where=where, fix=_FIX_FENCES)
    block = text[opening.end() : closing.start()]
    loaded = _load_yaml(block, where=where, what="front matter", text=text, offset=opening.end())
    return loaded, closing.end()


def _starts_with_key(text: str, at: int) -> bool:
    """Whether the first non-blank line from ``at`` reads as ``key: value`` (or ``key = value``)."""
    for line in text[at : at + 4_000].splitlines():
        if line.strip():
            return _KEY_LINE.match(line) is not None
    return False


def _refuse_misplaced_fences(text: str, *, where: str) -> None:
    """Refuse a file whose opening lines are a metadata block that is not read as front matter.

    Blank lines before a ``---`` line, an indented ``---``, ``----`` and TOML's ``+++`` fences all
    leave the block in the body: a "visibility: restricted" line would then be public body text.
    """
    first = re.match(r"(?:[ \t]*(?:\r\n?|\n))*", text)
    at = first.end() if first else 0
    fence = _FENCE_LIKE.match(text, at)
    if fence is None or fence.start() != at or not _starts_with_key(text, fence.end()):
        return
    mark = fence.group(1)
    line = line_number(line_starts(text), at)
    if mark.startswith("+"):
        cause, fix = f"front matter opens with {mark!r} (TOML), which is not read", "write the metadata as YAML " \
            "between two lines '---'"
    elif mark != "---":
        cause, fix = f"front matter opens with {mark!r}; the fence must be exactly '---'", _FIX_FENCES
    elif at:
        cause, fix = f"front matter must start on the first line (its '---' is on line {line})", \
            "remove the blank lines before the opening '---'"
    else:
        cause, fix = "front matter's opening '---' is indented", "write '---' at the start of the first line"
    raise IngestError(cause, where=where, fix=fix)


def refuse_unread_front_matter(text: str, *, where: str) -> None:
    """Refuse a text whose format reads no front matter (plain text) when it opens with a metadata block.

    Its ``visibility: restricted`` would otherwise be stored as public text; such files take their
    metadata from a sidecar.
    """
    first = re.match(r"(?:[ \t]*(?:\r\n?|\n))*", text)
    fence = _FENCE_LIKE.match(text, first.end() if first else 0)
    if fence is not None and _starts_with_key(text, fence.end()):
        raise IngestError("this file opens with a metadata block, which its format does not read", where=where,
                          fix=f"move the metadata into a sidecar {where.rsplit('/', 1)[-1]}.meta.yaml")


def nearest_known_key(key: str) -> str:
    """The known metadata key closest in spelling to ``key`` (for "did you mean" in notes and errors)."""
    canonical = key.strip().lower().replace("-", "_")
    return max(KNOWN_KEYS, key=lambda known: (difflib.SequenceMatcher(None, canonical, known).ratio(), known))


def _restricting_attempt(key: str, value: Any) -> bool:
    """Whether an unknown key looks like a try at the visibility key (a misspelling, or a restricting word)."""
    canonical = key.strip().lower().replace("-", "_")
    if canonical.startswith(("visib", "visab")) or difflib.SequenceMatcher(None, canonical, "visibility").ratio() >= 0.7:
        return True
    if canonical in _RESTRICTING_KEYS:
        return True
    return isinstance(value, str) and value.strip().lower() in _RESTRICTING_WORDS


def metadata_notes(meta: dict[str, Any]) -> tuple[list[str], str | None]:
    """(unknown keys, an out-of-vocabulary kind or None) of normalised metadata, for the ingest's warnings."""
    unknown = [key for key in meta if key not in KNOWN_KEYS and key not in READER_KEYS]
    kind = meta.get("kind")
    return unknown, kind if isinstance(kind, str) and kind not in KINDS else None


def load_sidecar(path: Path, *, where: str | None = None) -> dict[str, Any]:
    """The YAML mapping in a ``NAME.meta.yaml`` sidecar (an empty file gives ``{}``), not yet validated.

    The sidecar must be a regular file of at most :data:`~graphcite.ingest.safe_yaml.MAX_YAML_CHARS`
    bytes; ``where`` names it in errors (default: the path).
    """
    where = where or str(path)
    try:
        data = read_regular_file(Path(path), max_bytes=MAX_YAML_CHARS, where=where)
    except IngestError as exc:
        if exc.cause.startswith("file too large"):
            raise IngestError(f"sidecar too large (over {MAX_YAML_CHARS:,} bytes)", where=where,
                              fix="keep metadata short; move long text into the document") from exc
        cause = exc.cause.removeprefix("cannot read file: ")
        raise IngestError(f"cannot read sidecar: {cause}", where=where, fix=exc.fix) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"sidecar is not valid UTF-8 (byte {exc.start})", where=where, fix="re-save as UTF-8"
        ) from exc
    return _load_yaml(text, where=where, what="sidecar", text=text, offset=0)


def _load_yaml(block: str, *, where: str, what: str, text: str, offset: int) -> dict[str, Any]:
    """Parse ``block`` (found at ``offset`` in ``text``) as a YAML mapping; errors carry file lines."""
    try:
        loaded = load_yaml(block)
    except (yaml.YAMLError, YamlProblem, RecursionError):
        # Parse again with the pure-Python parser, whose marks always count code points.
        loaded = _report_yaml_error(block, where=where, what=what, text=text, offset=offset)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise IngestError(
            f"{what} is not a mapping (got a {type(loaded).__name__})",
            where=where,
            fix="write one 'key: value' per line",
        )
    return loaded


def _at_line(text: str, offset: int, index: int | None, block: str) -> str:
    if index is None:
        return ""
    return f" at line {line_number(line_starts(text), offset + min(index, len(block)))}"


def _report_yaml_error(block: str, *, where: str, what: str, text: str, offset: int) -> Any:
    """Re-parse with the pure-Python loader, whose error marks count code points, and raise."""
    try:
        return load_yaml(block, exact_marks=True)
    except YamlProblem as exc:
        fix = "write each key once" if exc.problem.startswith("duplicate key") else _YAML_FIX
        cause = f"bad YAML {what}{_at_line(text, offset, exc.index, block)}: {exc.problem}"
        raise IngestError(cause, where=where, fix=fix) from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        # PyYAML counts U+2028 etc. as line breaks; recount with our rule via the char index.
        cause = f"bad YAML {what}{_at_line(text, offset, mark.index if mark else None, block)}: {problem}"
        fix = "write each key once" if problem.startswith("duplicate key") else _YAML_FIX
        raise IngestError(cause, where=where, fix=fix) from exc
    except yaml.reader.ReaderError as exc:
        line = line_number(line_starts(text), offset + min(exc.position, len(block)))
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        cause = f"bad YAML {what} at line {line}: character U+{char:04X} is not allowed"
        raise IngestError(cause, where=where, fix=_YAML_FIX) from exc
    except RecursionError as exc:
        raise IngestError(f"bad YAML {what}: nested too deeply", where=where, fix=_YAML_FIX) from exc
    except (yaml.YAMLError, ValueError) as exc:
        raise IngestError(f"bad YAML {what}: {exc}", where=where, fix=_YAML_FIX) from exc


def normalise_metadata(meta: dict[Any, Any], *, where: str) -> dict[str, Any]:
    """Validate the known keys of ``meta`` and return a new dict with them in canonical form.

    ``status``, ``visibility`` and ``kind`` are lowercased and checked against their allowed
    values; ``effective`` becomes a :class:`datetime.date`; lineage keys become ``list[str]``.
    Key spelling is forgiving for known keys (``Superseded-By`` -> ``superseded_by``); a known key
    with an empty value is dropped, except ``visibility``, which is refused when empty (a document
    that meant to restrict itself must not become public). Unknown keys are kept with their values as
    written (their names are made strings), unless they look like an attempt at ``visibility``
    (``visibilty``, ``access: restricted``), which is refused. A ``kind`` outside the vocabulary is
    kept as written (see :func:`metadata_notes`). Two keys that name the same thing (``visibility`` and ``Visibility``,
    or ``1`` and ``"1"``) are an error, so one of them cannot silently win. Normalising twice gives
    the same result.
    """
    result: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for raw_key, value in meta.items():
        key = str(raw_key)
        canonical = key.strip().lower().replace("-", "_")
        name = canonical if canonical in KNOWN_KEYS else key
        if name in spelled:
            raise IngestError(f"metadata key {name!r} is given twice (as {spelled[name]} and {raw_key!r})",
                              where=where, fix="write each key once")
        spelled[name] = repr(raw_key)
        if canonical not in KNOWN_KEYS:
            if _restricting_attempt(key, value):
                raise IngestError(f"metadata key {key!r} is not one graphcite reads (did you mean 'visibility'?)",
                                  where=where, fix="write visibility: restricted (or public); an unread key "
                                  "would leave the document public")
            result[key] = value
            continue
        if canonical == "visibility" and (value is None or (isinstance(value, str) and not value.strip())):
            raise IngestError("metadata key 'visibility' is empty; allowed: public, restricted", where=where,
                              fix="write visibility: restricted (or public), or remove the line")
        if value is None or value == "" or value == []:
            continue
        if canonical == "title":
            result[canonical] = _title(value, where=where)
        elif canonical == "status":
            result[canonical] = _choice(canonical, value, STATUSES, where=where)
        elif canonical == "visibility":
            result[canonical] = _choice(canonical, value, VISIBILITIES, where=where)
        elif canonical == "kind":
            result[canonical] = _kind(value, where=where)
        elif canonical == "effective":
            result[canonical] = _date(value, where=where)
        else:
            result[canonical] = _key_list(canonical, value, where=where)
    return result


def merge_metadata(front: dict[str, Any], sidecar: dict[str, Any], *, where: str,
                   sidecar_name: str) -> tuple[dict[str, Any], list[str]]:
    """(merged metadata, warnings) of a document's own metadata and its sidecar, both normalised.

    The sidecar's keys win, except ``visibility``: when the two disagree the more restrictive one
    wins and a warning names both, so a sidecar saying ``public`` can never publish a document
    that says ``restricted`` (nor the other way round).
    """
    merged = {**front, **sidecar}
    warnings: list[str] = []
    own, side = front.get("visibility"), sidecar.get("visibility")
    if own and side and own != side:
        strictest = max(own, side, key=VISIBILITIES.index)
        merged["visibility"] = strictest
        warnings.append(f"{where}: visibility differs: the document says {own!r}, sidecar {sidecar_name} "
                        f"says {side!r}; using the more restrictive {strictest!r}")
    return merged, warnings


def metadata_json(meta: dict[str, Any], *, where: str) -> str:
    """``meta`` as canonical JSON text (sorted keys, dates as ISO text) for ``metadata_json``.

    Nested mapping keys become strings (YAML allows ``1:`` next to ``b:``, which JSON sorting
    cannot compare); two nested keys that become the same string are an error.
    """
    try:
        return json.dumps(_json_ready(meta, where=where), sort_keys=True, default=str, ensure_ascii=False,
                          allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        raise IngestError(f"metadata cannot be stored as JSON: {exc}", where=where,
                          fix="simplify the metadata values") from exc


def _json_ready(value: Any, *, where: str) -> Any:
    if isinstance(value, dict):
        ready: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key)
            if name in ready:
                raise IngestError(f"metadata key {name!r} is given twice", where=where, fix="write each key once")
            ready[name] = _json_ready(item, where=where)
        return ready
    if isinstance(value, list | tuple | set | frozenset):
        items = [_json_ready(item, where=where) for item in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    return value


def _show(value: Any) -> str:
    # a set's repr follows string hashing, which differs per process: show it sorted
    shown = "{" + ", ".join(sorted(map(repr, value))) + "}" if isinstance(value, set | frozenset) else repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _title(value: Any, *, where: str) -> str:
    if isinstance(value, dict | list | tuple | set | frozenset):
        raise IngestError(f"metadata key 'title' must be text, got {_show(value)}", where=where,
                          fix="write the title as one line of text")
    return str(value).strip()


def _choice(key: str, value: Any, allowed: tuple[str, ...], *, where: str) -> str:
    chosen = value.strip().lower() if isinstance(value, str) else None
    if chosen not in allowed:
        raise IngestError(
            f"metadata key {key!r} has value {_show(value)}; allowed: {', '.join(allowed)}",
            where=where,
            fix=f"set {key} to one of the allowed values",
        )
    return chosen


def _kind(value: Any, *, where: str) -> str:
    """A kind from the vocabulary (lowercased), or any other one-line text as written (a general document)."""
    if isinstance(value, str) and value.strip().lower() in KINDS:
        return value.strip().lower()
    if not isinstance(value, str) or not value.strip() or "\n" in value.strip():
        raise IngestError(f"metadata key 'kind' has value {_show(value)}; expected one word such as "
                          f"{', '.join(KINDS[:4])}", where=where, fix="write kind as one word")
    return value.strip()


def _date(value: Any, *, where: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    reason = ""
    if isinstance(value, str):
        written = value.strip()
        try:
            return dt.date.fromisoformat(written)
        except ValueError as exc:
            reason = str(exc)
        try:
            return dt.datetime.fromisoformat(written).date()
        except ValueError as exc:
            reason = str(exc) if _LOOKS_LIKE_DATE.match(written) else reason
    if "offset" in reason:
        reason = "time zone offset out of range"
    problem = f" ({reason})" if reason and _LOOKS_LIKE_DATE.match(str(value).strip()) else ""
    raise IngestError(
        f"metadata key 'effective' has value {_show(value)}{problem}; allowed: an ISO date like 2024-03-01",
        where=where,
        fix="write a real calendar date as YYYY-MM-DD",
    )


def _key_list(key: str, value: Any, *, where: str) -> list[str]:
    # a YAML !!set is unordered: its keys are sorted, so two ingests store the same list
    items = value if isinstance(value, list) else sorted(value, key=str) if isinstance(value, set | frozenset) \
        else [value]
    keys: list[str] = []
    for item in items:
        if isinstance(item, dict | list | tuple | set | frozenset) or item is None:
            raise IngestError(
                f"metadata key {key!r} has value {_show(value)}; allowed: a source key or a list of them",
                where=where,
                fix=f"write {key} as a list of source paths",
            )
        text = str(item).strip()
        if text:
            keys.append(text)
    return keys
