"""Finding source files and reading them exactly as they are on disk.

:func:`discover` turns the paths given to ``graphcite ingest`` into source keys (stable names
that survive new revisions), :func:`read_text_file` returns the decoded text every offset points
into, and :func:`git_commit_for` records which commit a file was read at. Every problem a user can
cause (missing path, binary or non-UTF-8 file, empty or huge file) is an :class:`IngestError`.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from graphcite.errors import IngestError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "MB",
    "SIDECAR_SUFFIX",
    "FoundFile",
    "check_size",
    "decode_text",
    "discover",
    "git_commit_for",
    "max_bytes_for",
    "read_file_bytes",
    "read_regular_file",
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
#: The one size unit: 1 MB = 1,000,000 bytes (``--max-file-mb`` counts these).
MB = 1_000_000
DEFAULT_MAX_BYTES = 100 * MB
#: Folder names never descended into, besides every name starting with a dot.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A source file to ingest: where it is, the key it is stored under, its format, its sidecar."""

    path: Path
    key: str
    format: str
    sidecar: Path | None = None


def discover(paths: Sequence[str | os.PathLike[str]], prefix: str = "", *,
             warnings: list[str] | None = None, follow_symlinks: bool = False) -> tuple[list[FoundFile], dict[str, int]]:
    """Source files under ``paths``, sorted by key, and a count of skipped files per extension.

    A file found in a folder argument is keyed by its path relative to that folder (posix); a file
    argument by its name. ``prefix`` is prepended, with a ``/`` added when it lacks one ("docs"
    and "docs/" both give "docs/a.md"). Hidden entries, ``__pycache__`` and ``node_modules`` are
    skipped silently; ``*.meta.yaml`` files are sidecars, attached to ``NAME.meta.yaml`` or
    ``STEM.meta.yaml`` next to the source (the full-name form wins). Inside a folder, broken
    symbolic links, link loops and anything that is not a regular file (FIFOs, devices, sockets)
    are skipped with a line appended to ``warnings``; given directly, they are an error, and so is
    an empty path (it would silently mean the current folder). The same file reached twice is listed
    once; two different files with one key are an error.

    A symbolic link inside a folder is followed only to a target inside that folder (a link to
    ``/etc/passwd`` must not become a source): a link out of it, to a file or a folder, is skipped
    with a warning, unless ``follow_symlinks``. A link to a folder inside the folder is not descended
    (its files are found under their own paths); with ``follow_symlinks`` a link to a folder outside
    is, and a link back to a folder being walked is reported as a loop.
    """
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    found: dict[str, FoundFile] = {}
    skipped: Counter[str] = Counter()
    for given in paths:
        if not os.fspath(given).strip():
            raise IngestError("empty path", where="PATH",
                              fix="pass a file or folder (use . for the current folder)")
        argument = Path(given)
        if _is_loop(argument):
            raise IngestError("symbolic link loop (the link leads back to itself)", where=str(argument),
                              fix="point the link at a file, or remove it")
        if not argument.exists():
            broken = " (a broken symbolic link)" if argument.is_symlink() else ""
            raise IngestError(f"no such file or folder{broken}", where=str(argument), fix="check the path")
        if argument.is_dir():
            candidates = _walk(argument, follow_symlinks=follow_symlinks, warnings=warnings, prefix=prefix)
        else:
            _check_regular(argument, where=str(argument))
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
            problem = _not_regular(path)
            if problem is not None:
                if warnings is not None:
                    warnings.append(f"skipped {key}: {problem}")
                continue
            sidecar = _sidecar_for(path, sibling_names)
            _add(found, FoundFile(path=path, key=key, format=file_format, sidecar=sidecar))
    files = [found[key] for key in sorted(found)]
    return files, dict(sorted(skipped.items()))


