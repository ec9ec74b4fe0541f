"""Ingest end to end on real files: revisions, units, status, values, lineage, atomicity, crashes."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphcite.errors import IngestError
from graphcite.ingest import ingest, list_sources, show_unit
from graphcite.ingest.prepare import prepare_file
from graphcite.store import Store

DECISION = """---
title: Relay retries
status: current
effective: 2025-03-01
supersedes: notes/old.md
kind: decision
---
# Relay retries

## Current decision

The relay retries a failed webhook 4 times within 14 days.

| Setting | Timeout (ms) |
| --- | --- |
| connect | 250 |

## Rejected alternatives

The relay retries a failed webhook forever.
"""

OLD = """---
title: Old retry note
status: current
kind: note
---
# Old note

The relay retries a failed webhook 3 times.
"""

POST = """---
title: A post
kind: post
derived_from: [decisions/relay.md, decisions/missing.md]
---
# Post

We wrote about relay retries.
"""


def write_corpus(root: Path) -> Path:
    (root / "decisions").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "posts").mkdir()
    (root / "decisions" / "relay.md").write_text(DECISION, encoding="utf-8")
    (root / "notes" / "old.md").write_text(OLD, encoding="utf-8")
    (root / "posts" / "p.md").write_text(POST, encoding="utf-8")
    (root / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    return root


def test_ingest_real_folder(store: Store, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    report = ingest(store, [corpus])
    assert sorted(report.added) == ["decisions/relay.md", "notes/old.md", "posts/p.md"]
    assert report.skipped_ext == {".png": 1}
    assert {d["to_key"] for d in report.dangling} == {"decisions/missing.md"}
    rows = store.rows("SELECT u.*, r.text AS doc FROM evidence_unit u JOIN source_revision r USING (revision_id)")
    for row in rows:
        assert row["doc"][row["start"]:row["end"]] == row["text"]
        assert len(row["unit_id"]) == 16
    rejected = [r for r in rows if "forever" in r["text"]]
    assert rejected and rejected[0]["status"] == "rejected"
    assert json.loads(rejected[0]["heading_path_json"]) == ["Relay retries", "Rejected alternatives"]
    values = store.rows("SELECT v.*, r.text AS doc FROM typed_value v JOIN source_revision r USING (revision_id)")
    for v in values:
        assert v["doc"][v["start"]:v["end"]] == v["surface"]
    cell = [v for v in values if v["surface"] == "250"]
    assert cell and cell[0]["unit"] == "millisecond", "a table cell takes its header's unit"
    days = [v for v in values if "14" in v["surface"]]
    assert days and days[0]["unit"] == "day"
    links = store.rows("SELECT from_key, to_key, relation FROM source_link ORDER BY 1, 2")
    assert {"from_key": "decisions/relay.md", "to_key": "notes/old.md", "relation": "supersedes"} in links
    assert store.scalar("SELECT count(*) FROM term_posting WHERE term = 'retry'") >= 2


def test_reingest_unchanged_is_a_noop_and_changed_file_gets_new_revision(store: Store, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    ingest(store, [corpus])
    before = store.counts()
    again = ingest(store, [corpus])
    assert len(again.unchanged) == 3 and not again.added and not again.updated
    assert store.counts() == before
    old_rev = store.scalar("SELECT current_revision FROM source WHERE key = 'notes/old.md'")
    old_text = store.scalar("SELECT text FROM source_revision WHERE revision_id = ?", [old_rev])
    (corpus / "notes" / "old.md").write_text(OLD.replace("3 times", "5 times"), encoding="utf-8")
    changed = ingest(store, [corpus])
    assert changed.updated == ["notes/old.md"]
    new_rev = store.scalar("SELECT current_revision FROM source WHERE key = 'notes/old.md'")
    assert new_rev != old_rev
    assert store.scalar("SELECT text FROM source_revision WHERE revision_id = ?", [old_rev]) == old_text
    assert store.scalar("SELECT seq FROM source_revision WHERE revision_id = ?", [new_rev]) == 2
    assert store.scalar("SELECT previous_revision FROM source_revision WHERE revision_id = ?", [new_rev]) == old_rev


def test_unit_ids_are_stable_across_stores(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    ids = []
    for name in ("a", "b"):
        with Store(tmp_path / f"{name}.duckdb") as s:
            ingest(s, [corpus])
            ids.append([r["unit_id"] for r in s.rows("SELECT unit_id FROM evidence_unit ORDER BY unit_id")])
    assert ids[0] == ids[1]


def test_crlf_survives_and_offsets_hold(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "crlf.md"
    path.write_bytes(b"# Title\r\n\r\nThe queue holds 5 MB.\r\n")
    ingest(store, [path])
    text = store.scalar("SELECT text FROM source_revision")
    assert "\r\n" in text
    unit = store.row("SELECT * FROM evidence_unit WHERE block_type = 'paragraph'")
    assert text[unit["start"]:unit["end"]] == unit["text"] == "The queue holds 5 MB."


@pytest.mark.parametrize("content, cause", [
    (b"\x00\x01binary", "binary"),
    (b"caf\xe9 au lait", "UTF-8"),
    (b"", "empty"),
    (b"---\ntitle: [unclosed\n---\n# x\n", "YAML"),
])
def test_bad_file_fails_cleanly_and_writes_nothing(store: Store, tmp_path: Path, content: bytes, cause: str) -> None:
    good = tmp_path / "docs"
    good.mkdir()
    (good / "fine.md").write_text("# Fine\n\nAll good here.\n", encoding="utf-8")
    (good / "zbad.md").write_bytes(content)
    before = store.counts()
    with pytest.raises(IngestError, match=cause) as info:
        ingest(store, [good])
    assert "zbad.md" in str(info.value)
    assert "\n" not in str(info.value)
    assert store.counts() == before


def test_nonexistent_path(store: Store, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="nope"):
        ingest(store, [tmp_path / "nope"])


def test_file_over_the_size_limit(store: Store, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("word " * 300_000, encoding="utf-8")
    with pytest.raises(IngestError, match="too large"):
        ingest(store, [big], max_file_mb=1)


def test_parallel_ingest_matches_serial(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    for i in range(6):
        (corpus / f"extra-{i}.md").write_text(f"# Extra {i}\n\nThe job took {i + 2} minutes.\n", encoding="utf-8")
    counts = []
    for name, jobs in (("serial", 1), ("parallel", 2)):
        with Store(tmp_path / f"{name}.duckdb") as s:
            ingest(s, [corpus], jobs=jobs)
            counts.append({k: v for k, v in s.counts().items() if k != "lemma_lookup"})
    assert counts[0] == counts[1]


def test_sources_and_show(store: Store, tmp_path: Path) -> None:
    ingest(store, [write_corpus(tmp_path / "docs")])
    listed = list_sources(store)
    assert [s["key"] for s in listed] == ["decisions/relay.md", "notes/old.md", "posts/p.md"]
    unit_id = store.scalar("SELECT unit_id FROM evidence_unit WHERE text LIKE '%14 days%'")
    shown = show_unit(store, unit_id)
    assert shown["heading_path"] == ["Relay retries", "Current decision"]
    assert any(v["unit"] == "day" for v in shown["values"])


#: Kill iterations per run; CI uses the default, ``GRAPHCITE_KILL_ITERATIONS=20`` makes it a benchmark.
KILL_ITERATIONS = int(os.environ.get("GRAPHCITE_KILL_ITERATIONS", "3"))
KILL_WINDOW = 6.0  # seconds after the ingest starts working; it needs about 4-5 s on a quiet machine


def _children(pid: int) -> list[int]:
    """Live (not zombie) child processes of ``pid``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _assert_only_complete_revisions(db: Path, files: int) -> int:
    """Sources after the kill: 1 (the template's doc-000; rolled back) or ``files`` (committed)."""
    with Store(db) as s:
        sources = s.scalar("SELECT count(*) FROM source")
        assert sources in (1, files), f"{sources} sources: a killed ingest must write all or nothing"
        for rev in s.rows("SELECT revision_id, text FROM source_revision"):
            units = s.rows('SELECT start, "end", text FROM evidence_unit WHERE revision_id = ?', [rev["revision_id"]])
            assert units, "a revision without its units is a half-written ingest"
            assert all(rev["text"][u["start"]:u["end"]] == u["text"] for u in units)
        assert s.scalar("SELECT count(*) FROM source s LEFT JOIN source_revision r "
                        "ON r.revision_id = s.current_revision WHERE r.revision_id IS NULL") == 0
        return int(sources)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find worker processes")
