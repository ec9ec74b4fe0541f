"""Issue 23 item 10, the store side: a store written before records carried their audience (schema 3).

Session 8 added ``verification.audience`` without raising the schema version, so a store written
before then opens as current and every query that reads the column fails (E009 "Referenced column
audience not found"). Opened for writing, such a store must gain the column (schema 4): old records
of public checks, told by what only a public check wrote (a GC104 finding, or a GC953 whose detail
says "withheld"), become ``public``; the others here ``internal`` (the rules for the records that cannot
be told are in graphcite/store/columns.py and tests/verify/test_legacy_records.py). Opened read-only, it is either
read correctly or refused in one line that says to open it for writing; never an internal error.

The schema-3 file is made with DuckDB itself from a store graphcite wrote: the column dropped, the
version set back to 3 and the public records given the findings schema 3 wrote for them.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from graphcite.store import SCHEMA_VERSION, Store
from tests.conftest import KEYSTORE_RUNBOOK, ROTATION_POST

SECRET, POST = KEYSTORE_RUNBOOK, ROTATION_POST
ANSWER = {"answer_id": "upgrade-demo", "claims": [
    {"text": "Signing keys are rotated every 45 days.",  # cites the restricted runbook itself
     "citations": [{"source": "ops/keys.md", "quote": "Signing keys are rotated every 45 days."}]},
    {"text": "Signing keys are rotated on a fixed schedule.",
     "citations": [{"source": "posts/rotation.md", "quote": "Signing keys are rotated on a fixed schedule."}]},
]}
OLD_WITHHELD = "the claim's decisive content comes from a restricted source (withheld)"  # schema 3's public GC953


def _schema3_store(root: Path) -> tuple[Path, dict[str, str]]:
    """A store as schema 3 left it, and the audience each of its records was made for (record id -> audience)."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    corpus = root / "corpus"
    (corpus / "ops").mkdir(parents=True)
    (corpus / "posts").mkdir()
    (corpus / "ops" / "keys.md").write_text(SECRET, encoding="utf-8")
    (corpus / "posts" / "rotation.md").write_text(POST, encoding="utf-8")
    db = root / "v3.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
        check_answer(store, ANSWER, audience="internal")
        check_answer(store, ANSWER, audience="public")
    con = duckdb.connect(str(db))
    try:
        rows = con.execute("SELECT record_id, audience, result_json FROM verification ORDER BY record_id").fetchall()
        truth = {record: audience for record, audience, _ in rows}
        assert sorted(truth.values()) == ["internal", "internal", "public", "public"]
        for record, audience, result in rows:
            if audience != "public":
                continue
            claim = json.loads(result)
            for cit in claim["citations"]:  # schema 3 said GC104 where today's public check says GC101
                if cit.get("source") == "ops/keys.md":
                    for finding in cit["findings"]:
                        finding["code"] = "GC104" if finding["code"] == "GC101" else finding["code"]
            if claim["text"].endswith("fixed schedule."):  # schema 3 also ran the origin test publicly
                claim.setdefault("findings", []).append({"code": "GC953", "rule": "restricted-origin",
                                                         "outcome": "fail", "detail": OLD_WITHHELD})
            con.execute("UPDATE verification SET result_json = ? WHERE record_id = ?", [json.dumps(claim), record])
        assert con.execute("SELECT count(*) FROM verification WHERE result_json LIKE '%\"GC104\"%'").fetchone() == (1,)
        con.execute("DROP INDEX ix_verification_claim_id")  # as schema 3 had it: the same index, no column
        con.execute("ALTER TABLE verification DROP COLUMN audience")
        con.execute("CREATE INDEX ix_verification_claim_id ON verification (claim_id)")
        con.execute("UPDATE graphcite_meta SET value = '3' WHERE key = 'schema_version'")
        columns = {r[0] for r in con.execute("SELECT column_name FROM information_schema.columns "
                                             "WHERE table_name = 'verification'").fetchall()}
        assert "audience" not in columns and "result_json" in columns
    finally:
        con.close()
    return db, truth


@pytest.fixture(scope="module")
def schema3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return _schema3_store(tmp_path_factory.mktemp("schema3"))


def _copy(schema3: tuple[Path, dict[str, str]], tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "old.duckdb"
    shutil.copy(schema3[0], target)
    return target


def _raw(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def cli(*args: str) -> object:
    from graphcite.cli import app

    return CliRunner().invoke(app, list(args))


def test_opening_a_schema3_store_for_writing_adds_the_audience_column(schema3: tuple[Path, dict[str, str]],
                                                                        tmp_path: Path) -> None:
    db = _copy(schema3, tmp_path)
    with Store(db) as store:
        assert store.scalar("SELECT count(*) FROM verification") == 4
    columns = dict(_raw(db, "SELECT column_name, data_type FROM information_schema.columns "
                            "WHERE table_name = 'verification'"))
    assert columns.get("audience") == "VARCHAR"
    assert _raw(db, "SELECT value FROM graphcite_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert _raw(db, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'unit_parse'") == [(1,)]
    found = dict(_raw(db, "SELECT record_id, audience FROM verification"))
    assert found == schema3[1]  # GC104 and the withheld GC953 tell the public records; the rest are internal


def test_an_upgraded_store_keeps_internal_verdicts_internal(schema3: tuple[Path, dict[str, str]],
                                                            tmp_path: Path) -> None:
    db = _copy(schema3, tmp_path)
    with Store(db):
        pass  # the upgrade
    result = cli("chain", "upgrade-demo", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    statuses = [c["status"] for c in json.loads(result.output)["claims"]]
    assert statuses[0] != "invalid"  # the internal verdict of the claim citing the runbook, not the public GC104
    claim_id = json.loads(result.output)["claims"][0]["claim_id"]
    internal = cli("history", claim_id, "--db", str(db), "--json")
    assert internal.exit_code == 0, internal.output
    assert len(json.loads(internal.output)) == 1


def test_a_schema3_store_opened_read_only_is_read_or_refused_in_one_line(schema3: tuple[Path, dict[str, str]],
                                                                         tmp_path: Path) -> None:
    db = _copy(schema3, tmp_path)
    before = db.read_bytes()
    for args in (["chain", "upgrade-demo"], ["stale"], ["answers"]):
        result = cli(*args, "--db", str(db))
        assert "E009" not in result.output and "Traceback" not in result.output, (args, result.output)
        assert result.exit_code in (0, 1) or (result.exit_code == 2 and result.output.count("error:") == 1), args
    assert db.read_bytes() == before  # a read-only command changed nothing
