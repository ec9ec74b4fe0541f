"""Parquet: one file per store table, holding the rows a claim, an answer or the whole store involves.

The selection is the same as for the graph formats (claims, their answers, citations, every
verification record made for the export's audience (:mod:`graphcite.audience`), the cited and contradicting units with their typed values, the revisions and
sources reached through lineage, the links in force). For the public audience rows of restricted
sources keep their place under placeholder identifiers but lose their text, titles, kinds, dates,
paths and typed values; the links they declare are left out; every JSON report is scrubbed the way
the graph is; and a claim whose text is withheld
(restricted origin, see :mod:`graphcite.graph.redact`) keeps only its ids and verdicts. A last pass
replaces any restricted identifier or title left in any string of any table. The answer, claim, citation
and verification rows of an answer a public check stored are its asker's words and public verdicts: they
are written as they are (:func:`graphcite.audience.as_written`).

The tables are written into a new sibling folder that replaces ``--out`` in one step
(:func:`graphcite.export.output.output_folder`), so a killed export never leaves a half folder or a
mix of old and new tables.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from graphcite.audience import WITHHELD_RATIONALE, audience_view
from graphcite.export.output import OutputTarget, output_folder
from graphcite.graph.build import Fetched, Selection, fetch
from graphcite.graph.redact import (
    WITHHELD_TEXT,
    Redactor,
    redactor_for,
    scrub_answer,
    scrub_report,
    withheld_claims,
)
from graphcite.store import Store
from graphcite.store.queries.export import claim_family, table_rows

__all__ = ["PARQUET_FILES", "PARQUET_TABLES", "write_parquet"]

PARQUET_TABLES = ("source", "source_revision", "evidence_unit", "typed_value", "source_link", "answer", "claim",
                  "citation", "verification", "annotation")
PARQUET_FILES = frozenset(f"{t}.parquet" for t in PARQUET_TABLES)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


#: The rows of a stored answer that hold its asker's words or a check's verdict of them (not a reviewer's).
_ASKERS_TABLES = frozenset({"answer", "claim", "citation", "verification"})


class _Public:
    """The public redaction of store rows: placeholders, withheld claims, and a final scrub of every string."""

    def __init__(self, red: Redactor, withheld: Mapping[str, str], claim_rows: list[dict[str, Any]],
                 own_words: set[str] | frozenset[str] = frozenset()) -> None:
        self.red = red
        self.withheld = dict(withheld)
        self.own_words = own_words
        self.answer_of = {row["claim_id"]: row["answer_rev"] for row in claim_rows}
        held_ordinals: dict[str, set[int]] = {}
        for row in claim_rows:  # atomic parts share their parent's fate
            parent = row["parent_id"] or row["claim_id"]
            if parent in withheld:
                self.withheld[row["claim_id"]] = withheld[parent]
                if row["parent_id"] is None:
                    held_ordinals.setdefault(row["answer_rev"], set()).add(row["ordinal"])
        self.held_ordinals = held_ordinals

    def _answer(self, row: dict[str, Any]) -> None:
        content = json.loads(row["content_json"])
        held = self.held_ordinals.get(row["answer_rev"], set())
        flags = [i in held for i in range(len(content.get("claims") or []))]
        row["content_json"] = _dumps(scrub_answer(content, self.red, flags))

    def row(self, table: str, row: dict[str, Any]) -> dict[str, Any] | None:
        """The public version of one row, or None to leave it out."""
        red = self.red
        if table in _ASKERS_TABLES and (row.get("answer_rev") or self.answer_of.get(row.get("claim_id"))) in self.own_words:
            return row  # a public asker's own words and their public verdicts, as written (audience.as_written)
        if table == "source" and red.is_restricted(key=row["key"]):  # when it was ingested is its own too
            row.update(title=None, kind=None, first_ingested_at=None)
        elif table == "source_revision" and red.is_restricted(revision=row["revision_id"]):
            row.update(text=None, title=None, path=None, metadata_json="{}", content_hash=None, git_commit=None,
                       kind=None, effective=None, build_role=None, format=None, ingested_at=None,
                       visibility="restricted")  # an old public revision of a restricted source is restricted
        elif table == "evidence_unit" and red.is_restricted(unit=row["unit_id"]):
            row.update(text=None, heading_path_json="[]", status_cue=None, page=None, symbol=None,
                       table_headers_json=None, start=None, end=None, line_start=None, line_end=None)
        elif table == "typed_value" and red.is_restricted(unit=row["unit_id"]):
            return None
        elif table == "source_link" and red.is_restricted(revision=row["declared_in"]):
            return None  # the lineage a restricted document declares is its own, restricted, text
        elif table == "answer":
            self._answer(row)
        elif table == "claim" and row["claim_id"] in self.withheld:
            row.update(text=WITHHELD_TEXT, atomic_json="{}")
        elif table == "citation" and (row["claim_id"] in self.withheld or red.is_restricted(
                key=row["source_key"], revision=row["revision"], unit=row["chunk_id"])):
            row.update(quote=None, start=None, end=None, page=None)
        elif table == "verification":
            report = json.loads(row["result_json"])
            row["result_json"] = _dumps(scrub_report(report, red, withheld=self.withheld.get(row["claim_id"])))
        elif table == "annotation" and row["claim_id"] in self.withheld:
            row["rationale"] = WITHHELD_RATIONALE
        return {k: self._scrub_column(k, v) for k, v in row.items()}

    def _scrub_column(self, name: str, value: Any) -> Any:
        """The last pass: any restricted id or title left in a string (JSON columns parsed first)."""
        if isinstance(value, str) and name.endswith("_json"):
            try:
                return _dumps(self.red.scrub_json(json.loads(value)))
            except ValueError:
                pass
        return self.red.scrub(value)

    def table(self, name: str, table: pa.Table) -> pa.Table:
        found = table.to_pylist()
        self.red.prefetch([found, [_json_or_none(v) for row in found for k, v in row.items() if k.endswith("_json")]])
        rows = [r for r in (self.row(name, dict(row)) for row in found) if r is not None]
        return pa.Table.from_pylist(rows, schema=table.schema)


def _json_or_none(value: Any) -> Any:
    """A JSON column's value parsed (None when it is not JSON): the ids inside it, asked about with its row's."""
    try:
        return json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _queries(store: Store, selection: Selection, got: Fetched) -> dict[str, Callable[[], pa.Table]]:
    parents = selection.claim_ids
    claim_rows = claim_family(store, parents)
    claims = sorted({r["claim_id"] for r in claim_rows})
    answers = sorted({r["answer_rev"] for r in claim_rows})
    links = {(link["from_key"], link["to_key"], link["relation"]) for link in got.links}
    keys = sorted({k for link in links for k in link[:2]} | set(got.sources))

    def source_links() -> pa.Table:
        table = table_rows(store, "source_link", keys)
        current = {r["revision_id"] for r in got.revisions.values()}
        mask = [(f, t, r) in links and d in current for f, t, r, d in zip(
            table["from_key"].to_pylist(), table["to_key"].to_pylist(), table["relation"].to_pylist(),
            table["declared_in"].to_pylist(), strict=True)]
        return table.filter(pa.array(mask, type=pa.bool_())) if len(table) else table

    return {
        "source": lambda: table_rows(store, "source", got.sources),
        "source_revision": lambda: table_rows(store, "source_revision", got.revisions),
        "evidence_unit": lambda: table_rows(store, "evidence_unit", got.units),
        "typed_value": lambda: table_rows(store, "typed_value", got.units),
        "source_link": source_links,
        "answer": lambda: table_rows(store, "answer", answers),
        "claim": lambda: table_rows(store, "claim", claims),
        "citation": lambda: table_rows(store, "citation", parents),
        "verification": lambda: table_rows(store, "verification", parents),
        "annotation": lambda: table_rows(store, "annotation", parents),
    }


def write_parquet(store: Store, selection: Selection, target: OutputTarget, *,
                  audience: str = "internal") -> dict[str, Any]:
    """Write ``TABLE.parquet`` for every table in :data:`PARQUET_TABLES` into the folder ``target``.

    Returns the row counts per table and the number of claims whose text was withheld.
    """
    got = fetch(store, selection, audience=audience)
    view = audience_view(store, audience, restricted=got.restricted)
    red = redactor_for(got, audience)
    public = None
    if red.active:
        public = _Public(red, withheld_claims(store, got, red), claim_family(store, selection.claim_ids), got.own_words)
    counts: dict[str, int] = {}
    with output_folder(target, allowed=PARQUET_FILES) as folder:
        for name, query in _queries(store, selection, got).items():
            table = query()
            if name == "verification":  # a record speaks for the audience it was made for, no other
                table = table.filter(pa.array([view.sees_record({"audience": a}) for a in
                                               table["audience"].to_pylist()], type=pa.bool_()))
            if public is not None:
                table = public.table(name, table)
            pq.write_table(table, folder / f"{name}.parquet")
            counts[name] = table.num_rows
    withheld = sum(1 for c in selection.claim_ids if public is not None and c in public.withheld)
    return {"format": "parquet", "path": str(target), "audience": audience, "claims": len(selection.claim_ids),
            "withheld_claims": withheld, "tables": counts, "warnings": []}
