"""Chains and audits read through DuckDB statements kept parsed give what the statement texts gave.

graphcite.store.duck parses each statement text once per connection and runs the parsed statement
again with new parameters. Here every chain and independence audit of the lineage store is read
twice, in turns, through a store that keeps parsed statements and one that runs every text as text
(the path before), and every statement the first one ran is run again as text: same rows, same trees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from graphcite.graph import audit_independence, chain
from graphcite.store import Store


def _answers(store: Store, refs: list[str]) -> list[str]:
    out = []
    for ref in refs:
        out.append(json.dumps(chain(store, ref), sort_keys=True, default=str))
        out.append(json.dumps(audit_independence(store, ref), sort_keys=True, default=str))
        out.append(json.dumps(chain(store, ref, audience="public"), sort_keys=True, default=str))
    return out


def test_every_chain_and_audit_matches_the_text_path(lineage_db: tuple[Path, dict[str, Any]]) -> None:
    db, report = lineage_db
    refs = [c["claim_id"] for c in report["claims"]] + ["lineage-demo"]
    issued: list[tuple[str, Any, list[tuple[Any, ...]]]] = []
    with Store(db, read_only=True) as kept, Store(db, read_only=True) as text:
        text._statement = lambda sql: sql  # type: ignore[attr-defined]  # every statement parsed from its text
        text._parsed.clear()  # what opening the store read
        run = kept._run

        def record(sql: str, params: Any) -> Any:
            names, rows = run(sql, params)
            issued.append((sql, params, rows))
            return names, rows

        kept._run = record  # type: ignore[method-assign]
        first, second = _answers(kept, refs), _answers(kept, refs[::-1])
        expected = _answers(text, refs)
        del kept._run
        assert first == expected and second == _answers(text, refs[::-1])
        assert not text._parsed
        parsed = [s for s in kept._parsed.values() if isinstance(s, duckdb.Statement)]
        assert len(parsed) >= 5 and len(issued) > 3 * len(parsed)  # texts were run again with new parameters
        for sql, params, rows in issued:
            want = text.con.execute(sql, params or []).fetchall()
            if "ORDER BY" not in sql.upper():  # SQL promises no order then (DuckDB's threads vary it)
                rows, want = sorted(rows, key=repr), sorted(want, key=repr)
            assert rows == want, sql
