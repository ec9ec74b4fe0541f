"""The restricted corpus (restricted_corpus.py) grown for issue 23: a restricted table, an old public
revision of a source that is restricted now, a second answer, and a reviewer's judgement on a withheld claim.

``build_paths_store(root)`` returns a :class:`Built` with the store path and the ids the tests need; a
copy without the judgement is written beside it (``bare``), so every route can be tried with and without.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from restricted_corpus import ANSWER, CLAIMS, write_corpus

TABLE_DOC = """---
title: Rotation table
status: current
kind: incident
visibility: restricted
---
# Signing key rotation

| Job | Rotation (days) |
|---|---|
| keeper-main | 45 |
| ledger-sync | 12 |
"""
TURNED_V1 = """---
title: Backup note
status: current
kind: note
---
# Backup note

Backups are kept for 17 weeks.
"""
TURNED_V2 = """---
title: Backup note
status: current
kind: note
visibility: restricted
---
# Backup note

Backups are kept for 19 weeks.
"""
TABLE_CLAIM = "Signing keys are rotated every 12 days."
CONTRADICTED_CLAIM = "Audit logs are kept for 30 days."
TABLE_ANSWER: dict[str, Any] = {
    "answer_id": "table-demo", "question": "How often are signing keys rotated?",
    "claims": [{"text": TABLE_CLAIM,
                "citations": [{"source": "posts/rotation.md", "quote": "Signing keys are rotated on a fixed schedule."}]},
               {"text": "Backups are kept for 17 weeks.",
                "citations": [{"source": "notes/turned.md", "quote": "Backups are kept for 17 weeks."}]},
               {"text": CONTRADICTED_CLAIM,  # its evidence says 90 days: contradicted
                "citations": [{"source": "notes/audit.md", "quote": "Audit logs are kept for 90 days."}]}],
}
RATIONALE = "Rationale-marker: the keeper job says 45 in the runbook"
# strings only restricted material (or the withheld rationale) holds, on top of restricted_corpus.secrets()
EXTRA_SECRETS = ("Rotation table", "keeper-main", "ledger-sync", "every 12 days", "notes/turned.md", "turned.md",
                 "Backup note", "19 weeks", RATIONALE)


@dataclass
class Built:
    db: Path
    bare: Path  # the same store before any judgement was recorded
    corpus: Path
    internal: dict[str, Any]
    claim_ids: dict[str, str] = field(default_factory=dict)  # CLAIMS name -> claim id
    old_revision: str = ""  # notes/turned.md's first (public) revision
    old_unit: str = ""  # its unit "Backups are kept for 17 weeks."
    restricted_unit: str = ""  # the runbook's unit "Audit logs are kept for 400 days."
    contradicted: str = ""  # a claim of table-demo whose latest internal verification is contradicted


def build_paths_store(root: Path) -> Built:
    from graphcite.evaluate import annotate
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify import check_answer

    corpus = write_corpus(root / "corpus")
    (corpus / "ops" / "keys.md").write_text(TABLE_DOC, encoding="utf-8")
    (corpus / "notes" / "turned.md").write_text(TURNED_V1, encoding="utf-8")
    db = root / "paths.duckdb"
    built = Built(db, root / "bare.duckdb", corpus, {})
    with Store(db) as store:
        ingest(store, [corpus])
        built.old_revision = store.scalar("SELECT current_revision FROM source WHERE key = 'notes/turned.md'")
        built.old_unit = store.scalar("SELECT unit_id FROM evidence_unit WHERE revision_id = ? AND text = ?",
                                      [built.old_revision, "Backups are kept for 17 weeks."])
        built.internal = check_answer(store, ANSWER, audience="internal")
        check_answer(store, ANSWER, audience="public")
        table = check_answer(store, TABLE_ANSWER, audience="internal")
        built.contradicted = table["claims"][2]["claim_id"]
        assert table["claims"][2]["status"] == "contradicted"
        (corpus / "notes" / "turned.md").write_text(TURNED_V2, encoding="utf-8")
        ingest(store, [corpus])
        built.restricted_unit = store.scalar("SELECT unit_id FROM evidence_unit WHERE source_key = 'ops/runbook.md' "
                                             "AND text = 'Audit logs are kept for 400 days.'")
        built.claim_ids = {name: c["claim_id"] for name, c in zip(CLAIMS, built.internal["claims"], strict=True)}
    shutil.copy(db, built.bare)
    with Store(db) as store:
        annotate(store, built.claim_ids["launders_figure"], citation=0, label="insufficient", rationale=RATIONALE,
                 reviewer="ana")
        annotate(store, built.claim_ids["clean_schedule"], citation=0, label="supports",
                 rationale="the post says it plainly", reviewer="ana")
    assert built.old_unit and built.restricted_unit
    return built
