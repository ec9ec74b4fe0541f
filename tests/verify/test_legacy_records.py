"""Records written before records carried their audience (schema 3), attributed on both engines.

A schema-3 record says nothing about the audience it was made for. Telling a public record by what only
a public check wrote (a restricted citation's GC104, the origin test's "(withheld)" GC953) leaves one
case open: a public check whose verdict bears no such mark, of a claim whose internal verdict does bear
the mark of restricted content (an origin finding with its detail, a restricted revision among its
evidence, a restricted key named in it). Counted internal, that public verdict becomes the internal
audience's latest (issue 23 item 10 again, for old stores).

What a demanding user expects, and what the store's upgrade
(:data:`graphcite.store.columns.AUDIENCE_UPGRADE`, run when a schema-3 store is opened for writing) is
held to here, on DuckDB and PostgreSQL:

* a record is ``public`` only when it proves it (the marks above): never an internal verdict for the public;
* the internal audience keeps every verdict of its own it can be shown: a record with an internal mark,
  a record made before the store held any restricted content (then both audiences got the same
  verdict), and every record of a claim no record of which bears an internal mark (else the internal
  audience would be left without any verdict of the claim);
* an unmarked record of a claim whose internal check found restricted content cannot be told: it is
  ``unattributed``, kept (records are append-only) and shown in the internal audience's history and
  exports, but no audience's latest verdict (the internal audience's latest is its own marked record).

Known gap: if a later internal check of such a claim no longer meets the restricted content (the
runbook was edited), that newer unmarked record is unattributed too and the older marked one stays the
internal latest; nothing in a schema-3 record tells the two apart.
"""

from __future__ import annotations

from pathlib import Path

from graphcite.audience import INTERNAL, PUBLIC, UNATTRIBUTED, audience_view, record_audience
from graphcite.store import Store
from graphcite.store.columns import SCHEMA_VERSION
from graphcite.store.queries import latest_verification
from tests.conftest import KEYSTORE_RUNBOOK, ROTATION_POST

