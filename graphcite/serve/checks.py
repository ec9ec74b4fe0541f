"""``POST /v1/check`` at service speed: verified side by side, written together, answered when durable.

:func:`graphcite.verify.check.check_answer` is one transaction per answer: store the revision,
verify, read the earlier checks, append the records, commit. A server doing that per request spends
most of its time in small queries and commits. :class:`CheckDesk` splits the same steps:

1. *prepare* (in the request's worker thread, on a read view, no lock): the revision id, its parts,
   the report (:class:`~graphcite.serve.memo.ReportMemo`), claim ids; stored revisions and their
   parts are remembered (answer revisions are immutable);
2. *commit* (group commit): the requests waiting at that moment are taken as one batch by whichever
   of their threads gets there first. Under the write lock it checks the batch's record summaries
   against the store in one query (another process may have written), builds each request's
   ``earlier`` block and records in arrival order, exactly as one-at-a-time checks would see them,
   and writes the new answers and all records in one transaction with one bulk write per table.
   Every request of the batch is answered only after that commit.

When the batch's write fails, each request is retried in a transaction of its own, so a bad one
fails alone. Reports are the ones ``check_answer`` gives for the same store and input, byte for byte.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from graphcite.claims.answers import answer_parts, answer_rev_for
from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answer_text
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.serve.jsontext import json_text
from graphcite.serve.memo import ReportMemo
from graphcite.store import Store, utcnow
from graphcite.store.queries.check import answer_stored, lock_answer_records, record_counts
from graphcite.verify.check import (
    PreparedCheck,
    check_audience,
    finish_check,
    parts_from_rows,
    prepare_check,
    resolve_answer,
    store_answer_rows,
)
from graphcite.verify.config import VerifierConfig
from graphcite.verify.records import ClaimRecord, RecordSummary

__all__ = ["CheckDesk"]

_KEPT_BODY_CHARS = 65_536  # longer bodies are parsed every time rather than kept
_ATTEMPTS = 3  # a check whose group failed is written alone, its summary read afresh, at most this often


@dataclass(slots=True)
class _Pending:
    prepared: PreparedCheck
    config: VerifierConfig
    keep: tuple[Any, ...] | None
    done: bool = False
    error: BaseException | None = None


class CheckDesk:
    """Answer checks for one service: warm preparation and group commit (see the module docstring)."""

    def __init__(self, service: Any, *, max_revisions: int = 512) -> None:
        self.service = service
        self.memo = ReportMemo()
        self.max_revisions = max_revisions
        self._parts: OrderedDict[str, list[list[AtomicClaim]]] = OrderedDict()
        self._summaries: OrderedDict[str, RecordSummary] = OrderedDict()
        self._answers: OrderedDict[tuple[Any, ...], InputAnswer] = OrderedDict()
        #: report texts (without the earlier block) and record fields of stored revisions
        self._ready: OrderedDict[tuple[Any, ...], tuple[str, list[ClaimRecord]]] = OrderedDict()
        self._lock = threading.Lock()
        self._turn = threading.Condition()  # its own lock: _result takes self._lock while a waiter holds this
        self._queue: list[_Pending] = []
        self._leading = False
        self._writes_seen = -1
        self.batches = 0
        self.checks = 0

    # -- prepare ------------------------------------------------------------------------------------
    def _stored(self, store: Store, rev: str) -> bool:
        with self._lock:
            if rev in self._parts:
                return True
        return answer_stored(store, rev)

    def _stored_parts(self, store: Store, rev: str) -> list[list[AtomicClaim]]:
        with self._lock:
            found = self._parts.get(rev)
            if found is not None:
                self._parts.move_to_end(rev)
                return found
        parts = answer_parts(store, rev)
        self._remember_parts(rev, parts)
        return parts

    def _remember_parts(self, rev: str, parts: list[list[AtomicClaim]]) -> None:
        with self._lock:
            self._parts[rev] = parts
            while len(self._parts) > self.max_revisions:
                self._parts.popitem(last=False)

    def prepare(self, store: Store, loaded: InputAnswer | tuple[str, InputAnswer], *, config: VerifierConfig,
                audience: str, model: str | None = None) -> tuple[PreparedCheck, tuple[Any, ...] | None]:
        """The verified, not yet written check of one answer (any thread, a read view), and the key to
        keep its text under once it is written (None: not to be kept).

        A stored revision checked before under the same configuration, audience and evidence comes
        back as the JSON text of its report; otherwise the report is built and, when it depends on
        nothing else (no inference, whose review state is read from the judgements; only evidence
        read), its text is made to be kept once the check is written.
        """
        warm = self.service.warm
        rev = loaded[0] if isinstance(loaded, tuple) else answer_rev_for(loaded)
        key = (rev, config.hash, audience, model, warm.generation)
        with self._lock:
            ready = self._ready.get(key)
            if ready is not None:
                self._ready.move_to_end(key)
        if ready is not None:
            return PreparedCheck(rev, None, None, ready[1], ready[0]), None
        pure = [True]

        def verifier(view: Store, *args: Any, **kwargs: Any) -> dict[str, Any]:
            reads = getattr(view, "passthrough_reads", None)
            report = self.memo.verify_claims(view, *args, **kwargs)
            pure[0] = reads is not None and view.passthrough_reads == reads  # type: ignore[attr-defined]
            return report

        prepared = prepare_check(store, loaded, config=config, audience=audience, model=model, verifier=verifier,
                                 stored_parts=self._stored_parts, stored=self._stored)
        report = prepared.report
        assert report is not None
        if pure[0] and warm.generation == key[-1] and not any(c.get("inference") for c in report["claims"]):
            prepared.text = json_text(report)
            return prepared, key
        return prepared, None

    def check(self, answer: InputAnswer, *, config: VerifierConfig, audience: str,
              limits: AnswerLimits = DEFAULT_LIMITS) -> dict[str, Any]:
        """What :func:`graphcite.verify.check.check_answer` returns for ``answer``, written in a group."""
        return json.loads(self.check_json(answer, config=config, audience=audience, limits=limits))

    def check_text(self, text: str, *, format: str | None, documents: list[str] | None, config: VerifierConfig,
                   audience: str, limits: AnswerLimits = DEFAULT_LIMITS) -> bytes:
        """:meth:`check_json` of an answer given as a request body's text; a body seen before (a client
        re-checking its answer) is not parsed again (answers are immutable values)."""
        key = (text, format, tuple(documents) if documents is not None else None, limits)
        with self._lock:
            answer = self._answers.get(key)
            if answer is not None:
                self._answers.move_to_end(key)
        if answer is None:
            answer = load_answer_text(text, format=format, documents=documents, limits=limits, where="body")
            if len(text) > _KEPT_BODY_CHARS:
                return self.check_json(answer, config=config, audience=audience, limits=limits)
            with self._lock:
                self._answers[key] = answer
                while len(self._answers) > 256:
                    self._answers.popitem(last=False)
        return self.check_json(answer, config=config, audience=audience, limits=limits)

    def check_json(self, answer: InputAnswer, *, config: VerifierConfig, audience: str,
                   limits: AnswerLimits = DEFAULT_LIMITS) -> bytes:
        """:meth:`check`'s report as the JSON body the service sends (the same bytes as rendering it)."""
        check_audience(audience)
        with self.service.reader() as store:
            loaded = resolve_answer(store, answer, limits=limits)
            prepared, keep = self.prepare(store, loaded, config=config, audience=audience)
        self.commit(prepared, config, keep=keep)
        return _body(prepared).encode("utf-8")

    # -- commit -------------------------------------------------------------------------------------
    def commit(self, prepared: PreparedCheck, config: VerifierConfig, *,
               keep: tuple[Any, ...] | None = None) -> PreparedCheck:
        """Write ``prepared`` with whatever else is waiting; it is finished (``earlier`` set) once durable.
        ``keep``: the key its report text is kept under from then on."""
        item = _Pending(prepared, config, keep)
        with self._turn:
            self._queue.append(item)
            while not item.done:
                if self._leading:
                    self._turn.wait()
                    continue
                self._leading = True
                batch, self._queue = self._queue, []
                break
            else:
                return self._result(item)
        try:
            self._write(batch)
        finally:
            with self._turn:
                self._leading = False
                for pending in batch:
                    pending.done = True
                self._turn.notify_all()
        return self._result(item)

    def _result(self, item: _Pending) -> PreparedCheck:
        key = item.keep
        if item.error is not None:
            raise item.error
        if key is not None and item.prepared.text is not None:  # written: the revision is stored now
            with self._lock:
                self._ready[key] = (item.prepared.text, item.prepared.records)
                while len(self._ready) > self.max_revisions:
                    self._ready.popitem(last=False)
        return item.prepared

    def _write(self, batch: list[_Pending]) -> None:
        """One transaction for the whole batch; on failure, one per request, its summaries read afresh."""
        with self.service.write_lock, self.service.reader() as view:
            store = view.unwrapped  # written directly: these writes are accounted for here
            # a DuckDB file has one writer process, and this one's other writes go through warm views,
            # which count them: after such a write every summary is read again (PostgreSQL: see _apply)
            if store.engine == "duckdb":
                writes = self.service.warm.record_writes
                if writes != self._writes_seen:
                    self._summaries.clear()
                    self._writes_seen = writes
            try:
                self._apply(store, batch)
            except Exception:
                for pending in batch:
                    for _ in range(_ATTEMPTS):
                        try:
                            self._apply(store, [pending], fresh=True)
                            pending.error = None
                            break
                        except Exception as exc:  # this request's own failure
                            pending.error = exc
            self.batches += 1
            self.checks += len(batch)

    def _apply(self, store: Store, batch: list[_Pending], *, fresh: bool = False) -> None:
        """Finish every report of ``batch`` in order and write them all in one transaction; the kept
        summaries follow only a commit. ``fresh``: read every summary from the store."""
        now = utcnow()
        revs = {p.prepared.rev for p in batch}
        staged: dict[str, RecordSummary] = {}
        try:
            with store.transaction():
                # other server processes on a PostgreSQL store wait here for these revisions, and the
                # kept summaries are compared with what the store holds once they have
                lock_answer_records(store, revs)
                if store.engine != "duckdb":
                    known = {rev: s for rev in revs if (s := self._summaries.get(rev)) is not None}
                    counts = record_counts(store, known) if known and not fresh else {}
                    for rev, summary in known.items():
                        if counts.get(rev, (0, 0, 0)) != summary.fingerprint:
                            del self._summaries[rev]
                records: list[dict[str, Any]] = []
                for pending in batch:
                    rev = pending.prepared.rev
                    if pending.prepared.answer_rows is not None and (
                            rev in self._parts or (fresh and answer_stored(store, rev))):
                        pending.prepared.answer_rows = None  # new when prepared, stored since
                    summary = staged.get(rev)
                    if summary is None:
                        kept = None if fresh else self._summaries.get(rev)
                        if kept is not None:
                            summary = kept.copy()
                        elif pending.prepared.answer_rows is not None and not fresh:
                            summary = RecordSummary(rev)  # stored by this batch: nothing recorded about it yet
                        else:
                            summary = RecordSummary.load(store, rev)
                        staged[rev] = summary
                    records.extend(finish_check(pending.prepared, summary, pending.config, now))
                store_answer_rows(store, [p.prepared for p in batch])
                store.bulk_insert("verification", records)
        except BaseException:
            for rev in revs:
                self._summaries.pop(rev, None)
            raise
        for rev, summary in staged.items():
            self._summaries[rev] = summary
            self._summaries.move_to_end(rev)
        while len(self._summaries) > self.max_revisions:
            self._summaries.popitem(last=False)
        for pending in batch:
            if pending.prepared.answer_rows is not None:
                self._remember_parts(pending.prepared.rev, parts_from_rows(pending.prepared.answer_rows[1]))


def _body(prepared: PreparedCheck) -> str:
    """The finished report as JSON text: its kept text with the ``earlier`` block appended as the last
    key, exactly as encoding the whole report would place it."""
    if prepared.text is None:
        assert prepared.report is not None
        return json_text(prepared.report)
    if prepared.earlier is None:
        return prepared.text
    return f"{prepared.text[:-1]}, \"earlier\": {json_text(prepared.earlier)}}}"
