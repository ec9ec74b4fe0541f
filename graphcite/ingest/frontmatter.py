"""Document metadata: YAML front matter, ``.meta.yaml`` sidecars, and validation of known keys.

Metadata says what a document is (a decision, a manual), whether it is still in force (status,
effective date) and which documents it derives from or supersedes. Front matter is a leading
``---`` ... ``---`` (or ``...``) YAML block; files that cannot carry front matter (PDF, HTML, code)
take the same keys from a sidecar ``NAME.meta.yaml``. Errors name the file and the line in it.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import yaml

from graphcite.errors import IngestError
from graphcite.ingest.text import line_number, line_starts
from graphcite.models import KINDS, STATUSES

__all__ = [
    "KNOWN_KEYS",
    "LIST_KEYS",
    "VISIBILITIES",
    "load_sidecar",
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
# libyaml's safe loader when PyYAML was built with it (ten times faster), else the Python one.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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


def load_sidecar(path: Path) -> dict[str, Any]:
    """The YAML mapping in a ``NAME.meta.yaml`` sidecar (an empty file gives ``{}``), not yet validated."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise IngestError(
            f"cannot read sidecar: {exc.strerror or exc}", where=where, fix="check the file permissions"
        ) from exc
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
        loaded = yaml.load(block, Loader=_FAST_LOADER)
    except (yaml.YAMLError, RecursionError):
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


def _report_yaml_error(block: str, *, where: str, what: str, text: str, offset: int) -> Any:
    """Re-parse with the pure-Python loader, whose error marks count code points, and raise."""
    try:
        return yaml.safe_load(block)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is not None:
            # PyYAML counts U+2028 etc. as line breaks; recount with our rule via the char index.
            line = line_number(line_starts(text), offset + min(mark.index, len(block)))
            cause = f"bad YAML {what} at line {line}: {problem}"
        else:
            cause = f"bad YAML {what}: {problem}"
        raise IngestError(cause, where=where, fix=_YAML_FIX) from exc
    except yaml.reader.ReaderError as exc:
        line = line_number(line_starts(text), offset + min(exc.position, len(block)))
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        cause = f"bad YAML {what} at line {line}: character U+{char:04X} is not allowed"
        raise IngestError(cause, where=where, fix=_YAML_FIX) from exc
    except (yaml.YAMLError, RecursionError) as exc:
        raise IngestError(f"bad YAML {what}: {exc}", where=where, fix=_YAML_FIX) from exc


def normalise_metadata(meta: dict[Any, Any], *, where: str) -> dict[str, Any]:
    """Validate the known keys of ``meta`` and return a new dict with them in canonical form.

    ``status``, ``visibility`` and ``kind`` are lowercased and checked against their allowed
    values; ``effective`` becomes a :class:`datetime.date`; lineage keys become ``list[str]``.
    Key spelling is forgiving for known keys (``Superseded-By`` -> ``superseded_by``); a known key
    with an empty value is dropped. Unknown keys are kept with their values as written (their
    names are made strings). Normalising twice gives the same result.
    """
    result: dict[str, Any] = {}
    for raw_key, value in meta.items():
        key = str(raw_key)
        canonical = key.strip().lower().replace("-", "_")
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
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            try:
                return dt.datetime.fromisoformat(value.strip()).date()
            except ValueError:
                pass
    raise IngestError(
        f"metadata key 'effective' has value {_show(value)}; allowed: an ISO date like 2024-03-01",
        where=where,
        fix="write the date as YYYY-MM-DD",
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
