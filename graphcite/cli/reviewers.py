"""``graphcite reviewers``: who may record judgements through ``graphcite serve``.

Thin wrappers over :func:`graphcite.serve.reviewers.add_reviewer` and
:func:`~graphcite.serve.reviewers.list_reviewers`. ``add`` prints the new token once, alone on stdout
(so ``TOKEN=$(graphcite reviewers add ana)`` works); the store keeps only its salted scrypt hash.
``graphcite.cli`` calls :func:`register` to add the group to the main app.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from graphcite.cli.common import DbOption, err, handles_errors, open_cli_store, print_json

__all__ = ["add_command", "list_command", "register"]


def add_command(
    name: Annotated[str, typer.Argument(help="the reviewer's name, as judgements will show it")],
    db: DbOption = None,
) -> None:
    """Add a reviewer and print their token once (only its hash is stored; it cannot be shown again)."""
    from graphcite.serve.reviewers import add_reviewer

    with open_cli_store(db) as store:
        row, token = add_reviewer(store, name)
    sys.stdout.write(token + "\n")
    err.print(f"reviewer {row['name']!r} added. The token above is shown only now: give it to them; they sign in "
              "at /review/sign-in or send it as 'Authorization: Bearer TOKEN'.", markup=False)


def list_command(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array on stdout")] = False,
) -> None:
    """List reviewers: name and when they were added (never a token or a hash)."""
    from graphcite.serve.reviewers import list_reviewers

    with open_cli_store(db, read_only=True) as store:
        rows = list_reviewers(store)
    if as_json:
        print_json(rows)
        return
    if not rows:
        err.print("no reviewers yet: add one with `graphcite reviewers add NAME`", markup=False)
        return
    for row in rows:
        sys.stdout.write(f"{row['name']}\t{row['created_at']}\n")


def register(app: typer.Typer) -> None:
    """Add the ``reviewers`` group (``add``, ``list``) to ``app``."""
    group = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                        help="Reviewers who may record judgements in `graphcite serve` (tokens, hashed).")
    group.command("add")(handles_errors(add_command))
    group.command("list")(handles_errors(list_command))
    app.add_typer(group, name="reviewers")
