"""Control characters (U+0001 ...) in corpus text, keys or claims: GraphML and GEXF stay well-formed XML 1.0.

XML 1.0 cannot carry most C0 control characters even as character references, so they are written
as visible ``\\uXXXX`` escapes, counted in ``xml_replaced_characters`` and reported as a warning.
Every output is parsed with lxml (which rejects what XML 1.0 forbids) and read back with networkx.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from graphcite.export import export, export_graph
from graphcite.export.networkx_formats import XML_FORBIDDEN, flat_graph, xml_safe
from graphcite.graph import build_graph
from graphcite.store import Store

CONTROL = "\x01\x02\x08\x0b\x0c\x0e\x1f\ufffe"
GEXF_XSD = Path(__file__).parent / "data" / "gexf-1.2draft" / "gexf.xsd"


def parse(path: Path) -> etree._ElementTree:
    return etree.parse(str(path), etree.XMLParser(recover=False, huge_tree=True))


@pytest.fixture(scope="module")
def control_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose file name, unit text and claim hold control characters."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    root = tmp_path_factory.mktemp("control")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "queue\x02notes.md").write_text(
        "---\ntitle: Queue notes\n---\n# Queue\n\nThe queue\x01 holds 12 jobs\x0b at most.\n", encoding="utf-8")
    with Store(root / "c.duckdb") as store:
        ingest(store, [corpus])
        check_answer(store, {"answer_id": "control", "claims": [
            {"text": "The queue\x01 holds 12 jobs at most.",
             "citations": [{"source": "queue\x02notes.md", "quote": "The queue\x01 holds 12 jobs"}]}]})
    return root / "c.duckdb"


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_ingested_control_characters_give_well_formed_xml(fmt: str, control_db: Path, tmp_path: Path) -> None:
    out = tmp_path / f"g.{fmt}"
    with Store(control_db, read_only=True) as store:
        summary = export(store, fmt, out, answer="control")
    tree = parse(out)
    text = out.read_text(encoding="utf-8")
    assert not XML_FORBIDDEN.search(text) and "&#1;" not in text
    assert "The queue\\u0001 holds 12 jobs" in text and "queue\\u0002notes.md" in text
    assert summary["xml_replaced_characters"] >= 3
    assert any("XML 1.0 forbids" in w for w in summary["warnings"])
    if fmt == "graphml":
        graph = nx.read_graphml(out, force_multigraph=True)
        assert graph.graph["xml_replaced_characters"] == summary["xml_replaced_characters"]
    else:
        assert tree.find(".//{*}meta/{*}description").text.startswith("xml_replaced_characters:")
        assert etree.XMLSchema(etree.parse(str(GEXF_XSD))).validate(tree)


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_control_characters_anywhere_in_the_graph(fmt: str, export_store: Store, tmp_path: Path) -> None:
    G = build_graph(export_store, answer="lineage-demo")
    claim = next(n for n, d in G.nodes(data=True) if d["kind"] == "claim")
    G.nodes[claim]["text"] = f"bad {CONTROL} text \ud800"  # a lone surrogate, as json.loads can produce
    G.nodes[claim]["parts"] = [{"text": "part\x03"}]
    G.graph["answer_id"] = "answer\x04"
    G.add_node("source:evil\x05key", kind="source", key="evil\x05key", label="x\x06")
    G.add_edge(claim, "source:evil\x05key", key="cites", kind="cites", reason="r\x07")
    out = tmp_path / f"g.{fmt}"
    summary = export_graph(export_store, G, fmt, out)
    parse(out)
    text = out.read_text(encoding="utf-8")
    assert not XML_FORBIDDEN.search(text)
    assert "evil\\u0005key" in text and "\\ud800" in text
    # text 8 + the surrogate; answer_id; node id, key and label; edge target id and reason (parts are JSON,
    # whose text already escapes control characters)
    assert summary["xml_replaced_characters"] == len(CONTROL) + 1 + 1 + 3 + 2
    if fmt == "graphml":
        back = nx.read_graphml(out, force_multigraph=True)
        assert back.number_of_nodes() == G.number_of_nodes()


def test_clean_graph_reports_nothing(export_store: Store, tmp_path: Path) -> None:
    summary = export(export_store, "graphml", tmp_path / "g.graphml", answer="lineage-demo")
    assert "xml_replaced_characters" not in summary and summary["warnings"] == []
    assert "xml_replaced_characters" not in (tmp_path / "g.graphml").read_text()


def test_json_formats_keep_control_characters_exactly(export_store: Store, tmp_path: Path) -> None:
    G = build_graph(export_store, answer="lineage-demo")
    claim = next(n for n, d in G.nodes(data=True) if d["kind"] == "claim")
    G.nodes[claim]["text"] = "keep\x01me"
    export_graph(export_store, G, "json", tmp_path / "g.json")
    data: dict[str, Any] = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert any(n.get("text") == "keep\x01me" for n in data["nodes"])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40))
def test_xml_safe_output_always_parses(text: str) -> None:
    clean, replaced = xml_safe(text)
    assert replaced == len(XML_FORBIDDEN.findall(text))
    assert replaced or clean == text
    element = etree.Element("v")
    element.text = clean  # lxml refuses anything XML 1.0 forbids
    assert etree.fromstring(etree.tostring(element, encoding="utf-8")).text in {clean, None}


def test_flat_graph_without_xml_is_unchanged() -> None:
    G = nx.MultiDiGraph()
    G.add_node("a\x01", text="b\x02")
    H = flat_graph(G)
    assert list(H.nodes(data=True)) == [("a\x01", {"text": "b\x02"})]


def test_cli_prints_the_replacement_warning(control_db: Path, tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from graphcite.cli.graph import register

    app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (test app)"""

    register(app)
    result = CliRunner().invoke(app, ["export", "--format", "gexf", "--out", str(tmp_path / "g.gexf"),
                                      "--answer", "control", "--db", str(control_db)])
    assert result.exit_code == 0, result.output
    assert "warning: " in result.stderr and "XML 1.0 forbids" in result.stderr
    parse(tmp_path / "g.gexf")
