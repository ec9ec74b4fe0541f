"""The demo runs end to end on the bundled corpus: both reports, the metrics and the review page."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from graphcite.cli.demo import run_demo


def test_demo_runs_on_the_bundled_corpus(tmp_path: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None)  # as wide as a pipe
    results = run_demo(db=str(tmp_path / "demo.duckdb"), out_dir=tmp_path / "out", console=console)
    text = buffer.getvalue()
    assert "clean answer" in text and "traps answer" in text
    assert results["clean"]["citation_validity"] > results["traps"]["citation_validity"]
    assert results["traps"]["faithfulness"] == 0.0
    assert "✔ supported" in text and "citation_validity" in text
    assert "…" not in text  # no title or table cut to the width
    flat = " ".join(text.split())  # a console as wide as a pipe wraps long lines
    assert flat.count("decided by the demo's configuration (examples/verifier.yaml") == 2
    assert "the configuration given, named by its hash (one hash of every setting" in flat
    assert "of the items gold does not support, the share called supported" in flat
    page = (tmp_path / "out" / "review.html").read_text(encoding="utf-8")
    assert page.count('<section id="answer-') == 2 and "Answer demo-clean</h2>" in page
