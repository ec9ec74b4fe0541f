"""Scoped acceptance: a reviewer accepts one claim for one task and destination, never for every use.

An acceptance pins the answer revision, the claim text (hashed), the exact evidence set (unit ids and
source revisions) and the verification record it relied on, plus when it lapses: an expiry date, or
``while_current`` (the cited revisions must stay the current ones). Acceptances are appended, never
updated; :func:`acceptances` reports each with its scope and whether it is active or lapsed, and a
task filter never shows another task's acceptance.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from graphcite.errors import make_error
from graphcite.models import Acceptance
from graphcite.store import Store, utcnow
from graphcite.store.queries import latest_verification
from graphcite.store.queries import lifecycle_accept as queries
from graphcite.store.queries.answers import claim_by_id

__all__ = ["accept", "acceptance_table_exists", "acceptances", "parse_expiry", "refuse_contradicted"]

_COLUMNS = queries.ACCEPTANCE_COLUMNS


def acceptance_table_exists(store: Store) -> bool:
    """Whether the store has an ``acceptance`` table yet (stores created before it have none)."""
    return "acceptance" in store.table_names()


def _ensure_table(store: Store) -> None:
    """Create the table from its model when the store predates it (the same DDL the store compiles)."""
    store.ensure_table(Acceptance)


def parse_expiry(value: str | dt.date | None, *, today: dt.date | None = None) -> dt.date | None:
    """An ISO date after today, or E101 naming --expires (a past or unreadable date is refused)."""
    if value is None:
        return None
    if isinstance(value, dt.date):
        day = value
    else:
        try:
            day = dt.date.fromisoformat(value.strip())
        except ValueError:
            raise make_error("E101", where="--expires", detail=f"not a date: {value!r}",
                             fix="give the date as YYYY-MM-DD") from None
    today = today or utcnow().date()
    if day <= today:
        raise make_error("E101", where="--expires", detail=f"expiry {day.isoformat()} is not after today "
                         f"({today.isoformat()})", fix="give a future date, or use --while-current")
    return day


def _claim(store: Store, claim_id: str) -> dict[str, Any]:
    row = claim_by_id(store, claim_id)
    if row is None:
        shown = claim_id if len(claim_id) <= 80 else claim_id[:77] + "..."
        raise make_error("E504", where="CLAIM", ref=shown)
    return row


def _evidence(result: dict[str, Any]) -> list[dict[str, str]]:
    """The unit ids and revisions a verification result relied on, each once, in citation order."""
    seen: dict[str, dict[str, str]] = {}
    for cit in result.get("citations", []):
        for spot in cit.get("located_spans") or [cit]:
            unit, revision = spot.get("unit_id"), spot.get("revision") or cit.get("revision")
            if unit and revision and unit not in seen:
                seen[unit] = {"unit_id": unit, "revision_id": revision,
                              "source_key": spot.get("source") or cit.get("source") or ""}
    return list(seen.values())


def accept(store: Store, claim_id: str, *, task: str, destination: str, expires: str | dt.date | None = None,
           while_current: bool = False, reviewer: str | None = None, note: str | None = None,
           today: dt.date | None = None) -> dict[str, Any]:
    """Record that ``claim_id`` is accepted for ``task`` and ``destination``; returns the stored acceptance.

    The claim's latest internal verification record is what the acceptance relies on (a public check's
    record never is): a claim never verified, one whose latest verdict is contradicted, or (with
    ``while_current``) one whose evidence revisions are no longer current, is refused, as are
    an empty task or destination and an expiry that is not in the future. Nothing is written then.
    """
    for name, value in (("--task", task), ("--destination", destination)):
        if not value or not value.strip():
            raise make_error("E101", where=name, detail="must not be empty",
                             fix="name the task (e.g. a draft id) and where the claim goes")
    day = parse_expiry(expires, today=today)
    claim = _claim(store, claim_id)
    verified_id = claim["parent_id"] or claim["claim_id"]
    record = latest_verification(store, verified_id, "record_id, status, evidence_revisions_json, result_json")
    if record is None:
        raise make_error("E501", where="CLAIM", detail=f"claim {claim_id} has no verification record",
                         fix=f"verify its answer first: `graphcite check {claim['answer_rev']}`")
    refuse_contradicted(claim_id, record["status"])
    evidence = _evidence(json.loads(record["result_json"]))
    revisions = sorted({item["revision_id"] for item in evidence} | set(json.loads(record["evidence_revisions_json"])))
    if while_current:
        old = _not_current(store, revisions)
        if old:
            raise make_error("E101", where="--while-current", detail=f"the verification of {claim_id} relied on "
                             f"{', '.join(old)}, no longer current", fix="run `graphcite recheck --stale` first")
    now = utcnow()
    count = queries.acceptance_count(store, claim_id)
    row = {
        "acceptance_id": "a" + hashlib.sha256(f"{claim_id}\0{task}\0{destination}\0{count}\0{now.isoformat()}"
                                              .encode()).hexdigest()[:15],
        "claim_id": claim_id, "answer_rev": claim["answer_rev"],
        "claim_revision": hashlib.sha256(claim["text"].encode()).hexdigest()[:16],
        "task": task.strip(), "destination": destination.strip(),
        "evidence_json": json.dumps(evidence, ensure_ascii=False),
        "evidence_revisions_json": json.dumps(revisions),
        "verification_record": record["record_id"], "verification_status": record["status"],
        "expires": day, "while_current": bool(while_current), "reviewer": reviewer, "note": note,
        "accepted_at": now}
    Acceptance.model_validate(row)
    with store.transaction():
        _ensure_table(store)
        queries.insert_acceptance(store, row)
    return _shown(store, row, today=today)


def refuse_contradicted(claim_id: str, status: str) -> None:
    """E101 for a claim whose latest verification is contradicted: no scope makes a contradicted claim usable."""
    if status == "contradicted":
        raise make_error("E101", where="CLAIM", detail=f"claim {claim_id}'s latest verification is contradicted "
                         "by its evidence", fix="correct the claim and check it again; a contradicted claim cannot "
                         "be accepted or adopted")


def _not_current(store: Store, revisions: list[str]) -> list[str]:
    """Of ``revisions``, those whose source now points elsewhere, as ``source@revision``."""
    return [f"{r['source_key']}@{r['revision_id']}" for r in queries.not_current_revisions(store, revisions)]


def _shown(store: Store, row: dict[str, Any], *, today: dt.date | None = None) -> dict[str, Any]:
    """An acceptance as reported: its scope, evidence, and ``state`` active or lapsed (with why)."""
    today = today or utcnow().date()
    out = {k: row[k] for k in _COLUMNS if not k.endswith("_json")}
    out["evidence"] = json.loads(row["evidence_json"])
    out["evidence_revisions"] = json.loads(row["evidence_revisions_json"])
    out["expires"] = None if row["expires"] is None else str(row["expires"])
    out["accepted_at"] = str(row["accepted_at"])
    lapsed = []
    if row["expires"] is not None and today >= row["expires"]:
        lapsed.append(f"expired on {row['expires']}")
    if row["while_current"]:
        lapsed += [f"{item} is no longer the current revision"
                   for item in _not_current(store, out["evidence_revisions"])]
    out["state"] = "lapsed" if lapsed else "active"
    out["lapsed_because"] = lapsed
    out["scope"] = f"task {out['task']!r} → {out['destination']!r}" + (
        f", until {out['expires']}" if out["expires"] else "") + (
        ", while the cited revisions are current" if row["while_current"] else "")
    return out


def acceptances(store: Store, claim_id: str, *, task: str | None = None,
                today: dt.date | None = None) -> list[dict[str, Any]]:
    """Every acceptance of a claim (only ``task``'s when given), oldest first, each active or lapsed."""
    _claim(store, claim_id)
    if not acceptance_table_exists(store):
        return []
    return [_shown(store, row, today=today) for row in queries.acceptance_rows(store, claim_id, task=task)]
