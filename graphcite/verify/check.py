"""check, gate and history: the verification entry points the CLI wraps.

One answer is one transaction: the answer revision is stored (idempotently), every claim is verified,
and one verification record per claim is appended; records are never updated in place.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from graphcite.audience import (
    AUDIENCES,
    INTERNAL,
    UNATTRIBUTED,
    WITHHELD_REASON,
    asked_publicly,
    audience_view,
    check_audience,
    record_audience,
    scrub_report,
)
from graphcite.claims.answers import (
    answer_parts,
    answer_rev_for,
    answer_rows,
    atomic_from_dict,
    claim_id_for,
    get_answer,
    parts_for,
    suggest_answer,
)
from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answer, parse_json
from graphcite.errors import GraphciteError, NotFoundError, make_error
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.store import Store, utcnow
from graphcite.store.queries.check import answer_stored, claim_history, claim_known
from graphcite.verify.claim_types import mark_reviews
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import verify_claims
from graphcite.verify.records import ClaimRecord, RecordSummary, claim_records, record_rows
from graphcite.verify.statuses import claim_statuses

__all__ = ["AUDIENCES", "MAX_STREAM_LINE", "PreparedCheck", "Verifier", "check_answer", "check_audience",
           "earlier_checks", "finish_check", "gate_answer", "gate_line", "gate_stream", "history", "parts_from_rows",
           "prepare_check", "read_lines", "record_rows", "resolve_answer", "scratch_check", "store_answer_rows",
           "stored_report_for_public", "unrecorded_public_check", "verify_answer"]

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
                  audience: str = "internal", model: str | None = None,
                  verifier: Verifier | None = None) -> dict[str, Any]:
    """Verify an answer without storing anything (used by eval and the streaming gate).

    For the public audience an answer the store holds (``gate STORED_ID``) is shown as a stored one:
    see :func:`stored_report_for_public`.
    """
    _check_audience(audience)
    report = (verifier or verify_claims)(store, answer, parts_for(answer, model=model), config or VerifierConfig(),
                                         audience=audience)
    rev = answer_rev_for(answer)
    if audience == "public" and answer_stored(store, rev):
        return stored_report_for_public(store, report, rev)
    return report


_check_audience = check_audience


Verifier = Callable[..., dict[str, Any]]
"""``verify_claims(store, answer, parts, config, audience=...)`` or a memo of it (the service's)."""


@dataclass(slots=True)
class PreparedCheck:
    """A verified answer revision before anything about it is written.

    ``report`` carries the revision and claim ids (no ``earlier`` block yet); ``records`` are what its
    verification records keep of each claim; ``answer_rows`` are the answer, claim and citation rows to
    store when the revision is new, else None. A long-running process may hold the report as JSON
    ``text`` only (``report`` None). :func:`finish_check` sets ``earlier``.
    """

    rev: str
    report: dict[str, Any] | None
    answer_rows: tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]] | None
    records: list[ClaimRecord]
    text: str | None = None
    earlier: dict[str, Any] | None = None


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
        prepared = prepare_check(store, loaded, config=config, audience=audience, model=model)
        store_answer_rows(store, [prepared])
        summary = RecordSummary.load(store, prepared.rev)
        record = record and not unrecorded_public_check(prepared, summary, audience)
        rows = finish_check(prepared, summary, config, utcnow())
        if record:
            store.bulk_insert("verification", rows)
    assert prepared.report is not None
    if isinstance(loaded, tuple) and audience == "public":
        return stored_report_for_public(store, prepared.report)
    return prepared.report


def unrecorded_public_check(prepared: PreparedCheck, summary: RecordSummary, audience: str) -> bool:
    """Whether this public check would be the first record of an answer it did not store (``add-answer``).

    The first record of an answer tells whose words it holds (:func:`graphcite.audience.asked_publicly`):
    a public one means a public check stored it. An answer stored without a check is the store holder's
    words, so a public check of it is not recorded until some internal check has been.
    """
    return audience == "public" and prepared.answer_rows is None and summary.records == 0


