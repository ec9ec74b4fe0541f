"""Reviewers: tokens shown once and stored as salted scrypt hashes, signed sessions, and the CLI group."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphcite.cli.common import OneLineErrors
from graphcite.errors import InputError
from graphcite.serve.reviewers import (
    add_reviewer,
    list_reviewers,
    read_session,
    reviewer_for_token,
    sign_session,
)
from graphcite.store import Store

runner = CliRunner()


def test_token_is_returned_once_and_only_its_hash_is_stored(tmp_path: Path) -> None:
    with Store(tmp_path / "r.duckdb") as store:
        row, token = add_reviewer(store, "  Ana Lima ")
        _, other = add_reviewer(store, "ben")
        assert row["name"] == "Ana Lima" and token.startswith("gc1.") and len(token) > 50
        stored = store.rows("SELECT * FROM reviewer ORDER BY name")
        dump = repr(stored)
        assert token not in dump and token.rsplit(".", 1)[1] not in dump and other not in dump
        assert stored[0]["salt"] != stored[1]["salt"] and len(bytes.fromhex(stored[0]["salt"])) == 16
        salt = bytes.fromhex(stored[0]["salt"])
        assert stored[0]["token_hash"] == hashlib.scrypt(token.encode(), salt=salt, n=2**14, r=8, p=1,
                                                         dklen=32).hex()
        assert reviewer_for_token(store, token) == "Ana Lima" and reviewer_for_token(store, other) == "ben"
        assert reviewer_for_token(store, f" {token}\n") == "Ana Lima"
        for wrong in ("", "gc1", token[:-1] + ("A" if token[-1] != "A" else "B"), token + "x",
                      other.rsplit(".", 1)[0] + "." + token.rsplit(".", 1)[1], "gc2." + token[4:], "x" * 5000):
            assert reviewer_for_token(store, wrong) is None, wrong
        assert [r["name"] for r in list_reviewers(store)] == ["Ana Lima", "ben"]
        assert set(list_reviewers(store)[0]) == {"name", "created_at"}


@pytest.mark.parametrize("name", ["", "   ", "-dash", "a" * 65, "tab\there", "new\nline", "<script>"])
def test_unusable_names_are_refused(tmp_path: Path, name: str) -> None:
    with Store(tmp_path / "r.duckdb") as store, pytest.raises(InputError, match="reviewer name"):
        add_reviewer(store, name)


def test_a_name_gets_one_token(tmp_path: Path) -> None:
    with Store(tmp_path / "r.duckdb") as store:
        _, first = add_reviewer(store, "ana")
        with pytest.raises(InputError, match="already exists") as raised:
            add_reviewer(store, "ana")
        assert raised.value.code == "E101"
        assert reviewer_for_token(store, first) == "ana"


def test_a_store_from_before_reviewers_reads_as_none(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    Store(db).close()
    with Store(db, read_only=True) as store:
        assert list_reviewers(store) == []
        assert reviewer_for_token(store, "gc1.YW5h.secret") is None


def test_sessions_are_signed_and_expire() -> None:
    key, other_key = b"k" * 32, b"o" * 32
    now = time.time()
    value = sign_session(key, "Zoë", now=now, seconds=60)
    assert read_session(key, value, now=now + 59) == "Zoë"
    assert read_session(key, value, now=now + 61) is None
    assert read_session(other_key, value, now=now) is None
    name, expires, signature = value.split(".")
    longer = f"{name}.{int(expires) + 10_000}.{signature}"
    assert read_session(key, longer, now=now) is None
    for damaged in (None, "", "a.b", "a.b.c.d", value + "x", "é.1.x", "." * 500):
        assert read_session(key, damaged, now=now) is None


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    from graphcite.cli.reviewers import register

    main = typer.Typer(cls=OneLineErrors, add_completion=False, rich_markup_mode=None)

    @main.command()
    def other() -> None:
        """A second command, so `reviewers` is a subcommand as in the real app."""

    register(main)
    return main


def test_cli_add_prints_the_token_alone_and_list_never_shows_it(app: typer.Typer, tmp_path: Path) -> None:
    db = str(tmp_path / "cli.duckdb")
    added = runner.invoke(app, ["reviewers", "add", "ana", "--db", db])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    assert token.startswith("gc1.") and "\n" not in token and "shown only now" in added.stderr
    listed = runner.invoke(app, ["reviewers", "list", "--db", db])
    assert listed.exit_code == 0 and listed.stdout.startswith("ana\t") and token not in listed.output
    as_json = runner.invoke(app, ["reviewers", "list", "--db", db, "--json"])
    assert '"name": "ana"' in as_json.stdout and "token" not in as_json.stdout
    again = runner.invoke(app, ["reviewers", "add", "ana", "--db", db])
    assert again.exit_code == 2 and again.output.startswith("error: E101") and "Traceback" not in again.output
    with Store(db, read_only=True) as store:
        assert reviewer_for_token(store, token) == "ana"
    for args in (["reviewers", "--help"], ["reviewers", "add", "--help"], ["reviewers", "list", "--help"]):
        shown = runner.invoke(app, args)
        assert shown.exit_code == 0 and len(shown.output) > 60


def test_cli_list_of_an_empty_store(app: typer.Typer, tmp_path: Path) -> None:
    db = tmp_path / "empty.duckdb"
    Store(db).close()
    listed = runner.invoke(app, ["reviewers", "list", "--db", str(db)])
    assert listed.exit_code == 0 and listed.stdout == "" and "no reviewers yet" in listed.stderr
