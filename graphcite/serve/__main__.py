"""``python -m graphcite.serve``: the ``serve`` command on its own (the same as ``graphcite serve``)."""

from __future__ import annotations

import typer

from graphcite.cli.common import OneLineErrors, handles_errors
from graphcite.cli.serve import serve_command

app = typer.Typer(cls=OneLineErrors, add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
app.command()(handles_errors(serve_command))

if __name__ == "__main__":
    app(prog_name="graphcite serve")