def _is_loop(path: Path) -> bool:
    """Whether resolving ``path`` runs into a symbolic link loop."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _not_regular(path: Path) -> str | None:
    """Why ``path`` (symbolic links followed) cannot be read as a source file, or None when it can."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if path.is_symlink():
            return f"broken symbolic link (-> {os.readlink(path)})"
        return "it disappeared while the folder was read"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop (the link leads back to itself)"
        return f"cannot read it ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    return f"not a regular file ({_file_type(mode)})"


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _check_regular(path: Path, *, where: str) -> None:
    problem = _not_regular(path)
    if problem is not None:
        raise IngestError(problem, where=where, fix="pass regular files or folders of them")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _walk(folder: Path, *, follow_symlinks: bool = False, warnings: list[str] | None = None,
          prefix: str = "") -> Iterator[tuple[Path, str, set[str]]]:
    """(path, posix key relative to ``folder``, names in its directory), in a stable order.

    Links are followed as :func:`discover` says; each skipped one is a line in ``warnings``.
    """
    root = os.path.realpath(folder)

    def note(relative: str, problem: str) -> None:
        if warnings is not None:
            warnings.append(f"skipped {prefix}{relative}: {problem}")

    def walk(directory: Path, relative: Path, open_dirs: frozenset[str]) -> Iterator[tuple[Path, str, set[str]]]:
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as exc:
            note(relative.as_posix() or ".", f"cannot read the folder ({exc.strerror or exc})")
            return
        names = {entry.name for entry in entries}
        # a sidecar linked out of the folder is never read (it could hold anything), and the document it
        # belongs to is not ingested without it (its visibility may be in it)
        outside = set() if follow_symlinks else {
            entry.name for entry in entries if entry.name.endswith(SIDECAR_SUFFIX) and entry.is_symlink()
            and not _inside(os.path.realpath(directory / entry.name), root)}
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            path, key = directory / name, (relative / name).as_posix()
            link = entry.is_symlink()
            target = os.path.realpath(path) if link else ""
            if link and _is_loop(path):
                if Path(name).suffix.lower() in FORMATS or not Path(name).suffix:
                    note(key, "symbolic link loop (the link leads back to itself)")
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if name in SKIPPED_DIRS:
                    continue
                if not link:
                    yield from walk(path, relative / name, open_dirs | {os.path.realpath(path)})
                elif target in open_dirs or any(_inside(d, target) for d in open_dirs):
                    note(key, f"symbolic link loop (-> {os.readlink(path)}, a folder that holds the link)")
                elif _inside(target, root):
                    continue  # its files are found under their own paths
                elif not follow_symlinks:
                    note(key, f"symbolic link to a folder outside {folder} (-> {target}); "
                              "pass --follow-symlinks to ingest it")
                else:
                    yield from walk(path, relative / name, open_dirs | {target})
                continue
            # (a link to a device or FIFO is refused as such by discover, wherever it points)
            if link and not follow_symlinks and os.path.isfile(path) and not _inside(target, root):
                if Path(name).suffix.lower() in FORMATS:
                    note(key, f"symbolic link to a file outside {folder} (-> {target}); "
                              "pass --follow-symlinks to ingest it")
                continue
            sidecar = _sidecar_for(path, names)
            if sidecar is not None and sidecar.name in outside:
                note(key, f"its sidecar {sidecar.name} is a symbolic link out of {folder}; "
                          "pass --follow-symlinks to read it")
                continue
            yield path, key, names

    yield from walk(folder, Path(), frozenset({root}))


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


def max_bytes_for(max_file_mb: float) -> int:
    """The size limit in bytes for ``max_file_mb`` megabytes (1 MB = 1,000,000 bytes).

    Refuses NaN, infinities, zero, negative and non-numeric limits with one clear line.
    """
    valid = isinstance(max_file_mb, int | float) and not isinstance(max_file_mb, bool)
    if not valid or not math.isfinite(max_file_mb) or max_file_mb <= 0 or int(max_file_mb * MB) < 1:
        raise IngestError(f"the file size limit must be a positive number of MB, got {max_file_mb!r}",
                          where="--max-file-mb", fix=f"pass e.g. --max-file-mb {DEFAULT_MAX_BYTES // MB}"
                          " (1 MB = 1,000,000 bytes)")
    return int(max_file_mb * MB)