SECRET, POST = KEYSTORE_RUNBOOK, ROTATION_POST
ANSWER = {"answer_id": "legacy", "claims": [
    # launders the runbook's figure: the internal check's origin finding names it, the public check has no mark
    {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": "posts/rotation.md"}]},
    # cites the runbook: the internal record lists its revision, the public one says GC104 (schema 3)
    {"text": "Signing keys are rotated every 45 days.", "citations": [{"source": "ops/keys.md"}]},
    # meets no restricted content in any check
    {"text": "Signing keys are rotated on a fixed schedule.",
     "citations": [{"source": "posts/rotation.md", "quote": "Signing keys are rotated on a fixed schedule."}]},
]}

def _corpus(root: Path) -> Path:
    (root / "corpus" / "ops").mkdir(parents=True, exist_ok=True)
    (root / "corpus" / "posts").mkdir(parents=True, exist_ok=True)
    (root / "corpus" / "ops" / "keys.md").write_text(SECRET, encoding="utf-8")
    (root / "corpus" / "posts" / "rotation.md").write_text(POST, encoding="utf-8")
    return root / "corpus"


def _checked(store: Store) -> dict[str, tuple[str, str, str]]:
    """Check the answer for both audiences, and give the public records the GC104 schema 3 wrote where a
    public check now says GC101; returns record id -> (claim id, audience, status)."""
    from graphcite.verify import check_answer

    check_answer(store, ANSWER, audience=INTERNAL)
    check_answer(store, ANSWER, audience=PUBLIC)
    truth = {r["record_id"]: (r["claim_id"], r["audience"], r["status"])
             for r in store.rows("SELECT record_id, claim_id, audience, status FROM verification")}
    with _unlocked(store):
        for row in store.rows("SELECT record_id, result_json FROM verification WHERE audience = 'public'"):
            if '"ops/keys.md"' in row["result_json"]:
                store.execute("UPDATE verification SET result_json = replace(result_json, '\"GC101\"', '\"GC104\"') "
                              "WHERE record_id = ?", [row["record_id"]])
    return truth


class _unlocked:
    """Lift PostgreSQL's append-only trigger on ``verification`` for a test's rewrite of old records."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> None:
        if self.store.engine != "duckdb":
            self.store.execute("ALTER TABLE verification DISABLE TRIGGER graphcite_unchanged")

    def __exit__(self, *exc: object) -> None:
        if self.store.engine != "duckdb":
            self.store.execute("ALTER TABLE verification ENABLE TRIGGER graphcite_unchanged")


def _as_schema3(store: Store) -> None:
    """Leave the records as schema 3 did: no audience column, version 3."""
    if store.engine == "duckdb":
        store.execute("DROP INDEX ix_verification_claim_id")  # DuckDB drops no column an index covers
    store.execute("ALTER TABLE verification DROP COLUMN audience")
    if store.engine == "duckdb":
        store.execute("CREATE INDEX ix_verification_claim_id ON verification (claim_id)")
    store.execute("UPDATE graphcite_meta SET value = '3' WHERE key = 'schema_version'")


def _claim_order(store: Store) -> list[str]:
    return [r["claim_id"] for r in store.rows("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY ordinal")]


def _attributed(truth: dict[str, tuple[str, str, str]], order: list[str]) -> dict[str, str]:
    """What each record must say after the upgrade (see the module doc)."""
    launderer, cites_runbook, clean = order
    told = {launderer: UNATTRIBUTED, cites_runbook: PUBLIC, clean: INTERNAL}  # what the public record says
    return {record: told[claim] if made_for == PUBLIC else INTERNAL for record, (claim, made_for, _) in truth.items()}


def _found(store: Store) -> dict[str, str]:
    return {r["record_id"]: r["audience"] for r in store.rows("SELECT record_id, audience FROM verification")}


def _assert_history(store: Store, launderer: str) -> None:
    """``history``: the internal audience sees the unattributed record (marked so), the public never."""
    from graphcite.verify.check import history

    internal = history(store, launderer, audience=INTERNAL)
    assert sorted(r["audience"] for r in internal) == [INTERNAL, UNATTRIBUTED]  # by time (seconds), then record id
    assert history(store, launderer, audience=PUBLIC) == []


def test_the_store_upgrade_attributes_only_what_a_record_proves(db_url: str, tmp_path: Path) -> None:
    from graphcite.ingest import ingest

    with Store(db_url) as store:
        ingest(store, [_corpus(tmp_path)])
        truth = _checked(store)
        order = _claim_order(store)
        _as_schema3(store)
    with Store(db_url) as store:  # opened for writing: the upgrade
        assert store.scalar("SELECT value FROM graphcite_meta WHERE key = 'schema_version'") == str(SCHEMA_VERSION)
        assert _found(store) == _attributed(truth, order)
        _assert_latest(store, truth, order)
        _assert_history(store, order[0])


def test_records_made_before_the_store_held_restricted_content_stay_internal(db_url: str, tmp_path: Path) -> None:
    """A claim checked before the runbook was ingested, and again for both audiences after: its first
    records gave every audience the same verdict, so the internal audience keeps them (the launderer's
    first record, unmarked on a claim the later checks show touched, is not unattributed)."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    corpus = _corpus(tmp_path)
    (corpus / "ops" / "keys.md").unlink()
    with Store(db_url) as store:
        ingest(store, [corpus])
        check_answer(store, ANSWER, audience=INTERNAL)
        with _unlocked(store):  # an hour before the runbook arrives (timestamps are kept to the second)
            store.execute("UPDATE verification SET verified_at = verified_at - INTERVAL '1 hour'")
        before = {r["record_id"] for r in store.rows("SELECT record_id FROM verification")}
    _corpus(tmp_path)
    with Store(db_url) as store:
        ingest(store, [corpus])
        truth = _checked(store)
        order = _claim_order(store)
        _as_schema3(store)
    with Store(db_url) as store:
        found = _found(store)
        assert {found[r] for r in before} == {INTERNAL}
        expected = _attributed(truth, order)
        assert {r: a for r, a in found.items() if r not in before} == {r: expected[r] for r in found if r not in before}
        assert UNATTRIBUTED in found.values()
        for claim in order[:2]:  # the internal latest is an internal record (the clean claim's are the same for both)
            latest = latest_verification(store, claim, "record_id", audience=INTERNAL)
            assert latest is not None and truth[latest["record_id"]][1] == INTERNAL


def test_a_store_without_restricted_content_keeps_every_record_internal(db_url: str, tmp_path: Path) -> None:
    """Nothing restricted ever: public and internal checks gave the same verdicts, all stay internal."""
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    corpus = _corpus(tmp_path)
    (corpus / "ops" / "keys.md").unlink()
    with Store(db_url) as store:
        ingest(store, [corpus])
        check_answer(store, ANSWER, audience=INTERNAL)
        check_answer(store, ANSWER, audience=PUBLIC)
        _as_schema3(store)
    with Store(db_url) as store:
        assert set(_found(store).values()) == {INTERNAL}


def _assert_latest(store: Store, truth: dict[str, tuple[str, str, str]], order: list[str]) -> None:
    """The internal latest of every claim is an internal verdict; the public's a public one; the
    unattributed record stays in the internal audience's view of the records, never the public's."""
    for claim in order:
        for audience in (INTERNAL, PUBLIC):
            latest = latest_verification(store, claim, "record_id", audience=audience)
            if latest is not None and claim != order[2]:  # the clean claim's verdicts are the same for both
                assert truth[latest["record_id"]][1] == audience, (claim, audience)
    assert latest_verification(store, order[0], "record_id", audience=PUBLIC) is None
    rows = store.rows("SELECT audience FROM verification")
    internal, public = audience_view(store, INTERNAL), audience_view(store, PUBLIC)
    assert any(record_audience(r) == UNATTRIBUTED for r in rows)
    assert all(internal.sees_record(r) for r in rows if record_audience(r) != PUBLIC)
    assert not any(public.sees_record(r) for r in rows if record_audience(r) != PUBLIC)
