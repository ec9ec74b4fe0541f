"""Parquet: one file per store table, holding the rows a claim, an answer or the whole store involves.

The selection is the same as for the graph formats (claims, their answers, citations, every
verification record, the cited and contradicting units with their typed values, the revisions and
sources reached through lineage, the links in force). For the public audience, rows of restricted
sources keep their place under placeholder identifiers but lose their text, titles, paths and typed
values, and every JSON report is scrubbed the same way the graph is.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from graphcite.errors import OutputError
from graphcite.graph.build import Fetched, Redactor, Selection, fetch, ids_filter, redactor_for, rows_for_ids
from graphcite.store import TABLES, Store

__all__ = ["PARQUET_TABLES", "write_parquet"]

PARQUET_TABLES = ("source", "source_revision", "evidence_unit", "typed_value", "source_link", "answer", "claim",
                  "citation", "verification", "annotation")


def _arrow(store: Store, table: str, sql: str, column: str, ids: list[str]) -> pa.Table:
    """Rows of ``table`` whose ``column`` is in ``ids``, as Arrow, in the table's column order."""
    names = ", ".join(f'"{n}"' for n in TABLES[table].model_fields)
    with ids_filter(store, column, ids) as (fragment, values):
        query = sql.replace("{cols}", names).replace("{ids}", fragment)
        relation = store.con.sql(query, params=values or None)
        # DuckDB 2 calls it to_arrow_table; 1.x calls it arrow
        return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()


def _scrub_json(value: Any, red: Redactor) -> Any:
    if isinstance(value, dict):
        return {k: _scrub_json(v, red) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_json(v, red) for v in value]
    return red.scrub(value)


def _scrub_report(report: dict[str, Any], red: Redactor) -> dict[str, Any]:
    """A claim report with restricted citations and contradicting units emptied, identifiers replaced."""
    restricted_idx = set()
    for cit in report.get("citations", []):
        if red.is_restricted(key=cit.get("source"), revision=cit.get("revision"), unit=cit.get("unit_id")):
            restricted_idx.add(cit["index"])
            for name in ("quote", "start", "end", "page", "symbol", "chunk_id"):
                cit[name] = None
            cit["heading_path"] = []
            cit["restricted"] = True
            for finding in cit.get("findings", []):
                finding["detail"] = ""
    for part in report.get("parts", []):
        for verdict in part.get("citations", []):
            if verdict.get("index") in restricted_idx:
                for finding in verdict.get("findings", []):
                    finding["detail"] = ""
    kept = []
    for item in report.get("contradicting_evidence", []):
        if red.is_restricted(key=item.get("source"), unit=item.get("unit_id")):
            item = {"unit_id": item.get("unit_id"), "source": item.get("source"), "status": item.get("status"),
                    "restricted": True}
        kept.append(item)
    report["contradicting_evidence"] = kept
    if restricted_idx:
        report["relies_on_restricted"] = True
    return _scrub_json(report, red)


def _scrub_answer(content: dict[str, Any], red: Redactor) -> dict[str, Any]:
    for claim in content.get("claims", []):
        for cit in claim.get("citations", []):
            if red.is_restricted(key=cit.get("source"), revision=cit.get("revision"), unit=cit.get("chunk_id")):
                for name in ("quote", "start", "end", "page", "page_end"):
                    cit.pop(name, None)
                cit["restricted"] = True
    return _scrub_json(content, red)


def _redact_rows(table: str, rows: list[dict[str, Any]], red: Redactor) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        row = dict(row)
        if table == "source":
            if red.is_restricted(key=row["key"]):
                row.update(title=None)
            row["key"], row["current_revision"] = red.key(row["key"]), red.revision(row["current_revision"])
        elif table == "source_revision":
            if red.is_restricted(revision=row["revision_id"]):
                row.update(text=None, title=None, path=None, metadata_json="{}", content_hash=None, git_commit=None)
            row["revision_id"] = red.revision(row["revision_id"])
            row["previous_revision"] = red.revision(row["previous_revision"])
            row["source_key"] = red.key(row["source_key"])
        elif table == "evidence_unit":
            if red.is_restricted(unit=row["unit_id"]):
                row.update(text=None, heading_path_json="[]", status_cue=None, page=None, symbol=None,
                           table_headers_json=None, start=None, end=None, line_start=None, line_end=None)
            row["unit_id"], row["revision_id"] = red.unit(row["unit_id"]), red.revision(row["revision_id"])
            row["source_key"] = red.key(row["source_key"])
        elif table == "typed_value":
            if red.is_restricted(unit=row["unit_id"]):
                continue
        elif table == "source_link":
            row["from_key"], row["to_key"] = red.key(row["from_key"]), red.key(row["to_key"])
            row["declared_in"] = red.revision(row["declared_in"])
        elif table == "answer":
            row["content_json"] = json.dumps(_scrub_answer(json.loads(row["content_json"]), red), ensure_ascii=False)
        elif table == "citation":
            if red.is_restricted(key=row["source_key"], revision=row["revision"], unit=row["chunk_id"]):
                row.update(quote=None, start=None, end=None, page=None)
            row["source_key"], row["revision"] = red.key(row["source_key"]), red.revision(row["revision"])
            row["chunk_id"] = red.unit(row["chunk_id"])
        elif table == "verification":
            row["result_json"] = json.dumps(_scrub_report(json.loads(row["result_json"]), red), ensure_ascii=False,
                                            sort_keys=True)
            row["evidence_revisions_json"] = json.dumps(
                [red.revision(r) for r in json.loads(row["evidence_revisions_json"] or "[]")])
        elif table == "annotation":
            row["rationale"] = red.scrub(row["rationale"])
            row["source_revision"] = red.revision(row["source_revision"])
        out.append(row)
    return out


