"""Bad export input: unknown format or id, missing or unwritable folder, wrong kind of path."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from graphcite.errors import GraphciteError, NotFoundError, OutputError
from graphcite.export import check_output, export
from graphcite.store import Store


def test_missing_folder(export_store: Store, tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="folder does not exist"):
        export(export_store, "json", tmp_path / "nope" / "g.json", answer="lineage-demo")
    assert not (tmp_path / "nope").exists()


def test_folder_given_for_a_file_and_file_given_for_parquet(export_store: Store, tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a folder"):
        export(export_store, "html", tmp_path, answer="lineage-demo")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="must be a folder"):
        export(export_store, "parquet", tmp_path / "file", answer="lineage-demo")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only folders")
def test_unwritable_folder(export_store: Store, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="not writable"):
            export(export_store, "json", locked / "g.json", answer="lineage-demo")
    finally:
        locked.chmod(0o700)


def test_unknown_format_and_ids(export_store: Store, tmp_path: Path, export_report: dict[str, Any]) -> None:
    with pytest.raises(GraphciteError, match="unknown format 'svg'"):
        export(export_store, "svg", tmp_path / "g.svg", answer="lineage-demo")
    with pytest.raises(NotFoundError, match="no answer 'nobody'"):
        export(export_store, "json", tmp_path / "g.json", answer="nobody")
    with pytest.raises(NotFoundError, match="no claim"):
        export(export_store, "json", tmp_path / "g.json", claim="c0000")
    with pytest.raises(GraphciteError, match="unknown audience"):
        export(export_store, "json", tmp_path / "g.json", answer="lineage-demo", audience="world")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_leaves_no_partial_file(export_store: Store, tmp_path: Path) -> None:
    target = tmp_path / "g.json"
    export(export_store, "json", target, answer="lineage-demo")
    before = target.read_bytes()
    with pytest.raises(NotFoundError):
        export(export_store, "json", target, claim="c0000")
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_check_output_returns_the_path(tmp_path: Path) -> None:
    assert check_output(tmp_path / "x.json").path == tmp_path / "x.json"
    assert check_output(tmp_path / "x.json").kind == "new"
    assert check_output(tmp_path / "out", folder=True).kind == "new-folder"
