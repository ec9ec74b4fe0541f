"""A small store written row by row for the query tests of lifecycle, answers, export and evaluation.

Sources: ``a.md`` revised once (``ra1`` -> ``ra2``), ``b.md`` declaring that it supersedes ``c.md``
(ingested after the claims were verified), ``r.md`` restricted since the check. Answer ``q1`` has two
revisions; its first claim was verified against ``ra1``, accepted for a runbook and adopted into
``b.md`` as unit ``ub2``, which the second revision's claim cites back. Every row is written through
``Store.bulk_insert`` (the acceptance and adoption tables through the query functions under test).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from graphcite.lifecycle.adopt import Adoption
from graphcite.models import Acceptance
from graphcite.store import TABLES, Store
from graphcite.store.queries import lifecycle_accept

T0 = dt.datetime(2026, 3, 1, 9, 0, 0)
T1 = dt.datetime(2026, 3, 2, 9, 0, 0)
T2 = dt.datetime(2026, 3, 3, 9, 0, 0)
TEXT_A1 = "# A\n\nRetries happen three times.\n"
TEXT_A2 = "# A\n\nRetries happen four times.\n\n## Limits\n\nLogs are kept for a week.\n"
TEXT_B = "# B\n\nThe gateway offers a status lookup.\n\nRetries happen three times.\n"
TEXT_C = "# C\n\nThe old gateway has no status lookup.\n"
TEXT_R = "# R\n\nSigning keys rotate monthly.\n"


def _revision(rid: str, key: str, seq: int, text: str, at: dt.datetime, **extra: Any) -> dict[str, Any]:
    return {"revision_id": rid, "source_key": key, "seq": seq, "content_hash": f"hash-{rid}", "text": text,
            "format": "markdown", "ingested_at": at, "title": key, "kind": "decision", **extra}


def _unit(uid: str, rid: str, key: str, ordinal: int, full: str, text: str, **extra: Any) -> dict[str, Any]:
    start = full.index(text)
    return {"unit_id": uid, "revision_id": rid, "source_key": key, "ordinal": ordinal, "start": start,
            "end": start + len(text), "text": text, "block_type": "paragraph", **extra}


def _result(unit_id: str, revision: str, quote: str) -> str:
    return json.dumps({"citations": [{"index": 0, "unit_id": unit_id, "revision": revision, "quote": quote,
                                      "located_spans": [{"unit_id": unit_id, "revision": revision, "quote": quote}]}]})


class _Filled:
    """``bulk_insert`` with each row's missing columns set to the model's defaults (rows may differ in keys)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def bulk_insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        fields = TABLES[table].model_fields
        defaults = {name: f.get_default(call_default_factory=True) for name, f in fields.items() if not f.is_required()}
        self.store.bulk_insert(table, [{**defaults, **row} for row in rows])