def scratch_check(store: Store, answer: str | Path | Mapping[str, Any] | InputAnswer, *,
                  config: VerifierConfig | None = None, audience: str = "internal", format: str | None = None,
                  documents: list[str] | None = None, limits: AnswerLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The report :func:`check_answer` would give, with nothing written: no answer revision, no record.

    For a client whose checks nobody else may read (an unauthenticated client of a public server):
    its verdicts never become anyone's latest, and its answers never appear on a page.
    """
    _check_audience(audience)
    config = config or VerifierConfig()
    from graphcite.ingest.analysis import keeping_off

    loaded = resolve_answer(store, answer, format=format, documents=documents, limits=limits)
    with keeping_off():  # kept parses are read, none written: a scratch check writes nothing
        prepared = prepare_check(store, loaded, config=config, audience=audience)
    assert prepared.report is not None
    if isinstance(loaded, tuple) and audience == "public":
        return stored_report_for_public(store, prepared.report)
    return prepared.report


def stored_report_for_public(store: Store, report: dict[str, Any], rev: str | None = None) -> dict[str, Any]:
    """A public check's report of a *stored* answer, as ``chain --audience public`` shows the same claims.

    The verdicts are already public ones (restricted sources do not exist for them); what the store
    adds is text the caller did not give: a stored claim that launders a restricted figure has its text
    withheld, and a restricted key, title or id named in a stored claim, question or citation becomes
    its placeholder. An answer a public check stored is the asker's words: nothing of it is withheld or
    replaced (:func:`graphcite.audience.asked_publicly`, :func:`graphcite.audience.as_written`). ``rev`` is the answer revision when the report lacks it.
    """
    from graphcite.language.values import extract_values
    from graphcite.verify.origin import OriginQuery, restricted_origins

    view = audience_view(store, "public")
    if not view.redactor.active:
        return report
    rev = report.get("answer_rev") or rev
    own_words = rev is not None and bool(report["claims"]) and bool(asked_publicly(
        store, [(rev, report["claims"][0].get("claim_id") or claim_id_for(rev, report["claims"][0]["index"]))]))
    if own_words:  # nothing restricted to replace, and a placeholder would tell a restricted name (as_written)
        return report
    queries = [
        OriginQuery(str(i), c["text"], extract_values(c["text"]),
                    [cit["unit_id"] for cit in c["citations"] if cit.get("unit_id")])
        for i, c in enumerate(report["claims"])]
    withheld = dict.fromkeys(restricted_origins(store, queries), WITHHELD_REASON)
    view.redactor.prefetch(report)  # which ids it names are restricted: one statement for the whole report
    out = {k: view.redactor.scrub_json(v) for k, v in report.items() if k != "claims"}
    out["claims"] = [scrub_report(c, view.redactor, withheld=withheld.get(str(i)))
                     for i, c in enumerate(report["claims"])]
    return out


def prepare_check(store: Store, loaded: InputAnswer | tuple[str, InputAnswer], *, config: VerifierConfig,
                  audience: str, model: str | None = None, verifier: Verifier = verify_claims,
                  stored_parts: Callable[[Store, str], list[list[AtomicClaim]]] = answer_parts,
                  stored: Callable[[Store, str], bool] = answer_stored) -> PreparedCheck:
    """Verify an answer (a stored one or a new one) as :func:`check_answer` does, writing nothing.

    The parts of a new answer are the ones its claim rows will hold, read back as a stored answer's
    are, so the report is the same whether the revision was stored a moment ago or long before.
    ``verifier``, ``stored_parts`` and ``stored`` let a long-running process answer from memory.
    """
    rows = None
    if isinstance(loaded, tuple):
        rev, parsed = loaded
        parts = stored_parts(store, rev)
    else:
        parsed = loaded
        rev = answer_rev_for(parsed)
        if stored(store, rev):
            parts = stored_parts(store, rev)
        else:
            rows = answer_rows(rev, parsed, parts_for(parsed, model=model), stored_at=utcnow())
            parts = parts_from_rows(rows[1])
    report = verifier(store, parsed, parts, config, audience=audience)
    report["answer_rev"] = rev
    for claim in report["claims"]:
        claim["claim_id"] = claim_id_for(rev, claim["index"])
    mark_reviews(store, report["claims"])
    return PreparedCheck(rev, report, rows, claim_records(report))


def parts_from_rows(claim_rows: Iterable[Mapping[str, Any]]) -> list[list[AtomicClaim]]:
    """The atomic parts claim rows hold, per claim in order (what :func:`answer_parts` reads back)."""
    grouped: dict[int, list[tuple[int, AtomicClaim]]] = {}
    for row in claim_rows:
        if row["part"] is not None:
            part = atomic_from_dict(json.loads(row["atomic_json"]))
            grouped.setdefault(row["ordinal"], []).append((row["part"], part))
    return [[p for _, p in sorted(grouped[k], key=lambda item: item[0])] for k in sorted(grouped)]


def store_answer_rows(store: Store, prepared: Iterable[PreparedCheck]) -> None:
    """Store the new answer revisions among ``prepared`` (each once) in one bulk write per table."""
    new: dict[str, PreparedCheck] = {}
    for item in prepared:
        if item.answer_rows is not None:
            new.setdefault(item.rev, item)
    if not new:
        return
    rows = [item.answer_rows for item in new.values() if item.answer_rows is not None]
    # plain inserts (an ignoring insert costs twice as much on DuckDB): a revision another process
    # stored meanwhile is a key conflict, and the caller checks that answer again
    store.bulk_insert("answer", [a for a, _, _ in rows])
    store.bulk_insert("claim", [c for _, claims, _ in rows for c in claims])
    store.bulk_insert("citation", [c for _, _, cits in rows for c in cits])


def finish_check(prepared: PreparedCheck, summary: RecordSummary, config: VerifierConfig,
                 now: Any) -> list[dict[str, Any]]:
    """Set the ``earlier`` block (in the report too) and return the verification records; ``summary``
    counts them as written (the caller writes them, or forgets the summary)."""
    prepared.earlier = summary.earlier(prepared.records)
    if prepared.report is not None:
        prepared.report.pop("earlier", None)
        if prepared.earlier is not None:
            prepared.report["earlier"] = prepared.earlier
    rows = record_rows(prepared.rev, prepared.records, config, _config_json(config), summary.records, now)
    summary.append(rows)
    return rows


def _config_json(config: VerifierConfig) -> str:
    key = config.hash
    found = _CONFIG_JSON.get(key)
    if found is None:
        found = json.dumps(config.as_dict(), sort_keys=True, default=str)
        if len(_CONFIG_JSON) > 64:
            _CONFIG_JSON.clear()
        _CONFIG_JSON[key] = found
    return found


_CONFIG_JSON: dict[str, str] = {}


def earlier_checks(store: Store, rev: str, report: dict[str, Any]) -> dict[str, Any] | None:
    """For an answer revision verified before: the checks performed then, per claim the last status
    and configuration, the reviewers' judgements, and any newer revision that corrects this one.
    None for an answer checked for the first time."""
    claims = [ClaimRecord(c["claim_id"], c["status"], bool(c["supported"]), "", "", record_audience(report))
              for c in report["claims"]]
    return RecordSummary.load(store, rev).earlier(claims)


def history(store: Store, claim_id: str, *, audience: str = "internal") -> list[dict[str, Any]]:
    """Every verification record of a claim made for ``audience``, oldest first (a public check's records
    are not the internal history, nor the other way round; the internal history also lists the records
    of old stores that could not be attributed, each saying ``unattributed``). For the public a restricted revision a
    record names (a record written before public checks stopped reading restricted content) is a
    placeholder, as in every other public output."""
    rows = claim_history(store, claim_id, check_audience(audience))
    if audience == INTERNAL:  # the store holder sees the records an upgrade could not attribute too
        unattributed = claim_history(store, claim_id, UNATTRIBUTED)
        if unattributed:
            rows = sorted([*rows, *unattributed], key=lambda r: (r["verified_at"], r["record_id"]))
    if not rows and not claim_known(store, claim_id):
        raise make_error("E504", where="CLAIM", ref=claim_id if len(claim_id) <= 80 else claim_id[:77] + "...")
    red = audience_view(store, audience).redactor
    for row in rows:
        row["evidence_revisions"] = json.loads(row.pop("evidence_revisions_json"))
    red.prefetch([row["evidence_revisions"] for row in rows])  # one statement for every record's revisions
    for row in rows:
        row["evidence_revisions"] = [red.revision(r) for r in row["evidence_revisions"]]
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
                max_line_chars: int = MAX_STREAM_LINE, verifier: Verifier | None = None) -> Iterator[dict[str, Any]]:
    """Verify one claim per JSON line and yield each verdict as soon as it is decided.

    A line that cannot be used (not UTF-8, not JSON, nested too deeply, too long, not a claim) yields
    an error record ``{"line", "error", "code"}`` and the stream goes on. See :func:`gate_line`.
    """
    _check_audience(audience)
    config = config or VerifierConfig()
    for number, raw in enumerate(lines, start=1):
        record = gate_line(store, number, raw, config=config, audience=audience, limits=limits,
                           max_line_chars=max_line_chars, verifier=verifier)
        if record is not None:
            yield record


def gate_line(store: Store, number: int, raw: str | bytes, *, config: VerifierConfig, audience: str,
              limits: AnswerLimits = DEFAULT_LIMITS, max_line_chars: int = MAX_STREAM_LINE,
              verifier: Verifier | None = None) -> dict[str, Any] | None:
    """Line ``number`` of a gate stream: ``{"line", "text", "passed", "status"}``, an error record, or
    None for a blank line.

    The status is the one a check's report gives the claim (:func:`graphcite.verify.statuses.claim_statuses`
    decides it without building the report); with a ``verifier`` the report is built and read.
    """
    try:
        if len(raw) > max_line_chars:
            raise make_error("E210", where=f"line {number}", limit=max_line_chars)
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not line.strip():
            return None
        data = parse_json(line, where=f"line {number}")
        answer = load_answer({"answer_id": f"stream-{number}", "claims": [data]}, format="native", limits=limits)
        if verifier is not None:
            claim = verify_answer(store, answer, config=config, audience=audience, verifier=verifier)["claims"][0]
            return {"line": number, "text": claim["text"], "passed": claim["supported"], "status": claim["status"]}
        status = claim_statuses(store, answer, parts_for(answer), config, audience=audience)[0]
    except UnicodeDecodeError as exc:
        return {"line": number, "error": f"line {number}: not UTF-8 (bad byte at offset {exc.start})", "code": "E202"}
    except GraphciteError as exc:
        message = str(exc) if (exc.where or "").startswith(f"line {number}") else f"line {number}: {exc}"
        return {"line": number, "error": message, "code": exc.code}
    return {"line": number, "text": answer.claims[0].text, "passed": status == "supported", "status": status}
