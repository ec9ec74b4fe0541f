"""Output paths: atomic replace of files and folders, streams, symlinks, permissions, refusals, stale temps.

One regression test per kind of failure seen when ``--out`` pointed somewhere unusual: a FIFO, a
device or a symlink replaced by a regular 0600 file; an unwritable target turned into a traceback; a
killed export's temp files left behind; a parquet folder replaced in pieces.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphcite.cli.graph import register
from graphcite.errors import OutputError
from graphcite.export import export
from graphcite.export.output import clean_stale, output_target
from graphcite.export.parquet import PARQUET_FILES
from graphcite.store import Store

ANSWER = {"answer": "lineage-demo"}


@pytest.fixture(scope="module")
def cli() -> typer.Typer:
    app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (test app)"""

    register(app)
    return app


@pytest.fixture
def umask() -> Iterator[Any]:
    """Set the process umask for one test and restore it afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


# ----------------------------------------------------------------------------------------------
# regular files
# ----------------------------------------------------------------------------------------------


def test_new_file_gets_the_umask_permissions_not_0600(export_store: Store, tmp_path: Path, umask: Any) -> None:
    for mask, expected in ((0o022, 0o644), (0o027, 0o640), (0o002, 0o664)):
        umask(mask)
        path = tmp_path / f"g-{mask:o}.graphml"
        export(export_store, "graphml", path, **ANSWER)
        assert mode(path) == expected, oct(mask)


def test_existing_file_is_replaced_atomically_and_keeps_its_mode(export_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text("old content")
    path.chmod(0o604)
    before = os.stat(path).st_ino
    with path.open() as reader:  # a reader of the old file keeps the old, complete file
        export(export_store, "json", path, **ANSWER)
        assert reader.read() == "old content"
    assert os.stat(path).st_ino != before
    assert mode(path) == 0o604
    assert json.loads(path.read_text())["nodes"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to read-only files")
def test_read_only_file_is_refused(export_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text("keep")
    path.chmod(0o444)
    with pytest.raises(OutputError, match="not writable"):
        export(export_store, "json", path, **ANSWER)
    assert path.read_text() == "keep"


# ----------------------------------------------------------------------------------------------
# streams: FIFO, character device, stdout
# ----------------------------------------------------------------------------------------------


def test_fifo_is_streamed_not_replaced(export_store: Store, tmp_path: Path) -> None:
    fifo = tmp_path / "graph.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    summary = export(export_store, "graphml", fifo, **ANSWER)
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[0].startswith(b"<?xml") and b"</graphml>" in got[0]
    assert summary["path"] == str(fifo)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.fifo"]


def test_character_device_is_written_not_replaced(export_store: Store, tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
    except OSError:
        device = Path("/dev/null")  # without CAP_MKNOD; the test below must then not replace it
    before = os.lstat(device)
    export(export_store, "json", device, **ANSWER)
    after = os.lstat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino and after.st_rdev == before.st_rdev


def test_dash_writes_to_stdout(cli: typer.Typer, export_db: tuple[Path, Any], export_store: Store) -> None:
    result = CliRunner().invoke(cli, ["export", "--format", "json", "--out", "-", "--answer", "lineage-demo",
                                      "--db", str(export_db[0])])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["nodes"]
    assert "wrote json" in result.stderr  # the summary goes to stderr so stdout stays one document


def test_sockets_are_refused(export_store: Store) -> None:
    folder = Path(tempfile.mkdtemp(dir="/tmp"))  # AF_UNIX paths must be short
    path = folder / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OutputError, match="is a socket"):
            export(export_store, "json", path, **ANSWER)
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        server.close()
        path.unlink()
        folder.rmdir()


# ----------------------------------------------------------------------------------------------
# symlinks
# ----------------------------------------------------------------------------------------------


def test_symlink_is_refused_unless_followed(export_store: Store, tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("keep me")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(OutputError, match=r"is a symlink.*--follow-symlinks"):
        export(export_store, "json", link, **ANSWER)
    assert target.read_text() == "keep me" and link.is_symlink()
    export(export_store, "json", link, follow_symlinks=True, **ANSWER)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["nodes"]


def test_dangling_symlink_is_refused_and_followed_on_request(export_store: Store, tmp_path: Path) -> None:
    link = tmp_path / "dangling.json"
    link.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(OutputError, match="symlink"):
        export(export_store, "json", link, **ANSWER)
    assert not (tmp_path / "nowhere.json").exists()
    export(export_store, "json", link, follow_symlinks=True, **ANSWER)
    assert link.is_symlink() and json.loads((tmp_path / "nowhere.json").read_text())["nodes"]


def test_symlinked_parquet_folder_is_refused(export_store: Store, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(OutputError, match="symlink"):
        export(export_store, "parquet", tmp_path / "link", **ANSWER)
    assert list(real.iterdir()) == []


# ----------------------------------------------------------------------------------------------
# refusals: one line, exit 2
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["/proc/version", "/proc/self/status", "/proc/nonexistent-dir/g.json"])
def test_unwritable_targets_are_refused_with_one_line(out: str, export_store: Store, cli: typer.Typer,
                                                      export_db: tuple[Path, Any]) -> None:
    before = Path("/proc/version").read_text()
    with pytest.raises(OutputError):
        export(export_store, "json", out, **ANSWER)
    result = CliRunner().invoke(cli, ["export", "--format", "json", "--out", out, "--answer", "lineage-demo",
                                      "--db", str(export_db[0])])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output
    assert Path("/proc/version").read_text() == before


def test_odd_paths_and_streams_for_parquet_are_refused(export_store: Store, tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="empty output path"):
        export(export_store, "json", "", **ANSWER)
    with pytest.raises(OutputError, match="NUL"):
        export(export_store, "json", str(tmp_path / "a\0b.json"), **ANSWER)
    with pytest.raises(OutputError, match="cannot"):
        export(export_store, "json", tmp_path / ("x" * 300), **ANSWER)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(OutputError, match="cannot inspect: Not a directory"):
        export(export_store, "json", tmp_path / "a-file" / "g.json", **ANSWER)
    with pytest.raises(OutputError):
        export(export_store, "json", "~no-such-user-here/g.json", **ANSWER)
    with pytest.raises(OutputError, match="folder of files, not a stream"):
        export(export_store, "parquet", "-", **ANSWER)
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a stream"):
        export(export_store, "parquet", fifo, **ANSWER)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ----------------------------------------------------------------------------------------------
# parquet folders
# ----------------------------------------------------------------------------------------------


def test_parquet_folder_is_replaced_in_one_step(export_store: Store, tmp_path: Path, umask: Any) -> None:
    umask(0o027)
    out = tmp_path / "tables"
    export(export_store, "parquet", out, **ANSWER)
    assert mode(out) == 0o750 and mode(out / "claim.parquet") == 0o640
    assert {p.name for p in out.iterdir()} == PARQUET_FILES
    first = os.stat(out).st_ino
    export(export_store, "parquet", out, audience="public", **ANSWER)
    assert os.stat(out).st_ino != first  # a new folder took its place
    keys = pq.read_table(out / "source.parquet").column("key").to_pylist()
    assert "restricted-source-1" in keys and "manuals/secret.md" not in keys
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tables"]


def test_parquet_refuses_a_folder_holding_other_files(export_store: Store, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="not part of a graphcite export"):
        export(export_store, "parquet", tmp_path, **ANSWER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    export(export_store, "parquet", empty, **ANSWER)
    assert {p.name for p in empty.iterdir()} == PARQUET_FILES


# ----------------------------------------------------------------------------------------------
# stale temporary files of killed runs
# ----------------------------------------------------------------------------------------------


def test_stale_temps_of_dead_writers_are_removed(export_store: Store, tmp_path: Path) -> None:
    pid = dead_pid()
    stale_file = tmp_path / f".g.json.gc-tmp-{pid}-0badc0de"
    stale_file.write_text("half")
    stale_folder = tmp_path / f".tables.gc-tmp-{pid}-0badc0de"
    stale_folder.mkdir()
    (stale_folder / "claim.parquet").write_bytes(b"half")
    unrelated = tmp_path / ".g.json.swp"
    unrelated.write_text("an editor's file")
    live = subprocess.Popen(["sleep", "60"])
    try:
        in_progress = tmp_path / f".g.json.gc-tmp-{live.pid}-0ddba11"
        in_progress.write_text("another writer, still running")
        export(export_store, "json", tmp_path / "g.json", **ANSWER)
        export(export_store, "parquet", tmp_path / "tables", **ANSWER)
        assert not stale_file.exists() and not stale_folder.exists()
        assert in_progress.exists() and unrelated.exists()
    finally:
        live.kill()
        live.wait()


def test_an_interrupted_two_rename_swap_is_restored(tmp_path: Path) -> None:
    old = tmp_path / f".tables.gc-old-{dead_pid()}-0badc0de"
    old.mkdir()
    (old / "claim.parquet").write_bytes(b"the old complete export")
    removed = clean_stale(output_target(tmp_path / "tables", folder=True))
    assert removed == []
    assert (tmp_path / "tables" / "claim.parquet").read_bytes() == b"the old complete export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tables"]


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec=None, exclude_categories=()), max_size=80), st.booleans(), st.booleans())
def test_any_path_is_checked_without_an_unexpected_error(text: str, folder: bool, follow: bool) -> None:
    """output_target only inspects: any string gives a target or an OutputError, never another exception."""
    try:
        target = output_target(text, folder=folder, follow_symlinks=follow)
    except OutputError as exc:
        assert "\n" not in str(exc)
    else:
        assert target.kind in {"new", "file", "stream", "stdout", "new-folder", "folder"}