def build(store: Store) -> None:
    """Write the world into an empty store."""
    filled = _Filled(store)
    with store.transaction():
        filled.bulk_insert("source", [
            {"key": "a.md", "current_revision": "ra2", "first_ingested_at": T0, "kind": "decision"},
            {"key": "b.md", "current_revision": "rb2", "first_ingested_at": T0, "kind": "decision"},
            {"key": "c.md", "current_revision": "rc1", "first_ingested_at": T0, "kind": "contract"},
            {"key": "r.md", "current_revision": "rr1", "first_ingested_at": T0, "visibility": "restricted"}])
        filled.bulk_insert("source_revision", [
            _revision("ra1", "a.md", 1, TEXT_A1, T0),
            _revision("ra2", "a.md", 2, TEXT_A2, T2, effective=dt.date(2026, 3, 3), previous_revision="ra1"),
            _revision("rb1", "b.md", 1, TEXT_B.replace("\nRetries happen three times.\n", ""), T0),
            _revision("rb2", "b.md", 2, TEXT_B, T2, effective=dt.date(2026, 2, 20), previous_revision="rb1"),
            _revision("rc1", "c.md", 1, TEXT_C, T0, kind="contract"),
            _revision("rr1", "r.md", 1, TEXT_R, T0)])
        filled.bulk_insert("evidence_unit", [
            _unit("ua1", "ra1", "a.md", 1, TEXT_A1, "Retries happen three times."),
            _unit("ua2", "ra2", "a.md", 1, TEXT_A2, "Retries happen four times."),
            _unit("ua3", "ra2", "a.md", 3, TEXT_A2, "Logs are kept for a week.", heading_path_json='["A", "Limits"]',
                  status="historical", status_cue="Limits"),
            _unit("ub0", "rb1", "b.md", 1, TEXT_B, "The gateway offers a status lookup."),
            _unit("ub1", "rb2", "b.md", 1, TEXT_B, "The gateway offers a status lookup."),
            _unit("ub2", "rb2", "b.md", 2, TEXT_B, "Retries happen three times."),
            _unit("uc1", "rc1", "c.md", 1, TEXT_C, "The old gateway has no status lookup."),
            _unit("ur1", "rr1", "r.md", 1, TEXT_R, "Signing keys rotate monthly.")])
        filled.bulk_insert("typed_value", [
            {"value_id": "v1", "unit_id": "ua1", "revision_id": "ra1", "start": 23, "end": 28, "surface": "three",
             "magnitude": 3.0, "kind": "count"},
            {"value_id": "v2", "unit_id": "ua2", "revision_id": "ra2", "start": 23, "end": 27, "surface": "four",
             "magnitude": 4.0, "kind": "count"}])
        filled.bulk_insert("source_link", [
            {"link_id": "l1", "from_key": "b.md", "to_key": "c.md", "relation": "supersedes", "declared_in": "rb2"},
            {"link_id": "l0", "from_key": "b.md", "to_key": "a.md", "relation": "derived_from", "declared_in": "rb1"}])
        filled.bulk_insert("term_posting", [
            {"term": "retri", "unit_id": u} for u in ("ua1", "ua2", "ub2")] + [
            {"term": "gateway", "unit_id": u} for u in ("ub0", "ub1", "uc1")] + [
            {"term": "three", "unit_id": u} for u in ("ua1", "ub2")] + [
            {"term": "status", "unit_id": u} for u in ("ub1", "uc1")])
        filled.bulk_insert("answer", [
            {"answer_rev": "rev1", "answer_id": "q1", "question": "How often?", "format": "native",
             "content_json": "{}", "stored_at": T0},
            {"answer_rev": "rev2", "answer_id": "q1", "question": "How often?", "format": "native",
             "content_json": "{}", "stored_at": T2, "corrects": "rev1", "correction_rationale": "adopted"},
            {"answer_rev": "rev3", "answer_id": "q3", "question": None, "format": "text", "content_json": "{}",
             "stored_at": T1}])
        filled.bulk_insert("claim", [
            {"claim_id": "c1", "answer_rev": "rev1", "ordinal": 0, "text": "Retries happen three times."},
            {"claim_id": "c1p0", "answer_rev": "rev1", "ordinal": 0, "part": 0, "parent_id": "c1",
             "text": "Retries happen three times.", "atomic_json": '{"text": "Retries happen three times."}'},
            {"claim_id": "c2", "answer_rev": "rev1", "ordinal": 1, "text": "The gateway offers a status lookup."},
            {"claim_id": "c2p1", "answer_rev": "rev1", "ordinal": 1, "part": 1, "parent_id": "c2", "text": "b"},
            {"claim_id": "c2p0", "answer_rev": "rev1", "ordinal": 1, "part": 0, "parent_id": "c2", "text": "a"},
            {"claim_id": "c3", "answer_rev": "rev2", "ordinal": 0, "text": "Retries happen three times."},
            {"claim_id": "c4", "answer_rev": "rev3", "ordinal": 0, "text": "Signing keys rotate monthly."}])
        filled.bulk_insert("citation", [
            {"citation_id": "c1-0", "claim_id": "c1", "ordinal": 0, "source_key": "a.md", "revision": "ra1",
             "quote": "three times"},
            {"citation_id": "c2-1", "claim_id": "c2", "ordinal": 1, "source_key": "b.md"},
            {"citation_id": "c2-0", "claim_id": "c2", "ordinal": 0, "source_key": "c.md"},
            {"citation_id": "c3-0", "claim_id": "c3", "ordinal": 0, "source_key": "b.md", "quote": "three times"},
            {"citation_id": "c3-1", "claim_id": "c3", "ordinal": 1, "chunk_id": "ub2"},
            {"citation_id": "c4-0", "claim_id": "c4", "ordinal": 0, "source_key": "r.md"}])
        filled.bulk_insert("verification", [
            _record("v1", "c1", "rev1", T0, "unsupported", ["ra1"], _result("ua1", "ra1", "three times")),
            _record("v2", "c1", "rev1", T1, "supported", ["ra1"], _result("ua1", "ra1", "three times")),
            _record("v3", "c2", "rev1", T1, "supported", ["rb1", "rc1"], _result("uc1", "rc1", "")),
            _record("v4", "c3", "rev2", T2, "supported", ["rb2"], _result("ub2", "rb2", "three times")),
            _record("v5", "c4", "rev3", T1, "supported", ["rr1"], _result("ur1", "rr1", "rotate"))])
        filled.bulk_insert("annotation", [
            {"annotation_id": "n2", "claim_id": "c1", "citation_index": 0, "label": "supports", "rationale": "ok",
             "reviewer": "ana", "created_at": T1},
            {"annotation_id": "n1", "claim_id": "c1", "citation_index": 0, "label": "insufficient",
             "rationale": "vague", "reviewer": "ben", "created_at": T1},
            {"annotation_id": "n3", "claim_id": "c2", "citation_index": 1, "label": "supports", "rationale": "yes",
             "reviewer": "ana", "created_at": T0, "adjudication": True}])
        store.ensure_table(Acceptance)
        for row in ACCEPTANCES:
            lifecycle_accept.insert_acceptance(store, row)
        store.ensure_table(Adoption)
        lifecycle_accept.insert_adoption(store, ADOPTION)