def test_sigkill_during_ingest_leaves_only_complete_revisions_and_no_workers(tmp_path: Path) -> None:
    """kill -9 at varied moments of ``ingest --jobs 2`` (and ``--jobs 1``): all or nothing, no orphans."""
    docs = tmp_path / "big"
    docs.mkdir()
    body = "\n\n".join(f"Paragraph {i}: the worker waited {i % 60} seconds for 3 retries." for i in range(400))
    files = 60
    for i in range(files):
        (docs / f"doc-{i:03}.md").write_text(f"# Doc {i}\n\n{body}\n", encoding="utf-8")
    template = tmp_path / "template.duckdb"
    with Store(template) as s:  # a first complete revision that must survive every kill
        ingest(s, [docs / "doc-000.md"])
    rng = random.Random(12)
    startup = 4.0
    mid_ingest = 0
    outcomes: list[int] = []
    for iteration in range(KILL_ITERATIONS):
        db = tmp_path / f"killed-{iteration}.duckdb"
        shutil.copy(template, db)
        jobs = 2 if iteration % 2 == 0 else 1
        # Stratified over the whole run (parsing, writing, indexing, commit, done): the first
        # kill always lands early, the last ones may land after the commit.
        delay = KILL_WINDOW * (iteration + rng.random()) / KILL_ITERATIONS
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "graphcite", "ingest", str(docs), "--db", str(db), "--quiet",
                                 "--jobs", str(jobs)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        workers: list[int] = []
        try:
            if jobs == 2:
                while len(workers) < 2 and proc.poll() is None and time.monotonic() - started < 60:
                    time.sleep(0.05)
                    workers = _children(proc.pid)
                startup = time.monotonic() - started
                time.sleep(delay)
            else:
                time.sleep(startup + delay)
            running = proc.poll() is None
            if running:  # not yet reaped, so the pid is still this process (a zombie at worst)
                os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()
        mid_ingest += running
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if _alive(pid)], "workers outlived their killed parent"
        outcomes.append(_assert_only_complete_revisions(db, files))
    assert mid_ingest >= 1, "no kill landed while the ingest was running"
    print(f"kill test: {KILL_ITERATIONS} kills, {mid_ingest} while running; "
          f"{outcomes.count(1)} rolled back, {outcomes.count(files)} committed")


