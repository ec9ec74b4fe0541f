"""``recheck --stale`` records: they carry the audience they were made for, and their ids never meet a
check's made in the same second.

A check numbers its records by the answer's earlier records, a recheck numbered them by the claim's:
for an answer of two claims checked once, a public check and an internal recheck in the same second
gave one claim the same record id twice (E009, duplicate key). And a public recheck wrote its
verdicts as internal records, which then became the internal latest verdict.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from graphcite.store import Store

DOCS = {
    "notes/retention.md": "---\ntitle: Retention\nkind: note\n---\n# Retention\n\nAudit logs are kept for 90 days.\n",
    "notes/timeouts.md": "---\ntitle: Timeouts\nkind: note\n---\n# Timeouts\n\nDeliveries time out after 30 seconds.\n",
}
ANSWER = {"answer_id": "recheck-demo", "claims": [
    {"text": "Audit logs are kept for 90 days.",
     "citations": [{"source": "notes/retention.md", "quote": "Audit logs are kept for 90 days."}]},
    {"text": "Deliveries time out after 30 seconds.",
     "citations": [{"source": "notes/timeouts.md", "quote": "Deliveries time out after 30 seconds."}]},
]}


def _stale_store(root: Path) -> Path:
    """Two claims checked once (internal); then the first one's source gets a new revision."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    corpus = root / "corpus"
    for key, text in DOCS.items():
        (corpus / key).parent.mkdir(parents=True, exist_ok=True)
        (corpus / key).write_text(text, encoding="utf-8")
    db = root / "recheck.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
        check_answer(store, ANSWER)
        (corpus / "notes" / "retention.md").write_text(DOCS["notes/retention.md"] + "\nThey are then deleted.\n",
                                                       encoding="utf-8")
        ingest(store, [corpus])
    return db


@pytest.fixture(scope="module")
def stale_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _stale_store(tmp_path_factory.mktemp("recheck"))


def test_a_check_and_a_recheck_in_the_same_second_keep_their_records_apart(stale_db: Path, tmp_path: Path) -> None:
    import shutil

    from graphcite.lifecycle.stale import recheck_stale
    from graphcite.verify import check_answer

    for attempt in range(3):  # the two must fall in one second (timestamps have second precision)
        db = tmp_path / f"attempt-{attempt}.duckdb"
        shutil.copy(stale_db, db)
        with Store(db) as store:
            time.sleep(1 - time.time() % 1 + 0.01)  # just after a second starts
            check_answer(store, "recheck-demo", audience="public")
            rechecked = recheck_stale(store)
            stamps = {r["verified_at"] for r in store.rows("SELECT verified_at FROM verification "
                                                            "WHERE audience = 'public' OR record_id IN (SELECT unnest(?::VARCHAR[]))",
                                                            [[r["record_id"] for r in rechecked]])}
            assert len(rechecked) == 1
            ids = [r["record_id"] for r in store.rows("SELECT record_id FROM verification")]
            assert len(ids) == len(set(ids)) == 5
        if len(stamps) == 1:
            return
    pytest.fail("no attempt put the check and the recheck in the same second")


def test_a_public_recheck_writes_public_records(stale_db: Path, tmp_path: Path) -> None:
    import shutil

    from graphcite.lifecycle.stale import recheck_stale
    from graphcite.verify import history

    db = tmp_path / "public.duckdb"
    shutil.copy(stale_db, db)
    with Store(db) as store:
        claim = store.scalar("SELECT claim_id FROM claim WHERE text = 'Audit logs are kept for 90 days.'")
        before = history(store, claim)
        [row] = recheck_stale(store, audience="public")
        assert row["claim_id"] == claim and row["old_status"] is None  # the public had no verdict before
        assert history(store, claim) == before
        assert [r["record_id"] for r in history(store, claim, audience="public")] == [row["record_id"]]
