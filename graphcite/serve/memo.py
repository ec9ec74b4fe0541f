"""Reports kept warm: the same answer content against unchanged evidence gives the same report.

A report depends on the answer's claims and citations (not on its id), their atomic parts, the
verifier configuration, the audience and the evidence the citations resolve to. :class:`ReportMemo`
keeps :func:`graphcite.verify.engine.verify_claims` results under exactly that key, with the
:class:`~graphcite.serve.warm.WarmReads` generation standing for the evidence: any write to an
evidence table, or a change another process made (the evidence fingerprint), starts a new generation
and the old entries are never returned again. A result is kept only when every read it made came
from evidence tables (no record table, no per-call temporary table), only for judges that give the
same answer every time (``heuristic`` and the rule engine's baseline), and it is handed out as a
fresh copy with the caller's answer id, so callers may edit it.

A report is encoded (and read back to prove the copy is the same report) only when its key comes a
second time: the first time only the key is noted. Most answers a service checks are written afresh
(a RAG application's new text), and encoding each report to keep a copy nobody asks for again cost
about 1.3 ms of a 7-claim answer's 27 ms; content met twice is usually met again (a cached answer
re-sent), and from the third time on it comes from memory.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from graphcite.lru import MISSING, LruCache
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.serve.warm import WarmView
from graphcite.store import Store
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import verify_claims

__all__ = ["ReportMemo", "deterministic_judge"]


def deterministic_judge(name: str) -> bool:
    """Whether the judge registered as ``name`` gives a verdict that is a function of claim and evidence alone
    (the judge registry says so: :attr:`graphcite.verify.judges.Judge.deterministic`), so a report may be reused."""
    from graphcite.verify.judges import get_judge

    found = get_judge(name)
    return found is not None and found.deterministic


class ReportMemo:
    """``verify_claims`` with its answers remembered (LRU, ``max_entries`` reports)."""

    def __init__(self, max_entries: int = 4096) -> None:
        #: report texts by key; None: the key was met once (nothing encoded yet)
        self._entries: LruCache[Any, str | None] = LruCache(max_entries)
        #: reports given from memory, and reports the engine made (with a memo key)
        self.hits = 0
        self.misses = 0

    def _key(self, store: WarmView, answer: InputAnswer, parts: Sequence[Sequence[AtomicClaim]],
             config: VerifierConfig, audience: str) -> Any:
        try:
            key = (replace(answer, answer_id=""), tuple(tuple(p) for p in parts), config.hash, audience,
                   store.warm.generation)
            hash(key)
        except TypeError:  # a field that cannot be hashed: no memo for this answer
            return None
        return key

    def verify_claims(self, store: Store, answer: InputAnswer, parts: Sequence[Sequence[AtomicClaim]],
                      config: VerifierConfig, *, audience: str = "internal") -> dict[str, Any]:
        """What :func:`~graphcite.verify.engine.verify_claims` returns, from memory when it can be."""
        usable = isinstance(store, WarmView) and deterministic_judge(config.judge_kind)
        key = self._key(store, answer, parts, config, audience) if usable else None  # type: ignore[arg-type]
        if key is None:
            return verify_claims(store, answer, parts, config, audience=audience)
        found = self._entries.get(key)
        if isinstance(found, str):
            self.hits += 1
            report: dict[str, Any] = json.loads(found)
            report["answer_id"] = answer.answer_id
            return report
        self.misses += 1
        assert isinstance(store, WarmView)
        reads, generation = store.passthrough_reads, store.warm.generation
        report = verify_claims(store, answer, parts, config, audience=audience)
        if found is MISSING:  # met once: noted, not encoded (see the module docstring)
            self._entries.put(key, None)
        elif store.passthrough_reads == reads and store.warm.generation == generation:
            try:
                text = json.dumps(report, ensure_ascii=False, allow_nan=True)
            except (TypeError, ValueError):  # not plain JSON data: not kept
                return report
            if json.loads(text) == report:  # kept only when a copy read back is the same report
                self._entries.put(key, text)
        return report

    def clear(self) -> None:
        self._entries.clear()
