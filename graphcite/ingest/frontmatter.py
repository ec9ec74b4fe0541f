"""Document metadata: YAML front matter, ``.meta.yaml`` sidecars, and validation of known keys.

Metadata says what a document is (a decision, a manual), whether it is still in force (status,
effective date) and which documents it derives from or supersedes. Front matter is a leading
``---`` ... ``---`` (or ``...``) YAML block; files that cannot carry front matter (PDF, HTML, code)
take the same keys from a sidecar ``NAME.meta.yaml``. Errors name the file and the line in it.

Both are read with :mod:`graphcite.ingest.safe_yaml`: dates stay text until a key that holds one
(``effective``) validates it, a key written twice is an error (also when two spellings name one
known key), and aliases, nesting and size are capped. When a document and its sidecar disagree on
``visibility``, the more restrictive value wins and the ingest reports both.
"""

from __future__ import annotations

import datetime as dt
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
    "VISIBILITIES",
    "load_sidecar",
    "merge_metadata",
    "metadata_json",
    "normalise_metadata",
    "split_front_matter",
]

VISIBILITIES = ("public", "restricted")
#: Keys whose value is one source key or a list of them; always normalised to ``list[str]``.
LIST_KEYS = ("supersedes", "superseded_by", "derived_from", "quotes", "implements")
KNOWN_KEYS = ("title", "status", "effective", "visibility", "kind", *LIST_KEYS)

_OPENING_FENCE = re.compile(r"---[ \t]*(?:\r\n?|\n)")
# A closing fence is a whole line "---" or "..." right after a line break.
_CLOSING_FENCE = re.compile(r"(?<=[\r\n])(?:---|\.\.\.)[ \t]*(?:\r\n?|\n|\Z)")
_YAML_FIX = "fix the YAML"
_LOOKS_LIKE_DATE = re.compile(r"[+-]?\d{4,}-\d")


def split_front_matter(text: str, *, where: str) -> tuple[dict[str, Any], int]:
    """(metadata, body offset) of a leading YAML front-matter block; ``({}, 0)`` when there is none.

    A ``---`` first line without a closing fence is not front matter (it may be a thematic break).
    The metadata is returned as written; pass it to :func:`normalise_metadata` to validate it.
    """
    opening = _OPENING_FENCE.match(text)
    if opening is None:
        return {}, 0
    closing = _CLOSING_FENCE.search(text, opening.end())
    if closing is None:
        return {}, 0
    block = text[opening.end() : closing.start()]
    loaded = _load_yaml(block, where=where, what="front matter", text=text, offset=opening.end())
    return loaded, closing.end()


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
    with an empty value is dropped. Unknown keys are kept with their values as written (their
    names are made strings). Two keys that name the same thing (``visibility`` and ``Visibility``,
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
            result[key] = value
            continue
        if value is None or value == "" or value == []:
            continue
        if canonical == "title":
            result[canonical] = _title(value, where=where)
        elif canonical == "status":
            result[canonical] = _choice(canonical, value, STATUSES, where=where)
        elif canonical == "visibility":
            result[canonical] = _choice(canonical, value, VISIBILITIES, where=where)
        elif canonical == "kind":
            result[canonical] = _choice(canonical, value, KINDS, where=where)
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
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _title(value: Any, *, where: str) -> str:
    if isinstance(value, (dict, list)):
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
    items = value if isinstance(value, list) else [value]
    keys: list[str] = []
    for item in items:
        if isinstance(item, (dict, list)) or item is None:
            raise IngestError(
                f"metadata key {key!r} has value {_show(value)}; allowed: a source key or a list of them",
                where=where,
                fix=f"write {key} as a list of source paths",
            )
        text = str(item).strip()
        if text:
            keys.append(text)
    return keys