def check_size(size: int, *, max_bytes: int, where: str) -> None:
    """Refuse ``size`` bytes over ``max_bytes``, in the one unit every reader uses (MB = 10^6 bytes)."""
    if size > max_bytes:
        raise IngestError(
            f"file too large ({size / MB:.1f} MB > {max_bytes / MB:g} MB limit)",
            where=where,
            fix="split it or raise --max-file-mb",
        )


def read_regular_file(path: Path, *, max_bytes: int, where: str, what: str = "file") -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes`` bytes (may be empty).

    The type is checked before opening (opening a device can have effects) and again on the open
    descriptor (the path may have been swapped in between); the open never blocks on a FIFO, and
    at most ``max_bytes + 1`` bytes are read, so a file that grows while it is read is refused too.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError as exc:
        broken = " (a broken symbolic link)" if Path(path).is_symlink() else ""
        raise IngestError(f"no such {what}{broken}", where=where, fix="check the path") from exc
    except OSError as exc:
        raise IngestError(f"cannot read {what}: {exc.strerror or exc}", where=where,
                          fix="check the file permissions") from exc
    if not stat.S_ISREG(mode):
        raise IngestError(f"not a regular file ({_file_type(mode)})", where=where,
                          fix="pass regular files or folders of them")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        raise IngestError(f"cannot read {what}: {exc.strerror or exc}", where=where,
                          fix="check the file permissions") from exc
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise IngestError(f"not a regular file ({_file_type(info.st_mode)})", where=where,
                              fix="pass regular files or folders of them")
        check_size(info.st_size, max_bytes=max_bytes, where=where)
        try:
            data = _read_at_most(handle, max_bytes + 1, expected=info.st_size)
        except OSError as exc:
            raise IngestError(f"cannot read {what}: {exc.strerror or exc}", where=where,
                              fix="check the file permissions") from exc
    check_size(len(data), max_bytes=max_bytes, where=where)  # it may have grown since fstat
    return data


def _read_at_most(handle: BinaryIO, limit: int, *, expected: int) -> bytes:
    """Up to ``limit`` bytes; one read of the expected size (no ``limit``-sized buffer), then the rest."""
    chunks: list[bytes] = []
    total = 0
    want = min(expected + 1, limit)
    while total < limit:
        chunk = handle.read(min(want, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = 1 << 20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _read_bytes(path: Path, *, max_bytes: int, where: str) -> bytes:
    data = read_regular_file(path, max_bytes=max_bytes, where=where)
    if not data:
        raise IngestError("empty file", where=where, fix="remove it or add content")
    return data


def read_file_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, where: str | None = None) -> bytes:
    """The raw bytes of a source file, after the regular-file, size and empty checks."""
    return _read_bytes(Path(path), max_bytes=max_bytes, where=where or str(path))


def decode_text(data: bytes, *, where: str) -> str:
    """The UTF-8 text of a text-format file's bytes exactly as they are: line endings and whitespace kept.

    One leading byte-order mark is dropped, so offsets index the text after it (the content hash,
    taken over the bytes, still covers it). A NUL byte anywhere makes the file binary; UTF-16,
    invalid UTF-8 and empty (or whitespace-only) text are refused too.
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise IngestError("file is UTF-16 encoded", where=where, fix="re-save as UTF-8")
        raise IngestError(f"binary file (NUL byte at byte {nul})", where=where,
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


def read_text_file(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, where: str | None = None) -> str:
    """The file's UTF-8 text exactly as on disk (see :func:`decode_text`).

    ``where`` names the file in errors (default: the path). Raises :class:`IngestError` for a
    missing, unreadable, non-regular, binary, non-UTF-8, empty (or whitespace-only) file, or one
    larger than ``max_bytes``.
    """
    where = where or str(path)
    return decode_text(_read_bytes(Path(path), max_bytes=max_bytes, where=where), where=where)


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
