"""Write the generated JSON Schemas and the DDL snapshot into schema/ (or the folder given).

tests/test_store.py fails when schema/ is stale; run this script after changing a model or the DDL:

    python scripts/build_schemas.py [FOLDER]
"""

from __future__ import annotations

import sys
from pathlib import Path

from graphcite.schemas import write_schemas

TARGET = Path(__file__).resolve().parents[1] / "schema"


def main(argv: list[str]) -> int:
    """Write every schema file and name each one written."""
    folder = Path(argv[0]) if argv else TARGET
    for path in write_schemas(folder):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
