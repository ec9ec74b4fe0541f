"""check, gate and history: the verification entry points the CLI wraps.

One answer is one transaction: the answer revision is stored (idempotently), every claim is verified,
and one verification record per claim is appended; records are never updated in place.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from graphcite.claims.answers import (
    add_answer,
    answer_parts,
    claim_id_for,
    get_answer,
    parts_for,
    suggest_answer,
)
from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answer, parse_json
from graphcite.errors import GraphciteError, NotFoundError, make_error
from graphcite.models import InputAnswer
from graphcite.store import Store, utcnow
from graphcite.store.queries import newest_per_claim_sql
from graphcite.verify.claim_types import mark_reviews
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import verify_claims

__all__ = ["AUDIENCES", "MAX_STREAM_LINE", "check_answer", "check_audience", "earlier_checks", "gate_answer", "gate_stream",
           "history", "read_lines", "resolve_answer", "verify_answer"]

AUDIENCES = ("public", "internal")
MAX_STREAM_LINE = 1_000_000  # characters (bytes when read from a binary stream) per `gate --stream` line


def resolve_answer(store: Store, ref: str | Path | Mapping[str, Any] | InputAnswer, *,
                   format: str | None = None, documents: list[str] | None = None,
                   limits: AnswerLimits = DEFAULT_LIMITS) -> InputAnswer | tuple[str, InputAnswer]:
    """An answer from a file, dict or InputAnswer; or ``(rev, answer)`` for a stored answer id/revision.

    A ``str`` is an existing path or a stored answer id or revision, never the answer's text: a
    mistyped id is an error (E502) that names the closest stored id, not a new answer whose text is
    the typo. Inline text goes through :func:`graphcite.claims.formats.load_answer_text` first.
    """
    if isinstance(ref, InputAnswer):
        limits.check_claims(len(ref.claims))
        for i, claim in enumerate(ref.claims):
            limits.check_claim_text(claim.text, f"claims[{i}].text")
        return ref
    if isinstance(ref, Mapping | Path):
        return load_answer(ref, format=format, documents=documents, limits=limits)
    if not isinstance(ref, str):
        raise make_error("E101", where="ANSWER", detail=f"cannot read an answer from a {type(ref).__name__}",
                         fix="pass a file path, a stored answer id, a dict or an InputAnswer")
    if ref and "\0" not in ref and len(ref) < 4096 and os.path.lexists(ref):
        return load_answer(Path(ref), format=format, documents=documents, limits=limits)
    if ref.strip() and "\n" not in ref and len(ref) < 4096:
        try:
            return get_answer(store, ref.strip())
        except NotFoundError:
            pass
    shown = ref if len(ref) <= 80 else ref[:77] + "..."
    closest = suggest_answer(store, ref) if ref.strip() and len(ref) < 4096 else None
    fix = f"did you mean {closest!r}? " if closest else ""
    raise make_error("E502", where="ANSWER", ref=shown,
                     fix=fix + "pass a file, a stored id (`graphcite answers`), --text \"...\" or `-` for stdin")


def verify_answer(store: Store, answer: InputAnswer, *, config: VerifierConfig | None = None,
                  audience: str = "internal", model: str | None = None) -> dict[str, Any]:
    """Verify an answer without storing anything (used by eval and the streaming gate)."""
    _check_audience(audience)
    return verify_claims(store, answer, parts_for(answer, model=model), config or VerifierConfig(),
                         audience=audience)


def check_audience(audience: str) -> str:
    """The audience, or E104 when it is neither public nor internal."""
    if audience not in AUDIENCES:
        raise make_error("E104", where="--audience", audience=audience)
    return audience


_check_audience = check_audience


def check_answer(store: Store, answer: str | Path | Mapping[str, Any] | InputAnswer, *,
                 config: VerifierConfig | None = None, audience: str = "internal", format: str | None = None,
                 documents: list[str] | None = None, model: str | None = None,
                 record: bool = True, limits: AnswerLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Store the answer revision, verify every claim and append one verification record per claim.

    The answer is read and checked against ``limits`` before the store is touched, and everything
    is written in one transaction: a refused or interrupted check leaves the store as it was.
    """
    _check_audience(audience)
    config = config or VerifierConfig()
    loaded = resolve_answer(store, answer, format=format, documents=documents, limits=limits)
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
        mark_reviews(store, report["claims"])
        earlier = earlier_checks(store, rev, report)
        if earlier is not None:
            report["earlier"] = earlier
        if record:
            _append_records(store, rev, report, config)
    return report


