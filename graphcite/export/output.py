"""Where an export goes: one place that decides how to write ``--out`` safely, for every format.

A regular file or a new path is written atomically: bytes go to a temporary file beside the target
(created with mode 0666, so the user's umask applies as it would for ``>``), which replaces the target
with :func:`os.replace` only once it is complete. An existing file keeps its permission bits (and,
for root, its owner). A FIFO, a character device or stdout (``-``, ``/dev/stdout``) is written as a
stream, never replaced. A symlink is refused unless ``follow_symlinks`` is given (then its target is
written as above); block devices, sockets and folders are refused. Multi-file exports (parquet) are
written into a new sibling folder that takes the target's place in one atomic exchange
(``renameat2(RENAME_EXCHANGE)`` on Linux, two renames elsewhere), so a killed export leaves either
the old complete folder or the new one. Temporary names carry the writer's pid
(``.NAME.gc-tmp-PID-HEX``); the next export to the same target removes those whose writer is dead.

How much of a source an export may reproduce is decided here too: ``--max-quote-chars``
(:data:`DEFAULT_MAX_QUOTE_CHARS`) bounds every excerpt a page or export shows; a longer span is shown
truncated (:func:`excerpt_window`) and the page names its full offsets.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import io
import os
import re
import secrets
import shutil
import stat
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from graphcite.errors import OutputError, make_error

__all__ = ["DEFAULT_MAX_QUOTE_CHARS", "STREAM_ALIASES", "OutputTarget", "check_max_quote_chars", "clean_stale",
           "excerpt_window", "open_output", "output_folder", "output_target"]

DEFAULT_MAX_QUOTE_CHARS = 500  # code points of source text any one excerpt of a page or export may show
MIN_QUOTE_CHARS = 20

# Names that mean "this process's standard output or error": system symlinks, written as streams.
STREAM_ALIASES = re.compile(r"^/(?:dev/(?:stdout|stderr|fd/\d+)|proc/self/fd/\d+)$")
_NAME_ROOM = 100  # keep temporary names under the 255-byte file name limit
_TEMP = re.compile(r"^\.(?P<name>.*)\.gc-(?P<what>tmp|old)-(?P<pid>\d+)-[0-9a-f]+$")


@dataclass(frozen=True, slots=True)
class OutputTarget:
    """A checked ``--out``: ``kind`` is new, file, stream, stdout, new-folder or folder.

    ``path`` is the path as given (for messages); ``real`` is where the bytes land (the symlink's
    target when one was followed); ``mode``/``uid``/``gid`` are the existing file's, kept on replace.
    """

    path: Path
    real: Path
    kind: str
    mode: int | None = None
    uid: int | None = None
    gid: int | None = None

    @property
    def is_stream(self) -> bool:
        return self.kind in {"stream", "stdout"}

    def __str__(self) -> str:
        return "-" if self.kind == "stdout" else str(self.path)


def check_max_quote_chars(limit: int | None) -> int:
    """The excerpt limit (``None`` is the default); E103 when it is not a whole number of at least 20."""
    if limit is None:
        return DEFAULT_MAX_QUOTE_CHARS
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < MIN_QUOTE_CHARS:
        raise make_error("E103", where="--max-quote-chars", option="--max-quote-chars",
                         expected=f"a whole number of at least {MIN_QUOTE_CHARS}", value=repr(limit))
    return limit


def excerpt_window(length: int, lo: int, hi: int, limit: int) -> tuple[int, int]:
    """The part ``[a, b)`` of a text of ``length`` code points to show around the span ``[lo, hi)``.

    At most ``limit`` code points: the whole text when it fits, else the span with context split evenly
    before and after it, else the first ``limit`` code points of the span itself.
    """
    lo, hi = max(0, min(lo, length)), max(0, min(hi, length))
    if length <= limit:
        return 0, length
    if hi - lo >= limit:
        return lo, lo + limit
    room = limit - (hi - lo)
    before = min(lo, room // 2)
    after = min(length - hi, room - before)
    before = min(lo, room - after)
    return lo - before, hi + after


def _fail(cause: str, path: Path | str, fix: str) -> OutputError:
    return OutputError(cause, where=str(path), fix=fix)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _fail(f"cannot inspect: {exc.strerror or exc}", path, "choose another --out") from exc


def output_target(out_path: str | os.PathLike[str], *, folder: bool = False,
                  follow_symlinks: bool = False) -> OutputTarget:
    """Check ``out_path`` and say how it will be written (see the module doc); OutputError when it cannot be."""
    text = os.fspath(out_path)
    if text == "-" or STREAM_ALIASES.match(text):
        if folder:
            raise _fail("parquet writes a folder of files, not a stream", text, "pass a folder path to --out")
        return OutputTarget(Path(text), Path(text), "stdout" if text == "-" else "stream")
    if not text.strip():
        raise _fail("empty output path", "--out", "pass a file name, a folder for parquet, or - for stdout")
    if "\0" in text:
        raise _fail("the path contains a NUL character", "--out", "pass a path without NUL")
    try:
        os.fsencode(text)
    except UnicodeError as exc:
        raise _fail("the path cannot be encoded for the file system", "--out", "pass a valid path") from exc
    try:
        path = Path(text).expanduser()
    except RuntimeError as exc:  # ~user that does not exist
        raise _fail(f"cannot expand the path: {exc}", text, "write the path out in full") from exc
    real = path
    st = _lstat(path)
    if st is not None and stat.S_ISLNK(st.st_mode):
        if not follow_symlinks:
            raise _fail("is a symlink; graphcite does not write through symlinks unless asked", path,
                        "pass --follow-symlinks to write to its target, or choose another --out")
        real = Path(os.path.realpath(path))
        st = _lstat(real)
    parent = real.parent
    if not parent.is_dir():
        raise _fail("folder does not exist", parent, "create the folder or choose another --out")
    if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        if folder:
            raise _fail("parquet writes a folder of files, not a stream", path, "pass a folder path to --out")
        return OutputTarget(path, real, "stream")
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        what = "a block device" if stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) \
            else "not a regular file"
        raise _fail(f"is {what}; graphcite writes only files, folders, FIFOs and character devices", path,
                    "choose another --out")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _fail("folder is not writable", parent, "choose a writable --out")
    if folder:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise _fail("parquet output must be a folder, but a file is there", path, "pass a folder path to --out")
        return OutputTarget(path, real, "folder" if st is not None else "new-folder")
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _fail("is a folder; a file name is needed", path, "pass e.g. --out graph.json")
    if st is None:
        return OutputTarget(path, real, "new")
    if not os.access(real, os.W_OK):
        raise _fail("file is not writable", path, "choose another --out")
    return OutputTarget(path, real, "file", stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)


def _as_target(target: OutputTarget | str | os.PathLike[str], folder: bool = False) -> OutputTarget:
    return target if isinstance(target, OutputTarget) else output_target(target, folder=folder)


def _temp_name(real: Path, what: str = "tmp") -> Path:
    return real.with_name(f".{real.name[:_NAME_ROOM]}.gc-{what}-{os.getpid()}-{secrets.token_hex(4)}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def clean_stale(target: OutputTarget | str | os.PathLike[str]) -> list[Path]:
    """Remove temporary files and folders left beside ``target`` by writers that died; returns them.

    A ``.gc-old`` folder whose writer died between its two renames (no atomic exchange) is moved back
    into place when the target is missing, so the old complete export is restored.
    """
    real = target.real if isinstance(target, OutputTarget) else Path(target).expanduser()
    if not real.parent.is_dir():
        return []
    removed = []
    try:
        entries = list(os.scandir(real.parent))
    except OSError:
        return []
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match or match["name"] != real.name[:_NAME_ROOM] or _alive(int(match["pid"])):
            continue
        path = Path(entry.path)
        try:
            if match["what"] == "old" and not os.path.lexists(real):
                os.rename(path, real)
                continue
            _remove(path)
        except OSError:
            continue
        removed.append(path)
    return removed


def _open_stream(target: OutputTarget, binary: bool) -> tuple[IO[Any], bool]:
    """(handle, close_it) for a stream target; never creates or truncates a file."""
    if target.kind == "stdout":
        sys.stdout.flush()  # text already printed goes first
        return (sys.stdout.buffer if binary else sys.stdout), False
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0)
    if not STREAM_ALIASES.match(str(target.real)):
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(target.real, flags)
    st = os.fstat(fd)
    if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode) or STREAM_ALIASES.match(str(target.real))):
        os.close(fd)
        raise _fail("changed while being checked; it is no longer a FIFO or device", target.path, "try again")
    return os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})), True


@contextlib.contextmanager
def open_output(target: OutputTarget | str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """A handle to write an export to (``mode`` "w" or "wb"); the target changes only if the block succeeds.

    Files are written atomically (see the module doc); streams are written as they come.
    """
    target = _as_target(target)
    binary = "b" in mode
    if target.is_stream:
        try:
            handle, close_it = _open_stream(target, binary)
        except OSError as exc:
            raise _fail(f"cannot open for writing: {exc.strerror or exc}", target, "choose another --out") from exc
        try:
            yield handle
            handle.flush()
        except BrokenPipeError as exc:
            raise _fail("the reader closed the stream", target, "keep the reading end open") from exc
        finally:
            if close_it:
                with contextlib.suppress(OSError):
                    handle.close()
        return
    clean_stale(target)
    tmp = _temp_name(target.real)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise _fail(f"cannot create a file beside it in {target.real.parent} ({exc.strerror or exc})", target,
                    "choose a writable --out") from exc
    try:
        if target.mode is not None:
            os.fchmod(fd, target.mode)
            if os.geteuid() == 0 and target.uid is not None and target.gid is not None:
                with contextlib.suppress(OSError):
                    os.fchown(fd, target.uid, target.gid)
        raw = os.fdopen(fd, "wb")
        with raw if binary else io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target.real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _fail(f"cannot write: {exc.strerror or exc}", target, "check the path and free space") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False when the platform or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    errno = ctypes.get_errno()
    if errno in {22, 38, 95}:  # EINVAL, ENOSYS, EOPNOTSUPP: fall back to two renames
        return False
    raise OSError(errno, os.strerror(errno), str(b))


def _check_replaceable(target: OutputTarget, allowed: Collection[str]) -> None:
    if target.kind != "folder":
        return
    try:
        names = sorted(os.listdir(target.real))
    except OSError as exc:
        raise _fail(f"cannot read the folder: {exc.strerror or exc}", target, "choose another --out") from exc
    foreign = [n for n in names if n not in allowed]
    if foreign:
        raise _fail(f"folder holds files that are not part of a graphcite export (e.g. {foreign[0]!r}); "
                    "it would be replaced as a whole", target, "choose a new or empty folder for --out")


@contextlib.contextmanager
def output_folder(target: OutputTarget | str | os.PathLike[str], *, allowed: Collection[str]) -> Iterator[Path]:
    """A new sibling folder to fill; on success it takes the target's place in one step.

    An existing target folder is replaced only when it is empty or holds nothing but ``allowed``
    names (an earlier export), so a mistyped ``--out ~`` cannot delete a home folder.
    """
    target = _as_target(target, folder=True)
    if target.kind not in {"folder", "new-folder"}:
        raise _fail("parquet output must be a folder", target, "pass a folder path to --out")
    _check_replaceable(target, allowed)
    clean_stale(target)
    tmp = _temp_name(target.real)
    try:
        os.mkdir(tmp, 0o777)
    except OSError as exc:
        raise _fail(f"cannot create folder: {exc.strerror or exc}", target, "choose a writable --out") from exc
    try:
        yield tmp
        _put_in_place(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise _fail(f"cannot write: {exc.strerror or exc}", target, "check the folder and free space") from exc
    except BaseException:
        _remove(tmp)
        raise


def _put_in_place(tmp: Path, target: OutputTarget) -> None:
    real = target.real
    if not os.path.lexists(real):
        os.rename(tmp, real)  # fails if another writer created it meanwhile: nothing is lost
        return
    if _exchange(tmp, real):
        _remove(tmp)  # tmp now holds the old export
        return
    old = _temp_name(real, "old")
    os.rename(real, old)
    os.rename(tmp, real)
    _remove(old)
