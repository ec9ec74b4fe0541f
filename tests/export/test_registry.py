"""Export formats are a registry (issue 25): a new format is one module and one ``@exporter`` registration;
the bundled ones are registered by name, so listing them imports none of their dependencies."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from graphcite.export import FORMATS, registry
from graphcite.export.output import OutputTarget, open_output
from graphcite.export.registry import ExportFormat, exporter, exporters, format_names, get_exporter
from graphcite.store import Store


@pytest.fixture
def edge_list() -> Iterator[None]:
    """A test format 'edges' (one 'from to kind' line per edge), registered for the test and removed after."""

    @exporter(ExportFormat("edges", "plain edge list", suffix=".txt", order=90))
    def write_edges(store: Store, G: nx.MultiDiGraph, target: OutputTarget) -> dict[str, Any]:
        with open_output(target) as handle:
            for u, v, key in G.edges(keys=True):
                handle.write(f"{u} {v} {key}\n")
        return {"edges_written": G.number_of_edges()}

    yield
    registry._REGISTRY.pop("edges", None)


def test_the_registry_holds_exactly_the_bundled_formats() -> None:
    assert format_names() == FORMATS
    assert format_names(graph_only=True) == tuple(f for f in FORMATS if f != "parquet")
    parquet, html = get_exporter("parquet"), get_exporter("html")
    assert parquet is not None and not parquet.info.graph and parquet.info.folder
    assert html is not None and not html.info.caps_excerpts and html.info.graph
    for found in exporters():  # every bundled writer resolves to a function of its module
        assert callable(found.writer()) and found.writer().__name__ == found.function


def test_a_registered_format_writes_through_the_registry(edge_list: None, export_store: Store, tmp_path: Path) -> None:
    from graphcite.export.output import output_target
    from graphcite.graph.build import build_graph, select

    assert "edges" in format_names() and format_names()[-1] == "edges"
    G = build_graph(export_store, selection=select(export_store, answer="lineage-demo"))
    out = tmp_path / "graph.txt"
    summary = get_exporter("edges").write(export_store, G, output_target(out))  # type: ignore[union-attr]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert summary == {"edges_written": G.number_of_edges()} and len(lines) == G.number_of_edges() > 0
    assert any(line.endswith(" cites") for line in lines)


def test_a_name_cannot_be_registered_twice(edge_list: None) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        registry.register_lazy(ExportFormat("edges", "another edge list"), "graphcite.export.html", "write_html")


def test_listing_the_formats_imports_no_writer() -> None:
    code = ("import sys, json; from graphcite.export.registry import format_names; names = format_names(); "
            "print(json.dumps([names, [m for m in ('prov.model', 'pyarrow.parquet', 'graphcite.export.html', "
            "'graphcite.export.parquet', 'graphcite.export.prov') if m in sys.modules]]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    names, loaded = json.loads(result.stdout)
    assert tuple(names) == FORMATS and loaded == []


def test_export_accepts_a_registered_format(edge_list: None, export_store: Store, tmp_path: Path) -> None:
    from graphcite.export import export

    out = tmp_path / "all.txt"
    export(export_store, "edges", out, answer="lineage-demo")
    assert out.read_text(encoding="utf-8").count(" cites\n") > 0