def _record(rid: str, claim: str, rev: str, at: dt.datetime, status: str, revisions: list[str],
            result: str) -> dict[str, Any]:
    return {"record_id": rid, "claim_id": claim, "answer_rev": rev, "config_hash": "cfg", "config_json": "{}",
            "evidence_revisions_json": json.dumps(revisions), "verified_at": at, "status": status,
            "supported": status == "supported", "result_json": result}


def _acceptance(aid: str, claim: str, task: str, at: dt.datetime, evidence: list[dict[str, str]],
                **extra: Any) -> dict[str, Any]:
    return {"acceptance_id": aid, "claim_id": claim, "answer_rev": "rev1", "claim_revision": "h", "task": task,
            "destination": "b.md", "evidence_json": json.dumps(evidence),
            "evidence_revisions_json": json.dumps(sorted({e["revision_id"] for e in evidence})),
            "verification_record": "v2", "verification_status": "supported", "expires": None,
            "while_current": False, "reviewer": "ana", "note": None, "accepted_at": at, **extra}


ACCEPTANCES = [
    _acceptance("acc2", "c1", "runbook", T1, [{"unit_id": "ua1", "revision_id": "ra1", "source_key": "a.md"}]),
    _acceptance("acc1", "c1", "faq", T0, [{"unit_id": "ua1", "revision_id": "ra1", "source_key": "a.md"}]),
    _acceptance("acc3", "c2", "runbook", T1, [{"unit_id": "ub1", "revision_id": "rb2", "source_key": "b.md"}],
                expires=dt.date(2026, 3, 2)),
]
ADOPTION = {"adoption_id": "ad1", "claim_id": "c1", "answer_rev": "rev1", "acceptance_id": "acc2",
            "source_key": "b.md", "revision_id": "rb2", "unit_id": "ub2", "text": "Retries happen three times.",
            "evidence_json": '[{"unit_id": "ua1"}]', "reviewer": "ana", "adopted_at": T2}
