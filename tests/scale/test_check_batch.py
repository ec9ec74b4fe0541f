"""check-batch: per answer the report `check --json` prints, in input order, records appended once;
a bad answer is its own error line; the same on Ray as in-process."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphcite.cli import app
from graphcite.cli.batch import json_line_of
from graphcite.store import Store
from graphcite.verify.batch import check_batch
from graphcite.verify.check import check_answer
from tests.conftest import ANSWERS
from tests.scale.conftest import kill_one_ray_worker

runner = CliRunner()
CLEAN, TRAPS = str(ANSWERS / "clean.json"), str(ANSWERS / "traps.json")
ROOT = Path(__file__).resolve().parents[2]


def _copy(corpus_db: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.duckdb"
    shutil.copy(corpus_db, target)
    return target


def _records(db: Path | str) -> dict[str, list[tuple[object, ...]]]:
    """The verification records and the stored answers, claims and citations, clock columns left out."""
    queries = {
        "verification": "SELECT claim_id, answer_rev, config_hash, status, supported, result_json FROM verification",
        "answer": "SELECT answer_rev, answer_id, question, format, content_json, corrects FROM answer",
        "claim": "SELECT * FROM claim",
        "citation": "SELECT * FROM citation",
    }
    with Store(db, read_only=True) as store:
        return {name: sorted((tuple(r.values()) for r in store.rows(sql)), key=repr) for name, sql in queries.items()}


def _check_one_by_one(db: Path, answers: list[str]) -> list[str]:
    lines = []
    for answer in answers:
        done = runner.invoke(app, ["check", answer, "--db", str(db), "--json"])
        assert done.exit_code == 0, done.output
        lines.append(json_line_of(json.loads(done.stdout)))
    return lines


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_batch_lines_are_check_json_per_answer_and_records_match(corpus_db: Path, tmp_path: Path, engine: str,
                                                                 request: pytest.FixtureRequest) -> None:
    if engine == "ray":
        request.getfixturevalue("ray_session")
    answers = [TRAPS, CLEAN]
    expected = _check_one_by_one(_copy(corpus_db, tmp_path, "single"), answers)
    batch_db = _copy(corpus_db, tmp_path, "batch")
    options = ["--engine", "ray", "--workers", "2"] if engine == "ray" else []
    done = runner.invoke(app, ["check-batch", *answers, "--db", str(batch_db), "--json", *options])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines(keepends=True) == expected
    assert _records(batch_db) == _records(tmp_path / "single.duckdb")


@pytest.mark.usefixtures("ray_session")
def test_ray_workers_read_a_postgresql_store_directly(new_pg_database: Any) -> None:
    single, batch = new_pg_database("gc_corpus"), new_pg_database("gc_corpus")
    with Store(single) as store:
        expected = [check_answer(store, answer) for answer in (TRAPS, CLEAN)]
    with Store(batch) as store:
        results = check_batch(store, [TRAPS, CLEAN], engine="ray", workers=2)
    assert [json_line_of(r) for r in results] == [json_line_of(r) for r in expected]
    assert _records(batch) == _records(single)


def test_a_bad_answer_gets_its_own_error_line_and_exit_2(corpus_db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"answer_id": "x", "claims": [', encoding="utf-8")
    db = _copy(corpus_db, tmp_path, "b")
    done = runner.invoke(app, ["check-batch", CLEAN, str(bad), "no-such-answer", TRAPS, "--db", str(db), "--json"])
    assert done.exit_code == 2
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("answer_id") for line in lines] == ["demo-clean", None, None, "demo-traps"]
    assert lines[1]["answer"] == str(bad) and lines[1]["code"] == "E206"
    assert lines[2]["code"] == "E502"
    assert "2 of 4 answer(s) could not be verified" in done.stderr
    with Store(db, read_only=True) as store:
        assert store.scalar("SELECT count(DISTINCT answer_rev) FROM verification") == 2


def test_a_stored_answer_checked_again_shows_its_earlier_check(corpus_db: Path, tmp_path: Path) -> None:
    db = _copy(corpus_db, tmp_path, "again")
    with Store(db) as store:
        first = check_batch(store, [CLEAN])[0]
        second = check_batch(store, [first["answer_rev"]])[0]
        count = store.scalar("SELECT count(*) FROM verification")
    assert "earlier" not in first
    assert second["earlier"]["checks"] == 1
    assert count == 2 * len(first["claims"])


def test_record_false_writes_nothing(corpus_db: Path, tmp_path: Path) -> None:
    db = _copy(corpus_db, tmp_path, "dry")
    with Store(db) as store:
        results = check_batch(store, [CLEAN], record=False)
        assert store.scalar("SELECT count(*) FROM verification") == 0
    assert results[0]["answer_id"] == "demo-clean"


@pytest.mark.usefixtures("ray_session")
def test_workers_on_other_machines_get_the_store_shipped_through_the_object_store(corpus_db: Path) -> None:
    from graphcite.claims.formats import load_answer
    from graphcite.distributed.verify import verify_on_ray
    from graphcite.verify.batch import BatchItem
    from graphcite.verify.config import VerifierConfig

    chunks = [[BatchItem(0, load_answer(Path(TRAPS)))], [BatchItem(1, load_answer(Path(CLEAN)))]]
    shared = list(verify_on_ray(str(corpus_db), chunks, VerifierConfig(), "internal", workers=2))
    shipped = list(verify_on_ray(str(corpus_db), chunks, VerifierConfig(), "internal", workers=2, ship=True))
    assert [r[0]["report"] for r in shipped] == [r[0]["report"] for r in shared]
    assert shipped[0][0]["report"]["answer_id"] == "demo-traps"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds Ray's worker processes through /proc")
@pytest.mark.usefixtures("ray_session")
def test_a_worker_killed_mid_batch_is_retried_and_the_results_are_the_same(corpus_db: Path, tmp_path: Path) -> None:
    claims = [c for path in (TRAPS, CLEAN) for c in json.loads(Path(path).read_text(encoding="utf-8"))["claims"]]
    answers = [{"answer_id": f"many-{i:03}", "claims": [claims[i % len(claims)], claims[(i * 7 + 3) % len(claims)]]}
               for i in range(120)]
    with Store(_copy(corpus_db, tmp_path, "calm")) as store:
        calm = check_batch(store, answers, record=False)
    with kill_one_ray_worker("_verify_chunk") as killed, Store(_copy(corpus_db, tmp_path, "hurt")) as store:
        hurt = check_batch(store, answers, engine="ray", workers=2)
    assert killed, "no Ray worker was seen running _verify_chunk, so none was killed"
    assert [json_line_of(r) for r in hurt] == [json_line_of(r) for r in calm]
    assert len(_records(tmp_path / "hurt.duckdb")["verification"]) == sum(len(r["claims"]) for r in calm)


def test_an_alce_run_file_is_one_line_per_item(corpus_db: Path, tmp_path: Path) -> None:
    """A research run file ({"data": [item, ...]}) is checked item by item, each its own line, in order."""
    example = json.loads((ROOT / "schema" / "examples" / "alce.json").read_text(encoding="utf-8"))
    second = {**example, "id": "asqa-demo-2", "output": "The relay makes at most five delivery attempts [1]."}
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"args": {"model": "demo"}, "data": [example, second]}), encoding="utf-8")
    db = _copy(corpus_db, tmp_path, "alce")
    done = runner.invoke(app, ["check-batch", str(run), "--db", str(db), "--json"])
    assert done.exit_code in (0, 1), done.output
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [line["answer_id"] for line in lines] == ["asqa-demo-1", "asqa-demo-2"]
    assert lines[1]["claims"][0]["status"] == "supported"
    single = runner.invoke(app, ["check", str(run), "--db", str(db), "--json"])
    assert single.exit_code == 2 and "2 items" in single.output  # one answer at a time for `check`


def test_a_chunk_verified_together_matches_one_answer_at_a_time_with_fewer_statements(
        any_corpus_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """verify_items reads the chunk's evidence and contradiction candidates together (evidence memo):
    the reports are the ones verify_claims gives answer by answer, for a fraction of the statements."""
    import random

    from graphcite.claims.answers import parts_for
    from graphcite.verify.batch import BatchItem, verify_items
    from graphcite.verify.check import resolve_answer
    from graphcite.verify.config import VerifierConfig
    from graphcite.verify.engine import verify_claims

    store, config = any_corpus_store, VerifierConfig()
    claims = [c for path in sorted(ANSWERS.glob("*.json")) for c in json.loads(path.read_text("utf-8"))["claims"]]
    rng = random.Random(3)
    items = [BatchItem(i, resolve_answer(store, {"answer_id": f"t{i}", "claims": rng.sample(claims, 2)}))
             for i in range(24)]
    sent: list[str] = []
    run = store._run

    def counted(sql: str, params: Any) -> Any:
        sent.append(sql)
        return run(sql, params)

    monkeypatch.setattr(store, "_run", counted)
    alone = [verify_claims(store, item.answer, parts_for(item.answer), config) for item in items]
    statements_alone = len(sent)
    sent.clear()
    together = verify_items(store, items, config, "internal")
    assert [r["report"] for r in together] == alone
    assert all(r["parts"] == parts_for(item.answer) for r, item in zip(together, items, strict=True))
    assert len(sent) * 3 < statements_alone, (len(sent), statements_alone)


def test_reading_ahead_or_one_answer_at_a_time_gives_the_same_lines(corpus_db: Path, tmp_path: Path) -> None:
    ahead, alone = _copy(corpus_db, tmp_path, "ahead"), _copy(corpus_db, tmp_path, "alone")
    with Store(ahead) as store:
        first = check_batch(store, [TRAPS, CLEAN, TRAPS])
    with Store(alone) as store:
        second = check_batch(store, [TRAPS, CLEAN, TRAPS], read_ahead=False)
    assert [json_line_of(r) for r in first] == [json_line_of(r) for r in second]
    assert _records(ahead) == _records(alone)


def test_a_worker_keeps_its_evidence_memo_for_one_batch_only(corpus_db: Path) -> None:
    from graphcite.distributed import verify as worker
    from graphcite.store.queries.verify_memo import memo_of

    try:
        store = worker._batch_store("batch-1", str(corpus_db), None)
        first = memo_of(store)
        assert first is not None
        assert worker._batch_store("batch-1", str(corpus_db), None) is store and memo_of(store) is first
        assert worker._batch_store("batch-2", str(corpus_db), None) is store
        assert memo_of(store) is not None and memo_of(store) is not first
    finally:
        worker._close_all()
    assert memo_of(store) is None
