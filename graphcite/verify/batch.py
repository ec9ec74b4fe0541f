"""check-batch: verify many answers in parallel, append every record in one bulk write.

Three steps, so that no worker needs a write connection:

1. the driver reads every answer (a file that cannot be read becomes that answer's error, not the
   batch's);
2. reports are computed from a read-only view of the store: in this process (``engine="local"``), or
   in Ray tasks (``engine="ray"``) whose workers each open the store read-only once (a PostgreSQL
   store itself; for DuckDB, a copy);
3. the driver stores the answer revisions and appends one verification record per claim for all of
   them in one transaction.

Each report is the one :func:`graphcite.verify.check.check_answer` returns for that answer, so
``check-batch --json`` prints, line for line, what ``check --json`` prints per answer. An answer that
appears twice in one batch is verified twice; its second report shows no ``earlier`` checks from
the first, since both are written together.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphcite.claims.answers import (
    answer_parts,
    answer_rev_for,
    answer_rows,
    claim_id_for,
    parts_for,
)
from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answers
from graphcite.distributed.runtime import check_engine, check_workers
from graphcite.errors import GraphciteError, make_error
from graphcite.language.domain import using
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.store import Store, copy_store, utcnow
from graphcite.store.queries import verify as reads
from graphcite.store.queries.verify_memo import evidence_memo
from graphcite.verify.check import (
    check_audience,
    earlier_checks,
    record_rows,
    resolve_answer,
    stored_report_for_public,
)
from graphcite.verify.config import VerifierConfig
from graphcite.verify.contradictions import prefetch_contradictions
from graphcite.verify.engine import verify_claims
from graphcite.verify.resolve import prefetch_citations

__all__ = ["BatchItem", "check_batch", "expand_answers", "verify_items"]

AnswerRef = str | Path | Mapping[str, Any] | InputAnswer
#: ``progress(answers_done, claims_done)`` as reports arrive.
BatchProgress = Callable[[int, int], None]
_CHUNK_MAX = 32


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One answer on its way to a worker: its place in the batch, the answer, and its stored parts
    (an answer given by stored id keeps the atomic parts it was stored with; None: decompose)."""

    index: int
    answer: InputAnswer
    parts: list[list[AtomicClaim]] | None = None


def verify_items(store: Store, items: Sequence[BatchItem], config: VerifierConfig,
                 audience: str) -> list[dict[str, Any]]:
    """Reports (``{"report", "parts"}``: the atomic parts of an answer not stored yet) or errors
    (``{"error", "code"}``) for ``items``; reads only.

    The evidence the items cite, and the contradiction candidates of all their parts, are read
    together first (a few bulk queries for the chunk instead of a few per answer); inside the
    evidence memo of a batch, later chunks read only what earlier ones did not.
    """
    with evidence_memo(store):
        prepared: list[list[list[AtomicClaim]] | dict[str, Any]] = []
        for item in items:
            try:
                prepared.append(item.parts if item.parts is not None else parts_for(item.answer))
            except GraphciteError as exc:
                prepared.append({"error": str(exc), "code": exc.code})
        ready = [(item, parts) for item, parts in zip(items, prepared, strict=True) if isinstance(parts, list)]
        # reading ahead is only an optimisation: if it fails, each answer reads (and fails) on its own
        with contextlib.suppress(GraphciteError):
            prefetch_citations(store, [ref for item, _ in ready for claim in item.answer.claims
                                       for ref in claim.citations])
            if config.store_contradictions and not config.lexical_only:
                with using(config.domain_lexicon()):  # the terms are read as the engine will read them
                    prefetch_contradictions(store, [parts for _, parts in ready], audience=audience)
        results: list[dict[str, Any]] = []
        for item, parts in zip(items, prepared, strict=True):
            if isinstance(parts, dict):
                results.append(parts)
                continue
            try:
                report = verify_claims(store, item.answer, parts, config, audience=audience)
                results.append({"report": report, "parts": parts if item.parts is None else None})
            except GraphciteError as exc:
                results.append({"error": str(exc), "code": exc.code})
        return results


def _label(ref: AnswerRef) -> str:
    if isinstance(ref, InputAnswer):
        return ref.answer_id
    if isinstance(ref, Mapping):
        return str(ref.get("answer_id", "(answer)"))
    return str(ref)


