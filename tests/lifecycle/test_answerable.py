"""Answerability: each need of a plan is present, only superseded, only restricted, or missing; bad plans
are refused before the store is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphcite.errors import InputError
from graphcite.lifecycle import answerable, load_plan
from graphcite.store import Store

PLAN = {
    "plan": "why a timed-out Northpass label request is not retried",
    "needs": [
        {"id": "policy", "query": "label requests that time out are not retried automatically", "role": "policy"},
        {"id": "contract", "query": "Northpass does not offer a status lookup for label requests",
         "kind": "contract"},
        {"id": "old-note", "query": "The relay retries failed deliveries", "kind": "note"},
        {"id": "rotation", "query": "Signing secrets are rotated every 45 days"},
        {"id": "absent", "query": "penguins migrate to the relay console every winter"},
    ],
}


@pytest.fixture
def result_for(corpus_url: str):  # type: ignore[no-untyped-def]
    """The plan's result for an audience, on each engine."""

    def run(audience: str) -> dict[str, dict]:  # type: ignore[type-arg]
        with Store(corpus_url, read_only=True) as store:
            result = answerable(store, PLAN, audience=audience)
        return result

    return run


def test_needs_are_classified(result_for) -> None:  # type: ignore[no-untyped-def]
    result = result_for("public")
    states = {n["id"]: n["state"] for n in result["needs"]}
    assert states == {"policy": "present", "contract": "present", "old-note": "superseded_only",
                      "rotation": "missing", "absent": "missing"}  # a restricted source does not exist publicly
    assert result["answerable"] is False and result["audience"] == "public"
    contract = next(n for n in result["needs"] if n["id"] == "contract")
    assert contract["units"][0]["source"] == "contracts/northpass-adapter.md"
    assert all(u["kind"] == "contract" for u in contract["units"])
    policy = next(n for n in result["needs"] if n["id"] == "policy")
    assert all(u["kind"] in ("decision", "contract", "manual") for u in policy["units"])
    rotation = next(n for n in result["needs"] if n["id"] == "rotation")
    assert rotation["units"] == [] and rotation["unavailable"] == {}  # not even a count of restricted units


def test_internal_audience_sees_restricted_sources(result_for) -> None:  # type: ignore[no-untyped-def]
    rotation = next(n for n in result_for("internal")["needs"] if n["id"] == "rotation")
    assert rotation["state"] == "present"
    assert rotation["units"][0]["source"] == "manuals/signing-keys-internal.md"


def test_a_plan_whose_needs_are_all_present_is_answerable(corpus_url: str) -> None:
    plan = {"needs": [PLAN["needs"][1]]}
    with Store(corpus_url, read_only=True) as store:
        assert answerable(store, plan)["answerable"] is True


@pytest.mark.parametrize(("plan", "code", "where"), [
    ({"needs": [{"query": "x", "kind": "gossip"}]}, "E105", "needs[0].kind"),
    ({"needs": [{"query": "x", "role": "vibe"}]}, "E105", "needs[0].role"),
    ({"needs": []}, "E101", "needs"),
    ({"needs": [{"kind": "decision"}]}, "E101", "needs[0].query"),
    ({"needs": [{"query": "x"}], "audience": "everyone"}, "E104", None),
])
def test_bad_plans_are_refused(plan: dict, code: str, where: str | None) -> None:  # type: ignore[type-arg]
    with pytest.raises(InputError) as refused:
        load_plan(plan)
    assert refused.value.code == code
    if where:
        assert where in (refused.value.where or "")


def test_cli_answerable(app: typer.Typer, corpus_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    shown = runner.invoke(app, ["answerable", str(plan), "--audience", "public", "--db", str(corpus_db)])
    assert shown.exit_code == 0, shown.output
    assert "NOT answerable" in shown.output and "superseded_only" in shown.output
    as_json = runner.invoke(app, ["answerable", str(plan), "--db", str(corpus_db), "--json"])
    assert as_json.exit_code == 0 and json.loads(as_json.output)["audience"] == "internal"

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"needs": [{"query": "x", "kind": "gossip"}]}), encoding="utf-8")
    refused = runner.invoke(app, ["answerable", str(bad), "--db", str(corpus_db)])
    assert refused.exit_code == 2
    [line] = refused.output.strip().splitlines()
    assert line.startswith("error: E105 ") and "needs[0].kind" in line
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert runner.invoke(app, ["answerable", str(broken), "--db", str(corpus_db)]).exit_code == 2
    missing = runner.invoke(app, ["answerable", str(tmp_path / "nope.json"), "--db", str(corpus_db)])
    assert missing.exit_code == 2 and "error: E101" in missing.output
