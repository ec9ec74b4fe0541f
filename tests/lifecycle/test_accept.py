"""Scoped acceptance: recorded for one task and destination, listed with its scope, lapsing by date or by
a new source revision; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from conftest import DR017
from typer.testing import CliRunner

from graphcite.errors import InputError, NotFoundError
from graphcite.lifecycle import accept, acceptances, stale
from graphcite.lifecycle.accept import acceptance_table_exists
from graphcite.store import Store

TODAY = dt.date(2026, 6, 1)


def test_acceptance_is_scoped_to_its_task(checked_db: tuple[Path, dict[str, Any]],
                                          open_copy: Callable[[Path], Store]) -> None:
    store = open_copy(checked_db[0])
    claim = checked_db[1]["claims"][0]
    record = accept(store, claim["claim_id"], task="draft-12", destination="relay runbook", while_current=True,
                    reviewer="ines", today=TODAY)
    assert record["state"] == "active" and record["answer_rev"] == checked_db[1]["answer_rev"]
    relied = store.row("SELECT record_id, status FROM verification WHERE claim_id = ?", [claim["claim_id"]])
    assert record["verification_record"] == relied["record_id"]
    assert record["verification_status"] == relied["status"] == "supported"
    cited = {(c["unit_id"], c["revision"]) for c in claim["citations"]}
    assert {(e["unit_id"], e["revision_id"]) for e in record["evidence"]} == cited
    assert [e["source_key"] for e in record["evidence"]] == [DR017]

    listed = acceptances(store, claim["claim_id"], today=TODAY)
    assert [a["acceptance_id"] for a in listed] == [record["acceptance_id"]]
    assert listed[0]["scope"] == "task 'draft-12' → 'relay runbook', while the cited revisions are current"
    assert acceptances(store, claim["claim_id"], task="another-task", today=TODAY) == []
    other = checked_db[1]["claims"][1]["claim_id"]
    assert acceptances(store, other, today=TODAY) == []  # acceptance of one claim is not another's


def test_expired_acceptance_is_reported_lapsed(checked_db: tuple[Path, dict[str, Any]],
                                               open_copy: Callable[[Path], Store]) -> None:
    store = open_copy(checked_db[0])
    claim_id = checked_db[1]["claims"][2]["claim_id"]
    accept(store, claim_id, task="t", destination="faq", expires="2026-06-30", today=TODAY)
    [active] = acceptances(store, claim_id, today=dt.date(2026, 6, 29))
    assert active["state"] == "active" and active["expires"] == "2026-06-30"
    [lapsed] = acceptances(store, claim_id, today=dt.date(2026, 6, 30))
    assert lapsed["state"] == "lapsed" and lapsed["lapsed_because"] == ["expired on 2026-06-30"]


def test_while_current_acceptance_lapses_after_reingest(checked_db: tuple[Path, dict[str, Any]],
                                                       changed_corpus: Path,
                                                       open_copy: Callable[[Path], Store]) -> None:
    from graphcite.ingest import ingest

    store = open_copy(checked_db[0])
    claims = checked_db[1]["claims"]
    accept(store, claims[0]["claim_id"], task="t", destination="d", while_current=True)
    accept(store, claims[6]["claim_id"], task="t", destination="d", while_current=True)
    ingest(store, [changed_corpus])
    [changed] = acceptances(store, claims[0]["claim_id"])
    assert changed["state"] == "lapsed"
    assert changed["lapsed_because"] == [f"{DR017}@{claims[0]['citations'][0]['revision']} is no longer the "
                                         "current revision"]
    [kept] = acceptances(store, claims[6]["claim_id"])
    assert kept["state"] == "active"
    relied = {r["kind"] for c in stale(store) if c["claim_id"] == claims[0]["claim_id"] for r in c["relied"]}
    assert relied == {"verification", "acceptance"}
    with pytest.raises(InputError) as refused:  # accepting stale evidence "while current" makes no sense
        accept(store, claims[1]["claim_id"], task="t", destination="d", while_current=True)
    assert refused.value.code == "E101" and "recheck --stale" in str(refused.value)

    # recheck and accept again for the same scope: the claim is no longer stale, the lapsed acceptance stays
    from graphcite.lifecycle import recheck_stale

    recheck_stale(store)
    assert [c["relied"][0]["kind"] for c in stale(store)] == ["acceptance"]
    accept(store, claims[0]["claim_id"], task="t", destination="d", while_current=True)
    assert stale(store) == []
    assert [a["state"] for a in acceptances(store, claims[0]["claim_id"])] == ["lapsed", "active"]


@pytest.mark.parametrize(("claim", "options", "code"), [
    ("cdoesnotexist000", [], "E504"),
    (None, ["--expires", "2020-01-01"], "E101"),
    (None, ["--expires", "next week"], "E101"),
    (None, ["--task", " "], "E101"),
])
def test_cli_refuses_bad_input_and_writes_nothing(app: typer.Typer, checked_db: tuple[Path, dict[str, Any]],
                                                   copy_db: Callable[[Path], Path], claim: str | None,
                                                   options: list[str], code: str) -> None:
    db = copy_db(checked_db[0])
    claim_id = claim or checked_db[1]["claims"][0]["claim_id"]
    args = ["accept", claim_id, "--task", "t", "--destination", "d", *options, "--db", str(db)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {code} ")
    with Store(db, read_only=True) as store:
        assert not acceptance_table_exists(store) or not store.scalar("SELECT count(*) FROM acceptance")


def test_library_refuses_unknown_claim(checked_db: tuple[Path, dict[str, Any]],
                                       open_copy: Callable[[Path], Store]) -> None:
    store = open_copy(checked_db[0])
    with pytest.raises(NotFoundError) as missing:
        accept(store, "c123", task="t", destination="d")
    assert missing.value.code == "E504"
    with pytest.raises(NotFoundError):
        acceptances(store, "c123")


def test_cli_accept_and_list(app: typer.Typer, checked_db: tuple[Path, dict[str, Any]],
                             copy_db: Callable[[Path], Path]) -> None:
    runner = CliRunner()
    db = str(copy_db(checked_db[0]))
    claim_id = checked_db[1]["claims"][5]["claim_id"]
    tomorrow = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)).isoformat()
    done = runner.invoke(app, ["accept", claim_id, "--task", "draft-3", "--destination", "support FAQ",
                               "--expires", tomorrow, "--db", db])
    assert done.exit_code == 0, done.output
    assert f"accepted {claim_id}" in done.output and "task 'draft-3'" in done.output
    listed = runner.invoke(app, ["acceptances", claim_id, "--db", db, "--json"])
    assert listed.exit_code == 0
    [row] = json.loads(listed.output)
    assert row["task"] == "draft-3" and row["destination"] == "support FAQ" and row["state"] == "active"
    other = runner.invoke(app, ["acceptances", claim_id, "--task", "draft-4", "--db", db])
    assert other.exit_code == 0 and "not accepted for any use for task 'draft-4'" in other.output