def expand_answers(answers: Sequence[AnswerRef], limits: AnswerLimits = DEFAULT_LIMITS) -> list[AnswerRef]:
    """``answers`` with every file that holds several answers (an ALCE run file, ``{"data": [...]}``)
    replaced by its answers, in file order; anything else is kept as given (and read, or refused with
    its own error line, later)."""
    out: list[AnswerRef] = []
    for ref in answers:
        if isinstance(ref, str | Path) and str(ref) != "-" and Path(ref).suffix.lower() == ".json" \
                and Path(ref).is_file():
            try:
                held = load_answers(Path(ref), limits=limits)
            except GraphciteError:
                held = []
            if len(held) > 1:
                out.extend(held)
                continue
        out.append(ref)
    return out


def _load(store: Store, answers: Sequence[AnswerRef], limits: AnswerLimits,
          failures: dict[int, dict[str, Any]]) -> list[tuple[BatchItem, str | None]]:
    """Every answer that can be read, with its stored revision when it was given by id."""
    loaded: list[tuple[BatchItem, str | None]] = []
    for index, ref in enumerate(answers):
        try:
            found = resolve_answer(store, ref, limits=limits)
        except GraphciteError as exc:
            failures[index] = {"answer": _label(ref), "error": str(exc), "code": exc.code}
            continue
        if isinstance(found, tuple):
            rev, parsed = found
            loaded.append((BatchItem(index, parsed, answer_parts(store, rev)), rev))
        else:
            loaded.append((BatchItem(index, found), None))
    return loaded


