"""CLI command ``graphcite formats``: the accepted answer formats, each with one example.

A thin wrapper, sqlite-utils style, over :func:`graphcite.claims.formats.list_formats`: a table of
every format (what it reads, its offset unit, its example file), or one format with its example
printed in full; ``--json`` for machines. ``graphcite.cli`` calls :func:`register` to add it.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from graphcite.cli.common import JsonOption, handles_errors, out, print_json
from graphcite.cli.render import print_table

__all__ = ["formats_command", "register"]


def formats_command(name: Annotated[str | None, typer.Argument(
                        help="one format: print its example in full")] = None,
                    as_json: JsonOption = False) -> None:
    """List the accepted answer formats with one example each (detected automatically by check)."""
    from graphcite.claims.formats import list_formats

    rows = list_formats(name)
    if as_json:
        print_json(rows)
        return
    if name is None:
        table = Table("format", "producer", "reads", "offsets", "example")
        for row in rows:
            table.add_row(row["format"], Text(row["producer"]), Text(row["reads"]), Text(row["offsets"]),
                          Text(row["example"].rsplit("/", 1)[-1]))
        print_table(table)
        out.print("Formats are detected; --format forces one. Examples are in schema/examples/, schemas in "
                  "schema/answer-NAME.schema.json; `graphcite formats NAME` prints one example.", markup=False)
        return
    row = rows[0]
    out.print(Text(f"{row['format']}: {row['producer']}\nreads: {row['reads']}\noffsets: {row['offsets']}"))
    if row["schema"]:
        out.print(Text(f"schema: {row['schema']}"))
    out.print(Text(f"example ({row['example']}):"))
    out.print(Text(row["example_text"] if row["example_text"] is not None
                   else "(the example is in the graphcite repository, not in the installed package)"))


def register(app: typer.Typer) -> None:
    """Add ``formats`` to ``app``."""
    app.command("formats")(handles_errors(formats_command))