def earlier_checks(store: Store, rev: str, report: dict[str, Any]) -> dict[str, Any] | None:
    """For an answer revision verified before: the checks performed then, per claim the last status
    and configuration, the reviewers' judgements, and any newer revision that corrects this one.
    None for an answer checked for the first time."""
    rows = store.rows(f"""
        SELECT claim_id, count(*) AS checks, max(verified_at) AS last_at,
               max(CASE WHEN newest = 1 THEN status END) AS last_status,
               max(CASE WHEN newest = 1 THEN config_hash END) AS last_config
        FROM ({newest_per_claim_sql("answer_rev = ?", "claim_id, verified_at, status, config_hash")}) v
        GROUP BY claim_id""", [rev])
    if not rows:
        return None
    by_claim = {r["claim_id"]: r for r in rows}
    reviews = {r["claim_id"]: r for r in store.rows("""
        SELECT a.claim_id, count(*) AS judgements, count(DISTINCT a.label) AS labels, max(a.created_at) AS last_at
        FROM annotation a JOIN claim c ON c.claim_id = a.claim_id
        WHERE c.answer_rev = ? GROUP BY a.claim_id""", [rev])}
    newer = [r["answer_rev"] for r in store.rows(
        "SELECT answer_rev FROM answer WHERE corrects = ? ORDER BY stored_at, answer_rev", [rev])]
    claims = []
    for claim in report["claims"]:
        seen = by_claim.get(claim["claim_id"])
        review = reviews.get(claim["claim_id"])
        item: dict[str, Any] = {"claim_id": claim["claim_id"], "checks": int(seen["checks"]) if seen else 0}
        if seen:
            item.update(last_verified_at=str(seen["last_at"]), last_status=seen["last_status"],
                        last_config_hash=seen["last_config"], status_changed=seen["last_status"] != claim["status"])
        if review:
            item.update(judgements=int(review["judgements"]), contested=int(review["labels"]) > 1,
                        last_judged_at=str(review["last_at"]))
        claims.append(item)
    return {"checks": max(int(r["checks"]) for r in rows),
            "last_verified_at": str(max(r["last_at"] for r in rows)),
            "corrected_by": newer, "claims": claims}


def _append_records(store: Store, rev: str, report: dict[str, Any], config: VerifierConfig) -> None:
    existing = int(store.scalar("SELECT count(*) FROM verification WHERE answer_rev = ?", [rev]))
    config_json = json.dumps(config.as_dict(), sort_keys=True, default=str)
    store.bulk_insert("verification", record_rows(rev, report, config, config_json, existing, utcnow()))


def record_rows(rev: str, report: dict[str, Any], config: VerifierConfig, config_json: str, existing: int,
                now: Any) -> list[dict[str, Any]]:
    """The verification records of one report (one per claim); ``existing`` records of the revision
    came before, which keeps two checks in the same second apart."""
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
    return rows


def history(store: Store, claim_id: str) -> list[dict[str, Any]]:
    """Every verification record of a claim, oldest first."""
    rows = store.rows("""
        SELECT record_id, claim_id, answer_rev, config_hash, evidence_revisions_json,
               CAST(verified_at AS VARCHAR) AS verified_at, status, supported
        FROM verification WHERE claim_id = ? ORDER BY verified_at, record_id""", [claim_id])
    if not rows and not store.scalar("SELECT count(*) FROM claim WHERE claim_id = ?", [claim_id]):
        raise make_error("E504", where="CLAIM", ref=claim_id if len(claim_id) <= 80 else claim_id[:77] + "...")
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


def read_lines(stream: IO[Any], max_chars: int = MAX_STREAM_LINE) -> Iterator[str | bytes]:
    """Lines of a text or binary stream, none held longer than ``max_chars + 1``.

    An over-long line is yielded cut to ``max_chars + 1`` (so :func:`gate_stream` reports it) and the
    rest of it is skipped in bounded reads: a 1 GB line never sits in memory.
    """
    while True:
        line = stream.readline(max_chars + 1)
        if not line:
            return
        newline = b"\n" if isinstance(line, bytes) else "\n"
        if len(line) > max_chars and not line.endswith(newline):
            while True:
                rest = stream.readline(65_536)
                if not rest or rest.endswith(newline):
                    break
        yield line


def gate_stream(store: Store, lines: Iterable[str | bytes], *, config: VerifierConfig | None = None,
                audience: str = "internal", limits: AnswerLimits = DEFAULT_LIMITS,
                max_line_chars: int = MAX_STREAM_LINE) -> Iterator[dict[str, Any]]:
    """Verify one claim per JSON line and yield each verdict as soon as it is decided.

    A line that cannot be used (not UTF-8, not JSON, nested too deeply, too long, not a claim) yields
    an error record ``{"line", "error", "code"}`` and the stream goes on.
    """
    _check_audience(audience)
    config = config or VerifierConfig()
    for number, raw in enumerate(lines, start=1):
        try:
            if len(raw) > max_line_chars:
                raise make_error("E210", where=f"line {number}", limit=max_line_chars)
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if not line.strip():
                continue
            data = parse_json(line, where=f"line {number}")
            answer = load_answer({"answer_id": f"stream-{number}", "claims": [data]}, format="native",
                                 limits=limits)
            report = verify_answer(store, answer, config=config, audience=audience)
        except UnicodeDecodeError as exc:
            yield {"line": number, "error": f"line {number}: not UTF-8 (bad byte at offset {exc.start})",
                   "code": "E202"}
            continue
        except GraphciteError as exc:
            message = str(exc) if (exc.where or "").startswith(f"line {number}") else f"line {number}: {exc}"
            yield {"line": number, "error": message, "code": exc.code}
            continue
        claim = report["claims"][0]
        yield {"line": number, "text": claim["text"], "passed": claim["supported"], "status": claim["status"]}
