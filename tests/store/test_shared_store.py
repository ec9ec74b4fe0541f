"""A shared store: constraints keep records unchanged, many processes write at once, faults are one line.

The PostgreSQL cases run on the session's server; the ones that stop a server start their own.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from graphcite.errors import StoreError, StoreLockedError
from graphcite.store import APPEND_ONLY, IMMUTABLE, Store, constraint_errors

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "graphcite" / "examples" / "corpus"
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
KEPT = (*APPEND_ONLY, *IMMUTABLE)


def cli(*args: str, db: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "graphcite", *args, "--db", db], cwd=cwd,
                            env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.fixture
def checked_url(new_pg_database: Callable[..., str]) -> str:
    """A PostgreSQL store with the corpus, the traps answer checked and one judgement recorded."""
    from graphcite.evaluate import annotate
    from graphcite.verify import check_answer

    url = new_pg_database("gc_corpus")
    with Store(url) as store:
        report = check_answer(store, str(ANSWERS / "traps.json"))
        annotate(store, report["claims"][0]["claim_id"], citation=0, label="supports", rationale="reads so",
                 reviewer="ana")
    return url


# ----------------------------------------------------------------------------------------------
# immutability
# ----------------------------------------------------------------------------------------------


def test_no_code_in_graphcite_updates_or_deletes_kept_records() -> None:
    """The public API (every module of the package) holds no UPDATE, DELETE or TRUNCATE of kept tables."""
    pattern = re.compile(rf"\b(?:UPDATE|DELETE\s+FROM|TRUNCATE)\s+(?:TABLE\s+)?({'|'.join(KEPT)})\b", re.IGNORECASE)
    offenders = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in sorted((ROOT / "graphcite").rglob("*.py"))
                 for m in pattern.finditer(path.read_text(encoding="utf-8"))]
    # the one exception: the schema 3 -> 4 upgrade fills the new audience column of records written before it
    # existed (what each record says is unchanged); it runs once, inside the schema transaction
    from graphcite.store.columns import AUDIENCE_UPGRADE

    assert AUDIENCE_UPGRADE.startswith("UPDATE verification SET audience = ")
    assert offenders == ["graphcite/store/columns.py: UPDATE verification"]
    from graphcite import Store as PublicStore

    verbs = {name for name in dir(PublicStore) if re.match(r"(update|delete|remove|truncate|replace)", name)}
    assert verbs == set()


@pytest.mark.parametrize("table", KEPT)
@pytest.mark.parametrize("statement", ["UPDATE {t} SET {c} = {c}", "DELETE FROM {t}", "TRUNCATE {t}"])
def test_postgresql_refuses_changing_kept_records(checked_url: str, table: str, statement: str) -> None:
    with Store(checked_url) as store:
        if table == "acceptance":
            from graphcite.lifecycle import accept

            claim = store.scalar("SELECT claim_id FROM verification WHERE status = 'supported' "
                                 "ORDER BY claim_id LIMIT 1")
            accept(store, claim, task="faq", destination="docs/faq.md", reviewer="ana")
        column = next(iter(store.rows(f"SELECT * FROM {table} LIMIT 1")[0]))
        before = store.scalar(f"SELECT count(*) FROM {table}")
        assert before > 0
        with pytest.raises(constraint_errors(), match="append-only"):
            store.execute(statement.format(t=table, c=f'"{column}"'))
        assert store.scalar(f"SELECT count(*) FROM {table}") == before


def test_acceptances_are_append_only_once_created(checked_url: str) -> None:
    from graphcite.lifecycle import accept, acceptances

    with Store(checked_url) as store:
        claim = store.scalar("SELECT claim_id FROM verification WHERE status = 'supported' ORDER BY claim_id LIMIT 1")
        accept(store, claim, task="release-notes", destination="docs/notes.md", reviewer="ana")
        assert [a["task"] for a in acceptances(store, claim)] == ["release-notes"]
        with pytest.raises(constraint_errors(), match="append-only"):
            store.execute("DELETE FROM acceptance")


def test_a_duplicate_record_is_refused_by_the_key(any_store: Store) -> None:
    row = {"annotation_id": "a1", "claim_id": "c", "citation_index": 0, "label": "supports", "rationale": "r",
           "reviewer": "ana", "created_at": dt.datetime(2026, 1, 2)}
    any_store.bulk_insert("annotation", [row])
    with pytest.raises(constraint_errors()):
        any_store.bulk_insert("annotation", [row])
    assert any_store.bulk_insert("annotation", [row], or_ignore=True) == 1  # rows given; none added
    assert any_store.scalar("SELECT count(*) FROM annotation") == 1


# ----------------------------------------------------------------------------------------------
# concurrency
# ----------------------------------------------------------------------------------------------


def test_ingests_a_checker_and_reviewers_at_once_lose_nothing(checked_url: str, tmp_path: Path) -> None:
    """Two ingests, a checker and four annotating reviewers, each its own process, on one PostgreSQL store."""
    extra = tmp_path / "extra"
    extra.mkdir()
    for i in range(6):
        (extra / f"note{i}.md").write_text(f"# Note {i}\n\nThe relay keeps {i + 2} copies of each message.\n",
                                           encoding="utf-8")
    with Store(checked_url) as store:
        before = store.counts()
        claim = store.scalar("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY answer_rev, ordinal LIMIT 1")
        revisions = store.scalar("SELECT count(*) FROM source_revision")
    runs = [cli("ingest", str(extra), db=checked_url, cwd=tmp_path),
            cli("ingest", str(extra), str(CORPUS), db=checked_url, cwd=tmp_path),
            cli("check", str(ANSWERS / "clean.json"), "--json", db=checked_url, cwd=tmp_path)]
    runs += [cli("annotate", claim, "--citation", "1", "--label", "supports", "--rationale", f"checked by r{i}",
                 "--reviewer", f"r{i}", db=checked_url, cwd=tmp_path) for i in range(4)]
    done = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0] * len(runs), done
    with Store(checked_url, read_only=True) as store:
        after = store.counts()
        assert store.scalar("SELECT count(*) FROM source_revision") == revisions + 6
        assert store.scalar("SELECT count(*) FROM source WHERE key LIKE 'note_.md'") == 6
        assert after["annotation"] == before["annotation"] + 4
        assert after["verification"] > before["verification"]
        assert store.scalar("SELECT count(*) FROM (SELECT unit_id FROM evidence_unit GROUP BY unit_id "
                            "HAVING count(*) > 1) d") == 0
        assert {r["reviewer"] for r in store.rows("SELECT reviewer FROM annotation WHERE claim_id = ?", [claim])} \
            >= {f"r{i}" for i in range(4)}


def test_a_second_duckdb_writer_waits_for_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    Store(db).close()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from graphcite.store import Store; s = Store(sys.argv[1]); "
        "print('ready', flush=True); time.sleep(1.5); s.close(); time.sleep(30)"), str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        os.environ["GRAPHCITE_LOCK_WAIT"] = "20"
        started = time.monotonic()
        with Store(db) as opened:  # waits until the holder lets go
            assert opened.counts()["source"] == 0
        assert 0.5 < time.monotonic() - started < 20
    finally:
        os.environ["GRAPHCITE_LOCK_WAIT"] = "2"
        holder.kill()
        holder.wait()


def test_the_wait_for_the_lock_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "held.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from graphcite.store import Store; s = Store(sys.argv[1]); "
        "print('ready', flush=True); time.sleep(60)"), str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        monkeypatch.setenv("GRAPHCITE_LOCK_WAIT", "1")
        started = time.monotonic()
        with pytest.raises(StoreLockedError, match="locked by another process"):
            Store(db)
        assert 0.9 < time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()


# ----------------------------------------------------------------------------------------------
# faults
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def own_server() -> Iterator[Any]:
    """A server of this test's own, so stopping it disturbs no other test."""
    from graphcite.store.pgserver import find_pg_bin, temporary_server

    if find_pg_bin() is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    with temporary_server() as server:
        yield server


