"""--audience public leaves no trace of a restricted source anywhere: every export format, chain, audit.

The corpus (restricted_corpus.py) was built for this: restricted kinds, titles, dates, figures and a
term found nowhere public, lineage of their own (``hidden-upstream.md``), and verification records
made for the internal audience before the public ones. Each test searches the whole output for every
restricted key, id, kind and figure (case-insensitively), and checks that the internal output does
hold them, so the search itself is shown to work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pyarrow.parquet as pq
import pytest
import typer
from restricted_corpus import CLAIMS, HIDDEN_UPSTREAM, WITHHELD, secrets
from typer.testing import CliRunner

from graphcite.cli.graph import register
from graphcite.export import FORMATS, export
from graphcite.graph import audit_independence, build_graph, chain
from graphcite.graph.redact import WITHHELD_TEXT
from graphcite.store import Store

SELECTIONS = ({"answer": "restricted-demo"}, {"all": True})


def output_text(path: Path) -> str:
    """Everything an export holds as text: parquet tables decoded row by row, with their raw bytes' strings."""
    if path.is_dir():
        return "\n".join(json.dumps(pq.read_table(p).to_pylist(), default=str, ensure_ascii=False)
                         for p in sorted(path.glob("*.parquet")))
    return path.read_text(encoding="utf-8")


def leaks(text: str, store: Store) -> list[str]:
    low = text.lower()
    return [s for s in secrets(store) if s.lower() in low]


@pytest.fixture(scope="module")
def exports(restricted_store: Store, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, int], str]:
    """The text of every format x audience x selection, exported once for the module."""
    folder = tmp_path_factory.mktemp("restricted-exports")
    out = {}
    for fmt in FORMATS:
        for audience in ("internal", "public"):
            for i, selection in enumerate(SELECTIONS):
                path = folder / f"{fmt}-{audience}-{i}"
                summary = export(restricted_store, fmt, path, audience=audience, **selection)
                assert summary["withheld_claims"] == (len(WITHHELD) if audience == "public" else 0)
                out[(fmt, audience, i)] = output_text(path)
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_public_export_has_no_restricted_trace(fmt: str, exports: dict[tuple[str, str, int], str],
                                               restricted_store: Store) -> None:
    for i in range(len(SELECTIONS)):
        assert len(leaks(exports[(fmt, "internal", i)], restricted_store)) >= 5, fmt  # the search finds them
        assert leaks(exports[(fmt, "public", i)], restricted_store) == [], (fmt, SELECTIONS[i])


@pytest.mark.parametrize("fmt", FORMATS)
def test_withheld_claims_say_so_and_clean_claims_stay(fmt: str, exports: dict[tuple[str, str, int], str]) -> None:
    public = exports[(fmt, "public", 0)]
    internal = exports[(fmt, "internal", 0)]
    for name in WITHHELD:
        assert CLAIMS[name] not in public, name
    for name in ("clean_schedule", "clean_timeout", "contradicted_by_restricted"):
        assert CLAIMS[name] in public and CLAIMS[name] in internal, name
    assert WITHHELD_TEXT not in internal
    assert CLAIMS["names_restricted_key"] in internal
    assert "Webhook deliveries time out after 30 seconds, as restricted-source-" in public
    assert WITHHELD_TEXT in public
    assert "restricted-origin" in public  # the reason is given


def test_public_graph_keeps_the_shape_without_the_restricted_lineage(restricted_store: Store) -> None:
    internal = build_graph(restricted_store, answer="restricted-demo")
    public = build_graph(restricted_store, answer="restricted-demo", audience="public")
    assert ("source:posts/rotation.md", "source:ops/runbook.md", "derived_from") in internal.edges(keys=True)
    assert f"source:{HIDDEN_UPSTREAM}" in internal  # a dangling lineage target of the runbook
    placeholder = next(v for _, v, k in public.out_edges("source:posts/rotation.md", keys=True) if k == "derived_from")
    assert placeholder.startswith("source:restricted-source-")
    data = public.nodes[placeholder]
    assert data["source_kind"] is None and data["title"] is None and data["effective"] is None
    assert list(public.out_edges(placeholder, keys=True)) == []  # its lineage and supersession are its own text
    assert public.graph["dangling"] == [] and HIDDEN_UPSTREAM not in json.dumps(nx.node_link_data(
        public, edges="edges"), default=str)
    assert public.graph["withheld_claims"] == len(WITHHELD)


