"""check, gate and history: the verification entry points the CLI wraps.

One answer is one transaction: the answer revision is stored (idempotently), every claim is verified,
and one verification record per claim is appended; records are never updated in place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from graphcite.claims.answers import add_answer, answer_parts, claim_id_for, get_answer, parts_for
from graphcite.claims.formats import load_answer
from graphcite.errors import GraphciteError, NotFoundError
from graphcite.models import InputAnswer
from graphcite.store import Store, utcnow
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import verify_claims

__all__ = ["check_answer", "gate_answer", "gate_stream", "history", "resolve_answer", "verify_answer"]

AUDIENCES = ("public", "internal")


def resolve_answer(store: Store, ref: str | Path | Mapping[str, Any] | InputAnswer, *,
                   format: str | None = None, documents: list[str] | None = None) -> InputAnswer | tuple[str, InputAnswer]:
    """An answer from a file, dict or InputAnswer; or ``(rev, answer)`` for a stored answer id/revision."""
    if isinstance(ref, InputAnswer):
        return ref
    if isinstance(ref, str) and not Path(ref).exists() and "\n" not in ref and "{" not in ref:
        try:
            return get_answer(store, ref)
        except NotFoundError:
            pass
    return load_answer(ref, format=format, documents=documents)


def verify_answer(store: Store, answer: InputAnswer, *, config: VerifierConfig | None = None,
                  audience: str = "internal", model: str | None = None) -> dict[str, Any]:
    """Verify an answer without storing anything (used by eval and the streaming gate)."""
    _check_audience(audience)
    return verify_claims(store, answer, parts_for(answer, model=model), config or VerifierConfig(),
                         audience=audience)


def _check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise GraphciteError(f"unknown audience {audience!r}", where="--audience", fix="use public or internal")


def check_answer(store: Store, answer: str | Path | Mapping[str, Any] | InputAnswer, *,
                 config: VerifierConfig | None = None, audience: str = "internal", format: str | None = None,
                 documents: list[str] | None = None, model: str | None = None,
                 record: bool = True) -> dict[str, Any]:
    """Store the answer revision, verify every claim and append one verification record per claim."""
    _check_audience(audience)
    config = config or VerifierConfig()
    loaded = resolve_answer(store, answer, format=format, documents=documents)
    with store.transaction():
        if isinstance(loaded, tuple):
            rev, parsed = loaded
        else:
            parsed = loaded
            rev = add_answer(store, parsed, model=model)
        parts = answer_parts(store, rev)
        report = verify_claims(store, parsed, parts, config, audience=audience)
        report["answer_rev"] = rev
        for claim in report["claims"]:
            claim["claim_id"] = claim_id_for(rev, claim["index"])
        if record:
            _append_records(store, rev, report, config)
    return report


def _append_records(store: Store, rev: str, report: dict[str, Any], config: VerifierConfig) -> None:
    now = utcnow()
    config_json = json.dumps(config.as_dict(), sort_keys=True, default=str)
    existing = int(store.scalar("SELECT count(*) FROM verification WHERE answer_rev = ?", [rev]))
    rows = []
    for claim in report["claims"]:
        revisions = sorted({c["revision"] for c in claim["citations"] if c.get("revision")})
        result = json.dumps(claim, sort_keys=True, ensure_ascii=False, default=str)
        record_id = hashlib.sha256(f"{claim['claim_id']}:{existing}:{now.isoformat()}:{config.hash}".encode()
                                   ).hexdigest()[:16]
        rows.append({"record_id": record_id, "claim_id": claim["claim_id"], "answer_rev": rev,
                     "config_hash": config.hash, "config_json": config_json,
                     "evidence_revisions_json": json.dumps(revisions), "verified_at": now,
                     "status": claim["status"], "supported": bool(claim["supported"]), "result_json": result})
    store.bulk_insert("verification", rows)


def history(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Every verification record of a claim, oldest first."""
    rows = store.rows("""
        SELECT record_id, claim_id, answer_rev, config_hash, evidence_revisions_json,
               CAST(verified_at AS VARCHAR) AS verified_at, status, supported
        FROM verification WHERE claim_id = ? ORDER BY verified_at, record_id""", [claim_id])
    if not rows and not store.scalar("SELECT count(*) FROM claim WHERE claim_id = ?", [claim_id]):
        raise NotFoundError(f"no claim {claim_id!r}", where="CLAIM", fix="take a claim_id from `graphcite check --json`")
    for row in rows:
        row["evidence_revisions"] = json.loads(row.pop("evidence_revisions_json"))
    return rows


def gate_answer(report: Mapping[str, Any]) -> dict[str, Any]:
    """The no-span-no-claim rule: keep only supported claims; a decline when none is left."""
    kept = [c["text"] for c in report["claims"] if c["supported"]]
    dropped = [{"text": c["text"], "status": c["status"]} for c in report["claims"] if not c["supported"]]
    if not kept:
        return {"answer_id": report["answer_id"], "declined": True, "text": "",
                "reason": "no claim of this answer is supported by its citations", "dropped": dropped}
    return {"answer_id": report["answer_id"], "declined": False, "text": " ".join(kept), "dropped": dropped}


def gate_stream(store: Store, lines: Iterable[str], *, config: VerifierConfig | None = None,
                audience: str = "internal") -> Iterator[dict[str, Any]]:
    """Verify one claim per JSON line and yield each verdict as soon as it is decided."""
    config = config or VerifierConfig()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield {"line": number, "error": f"line {number}: not JSON ({exc.msg})"}
            continue
        try:
            answer = load_answer({"answer_id": f"stream-{number}", "claims": [data]}, format="native")
        except GraphciteError as exc:
            yield {"line": number, "error": f"line {number}: {exc}"}
            continue
        report = verify_answer(store, answer, config=config, audience=audience)
        claim = report["claims"][0]
        yield {"line": number, "text": claim["text"], "passed": claim["supported"], "status": claim["status"]}
