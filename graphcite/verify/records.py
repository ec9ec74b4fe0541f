"""What earlier checks of an answer revision say, and the verification records a new check appends.

A check reports, per claim, how often the answer revision was verified before, the last status and
configuration, the reviewers' judgements and any newer revision that corrects it (the ``earlier``
block). :class:`RecordSummary` holds that for one revision: read from the store once
(:meth:`RecordSummary.load`), then kept up to date by :meth:`RecordSummary.append` as records are
written, so a long-running process answers the next check without reading the records again. Its
:attr:`~RecordSummary.fingerprint` (record, judgement and correction counts; all three tables are
append-only) tells whether the store still says the same thing (:func:`graphcite.store.queries.check.record_counts`).

A record carries the audience its verdict was made for, and the ``earlier`` block of a check counts
only the records of the check's own audience: a public check never becomes the internal audience's
last status, nor the other way round (:meth:`graphcite.audience.AudienceView.sees_record`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from graphcite.audience import INTERNAL, record_audience
from graphcite.store import Store
from graphcite.store.queries.check import correcting_answers, earlier_by_claim, reviews_by_claim
from graphcite.verify.config import VerifierConfig

__all__ = ["ClaimRecord", "RecordSummary", "claim_records", "record_rows", "result_json"]


@dataclass(slots=True)
class _Seen:
    checks: int
    last_at: Any
    last_status: str | None
    last_config: str | None


@dataclass(slots=True)
class RecordSummary:
    """The earlier checks, judgements and corrections of one answer revision.

    ``seen`` is keyed by (claim id, audience): each audience has its own last status.
    """

    rev: str
    seen: dict[tuple[str, str], _Seen] = field(default_factory=dict)
    reviews: dict[str, dict[str, Any]] = field(default_factory=dict)
    corrected_by: list[str] = field(default_factory=list)
    records: int = 0

    @classmethod
    def load(cls, store: Store, rev: str) -> RecordSummary:
        """The summary as the store holds it now (three small queries)."""
        seen = {(r["claim_id"], record_audience(r)): _Seen(int(r["checks"]), r["last_at"], r["last_status"],
                                                            r["last_config"])
                for r in earlier_by_claim(store, rev)}
        reviews = {r["claim_id"]: r for r in reviews_by_claim(store, rev)}
        return cls(rev, seen, reviews, correcting_answers(store, rev), sum(s.checks for s in seen.values()))

    @property
    def fingerprint(self) -> tuple[int, int, int]:
        """(verification records, judgements, correcting revisions): what ``record_counts`` reads back."""
        return self.records, sum(int(r["judgements"]) for r in self.reviews.values()), len(self.corrected_by)

    def earlier(self, claims: Sequence[ClaimRecord]) -> dict[str, Any] | None:
        """The ``earlier`` block of a report whose claims are ``claims`` (records of their audience only);
        None before the first check for that audience."""
        audience = claims[0].audience if claims else INTERNAL
        own = {claim_id: s for (claim_id, made_for), s in self.seen.items() if made_for == audience}
        if not own:
            return None
        out = []
        for claim in claims:
            seen = own.get(claim.claim_id)
            review = self.reviews.get(claim.claim_id)
            item: dict[str, Any] = {"claim_id": claim.claim_id, "checks": seen.checks if seen else 0}
            if seen:
                item.update(last_verified_at=str(seen.last_at), last_status=seen.last_status,
                            last_config_hash=seen.last_config, status_changed=seen.last_status != claim.status)
            if review:
                item.update(judgements=int(review["judgements"]), contested=int(review["labels"]) > 1,
                            last_judged_at=str(review["last_at"]))
            out.append(item)
        return {"checks": max(s.checks for s in own.values()),
                "last_verified_at": str(max(s.last_at for s in own.values())),
                "corrected_by": list(self.corrected_by), "claims": out}

    def copy(self) -> RecordSummary:
        """A copy to count new records in without touching this one."""
        return RecordSummary(self.rev, {k: replace(v) for k, v in self.seen.items()}, self.reviews,
                             list(self.corrected_by), self.records)

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Count records just written: the newest record of a claim is the latest by time, then by insertion."""
        for row in rows:
            key = (row["claim_id"], record_audience(row))
            seen = self.seen.get(key)
            if seen is None:
                self.seen[key] = _Seen(1, row["verified_at"], row["status"], row["config_hash"])
                continue
            seen.checks += 1
            if row["verified_at"] >= seen.last_at:
                seen.last_at, seen.last_status, seen.last_config = (row["verified_at"], row["status"],
                                                                    row["config_hash"])
        self.records += len(rows)


@dataclass(frozen=True, slots=True)
class ClaimRecord:
    """What a verification record keeps of one claim's verdict (the verdict itself as JSON text)."""

    claim_id: str
    status: str
    supported: bool
    evidence_revisions_json: str
    result_json: str
    audience: str = INTERNAL  # the audience the verdict was made for


def result_json(claim: dict[str, Any], *, default: Callable[[Any], Any] = str) -> str:
    """A claim's verdict as its verification record keeps it (keys sorted; ``default`` writes what JSON
    has no type for, as text by default)."""
    return json.dumps(claim, sort_keys=True, ensure_ascii=False, default=default)


def claim_records(report: dict[str, Any]) -> list[ClaimRecord]:
    """The record fields of every claim of ``report`` (claims carry their ``claim_id``; the report its audience)."""
    out = []
    audience = record_audience(report)
    for claim in report["claims"]:
        revisions = sorted({c["revision"] for c in claim["citations"] if c.get("revision")})
        out.append(ClaimRecord(claim["claim_id"], claim["status"], bool(claim["supported"]), json.dumps(revisions),
                               result_json(claim), audience))
    return out


def record_rows(rev: str, report: dict[str, Any] | Sequence[ClaimRecord], config: VerifierConfig, config_json: str,
                existing: int, now: Any) -> list[dict[str, Any]]:
    """The verification records of one report (one per claim; or of its :func:`claim_records`);
    ``existing`` records of the revision came before, which keeps two checks in the same second apart."""
    claims = claim_records(report) if isinstance(report, dict) else report
    config_hash = config.hash  # (computed anew on every access)
    stamp = f"{existing}:{now.isoformat()}:{config_hash}"
    return [{"record_id": hashlib.sha256(f"{c.claim_id}:{stamp}".encode()).hexdigest()[:16],
             "claim_id": c.claim_id, "answer_rev": rev, "config_hash": config_hash, "config_json": config_json,
             "evidence_revisions_json": c.evidence_revisions_json, "verified_at": now, "status": c.status,
             "supported": c.supported, "result_json": c.result_json, "audience": c.audience} for c in claims]
