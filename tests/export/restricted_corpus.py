"""A corpus built to catch restricted material leaking into public output, and the secrets to search for.

Two restricted sources with kinds no public source has (incident, registry), unusual titles, an
unusual effective date, figures and a term found nowhere public, and lineage of their own: the
runbook derives from a key that was never ingested (``hidden-upstream.md``) and from the restricted
ledger, and supersedes a public note. Public sources around them: a post derived from the runbook,
an audit note that a restricted figure contradicts, a decision. The answer has claims that launder
restricted figures or terms through a public citation, one that cites the runbook directly, and
clean claims. It is checked twice, for the internal audience first (those records name restricted
units, quote them and list them as contradicting evidence) and then for the public audience, so an
export must scrub records made earlier for another audience.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FILES: dict[str, str] = {
    "ops/runbook.md": """---
title: Zephyr Keystore Runbook
status: current
effective: 2031-07-19
kind: incident
visibility: restricted
derived_from: [hidden-upstream.md, ops/ledger.md]
supersedes: notes/old-rotation.md
---
# Zephyr Keystore Runbook

Signing keys are rotated every 45 days by the zephyr-keeper job.

Audit logs are kept for 400 days.

Webhook deliveries time out after 30 seconds.
""",
    "ops/ledger.md": """---
title: Quillon Key Ledger
status: current
effective: 2031-07-20
kind: registry
visibility: restricted
---
# Quillon Key Ledger

The ledger holds 1,234 signing keys.
""",
    "posts/rotation.md": """---
title: How signing keys are rotated
status: current
effective: 2024-05-01
kind: post
derived_from: ops/runbook.md
---
# How signing keys are rotated

Signing keys are rotated on a fixed schedule.
""",
    "notes/audit.md": """---
title: Audit log note
status: current
effective: 2024-02-01
kind: note
---
# Audit log note

Audit logs are kept for 90 days.
""",
    "notes/old-rotation.md": """---
title: Old rotation note
status: current
effective: 2022-01-01
kind: note
---
# Old rotation note

Signing keys were rotated by hand.
""",
    "decisions/dr-7.md": """---
title: "DR-7: Webhook timeouts"
status: current
effective: 2024-03-01
kind: decision
---
# DR-7: Webhook timeouts

Webhook deliveries time out after 30 seconds.
""",
}

RESTRICTED_KEYS = ("ops/runbook.md", "ops/ledger.md")
# Never ingested; only a restricted document names it.
HIDDEN_UPSTREAM = "hidden-upstream.md"
# Strings no public output may contain (ids are added from the store by :func:`secrets`).
SECRET_STRINGS = (
    "ops/runbook.md", "runbook.md", "ops/ledger.md", "ledger.md", HIDDEN_UPSTREAM, "hidden-upstream",
    "Zephyr Keystore Runbook", "Keystore", "Quillon Key Ledger", "Quillon",
    "incident", "registry",  # the restricted kinds; no public source has them
    "2031-07-19", "2031-07-20",  # their effective dates
    "45 days", "every 45", "400 days", "1,234", "zephyr",  # figures and a term only they hold
)

CLAIMS = {
    "launders_figure": "Signing keys are rotated every 45 days.",
    "clean_schedule": "Signing keys are rotated on a fixed schedule.",
    "cites_restricted": "Audit logs are kept for 400 days.",
    "clean_timeout": "Webhook deliveries time out after 30 seconds.",
    "launders_term": "The zephyr-keeper job rotates signing keys.",
    "contradicted_by_restricted": "Audit logs are kept for 90 days.",
    "launders_count": "The ledger holds 1,234 signing keys.",
    "names_restricted_key": "Webhook deliveries time out after 30 seconds, as ops/runbook.md also says.",
}
WITHHELD = ("launders_figure", "cites_restricted", "launders_term", "launders_count")


def _cite(source: str, quote: str) -> dict[str, Any]:
    return {"source": source, "quote": quote}


ANSWER: dict[str, Any] = {
    "answer_id": "restricted-demo",
    "question": "How are signing keys and audit logs handled?",
    "claims": [
        {"text": CLAIMS["launders_figure"],
         "citations": [_cite("posts/rotation.md", "Signing keys are rotated on a fixed schedule.")]},
        {"text": CLAIMS["clean_schedule"],
         "citations": [_cite("posts/rotation.md", "Signing keys are rotated on a fixed schedule.")]},
        {"text": CLAIMS["cites_restricted"],
         "citations": [_cite("ops/runbook.md", "Audit logs are kept for 400 days.")]},
        {"text": CLAIMS["clean_timeout"],  # also cites the runbook: its internal record names a restricted unit
         "citations": [_cite("decisions/dr-7.md", "Webhook deliveries time out after 30 seconds."),
                       _cite("ops/runbook.md", "Webhook deliveries time out after 30 seconds.")]},
        {"text": CLAIMS["launders_term"],
         "citations": [_cite("posts/rotation.md", "Signing keys are rotated on a fixed schedule.")]},
        {"text": CLAIMS["contradicted_by_restricted"],
         "citations": [_cite("notes/audit.md", "Audit logs are kept for 90 days.")]},
        {"text": CLAIMS["launders_count"],
         "citations": [_cite("posts/rotation.md", "Signing keys are rotated on a fixed schedule.")]},
        {"text": CLAIMS["names_restricted_key"],  # shown, with the key replaced by its placeholder
         "citations": [_cite("decisions/dr-7.md", "Webhook deliveries time out after 30 seconds.")]},
    ],
}


def write_corpus(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def build_store(db: Path, corpus: Path) -> dict[str, Any]:
    """Ingest, check the answer for the internal audience, then again for the public; returns the internal report."""
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify import check_answer

    write_corpus(corpus)
    with Store(db) as store:
        ingest(store, [corpus])
        internal = check_answer(store, ANSWER, audience="internal")
        check_answer(store, ANSWER, audience="public")
    return internal


def secrets(store: Any) -> list[str]:
    """Every string a public output must not contain: the fixed ones plus restricted ids and hashes."""
    keys = list(RESTRICTED_KEYS)
    marks = ", ".join("?" * len(keys))
    ids = [r["revision_id"] for r in store.rows(f"SELECT revision_id FROM source_revision WHERE source_key IN ({marks})",
                                                keys)]
    ids += [r["content_hash"] for r in store.rows(
        f"SELECT content_hash FROM source_revision WHERE source_key IN ({marks})", keys)]
    ids += [r["unit_id"] for r in store.rows(f"SELECT unit_id FROM evidence_unit WHERE source_key IN ({marks})", keys)]
    ids += [r["value_id"] for r in store.rows(
        f"SELECT value_id FROM typed_value t JOIN evidence_unit u USING (unit_id) WHERE u.source_key IN ({marks})",
        keys)]
    ids += [r["link_id"] for r in store.rows(
        "SELECT link_id FROM source_link l JOIN source_revision r ON r.revision_id = l.declared_in "
        f"WHERE r.source_key IN ({marks})", keys)]
    assert len(ids) >= 8, ids
    return [*SECRET_STRINGS, *ids]