def test_postings_are_written_in_the_order_a_full_sort_gives() -> None:
    """The ranked sort of the posting rows is the order ``sort_by`` on both columns gives (byte order)."""
    import pyarrow as pa

    from graphcite.ingest.pipeline import _in_key_order

    rng = random.Random(3)
    words = ["retry", "Retry", "relay", "été", "z", "a", "ab", "a-b", "v1.2", "10", "9", "İ", ""]
    rows = [(rng.choice(words), f"{rng.randrange(16**4):04x}") for _ in range(3000)]
    chunks = [pa.table({"term": [t for t, _ in part], "unit_id": [u for _, u in part]})
              for part in (rows[:1000], rows[1000:2500], rows[2500:])]
    table = pa.concat_tables(chunks)
    ordered = _in_key_order(table)
    assert ordered.equals(table.sort_by([("term", "ascending"), ("unit_id", "ascending")]))
    assert ordered.to_pylist() == [{"term": t, "unit_id": u} for t, u in sorted(rows, key=lambda r: (r[0].encode(), r[1]))]
    assert _in_key_order(table.slice(0, 0)).num_rows == 0


def test_ingest_spares_the_collector_and_undoes_it(tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Long-lived objects are frozen only while the ingest runs; a caller's own freeze is left alone."""
    import gc

    from graphcite.ingest import pipeline

    (tmp_path / "a.md").write_text("# A\n\nThe relay waits 250 ms.\n", encoding="utf-8")
    seen: list[int] = []
    monkeypatch.setattr(pipeline, "prepare_file",
                        lambda *args, **kwargs: (seen.append(gc.get_freeze_count()), prepare_file(*args, **kwargs))[1])
    gc.unfreeze()  # an earlier test in this process may have frozen its objects (the service's warm-up does)
    assert gc.get_freeze_count() == 0
    ingest(store, [tmp_path])
    assert seen[0] > 1000 and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        (tmp_path / "a.md").write_text("# A\n\nThe relay waits 300 ms.\n", encoding="utf-8")
        ingest(store, [tmp_path])
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
