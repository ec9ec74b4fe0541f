"""Discovering source files, reading them exactly, and finding their git commit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import IngestError
from graphcite.ingest.files import FoundFile, discover, git_commit_for, read_file_bytes, read_text_file


def write(path: Path, content: str | bytes = "text\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# -------------------------------------------------------------------------------------------
# discover
# -------------------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(root / "b.md")
    write(root / "a.MARKDOWN")
    write(root / "sub" / "c.txt")
    write(root / "sub" / "page.htm")
    write(root / "sub" / "report.pdf", b"%PDF-1.4")
    write(root / "sub" / "report.pdf.meta.yaml", "kind: manual\n")
    write(root / "sub" / "code.py")
    write(root / "sub" / "code.meta.yaml", "kind: code\n")
    write(root / "orphan.meta.yaml", "title: x\n")
    write(root / "img.png", b"\x89PNG")
    write(root / "img2.PNG", b"\x89PNG")
    write(root / "Makefile")
    write(root / ".hidden.md")
    write(root / ".git" / "x.md")
    write(root / ".venv" / "lib.py")
    write(root / "__pycache__" / "m.py")
    write(root / "node_modules" / "dep.md")
    return root


def test_discover_folder_keys_formats_and_skips(tree: Path) -> None:
    found, skipped = discover([tree])
    assert [f.key for f in found] == ["a.MARKDOWN", "b.md", "sub/c.txt", "sub/code.py", "sub/page.htm",
                                      "sub/report.pdf"]
    assert {f.key: f.format for f in found} == {
        "a.MARKDOWN": "markdown", "b.md": "markdown", "sub/c.txt": "text", "sub/code.py": "python",
        "sub/page.htm": "html", "sub/report.pdf": "pdf"}
    assert skipped == {".png": 2, "(no extension)": 1}
    by_key = {f.key: f for f in found}
    assert by_key["sub/report.pdf"].sidecar == tree / "sub" / "report.pdf.meta.yaml"
    assert by_key["sub/code.py"].sidecar == tree / "sub" / "code.meta.yaml"
    assert by_key["b.md"].sidecar is None
    assert by_key["b.md"].path == tree / "b.md"


def test_discover_prefix_and_file_arguments(tree: Path) -> None:
    found, _ = discover([tree / "sub" / "c.txt", tree / "sub" / "report.pdf"], prefix="docs")
    assert [(f.key, f.format) for f in found] == [("docs/c.txt", "text"), ("docs/report.pdf", "pdf")]
    assert found[1].sidecar == tree / "sub" / "report.pdf.meta.yaml"
    found, _ = discover([tree / "sub"], prefix="v2/")
    assert [f.key for f in found] == ["v2/c.txt", "v2/code.py", "v2/page.htm", "v2/report.pdf"]


def test_discover_is_deterministic_and_frozen(tree: Path) -> None:
    first = discover([tree])
    assert discover([tree]) == first
    with pytest.raises(AttributeError):
        first[0][0].key = "other"  # type: ignore[misc]
    assert isinstance(first[0][0], FoundFile)


def test_missing_path_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(IngestError) as caught:
        discover([missing])
    assert caught.value.where == str(missing)
    assert caught.value.fix == "check the path"


def test_duplicate_keys_suggest_a_prefix(tmp_path: Path) -> None:
    write(tmp_path / "one" / "a.md")
    write(tmp_path / "two" / "a.md")
    with pytest.raises(IngestError, match="--prefix") as caught:
        discover([tmp_path / "one", tmp_path / "two"])
    assert "'a.md'" in caught.value.cause


def test_the_same_file_twice_is_listed_once(tmp_path: Path) -> None:
    write(tmp_path / "d" / "a.md")
    found, _ = discover([tmp_path / "d", tmp_path / "d" / "a.md"])
    assert [f.key for f in found] == ["a.md"]


def test_explicit_unsupported_file_is_counted(tmp_path: Path) -> None:
    found, skipped = discover([write(tmp_path / "pic.jpeg", b"\xff\xd8")])
    assert found == [] and skipped == {".jpeg": 1}


# -------------------------------------------------------------------------------------------
# read_text_file / read_file_bytes
# -------------------------------------------------------------------------------------------


def test_text_is_exact_crlf_and_whitespace_kept(tmp_path: Path) -> None:
    raw = "  Line one\r\nline two\rline three\n\n\t trailing  \n"
    path = write(tmp_path / "a.txt", raw.encode("utf-8"))
    assert read_text_file(path) == raw


def test_a_leading_bom_is_dropped_only_once(tmp_path: Path) -> None:
    path = write(tmp_path / "a.md", "\ufeff\ufeffTitle\n".encode())
    assert read_text_file(path) == "\ufeffTitle\n"


def test_binary_file(tmp_path: Path) -> None:
    path = write(tmp_path / "a.txt", b"abc\x00def")
    with pytest.raises(IngestError, match="binary file") as caught:
        read_text_file(path, where="docs/a.txt")
    assert caught.value.where == "docs/a.txt"


def test_utf16_file_is_named_as_such(tmp_path: Path) -> None:
    path = write(tmp_path / "a.txt", "hello".encode("utf-16"))
    with pytest.raises(IngestError, match="UTF-16") as caught:
        read_text_file(path)
    assert caught.value.fix == "re-save as UTF-8"


def test_invalid_utf8_names_byte_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "a.txt", b"ok\nfine\ncaf\xe9\n")
    with pytest.raises(IngestError) as caught:
        read_text_file(path)
    assert caught.value.cause == "invalid UTF-8 at byte 11 (line 3)"
    assert caught.value.fix == "re-save as UTF-8"
    assert caught.value.where == str(path)


@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n", "\ufeff \n".encode()])
def test_empty_files(tmp_path: Path, content: bytes) -> None:
    path = write(tmp_path / "a.md", content)
    with pytest.raises(IngestError, match="empty file") as caught:
        read_text_file(path)
    assert caught.value.fix == "remove it or add content"


def test_file_too_large_uses_stat_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(200_000_000)  # sparse: no disk used, never read
    with pytest.raises(IngestError) as caught:
        read_text_file(path)
    assert caught.value.cause == "file too large (200.0 MB > 100 MB limit)"
    assert caught.value.fix == "split it or raise --max-file-mb"
    small = write(tmp_path / "s.txt", "x" * 2000)
    with pytest.raises(IngestError, match=r"\(0\.0 MB > 0\.001 MB limit\)"):
        read_text_file(small, max_bytes=1000)
    assert read_text_file(small, max_bytes=2000) == "x" * 2000


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        read_text_file(tmp_path / "missing.md")
    with pytest.raises(IngestError, match="not a regular file"):
        read_text_file(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = write(tmp_path / "locked.md")
    path.chmod(0)
    try:
        with pytest.raises(IngestError, match="cannot read file"):
            read_text_file(path)
    finally:
        path.chmod(0o644)


def test_read_file_bytes(tmp_path: Path) -> None:
    path = write(tmp_path / "a.pdf", b"%PDF\x00\x01")
    assert read_file_bytes(path) == b"%PDF\x00\x01"
    with pytest.raises(IngestError, match="empty file"):
        read_file_bytes(write(tmp_path / "e.pdf", b""))


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1).filter(lambda t: not t.isspace() and "\x00" not in t and not t.startswith("\ufeff")))
def test_property_text_round_trips_exactly(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("rt") / "a.txt"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        with pytest.raises(IngestError, match="invalid UTF-8"):
            read_text_file(path)
    else:
        assert read_text_file(path) == text


# -------------------------------------------------------------------------------------------
# git_commit_for
# -------------------------------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org",
         "-c", "commit.gpgsign=false", *args],
        check=True, capture_output=True, text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root / "src" / "mod.py", "x = 1\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


@needs_git
def test_git_commit_loose_and_packed_refs(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    assert git_commit_for(repo / "src" / "mod.py") == head
    assert git_commit_for(repo) == head
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert git_commit_for(repo / "src" / "mod.py") == head


@needs_git
def test_git_commit_detached_head_and_worktree(repo: Path, tmp_path: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    write(repo / "src" / "mod.py", "x = 2\n")
    git(repo, "commit", "-q", "-am", "second")
    second = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", first)
    assert git_commit_for(repo / "src" / "mod.py") == first
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), first)
    assert git_commit_for(tmp_path / "wt" / "src" / "mod.py") == first
    assert git_commit_for(repo / "src" / "mod.py") == second


def test_no_repository_gives_none(tmp_path: Path) -> None:
    path = write(tmp_path / "plain" / "a.py")
    if any((parent / ".git").exists() for parent in path.parents):
        pytest.skip("the temporary folder is inside a git work tree")
    assert git_commit_for(path) is None