def _queries(store: Store, selection: Selection, got: Fetched) -> dict[str, Callable[[], pa.Table]]:
    parents = selection.claim_ids
    claim_rows = rows_for_ids(store, "SELECT claim_id, answer_rev FROM claim WHERE {ids} OR parent_id IN "
                           "(SELECT claim_id FROM claim WHERE {ids})", "claim_id", parents)
    claims = sorted({r["claim_id"] for r in claim_rows})
    answers = sorted({r["answer_rev"] for r in claim_rows})
    links = {(link["from_key"], link["to_key"], link["relation"]) for link in got.links}
    keys = sorted({k for link in links for k in link[:2]} | set(got.sources))

    def source_links() -> pa.Table:
        table = _arrow(store, "source_link", "SELECT {cols} FROM source_link WHERE {ids} ORDER BY link_id",
                       "from_key", keys)
        current = {r["revision_id"] for r in got.revisions.values()}
        mask = [(f, t, r) in links and d in current for f, t, r, d in zip(
            table["from_key"].to_pylist(), table["to_key"].to_pylist(), table["relation"].to_pylist(),
            table["declared_in"].to_pylist(), strict=True)]
        return table.filter(pa.array(mask, type=pa.bool_())) if len(table) else table

    return {
        "source": lambda: _arrow(store, "source", "SELECT {cols} FROM source WHERE {ids} ORDER BY key", "key",
                                 sorted(got.sources)),
        "source_revision": lambda: _arrow(store, "source_revision", "SELECT {cols} FROM source_revision "
                                          "WHERE {ids} ORDER BY source_key, seq", "revision_id", sorted(got.revisions)),
        "evidence_unit": lambda: _arrow(store, "evidence_unit", "SELECT {cols} FROM evidence_unit WHERE {ids} "
                                        "ORDER BY source_key, ordinal", "unit_id", sorted(got.units)),
        "typed_value": lambda: _arrow(store, "typed_value", "SELECT {cols} FROM typed_value WHERE {ids} "
                                      "ORDER BY unit_id, start", "unit_id", sorted(got.units)),
        "source_link": source_links,
        "answer": lambda: _arrow(store, "answer", "SELECT {cols} FROM answer WHERE {ids} ORDER BY answer_rev",
                                 "answer_rev", answers),
        "claim": lambda: _arrow(store, "claim", "SELECT {cols} FROM claim WHERE {ids} ORDER BY answer_rev, ordinal, "
                                "part NULLS FIRST", "claim_id", claims),
        "citation": lambda: _arrow(store, "citation", "SELECT {cols} FROM citation WHERE {ids} "
                                   "ORDER BY claim_id, ordinal", "claim_id", parents),
        "verification": lambda: _arrow(store, "verification", "SELECT {cols} FROM verification WHERE {ids} "
                                       "ORDER BY claim_id, verified_at, record_id", "claim_id", parents),
        "annotation": lambda: _arrow(store, "annotation", "SELECT {cols} FROM annotation WHERE {ids} "
                                     "ORDER BY claim_id, created_at, annotation_id", "claim_id", parents),
    }


def _write(table: pa.Table, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"cannot write: {exc.strerror or exc}", where=str(path), fix="check the folder") from exc


def write_parquet(store: Store, selection: Selection, folder: Path, *, audience: str = "internal") -> dict[str, Any]:
    """Write ``folder/TABLE.parquet`` for every table in :data:`PARQUET_TABLES`; returns row counts."""
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create folder: {exc.strerror or exc}", where=str(folder),
                          fix="choose a writable --out") from exc
    got = fetch(store, selection)
    red = redactor_for(got, audience)
    counts: dict[str, int] = {}
    for name, query in _queries(store, selection, got).items():
        table = query()
        if red.active:
            table = pa.Table.from_pylist(_redact_rows(name, table.to_pylist(), red), schema=table.schema)
        _write(table, folder / f"{name}.parquet")
        counts[name] = table.num_rows
    return {"format": "parquet", "path": str(folder), "audience": audience, "claims": len(selection.claim_ids),
            "tables": counts}
