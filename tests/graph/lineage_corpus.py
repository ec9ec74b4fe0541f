"""A small corpus with every lineage shape the graph code must handle, and an answer that cites it.

Shapes: three posts that derive (directly, by quotation, and two levels deep) from one decision; an
independent manual that agrees on the attempt count but disagrees on log retention; a superseded
note; a restricted manual with a public post derived from it; a lineage cycle; a link to a key that
was never ingested; and a note whose text is hostile HTML. Loaded by tests/graph/conftest.py and
tests/export/conftest.py (by path, since the test folders are not packages).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILES: dict[str, str] = {
    "decisions/dr-100.md": """---
title: "DR-100: Relay delivery attempts"
status: current
effective: 2024-01-10
kind: decision
supersedes: notes/old-note.md
---
# DR-100: Relay delivery attempts

## Current decision

The relay makes at most five delivery attempts for each event.

Delivery logs are kept for 14 days.
""",
    "posts/p1.md": """---
title: Five attempts, explained
status: current
effective: 2024-02-01
kind: post
derived_from: decisions/dr-100.md
---
# Five attempts, explained

The relay makes at most five delivery attempts for each event, as the decision says.
""",
    "posts/p2.md": """---
title: Reading DR-100
status: current
effective: 2024-03-01
kind: post
derived_from: decisions/dr-100.md
quotes: decisions/dr-100.md
---
# Reading DR-100

> The relay makes at most five delivery attempts for each event.
""",
    "posts/p3.md": """---
title: A recap of the recap
status: current
effective: 2024-04-01
kind: post
derived_from: posts/p1.md
---
# A recap of the recap

In short, the relay makes at most five delivery attempts for each event.
""",
    "manuals/ops.md": """---
title: Relay operations manual
status: current
effective: 2024-01-20
kind: manual
---
# Relay operations manual

## Delivery

The relay makes at most five delivery attempts for each event.

## Logs

Delivery logs are kept for 30 days.
""",
    "notes/old-note.md": """---
title: Old retry note
status: superseded
effective: 2022-03-14
kind: note
superseded_by: decisions/dr-100.md
---
# Old retry note

The relay retries a failed delivery 3 times.

Delivery logs are kept for 7 days.
""",
    "manuals/secret.md": """---
title: Vault rotation runbook
status: current
effective: 2024-04-15
kind: manual
visibility: restricted
---
# Vault rotation runbook

Signing secrets are rotated every 45 days by the nightly vault-keeper job.

Delivery logs are kept for 90 days.
""",
    "contracts/relay-contract.md": """---
title: Relay adapter contract
status: current
effective: 2024-02-15
kind: contract
implements: decisions/dr-100.md
---
# Relay adapter contract

Adapters accept at most five delivery attempts for each event.
""",
    "posts/public-keys.md": """---
title: How we rotate signing secrets
status: current
effective: 2024-05-01
kind: post
derived_from: manuals/secret.md
---
# How we rotate signing secrets

Signing secrets are rotated on a fixed schedule.
""",
    "notes/a.md": """---
title: Note A
status: current
kind: note
derived_from: notes/b.md
---
# Note A

The dispatcher shards queues by merchant.
""",
    "notes/b.md": """---
title: Note B
status: current
kind: note
derived_from: notes/a.md
---
# Note B

The dispatcher shards queues by merchant region.
""",
    "posts/p4.md": """---
title: Sharding story
status: current
kind: post
derived_from: notes/a.md
---
# Sharding story

The dispatcher shards queues by merchant.
""",
    "posts/p5.md": """---
title: Orphan post
status: current
kind: post
derived_from: decisions/never-ingested.md
---
# Orphan post

The relay signs every webhook with a shared secret.
""",
    "notes/hostile.md": """---
title: Hostile note
status: current
kind: note
---
# Hostile note

The parking table holds events for 72 hours <script>document.title='PWNED-SCRIPT'</script> <img src=x onerror="document.title='PWNED-IMG';document.body.appendChild(document.createElement('pwned'))"> and [more](javascript:document.title='PWNED-LINK').
""",
}

# posts/p2.md gets a second revision after the first ingest.
P2_REVISION_2 = FILES["posts/p2.md"] + "\nThe quote above is the whole rule.\n"

RESTRICTED_PHRASE = "vault-keeper"
RESTRICTED_TITLE = "Vault rotation runbook"

FIVE = "The relay makes at most five delivery attempts for each event."


def cite(source: str, quote: str) -> dict[str, Any]:
    return {"source": source, "quote": quote}


def answer(p2_first_revision: str) -> dict[str, Any]:
    """The answer the tests check; claim 9 (the last) pins the first revision of posts/p2.md."""
    data = json.loads(json.dumps(ANSWER))
    data["claims"].append({"text": FIVE, "citations": [
        {"source": "posts/p2.md", "revision": p2_first_revision, "quote": FIVE},
        cite("posts/p2.md", FIVE)]})
    return data


ANSWER: dict[str, Any] = {
    "answer_id": "lineage-demo",
    "question": "How many times does the relay try a delivery?",
    "claims": [
        {"text": FIVE, "citations": [
            cite("posts/p1.md", "The relay makes at most five delivery attempts for each event"),
            cite("posts/p2.md", FIVE),
            cite("posts/p3.md", "the relay makes at most five delivery attempts for each event"),
        ]},
        {"text": FIVE, "citations": [cite("decisions/dr-100.md", FIVE), cite("manuals/ops.md", FIVE)]},
        {"text": "The relay retries a failed delivery 3 times.",
         "citations": [cite("notes/old-note.md", "The relay retries a failed delivery 3 times.")]},
        {"text": "Signing secrets are rotated every 45 days.",
         "citations": [cite("manuals/secret.md",
                            "Signing secrets are rotated every 45 days by the nightly vault-keeper job.")]},
        {"text": "The dispatcher shards queues by merchant.",
         "citations": [cite("posts/p4.md", "The dispatcher shards queues by merchant.")]},
        {"text": "The relay signs every webhook with a shared secret.",
         "citations": [cite("posts/p5.md", "The relay signs every webhook with a shared secret.")]},
        {"text": "The parking table holds events for 72 hours.",
         "citations": [cite("notes/hostile.md", "The parking table holds events for 72 hours")]},
        {"text": "Delivery logs are kept for 14 days.",
         "citations": [cite("decisions/dr-100.md", "Delivery logs are kept for 14 days.")]},
        {"text": "Adapters accept at most five delivery attempts for each event.",
         "citations": [cite("contracts/relay-contract.md",
                            "Adapters accept at most five delivery attempts for each event.")]},
    ],
}


def write_corpus(root: Path, files: dict[str, str] | None = None) -> Path:
    """Write the corpus files under ``root``; returns ``root``."""
    for rel, text in (files or FILES).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def build_store(db: Path, corpus: Path) -> dict[str, Any]:
    """Ingest the corpus into ``db`` (posts/p2.md twice), check :func:`answer` for the internal audience and
    then the public one; returns the internal check report."""
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify import check_answer

    write_corpus(corpus)
    with Store(db) as store:
        ingest(store, [corpus])
        first = store.scalar("SELECT current_revision FROM source WHERE key = 'posts/p2.md'")
        (corpus / "posts" / "p2.md").write_text(P2_REVISION_2, encoding="utf-8")
        ingest(store, [corpus])
        report = check_answer(store, answer(first))
        # records carry their audience: the public graph shows the public verdicts (issue 23 item 10)
        check_answer(store, answer(first), audience="public")
        return report
