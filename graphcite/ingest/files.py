"""Finding source files and reading them exactly as they are on disk.

:func:`discover` turns the paths given to ``graphcite ingest`` into source keys (stable names
that survive new revisions), :func:`read_text_file` returns the decoded text every offset points
into, and :func:`git_commit_for` records which commit a file was read at. Every problem a user can
cause (missing path, binary or non-UTF-8 file, empty or huge file) is an :class:`IngestError`.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graphcite.errors import IngestError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "SIDECAR_SUFFIX",
    "FoundFile",
    "discover",
    "git_commit_for",
    "read_file_bytes",
    "read_text_file",
]

#: File extension (lowercase) -> parser format name.
FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".py": "python",
}
SIDECAR_SUFFIX = ".meta.yaml"
DEFAULT_MAX_BYTES = 100_000_000
#: Folder names never descended into, besides every name starting with a dot.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})

_BINARY_PROBE = 8192
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A source file to ingest: where it is, the key it is stored under, its format, its sidecar."""

    path: Path
    key: str
    format: str
    sidecar: Path | None = None


def discover(paths: list[Path], prefix: str = "") -> tuple[list[FoundFile], dict[str, int]]:
    """Source files under ``paths``, sorted by key, and a count of skipped files per extension.

    A file found in a folder argument is keyed by its path relative to that folder (posix); a file
    argument by its name. ``prefix`` is prepended, with a ``/`` added when it lacks one ("docs"
    and "docs/" both give "docs/a.md"). Hidden entries, ``__pycache__`` and ``node_modules`` are
    skipped silently; ``*.meta.yaml`` files are sidecars, attached to ``NAME.meta.yaml`` or
    ``STEM.meta.yaml`` next to the source (the full-name form wins). The same file reached twice
    is listed once; two different files with one key are an error.
    """
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    found: dict[str, FoundFile] = {}
    skipped: Counter[str] = Counter()
    for given in paths:
        argument = Path(given)
        if not argument.exists():
            raise IngestError("no such file or folder", where=str(argument), fix="check the path")
        if argument.is_dir():
            candidates = _walk(argument)
        else:
            candidates = iter([(argument, argument.name, _names_in(argument.parent))])
        for path, relative, sibling_names in candidates:
            if path.name.endswith(SIDECAR_SUFFIX):
                continue
            suffix = path.suffix.lower()
            file_format = FORMATS.get(suffix)
            if file_format is None:
                skipped[suffix or "(no extension)"] += 1
                continue
            key = prefix + relative
            sidecar = _sidecar_for(path, sibling_names)
            _add(found, FoundFile(path=path, key=key, format=file_format, sidecar=sidecar))
    files = [found[key] for key in sorted(found)]
    return files, dict(sorted(skipped.items()))


def _walk(folder: Path) -> Iterator[tuple[Path, str, set[str]]]:
    """(path, posix key relative to ``folder``, names in its directory), in a stable order."""
    for directory, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
        names = set(filenames)
        base = Path(directory)
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = base / name
            yield path, path.relative_to(folder).as_posix(), names


def _names_in(directory: Path) -> set[str]:
    try:
        return {entry.name for entry in directory.iterdir()}
    except OSError:
        return set()


def _sidecar_for(path: Path, sibling_names: set[str]) -> Path | None:
    for name in (path.name + SIDECAR_SUFFIX, path.stem + SIDECAR_SUFFIX):
        if name in sibling_names:
            return path.with_name(name)
    return None


def _add(found: dict[str, FoundFile], item: FoundFile) -> None:
    existing = found.get(item.key)
    if existing is None:
        found[item.key] = item
        return
    if existing.path.resolve() == item.path.resolve():
        return
    raise IngestError(
        f"two files would both be stored as {item.key!r}: {existing.path} and {item.path}",
        where=item.key,
        fix="ingest them in separate runs with different --prefix values",
    )


