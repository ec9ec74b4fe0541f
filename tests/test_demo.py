"""The demo runs end to end on the bundled corpus: both reports, the metrics and the review page."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from graphcite.cli.demo import run_demo


def test_demo_runs_on_the_bundled_corpus(tmp_path: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=140, color_system=None)
    results = run_demo(db=str(tmp_path / "demo.duckdb"), out_dir=tmp_path / "out", console=console)
    text = buffer.getvalue()
    assert "clean answer" in text and "traps answer" in text
    assert results["clean"]["citation_validity"] > results["traps"]["citation_validity"]
    assert results["traps"]["faithfulness"] == 0.0
    assert "✔ supported" in text and "citation_validity" in text
    if (tmp_path / "out" / "review.html").exists():
        assert "<html" in (tmp_path / "out" / "review.html").read_text(encoding="utf-8").lower()