def _chunks(items: Sequence[BatchItem], workers: int) -> list[list[BatchItem]]:
    """Enough chunks to keep every worker busy (about eight each), each at most :data:`_CHUNK_MAX`."""
    size = max(1, min(_CHUNK_MAX, -(-len(items) // (8 * workers))))
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


@contextlib.contextmanager
def _worker_view(store: Store) -> Iterator[str]:
    """Where workers in other processes read the store: the PostgreSQL URL itself, or for DuckDB a
    read-only copy in a temporary file (DuckDB lets no other process read a file while this one
    holds it for writing; the copy takes about 0.4 s for the bundled corpus)."""
    if store.engine == "postgresql":
        yield store.path
        return
    folder = tempfile.mkdtemp(prefix=f"graphcite-batch-{os.getpid()}-")
    try:
        path = os.path.join(folder, "snapshot.duckdb")
        with Store(path) as copy:
            copy_store(store, copy)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _compute(store: Store, items: list[BatchItem], config: VerifierConfig, audience: str, engine: str,
             workers: int | None, address: str | None,
             read_ahead: bool = True) -> Iterator[tuple[BatchItem, dict[str, Any]]]:
    if not read_ahead and engine == "local":
        for item in items:
            yield item, verify_items(store, [item], config, audience)[0]
        return
    if engine == "local" or not items:
        with evidence_memo(store):
            for chunk in _chunks(items, 1):
                yield from zip(chunk, verify_items(store, chunk, config, audience), strict=True)
        return
    from graphcite.distributed.runtime import ray_runtime
    from graphcite.distributed.verify import verify_on_ray

    with ray_runtime(address, workers) as slots, _worker_view(store) as view:
        chunks = _chunks(items, slots)
        ship = bool(address) and store.engine != "postgresql"
        for chunk, results in zip(chunks, verify_on_ray(view, chunks, config, audience, workers=slots, ship=ship),
                                  strict=True):
            yield from zip(chunk, results, strict=True)


def check_batch(store: Store, answers: Sequence[AnswerRef], *, config: VerifierConfig | None = None,
                audience: str = "internal", engine: str = "local", workers: int | None = None,
                address: str | None = None, limits: AnswerLimits = DEFAULT_LIMITS, record: bool = True,
                progress: BatchProgress | None = None, read_ahead: bool = True) -> list[dict[str, Any]]:
    """One result per answer, in input order: the report :func:`check_answer` gives, or for an answer
    that cannot be read or verified ``{"answer", "error", "code"}``.

    The answer revisions and one verification record per claim of every verified answer are
    written in one transaction at the end (``record=False``: the answers are stored, as by
    :func:`check_answer`, but no records). ``engine="ray"``
    computes the reports in Ray tasks, ``workers`` at a time, on a local runtime or the cluster at
    ``address``. ``read_ahead=False`` (in-process only) verifies one answer at a time, each reading its
    own evidence, as check-batch did before it read chunks together: the same reports, for comparison.
    """
    check_audience(audience)
    check_engine(engine)
    check_workers(workers)
    if engine == "local" and (address or (workers or 1) > 1):
        raise make_error("E106", where="--engine", detail="--workers and --address need --engine ray",
                         fix="add --engine ray")
    config = config or VerifierConfig()
    failures: dict[int, dict[str, Any]] = {}
    answers = expand_answers(answers, limits)
    loaded = _load(store, answers, limits, failures)
    stored_rev = {item.index: rev for item, rev in loaded}
    reports: dict[int, dict[str, Any]] = {}
    parts: dict[int, list[list[AtomicClaim]]] = {}
    claims_done = 0
    for item, result in _compute(store, [item for item, _ in loaded], config, audience, engine, workers, address,
                                 read_ahead):
        if "report" in result:
            reports[item.index] = result["report"]
            if result["parts"] is not None:
                parts[item.index] = result["parts"]
            claims_done += len(result["report"]["claims"])
        else:
            failures[item.index] = {"answer": _label(answers[item.index]), **result}
        if progress:
            progress(len(reports) + len(failures), claims_done)
    items = {item.index: item for item, _ in loaded}
    _finish(store, reports, items, parts, stored_rev, config, record, audience)
    if audience == "public":  # a stored answer's own text can launder restricted figures: as check_answer does
        reports = {i: stored_report_for_public(store, r) if stored_rev.get(i) else r for i, r in reports.items()}
    return [reports[i] if i in reports else failures[i] for i in range(len(answers))]


def _finish(store: Store, reports: dict[int, dict[str, Any]], items: dict[int, BatchItem],
            parts: dict[int, list[list[AtomicClaim]]], stored_rev: dict[int, str | None], config: VerifierConfig,
            record: bool, audience: str = "internal") -> None:
    """Store the new answers, add claim ids and earlier checks to each report, append every record:
    a handful of statements for the whole batch, not a few per answer.

    As :func:`graphcite.verify.check.check_answer`, a public check of an answer stored without any check
    (``add-answer``) is not recorded while it has no record: its first record tells whose words it holds
    (:func:`graphcite.audience.asked_publicly`), and those are the store holder's.
    """
    now = utcnow()
    config_json = json.dumps(config.as_dict(), sort_keys=True, default=str)
    revs = {index: stored_rev[index] or answer_rev_for(items[index].answer) for index in reports}
    with store.transaction():
        known = reads.stored_answer_revs(store, revs.values())
        checked = reads.record_counts(store, revs.values())
        new: dict[str, tuple[InputAnswer, list[list[AtomicClaim]]]] = {}
        for index in sorted(reports):
            rev = revs[index]
            if rev not in known and rev not in new:
                new[rev] = (items[index].answer, parts[index])
        _store_answers(store, new, now)
        rows: list[dict[str, Any]] = []
        for index in sorted(reports):
            report, rev = reports[index], revs[index]
            report["answer_rev"] = rev
            for claim in report["claims"]:
                claim["claim_id"] = claim_id_for(rev, claim["index"])
            if rev in checked:
                earlier = earlier_checks(store, rev, report)
                if earlier is not None:
                    report["earlier"] = earlier
            if record and not (audience == "public" and rev in known and not checked.get(rev, 0)):
                rows.extend(record_rows(rev, report, config, config_json, checked.get(rev, 0), now))
                checked[rev] = checked.get(rev, 0) + len(report["claims"])
        if rows:
            store.bulk_insert("verification", rows)


def _store_answers(store: Store, answers: Mapping[str, tuple[InputAnswer, list[list[AtomicClaim]]]],
                   now: Any) -> None:
    """The rows :func:`graphcite.claims.answers.add_answer` writes, for many answers in three bulk
    inserts, from the atomic parts the workers already computed."""
    answer_table: list[dict[str, Any]] = []
    claim_table: list[dict[str, Any]] = []
    citation_table: list[dict[str, Any]] = []
    for rev, (answer, parts) in answers.items():
        answer_row, claims, citations = answer_rows(rev, answer, parts, stored_at=now)
        answer_table.append(answer_row)
        claim_table.extend(claims)
        citation_table.extend(citations)
    store.bulk_insert("answer", answer_table)
    store.bulk_insert("claim", claim_table)
    store.bulk_insert("citation", citation_table)