def _read_bytes(path: Path, *, max_bytes: int, where: str) -> bytes:
    """The file's bytes after checking it exists, is a regular file and is within ``max_bytes``."""
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise IngestError("no such file", where=where, fix="check the path") from exc
    except OSError as exc:
        raise IngestError(f"cannot read file: {exc.strerror or exc}", where=where,
                          fix="check the file permissions") from exc
    if not stat.S_ISREG(info.st_mode):
        raise IngestError("not a regular file", where=where, fix="pass files or folders of files")
    _check_size(info.st_size, max_bytes=max_bytes, where=where)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read file: {exc.strerror or exc}", where=where,
                          fix="check the file permissions") from exc
    _check_size(len(data), max_bytes=max_bytes, where=where)  # it may have grown since stat
    if not data:
        raise IngestError("empty file", where=where, fix="remove it or add content")
    return data


def _check_size(size: int, *, max_bytes: int, where: str) -> None:
    if size > max_bytes:
        raise IngestError(
            f"file too large ({size / 1e6:.1f} MB > {max_bytes / 1e6:g} MB limit)",
            where=where,
            fix="split it or raise --max-file-mb",
        )


def read_file_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, where: str | None = None) -> bytes:
    """The raw bytes of a binary source (PDF), with the same existence, size and empty checks."""
    return _read_bytes(Path(path), max_bytes=max_bytes, where=where or str(path))


def read_text_file(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, where: str | None = None) -> str:
    """The file's UTF-8 text exactly as on disk: line endings (CRLF, CR) and all whitespace kept.

    One leading byte-order mark is dropped, so offsets index the text after it (the content hash,
    taken over the bytes, still covers it). ``where`` names the file in errors (default: the path).
    Raises :class:`IngestError` for a missing, unreadable, binary, non-UTF-8, empty (or
    whitespace-only) file, or one larger than ``max_bytes``.
    """
    where = where or str(path)
    data = _read_bytes(Path(path), max_bytes=max_bytes, where=where)
    if b"\x00" in data[:_BINARY_PROBE]:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise IngestError("file is UTF-16 encoded", where=where, fix="re-save as UTF-8")
        raise IngestError("binary file (NUL bytes)", where=where,
                          fix="ingest text, Markdown, HTML, PDF or Python files only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise IngestError(f"invalid UTF-8 at byte {exc.start} (line {line})", where=where,
                          fix="re-save as UTF-8") from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        raise IngestError("empty file", where=where, fix="remove it or add content")
    return text


def git_commit_for(path: Path) -> str | None:
    """The HEAD commit of the git work tree holding ``path``; None outside a repository.

    Reads ``.git/HEAD`` and the ref files (loose or packed, worktrees and submodules included)
    directly; falls back to ``git rev-parse`` (5 s timeout) when the refs cannot be read that way.
    """
    try:
        start = Path(path).resolve()
    except OSError:
        return None
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        dotgit = candidate / ".git"
        try:
            if dotgit.is_dir():
                gitdir = dotgit
            elif dotgit.is_file():
                gitdir = _gitdir_from_file(dotgit)
            else:
                continue
            commit = _head_commit(gitdir)
        except OSError:
            commit = None
        return commit or _rev_parse(candidate)
    return None


def _gitdir_from_file(dotgit: Path) -> Path:
    content = dotgit.read_text(encoding="utf-8").strip()
    target = content.removeprefix("gitdir:").strip()
    return (dotgit.parent / target).resolve()


def _head_commit(gitdir: Path) -> str | None:
    head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    if _SHA.fullmatch(head):
        return head
    if not head.startswith("ref:"):
        return None
    ref = head.removeprefix("ref:").strip()
    common = gitdir
    commondir = gitdir / "commondir"
    if commondir.is_file():
        common = (gitdir / commondir.read_text(encoding="utf-8").strip()).resolve()
    for base in (gitdir, common):
        ref_file = base / ref
        if ref_file.is_file():
            value = ref_file.read_text(encoding="utf-8").strip()
            if _SHA.fullmatch(value):
                return value
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            if line.startswith(("#", "^")):
                continue
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _SHA.fullmatch(sha):
                return sha
    return None


def _rev_parse(worktree: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(worktree), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and _SHA.fullmatch(value) else None