def test_chain_and_audit_independence_public(restricted_store: Store) -> None:
    assert len(leaks(json.dumps(chain(restricted_store, "restricted-demo"), default=str), restricted_store)) >= 5
    public_chain = chain(restricted_store, "restricted-demo", audience="public")
    assert leaks(json.dumps(public_chain, default=str), restricted_store) == []
    withheld = [c for c in public_chain["claims"] if c["withheld"]]
    assert len(withheld) == len(WITHHELD) and all(c["text"] == WITHHELD_TEXT for c in withheld)
    assert all(c["withheld_reason"].startswith("restricted-origin") for c in withheld)
    audit = audit_independence(restricted_store, all=True, audience="public", include_unsupported=True)
    assert audit and leaks(json.dumps(audit, default=str), restricted_store) == []
    internal_audit = audit_independence(restricted_store, all=True, include_unsupported=True)
    assert leaks(json.dumps(internal_audit, default=str), restricted_store)


def test_cli_chain_and_audit_print_nothing_restricted(restricted_db: tuple[Path, dict[str, Any]],
                                                     restricted_store: Store) -> None:
    app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (test app)"""

    register(app)
    runner = CliRunner()
    db = str(restricted_db[0])
    for args in (["chain", "restricted-demo"], ["chain", "restricted-demo", "--json"],
                 ["audit", "independence", "--all"], ["audit", "independence", "--all", "--json"],
                 ["audit", "conflicts", "--json"]):
        result = runner.invoke(app, [*args, "--db", db, "--audience", "public"])
        assert result.exit_code == 0, result.output
        assert leaks(result.output, restricted_store) == [], args
    internal = runner.invoke(app, ["chain", "restricted-demo", "--db", db])
    assert leaks(internal.output, restricted_store)
    claim_texts = runner.invoke(app, ["chain", "restricted-demo", "--db", db, "--audience", "public"]).output
    assert "claim text withheld: restricted-origin" in claim_texts


def test_public_parquet_holds_only_public_records_scrubbed(restricted_store: Store, tmp_path: Path) -> None:
    """Records carry their audience (issue 23 item 10): a public export holds the public records only, and
    a stored citation of a restricted key in them is reduced to its placeholder."""
    export(restricted_store, "parquet", tmp_path / "internal", answer="restricted-demo")
    export(restricted_store, "parquet", tmp_path / "pq", answer="restricted-demo", audience="public")
    internal = pq.read_table(tmp_path / "internal" / "verification.parquet").to_pylist()
    rows = pq.read_table(tmp_path / "pq" / "verification.parquet").to_pylist()
    assert {r["audience"] for r in internal} == {"internal"}
    assert {r["audience"] for r in rows} == {"public"} and len(rows) == len(internal)
    reports = [json.loads(r["result_json"]) for r in rows]
    timeout = [r for r in reports if r.get("text") == CLAIMS["clean_timeout"]]
    assert len(timeout) == 1
    restricted = [c for c in timeout[0]["citations"] if c.get("restricted")]
    assert len(restricted) == 1 and restricted[0]["source"].startswith("restricted-source-")
    assert set(restricted[0]) <= {"index", "relation", "valid", "role", "support_score", "unit_status", "source",
                                  "revision", "unit_id", "chunk_id", "findings", "restricted"}
    links = pq.read_table(tmp_path / "pq" / "source_link.parquet").to_pylist()
    assert {(r["from_key"], r["relation"]) for r in links} >= {("posts/rotation.md", "derived_from")}
    assert all(not r["from_key"].startswith("restricted-") for r in links)
