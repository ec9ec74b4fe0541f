"""JSON Schemas generated from the models and the DDL snapshot, kept in schema/ and checked by a test.

Run ``python scripts/build_schemas.py`` to rewrite them after changing a model (the test never rewrites).
"""

from __future__ import annotations

import json
from pathlib import Path

from graphcite.store import TABLES, ddl_statements

__all__ = ["ddl_snapshot", "model_schemas", "report_schema", "write_schemas"]


def model_schemas() -> dict[str, str]:
    """File name -> JSON Schema text for every table model."""
    out = {}
    for name, model in sorted(TABLES.items()):
        schema = model.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[f"table-{name}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def report_schema() -> str:
    """The JSON Schema of ``graphcite check --json``, generated from the typed report (CheckReport)."""
    from pydantic import TypeAdapter

    from graphcite.models import CheckReport

    schema = TypeAdapter(CheckReport).json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://graphcite.invalid/schema/check-report.schema.json"
    schema["title"] = "graphcite check --json report (generated from graphcite.models.CheckReport)"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def ddl_snapshot() -> str:
    """The DuckDB DDL the store runs, one statement per block."""
    return "\n\n".join(s.rstrip() + ";" for s in ddl_statements()) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every generated schema and the DDL snapshot into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    generated = {**model_schemas(), "check-report.schema.json": report_schema(), "ddl.sql": ddl_snapshot()}
    for name, text in generated.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written

