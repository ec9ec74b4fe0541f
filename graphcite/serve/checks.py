"""``POST /v1/check`` at service speed: verified side by side, written together, answered when durable.

:func:`graphcite.verify.check.check_answer` is one transaction per answer: store the revision,
verify, read the earlier checks, append the records, commit. A server doing that per request spends
most of its time in small queries and commits. :class:`CheckDesk` splits the same steps:

1. *prepare* (in the request's worker thread, on a read view, no lock): the revision id, its parts,
   the report (:class:`~graphcite.serve.memo.ReportMemo`), claim ids; stored revisions and their
   parts are remembered (answer revisions are immutable), and a new revision of content checked
   before is filled in from its template (:mod:`graphcite.serve.templates`), any other revision this
   desk has not met decomposed as new, without asking the store whether the revision is stored: the
   writer asks once per batch and verifies the few that were the ordinary way;
2. *commit* (group commit): the requests waiting at that moment are taken as one batch by whichever
   of their threads gets there first. Under the write lock it checks the batch's record summaries
   against the store in one query (another process may have written), builds each request's
   ``earlier`` block and records in arrival order, exactly as one-at-a-time checks would see them,
   and writes the new answers and all records in one transaction with one bulk write per table.
   Every request of the batch is answered only after that commit.

When the batch's write fails, each request is retried in a transaction of its own, so a bad one
fails alone. Reports are the ones ``check_answer`` gives for the same store and input, byte for byte.

The HTTP route uses :meth:`CheckDesk.check_body`, the same two steps without parking a thread per
request: a body seen before whose report text is kept is answered on the event loop (no thread, no
store), anything else is prepared in a worker thread, and the requests wait on the event loop while
one writer task hands each batch to a thread of its own (one thread hop per batch, not per request).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from graphcite.claims.answers import answer_parts, answer_rev_for
from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answer_text
from graphcite.lru import MISSING, LruCache
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.serve.bodies import IdlessBodies
from graphcite.serve.jsontext import json_text
from graphcite.serve.memo import ReportMemo
from graphcite.serve.templates import TemplateDesk
from graphcite.store import Store, utcnow
from graphcite.store.queries.check import answer_stored, lock_answer_records, record_counts
from graphcite.store.queries.verify import stored_answer_revs
from graphcite.verify.check import (
    PreparedCheck,
    check_audience,
    finish_check,
    parts_from_rows,
    prepare_check,
    resolve_answer,
    store_answer_rows,
    unrecorded_public_check,
)
from graphcite.verify.config import VerifierConfig
from graphcite.verify.records import ClaimRecord, RecordSummary

__all__ = ["CheckDesk"]

_KEPT_BODY_CHARS = 65_536  # longer bodies are parsed every time rather than kept
_KEPT_BODIES = 256
_PREPARING = 4  # threads preparing checks at once (the rest wait on the event loop)
_ATTEMPTS = 3  # a check whose group failed is written alone, its summary read afresh, at most this often


@dataclass(slots=True)
class _Pending:
    prepared: PreparedCheck
    config: VerifierConfig
    keep: tuple[Any, ...] | None
    done: bool = False
    error: BaseException | None = None
    #: set by :meth:`CheckDesk.commit_async`: resolved on the event loop once the batch is written
    future: asyncio.Future[None] | None = None
    #: the atomic parts the report was verified with (a new revision's are kept once it is written)
    parts: list[list[AtomicClaim]] | None = None
    #: filled in from a template without asking whether the revision is stored: the answer, and the
    #: audience it was checked for, to verify it the ordinary way if the writer finds it stored
    filled: tuple[InputAnswer, str] | None = None
    #: for a revision decomposed as new without asking the store: the template learning its first check
    #: would have done, done once the writer finds the revision new (a stored one keeps its own parts)
    learn: Callable[[], None] | None = None


class CheckDesk:
    """Answer checks for one service: warm preparation and group commit (see the module docstring)."""

    def __init__(self, service: Any, *, max_revisions: int = 512) -> None:
        self.service = service
        self.memo = ReportMemo()
        #: new revisions of content checked before (:mod:`graphcite.serve.templates`)
        self.templates = TemplateDesk()
        self.max_revisions = max_revisions
        #: atomic parts of stored revisions (immutable)
        self._parts: LruCache[str, list[list[AtomicClaim]]] = LruCache(max_revisions)
        #: what earlier checks say per revision; touched only under the write lock
        self._summaries: OrderedDict[str, RecordSummary] = OrderedDict()
        #: parsed request bodies and their revision ids (answers are immutable values)
        self._answers: LruCache[tuple[Any, ...], tuple[InputAnswer, str]] = LruCache(_KEPT_BODIES)
        #: bodies by their content without the answer id
        self.bodies = IdlessBodies(_KEPT_BODIES)
        #: report texts (without the earlier block) and record fields of stored revisions
        self._ready: LruCache[tuple[Any, ...], tuple[str, list[ClaimRecord]]] = LruCache(max_revisions)
        self._turn = threading.Condition()
        self._queue: list[_Pending] = []
        self._leading = False
        #: checks waiting on the event loop for the writer task (:meth:`commit_async`)
        self._waiting: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None
        self._write_slot = anyio.CapacityLimiter(1)  # the writer's thread never waits behind request threads
        #: preparation is mostly Python under the GIL: more threads at it add no speed, only contention
        #: (with worker processes: a thread to wait on each worker, and two that prepare in the service itself)
        self._prepare_slots = anyio.CapacityLimiter(max(_PREPARING, getattr(service.settings, "verify_workers", 0) + 2))
        self._writes_seen = -1
        self.batches = 0
        self.checks = 0

    # -- prepare ------------------------------------------------------------------------------------
    def _stored(self, store: Store, rev: str) -> bool:
        return self._parts.get(rev) is not MISSING or answer_stored(store, rev)

    def _stored_parts(self, store: Store, rev: str) -> list[list[AtomicClaim]]:
        found = self._parts.get(rev)
        if found is not MISSING:
            return found  # type: ignore[return-value]
        parts = answer_parts(store, rev)
        self._parts.put(rev, parts)
        return parts

    def prepare(self, store: Store, loaded: InputAnswer | tuple[str, InputAnswer], *, config: VerifierConfig,
                audience: str, model: str | None = None) -> tuple[PreparedCheck, tuple[Any, ...] | None]:
        """The verified, not yet written check of one answer (any thread, a read view), and the key to
        keep its text under once it is written (None: not to be kept).

        A stored revision checked before under the same configuration, audience and evidence comes
        back as the JSON text of its report; a new revision of content whose template was made comes
        back filled in from it; otherwise the report is built and, when it depends on nothing else
        (no inference, whose review state is read from the judgements; only evidence read), its text
        is made to be kept once the check is written.
        """
        prepared, keep, _, _ = self._prepare(store, loaded, config=config, audience=audience, model=model)
        return prepared, keep

    def _prepare(self, store: Store, loaded: InputAnswer | tuple[str, InputAnswer], *, config: VerifierConfig,
                 audience: str, model: str | None = None, rev: str | None = None, deferred: bool = False,
                 templates: bool = True) -> tuple[PreparedCheck, tuple[Any, ...] | None,
                                                  list[list[AtomicClaim]] | None, bool | Callable[[], None]]:
        """:meth:`prepare`, the atomic parts the report was verified with (None for a kept text), and
        whether it was prepared as a new revision (filled in from a template, or decomposed) without
        asking the store whether ``rev`` is stored (``deferred``: the caller's writer asks once per
        batch, :meth:`_settle`; a revision this desk stored or read is known without asking); for a
        decomposed one whose template learning waits for the writer, that learning (a callable).
        ``templates=False``: the ordinary way."""
        warm = self.service.warm
        if rev is None:
            rev = loaded[0] if isinstance(loaded, tuple) else answer_rev_for(loaded)
        key = (rev, config.hash, audience, model, warm.generation)
        ready = self._ready.get(key)
        if ready is not MISSING:
            text, records = ready  # type: ignore[misc]
            return PreparedCheck(rev, None, None, records, text), None, None, False
        content = None
        if not isinstance(loaded, tuple) and templates:  # a new revision of content seen before: its template
            content = self.templates.content_key(loaded, *key[1:])
            template = self.templates.get(content) if content is not None else None
            if template is not None:
                if deferred and self._parts.get(rev) is MISSING:
                    return self.templates.fill(template, loaded, rev, utcnow()), key, template.parts, True
                if not self._stored(store, rev):
                    return self.templates.fill(template, loaded, rev, utcnow()), key, template.parts, False
        pool = self.service.pool
        if pool is not None and deferred and not isinstance(loaded, tuple) and self._parts.get(rev) is MISSING:
            # new as far as this desk knows: a free worker process prepares it (the writer asks the store)
            remote = pool.prepare(loaded, rev, config=config, audience=audience, model=model, generation=key[-1])
            if remote is not None:
                prepared = remote.prepared
                if remote.text is not None and warm.generation == key[-1]:
                    prepared.text = remote.text
                    if content is not None:
                        answer, parts = loaded, remote.parts
                        return prepared, key, parts, lambda: self.templates.learn(content, answer, prepared, parts)
                    return prepared, key, remote.parts, True
                return prepared, None, remote.parts, True
        pure = [True]
        used: list[list[list[AtomicClaim]]] = []
        assumed = [False]

        def known(view: Store, rev: str) -> bool:
            if self._parts.get(rev) is not MISSING:
                return True
            assumed[0] = True  # new as far as this desk knows: the writer asks the store (_settle)
            return False

        def verifier(view: Store, answer: InputAnswer, parts: list[list[AtomicClaim]], *args: Any,
                     **kwargs: Any) -> dict[str, Any]:
            reads = getattr(view, "passthrough_reads", None)
            used.append(parts)
            report = self.memo.verify_claims(view, answer, parts, *args, **kwargs)
            pure[0] = reads is not None and view.passthrough_reads == reads  # type: ignore[attr-defined]
            return report

        prepared = prepare_check(store, loaded, config=config, audience=audience, model=model, verifier=verifier,
                                 stored_parts=self._stored_parts, stored=known if deferred else self._stored)
        report = prepared.report
        assert report is not None
        parts = used[0] if used else None
        if pure[0] and warm.generation == key[-1] and not any(c.get("inference") for c in report["claims"]):
            prepared.text = json_text(report)
            if content is not None and not isinstance(loaded, tuple):
                answer = loaded
                if not assumed[0]:
                    self.templates.learn(content, answer, prepared, parts)
                else:
                    return prepared, key, parts, lambda: self.templates.learn(content, answer, prepared, parts)
            return prepared, key, parts, assumed[0]
        return prepared, None, parts, assumed[0]

    def check(self, answer: InputAnswer, *, config: VerifierConfig, audience: str,
              limits: AnswerLimits = DEFAULT_LIMITS) -> dict[str, Any]:
        """What :func:`graphcite.verify.check.check_answer` returns for ``answer``, written in a group."""
        return json.loads(self.check_json(answer, config=config, audience=audience, limits=limits))

    def _parsed(self, text: str, format: str | None, documents: list[str] | None,
                limits: AnswerLimits) -> tuple[InputAnswer, str]:
        """The answer in a request body and its revision id; a body seen before (a client re-checking its
        answer) is not parsed again (answers are immutable values)."""
        key = (text, format, tuple(documents) if documents is not None else None, limits)
        found = self._answers.get(key)
        if found is not MISSING:
            return found  # type: ignore[return-value]
        if len(text) > _KEPT_BODY_CHARS:
            answer = load_answer_text(text, format=format, documents=documents, limits=limits, where="body")
            return answer, answer_rev_for(answer)
        parsed = self.bodies.parse(text, format, documents, limits)  # (a new id on content seen before: not read)
        self._answers.put(key, parsed)
        return parsed

    def check_text(self, text: str, *, format: str | None, documents: list[str] | None, config: VerifierConfig,
                   audience: str, limits: AnswerLimits = DEFAULT_LIMITS) -> bytes:
        """:meth:`check_json` of an answer given as a request body's text (a body seen before is not parsed
        again)."""
        answer, _ = self._parsed(text, format, documents, limits)
        return self.check_json(answer, config=config, audience=audience, limits=limits)

    def check_json(self, answer: InputAnswer, *, config: VerifierConfig, audience: str,
                   limits: AnswerLimits = DEFAULT_LIMITS) -> bytes:
        """:meth:`check`'s report as the JSON body the service sends (the same bytes as rendering it)."""
        check_audience(audience)
        with self.service.reader() as store:
            loaded = resolve_answer(store, answer, limits=limits)
            prepared, keep, parts, filled = self._prepare(store, loaded, config=config, audience=audience,
                                                          deferred=True)
        self._commit(_Pending(prepared, config, keep, parts=parts, filled=(answer, audience) if filled else None,
                              learn=filled if callable(filled) else None))
        return _body(prepared).encode("utf-8")

    async def check_body(self, text: str, *, format: str | None, documents: list[str] | None,
                         config: VerifierConfig, audience: str, limits: AnswerLimits = DEFAULT_LIMITS) -> bytes:
        """:meth:`check_text` on the event loop: a kept report of a body seen before is taken without a
        thread; anything else is parsed and prepared in a worker thread; either way the check waits
        here, not in a thread, for its batch to be written (:meth:`commit_async`)."""
        check_audience(audience)
        self.service.activity += 1  # (a check answered from memory borrows no view: still activity)
        prepared: PreparedCheck | None = None
        keep: tuple[Any, ...] | None = None
        parts: list[list[AtomicClaim]] | None = None
        filled: tuple[InputAnswer, str] | None = None
        learn: Callable[[], None] | None = None
        if len(text) <= _KEPT_BODY_CHARS:
            found = self._answers.get((text, format, tuple(documents) if documents is not None else None, limits))
            if found is not MISSING:
                rev = found[1]  # type: ignore[index]
                ready = self._ready.get((rev, config.hash, audience, None, self.service.warm.generation))
                if ready is not MISSING:
                    kept_text, records = ready  # type: ignore[misc]
                    prepared = PreparedCheck(rev, None, None, records, kept_text)
        if prepared is None:
            def prepare() -> tuple[PreparedCheck, tuple[Any, ...] | None, list[list[AtomicClaim]] | None,
                                   tuple[InputAnswer, str] | None, Callable[[], None] | None]:
                answer, rev = self._parsed(text, format, documents, limits)
                with self.service.reader() as store:
                    loaded = resolve_answer(store, answer, limits=limits)
                    done, kept, used, deferred = self._prepare(store, loaded, config=config, audience=audience,
                                                               rev=rev, deferred=True)
                return (done, kept, used, (answer, audience) if deferred else None,
                        deferred if callable(deferred) else None)

            prepared, keep, parts, filled, learn = await anyio.to_thread.run_sync(
                prepare, abandon_on_cancel=True, limiter=self._prepare_slots)
        await self._commit_async(_Pending(prepared, config, keep, parts=parts, filled=filled, learn=learn))
        return _body(prepared).encode("utf-8")

    # -- commit -------------------------------------------------------------------------------------
    def commit(self, prepared: PreparedCheck, config: VerifierConfig, *, keep: tuple[Any, ...] | None = None,
               parts: list[list[AtomicClaim]] | None = None) -> PreparedCheck:
        """Write ``prepared`` with whatever else is waiting; it is finished (``earlier`` set) once durable.
        ``keep``: the key its report text is kept under from then on; ``parts``: what it was verified with."""
        return self._commit(_Pending(prepared, config, keep, parts=parts))

    def _commit(self, item: _Pending) -> PreparedCheck:
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

    async def commit_async(self, prepared: PreparedCheck, config: VerifierConfig, *,
                           keep: tuple[Any, ...] | None = None,
                           parts: list[list[AtomicClaim]] | None = None) -> PreparedCheck:
        """:meth:`commit` for a coroutine on the server's event loop: the check waits here while the
        writer task writes the batches in a thread of its own. A caller that gives up waiting (its
        time limit) does not stop the write."""
        return await self._commit_async(_Pending(prepared, config, keep, parts=parts))

    async def _commit_async(self, item: _Pending) -> PreparedCheck:
        loop = asyncio.get_running_loop()
        item.future = loop.create_future()
        self._waiting.append(item)
        writer = self._writer
        if writer is None or writer.done() or writer.get_loop() is not loop:  # (a loop closed mid-write)
            self._writer = loop.create_task(self._write_waiting())
        assert item.future is not None
        await asyncio.shield(item.future)
        return self._result(item)

    async def _write_waiting(self) -> None:
        """The writer task: every check waiting at that moment is one batch, until none waits."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                try:
                    await anyio.to_thread.run_sync(self._write, batch, limiter=self._write_slot)
                except BaseException as exc:  # the write lock or the view failed: every check of the batch
                    for pending in batch:
                        pending.error = pending.error or exc
                    if not isinstance(exc, Exception):
                        raise
                finally:
                    for pending in batch:
                        pending.done = True
                        if pending.future is not None and not pending.future.done():
                            pending.future.set_result(None)
        finally:
            self._writer = None

    def _result(self, item: _Pending) -> PreparedCheck:
        key = item.keep
        if item.error is not None:
            raise item.error
        if key is not None and item.prepared.text is not None:  # written: the revision is stored now
            self._ready.put(key, (item.prepared.text, item.prepared.records))
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
                self._apply(store, batch, view)
            except Exception:
                for pending in batch:
                    for _ in range(_ATTEMPTS):
                        try:
                            self._apply(store, [pending], view, fresh=True)
                            pending.error = None
                            break
                        except Exception as exc:  # this request's own failure
                            pending.error = exc
            self.batches += 1
            self.checks += len(batch)

    def _settle(self, store: Store, view: Store, batch: list[_Pending]) -> None:
        """Verify the ordinary way each check of ``batch`` prepared as new without asking the store (filled
        in from a template, or decomposed) whose revision turns out to be stored (one query for the
        batch): a stored revision keeps the parts it was stored with."""
        unsure = {p.prepared.rev for p in batch if p.filled is not None and p.prepared.answer_rows is not None}
        stored = stored_answer_revs(store, unsure) if unsure else set()
        for pending in batch:
            if pending.filled is not None and pending.prepared.answer_rows is not None \
                    and pending.prepared.rev in stored:
                answer, audience = pending.filled
                again, _, parts, _ = self._prepare(view, answer, config=pending.config, audience=audience,
                                                   rev=pending.prepared.rev, templates=False)
                for name in ("report", "answer_rows", "records", "text", "earlier"):
                    setattr(pending.prepared, name, getattr(again, name))
                pending.parts, pending.keep, pending.learn = parts, None, None

    def _apply(self, store: Store, batch: list[_Pending], view: Store, *, fresh: bool = False) -> None:
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
                self._settle(store, view, batch)
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
                            self._parts.get(rev) is not MISSING or (fresh and answer_stored(store, rev))):
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
                    audience = pending.prepared.records[0].audience if pending.prepared.records else "internal"
                    if unrecorded_public_check(pending.prepared, summary, audience):
                        # as check_answer: a public first record of an answer stored without a check is not
                        # written (it would make the store holder's words the public's)
                        finish_check(pending.prepared, summary.copy(), pending.config, now)
                        continue
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
            if pending.prepared.answer_rows is not None:  # stored by this batch: new after all
                parts = pending.parts if pending.parts is not None else parts_from_rows(pending.prepared.answer_rows[1])
                self._parts.put(pending.prepared.rev, parts)
                if pending.learn is not None:
                    pending.learn()
            pending.learn = None


def _body(prepared: PreparedCheck) -> str:
    """The finished report as JSON text: its kept text with the ``earlier`` block appended as the last
    key, exactly as encoding the whole report would place it."""
    if prepared.text is None:
        assert prepared.report is not None
        return json_text(prepared.report)
    if prepared.earlier is None:
        return prepared.text
    return f"{prepared.text[:-1]}, \"earlier\": {json_text(prepared.earlier)}}}"