def _big_corpus(folder: Path, files: int = 120) -> Path:
    folder.mkdir()
    body = "\n\n".join(f"## Part {j}\n\nThe relay retries {j % 9 + 2} times and waits {j % 50 + 1} seconds "
                       f"before node {j} gives up; the queue holds {j * 10} messages." for j in range(150))
    for i in range(files):
        (folder / f"doc{i:03d}.md").write_text(f"# Document {i}\n\n{body}\n", encoding="utf-8")
    return folder


def test_server_stopped_in_the_middle_of_an_ingest(own_server: Any, tmp_path: Path) -> None:
    url = own_server.create_database("faults")
    with Store(url) as store:
        from graphcite.ingest import ingest

        ingest(store, [CORPUS])
        before = store.counts()
    run = cli("ingest", str(_big_corpus(tmp_path / "big")), db=url, cwd=tmp_path)
    writing = False
    deadline = time.monotonic() + 240
    with psycopg.connect(own_server.url(), autocommit=True) as watcher:
        while run.poll() is None and time.monotonic() < deadline and not writing:
            writing = bool(watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'faults' AND backend_xid IS NOT NULL "
                "AND application_name = 'graphcite'").fetchone()[0])  # type: ignore[index]
            time.sleep(0.02)
    assert writing, "the ingest finished before it was caught writing"
    own_server.stop("fast")
    _, stderr = run.communicate(timeout=120)
    own_server.start()
    lines = stderr.strip().splitlines()
    assert run.returncode == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("error: E605") and "Traceback" not in stderr, stderr
    assert "rolled back" in lines[0], stderr
    with Store(url, read_only=True) as store:
        assert store.counts() == before


@pytest.mark.parametrize("kind", ["password", "host", "database"])
def test_connection_problems_are_one_line_without_the_password(pg_server: Any, tmp_path: Path, kind: str) -> None:
    if kind == "password":
        good = pg_server.add_password_user(f"reviewer_{os.getpid()}", "right-horse")
        url = good.replace("right-horse", "wrong-staple")
        with psycopg.connect(good) as con:  # the right password is let in
            assert con.execute("SELECT current_user").fetchone() is not None
    elif kind == "host":
        url = "postgresql://ana:wrong-staple@no-such-host.invalid:5432/graphcite"
    else:
        url = pg_server.url("no_such_database").replace("postgres@", "postgres:wrong-staple@")
    run = cli("sources", db=url, cwd=tmp_path)
    _, stderr = run.communicate(timeout=120)
    lines = stderr.strip().splitlines()
    assert run.returncode == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("error: E604"), stderr
    assert "wrong-staple" not in stderr and ":***@" in lines[0]
    with pytest.raises(StoreError, match="cannot connect"):
        Store(url)
