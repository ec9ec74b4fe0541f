"""Ingest's rows stay the same rows: a stored expectation for a value-dense sample.

The speed work on ingest (parsing, values, the term index, the writes) must not change a single
row, because verdicts are read from these rows. The sample is ``data/golden`` (front matter, heading
lineage, tables with unit headers, nested lists, quotes, code, CRLF, non-ASCII letters whose lowercase
is longer, URLs and hashes full of digits, a paragraph over the unit limit, plain text) plus the
bundled example corpus (PDF, Python and sidecar metadata too). Every row of every table ingest writes
is compared with ``data/golden_rows.json``, on both engines.

The expectation changes only on purpose: ``GRAPHCITE_UPDATE_GOLDEN=1 pytest tests/ingest/test_golden_rows.py``
rewrites it (then review the diff).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from graphcite.ingest import ingest
from graphcite.store import Store

HERE = Path(__file__).parent
SAMPLE = HERE / "data" / "golden"
EXAMPLES = HERE.parents[1] / "graphcite" / "examples" / "corpus"
EXPECTED = HERE / "data" / "golden_rows.json"

#: table -> (the columns compared, the key that orders the rows). Timestamps are left out (they are
#: the time of the ingest); revision and unit text are checked against the files instead of stored.
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "source": (("key", "title", "kind", "visibility", "current_revision"), ("key",)),
    "source_revision": (("revision_id", "source_key", "content_hash", "format", "effective", "status", "title",
                         "kind", "visibility", "metadata_json", "path", "git_commit", "build_role", "seq",
                         "previous_revision"), ("revision_id",)),
    "evidence_unit": (("unit_id", "revision_id", "source_key", "ordinal", "start", "end", "block_type",
                       "heading_path_json", "status", "status_cue", "page", "symbol", "line_start", "line_end",
                       "table_headers_json"), ("unit_id",)),
    "typed_value": (("value_id", "unit_id", "revision_id", "start", "end", "surface", "magnitude", "low", "high",
                     "unit", "dimensionality", "kind", "counted_noun", "measured", "bound", "role"), ("value_id",)),
    "source_link": (("link_id", "from_key", "to_key", "relation", "declared_in"), ("link_id",)),
}


def _select(columns: tuple[str, ...], table: str, order: tuple[str, ...]) -> str:
    quoted = ", ".join(f'"{column}"' for column in columns)
    return f"SELECT {quoted} FROM {table} ORDER BY {', '.join(order)}"


def _plain(item: Any) -> Any:
    """A stored item as JSON has it (dates as ISO text)."""
    return item.isoformat() if isinstance(item, dt.date) else item


def stored_rows(store: Store) -> dict[str, Any]:
    """Every table ingest writes, as lists of rows in key order (postings as each unit's sorted terms)."""
    found: dict[str, Any] = {}
    for table, (columns, order) in TABLES.items():
        found[table] = {"columns": list(columns),
                        "rows": [[_plain(item) for item in row] for row in store.tuples(_select(columns, table, order))]}
    terms: dict[str, list[str]] = {}
    for term, unit_id in store.tuples("SELECT term, unit_id FROM term_posting ORDER BY unit_id, term"):
        terms.setdefault(unit_id, []).append(term)
    found["term_posting"] = terms
    return found


def _corpus(tmp_path: Path) -> Path:
    """The sample and the example corpus in one folder outside any git work tree (``git_commit`` is None)."""
    folder = tmp_path / "golden"
    shutil.copytree(EXAMPLES, folder)  # at the top, so the corpus's own lineage keys resolve
    shutil.copytree(SAMPLE, folder / "sample")
    return folder


def _dump(rows: dict[str, Any]) -> str:
    lines = ["{"]
    for index, (table, content) in enumerate(rows.items()):
        comma = "," if index < len(rows) - 1 else ""
        if table == "term_posting":
            body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in content.items())
            lines.append(f'"{table}": {{\n{body}\n}}{comma}')
        else:
            body = ",\n".join(f"  {json.dumps(row, ensure_ascii=False)}" for row in content["rows"])
            lines.append(f'"{table}": {{"columns": {json.dumps(content["columns"])}, "rows": [\n{body}\n]}}{comma}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_ingest_writes_the_stored_rows(db_url: str, tmp_path: Path) -> None:
    folder = _corpus(tmp_path)
    with Store(db_url) as store:
        report = ingest(store, [folder])
        found = stored_rows(store)
        texts = {row[0]: row[1] for row in store.tuples("SELECT revision_id, text FROM source_revision")}
        for revision_id, start, end, text in store.tuples("SELECT revision_id, start, \"end\", text FROM evidence_unit"):
            assert texts[revision_id][start:end] == text
        for revision_id, start, end, surface in store.tuples(
                "SELECT revision_id, start, \"end\", surface FROM typed_value"):
            assert texts[revision_id][start:end] == surface
    assert report.units > 500 and report.values > 700 and report.postings > 5000 and not report.dangling
    if os.environ.get("GRAPHCITE_UPDATE_GOLDEN") == "1":
        if "duckdb" not in db_url and "://" in db_url:
            pytest.skip("the expectation is written from the DuckDB run")
        EXPECTED.write_text(_dump(found), encoding="utf-8")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    for table in TABLES:
        assert found[table]["columns"] == expected[table]["columns"]
        assert len(found[table]["rows"]) == len(expected[table]["rows"]), table
        for got, want in zip(found[table]["rows"], expected[table]["rows"], strict=True):
            assert got == want, table
    assert found["term_posting"] == expected["term_posting"]


def test_the_expectation_is_value_dense() -> None:
    """The sample exercises what the speed work touches: many values of many kinds, cut units, tables."""
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    values = expected["typed_value"]
    kinds = {row[values["columns"].index("kind")] for row in values["rows"]}
    assert {"quantity", "count", "percent", "money", "date", "version"} <= kinds
    units = expected["evidence_unit"]
    block_types = {row[units["columns"].index("block_type")] for row in units["rows"]}
    assert {"heading", "paragraph", "list_item", "table_row", "code", "block_quote"} <= block_types
