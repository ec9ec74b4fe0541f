"""The error catalogue: codes, classes, stdlib bases, old call sites, the CLI line and `graphcite errors`."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphcite.cli import app
from graphcite.errors import (
    AREAS,
    CATALOGUE,
    AnswerFormatError,
    ConfigError,
    GraphciteError,
    IngestError,
    InputError,
    NotFoundError,
    OutputError,
    StoreError,
    StoreLockedError,
    explain_error,
    make_error,
)

ROOT = Path(__file__).resolve().parents[1]
CLASSES = [GraphciteError, InputError, AnswerFormatError, IngestError, ConfigError, StoreError, StoreLockedError,
           NotFoundError, OutputError]
runner = CliRunner()


def test_every_code_is_well_formed_unique_and_in_its_area() -> None:
    assert len(CATALOGUE) == len({s.code for s in CATALOGUE.values()})
    for code, spec in CATALOGUE.items():
        assert re.fullmatch(r"E\d{3}", code) and spec.code == code
        assert code[1] in AREAS
        assert spec.message and spec.cause and spec.fix
        assert spec.kind in {cls.__name__ for cls in CLASSES}


@pytest.mark.parametrize("cls", CLASSES)
def test_each_class_has_a_default_code_of_its_own_kind(cls: type[GraphciteError]) -> None:
    spec = CATALOGUE[cls.default_code]
    assert spec.kind == cls.__name__
    error = cls("something is off", where="here", fix="do this")
    assert error.code == cls.default_code
    assert str(error) == "here: something is off (do this)"


@pytest.mark.parametrize(("cls", "base"), [(InputError, ValueError), (AnswerFormatError, ValueError),
                                           (IngestError, ValueError), (ConfigError, ValueError),
                                           (NotFoundError, KeyError), (OutputError, OSError),
                                           (StoreError, RuntimeError), (StoreLockedError, RuntimeError)])
def test_classes_inherit_their_stdlib_type(cls: type[GraphciteError], base: type[Exception]) -> None:
    with pytest.raises(base):
        raise cls("x")
    with pytest.raises(GraphciteError):
        raise cls("x")


def test_old_call_sites_keep_working_and_accept_a_code() -> None:
    error = NotFoundError("no claim 'c1'", where="CLAIM", fix="take an id from check --json")
    assert (error.code, error.cause, error.where, error.fix) == ("E501", "no claim 'c1'", "CLAIM",
                                                                "take an id from check --json")
    assert str(error) == "CLAIM: no claim 'c1' (take an id from check --json)"  # not quoted like KeyError
    coded = StoreError("not a graphcite store: x", where="s.duckdb", code="E603")
    assert coded.code == "E603" and isinstance(coded, RuntimeError)
    assert OutputError("cannot write", where="/x").as_dict() == {
        "code": "E701", "message": "/x: cannot write", "where": "/x", "cause": "cannot write", "fix": None}


def test_make_error_formats_the_template_and_picks_the_class() -> None:
    error = make_error("E204", where="claims", count=10_001, limit=10_000)
    assert isinstance(error, AnswerFormatError) and isinstance(error, ValueError)
    assert error.cause == "the answer has 10,001 claims, over the limit of 10,000"
    assert error.fix == CATALOGUE["E204"].fix
    found = make_error("E502", where="ANSWER", ref="demo-clen", fix="did you mean 'demo-clean'?")
    assert isinstance(found, NotFoundError) and found.fix == "did you mean 'demo-clean'?"
    assert isinstance(make_error("E105", what="format", value="x", choices="a, b"), InputError)
    assert make_error("E105", what="format", value="x", choices="a, b").fix == "use one of a, b"


@pytest.mark.parametrize("cls", CLASSES)
def test_errors_survive_pickling_for_worker_processes(cls: type[GraphciteError]) -> None:
    error = cls("bad thing", where="w", fix="f", code="E101")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error)


def test_explain_and_the_errors_command() -> None:
    assert explain_error("e502").startswith("E502 NotFoundError (not found)")
    with pytest.raises(NotFoundError):
        explain_error("E999")
    listed = runner.invoke(app, ["errors", "--json"])
    assert listed.exit_code == 0
    assert [row["code"] for row in json.loads(listed.output)] == list(CATALOGUE)
    explained = runner.invoke(app, ["errors", "explain", "E205"])
    assert explained.exit_code == 0 and "E088" in explained.output
    unknown = runner.invoke(app, ["errors", "explain", "E999"])
    assert unknown.exit_code == 2 and unknown.output.startswith("error: E501 CODE: no error code 'E999'")


def test_cli_prints_the_code_on_the_error_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["history", "c000", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 2
    assert re.match(r"error: E6\d\d ", result.output)


OWNED = ["graphcite/errors.py", "graphcite/cli/app.py", "graphcite/cli/common.py", "graphcite/claims/markers.py",
         "graphcite/claims/answers.py", "graphcite/verify/resolve.py", "graphcite/verify/check.py",
         "graphcite/verify/locate.py", "graphcite/cli/formats.py",
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "graphcite" / "claims" / "formats").glob("*.py"))]


@pytest.mark.parametrize("path", OWNED)
def test_no_bare_base_class_raises(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert not re.search(r"raise GraphciteError\(", text), f"{path} raises the bare base class"


def _buggy_app() -> typer.Typer:
    from graphcite.cli.common import OneLineErrors

    buggy = typer.Typer(cls=OneLineErrors, add_completion=False)

    @buggy.command()
    def divide(by: int) -> None:
        """Divide one by BY (a bug when BY is 0)."""
        print(1 / by)

    @buggy.command()
    def other() -> None:
        """A second command, so the group keeps its subcommands."""

    return buggy


def test_a_bug_is_one_line_with_e009_and_exit_70(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHCITE_DEBUG", raising=False)
    result = runner.invoke(_buggy_app(), ["divide", "0"])
    assert result.exit_code == 70
    assert result.output.strip() == ("error: E009 internal error (ZeroDivisionError: division by zero) "
                                     "(rerun with GRAPHCITE_DEBUG=1 to see the traceback and report it)")
    usage = runner.invoke(_buggy_app(), ["divide", "zero"])
    assert usage.exit_code == 2 and usage.output.startswith("error: E102 Invalid value for 'by'")
    monkeypatch.setenv("GRAPHCITE_DEBUG", "1")
    debug = runner.invoke(_buggy_app(), ["divide", "0"])
    assert isinstance(debug.exception, ZeroDivisionError)
