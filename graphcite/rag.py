"""Answers that carry their passages, and an evaluation run over a RAG data set.

Most people who check a RAG system's citations hold samples (question, answer, retrieved passages)
rather than a store of the corpus. :func:`store_passages` makes such an answer checkable: each
passage that came with it is matched to its span in the stored document it came from (the exact text
at ``start_index``, else found in the document) and then verified against that stored revision, with
its lineage and status; a passage whose document is not stored becomes a source of its own
(content-addressed, ``passages/<hash>.txt``, stored once, with ``evidence_kind: answer-passage`` and
the producer's name, URL, title and ``start_index`` in its metadata).

:func:`evaluate_rag` runs that over a data set (JSON Lines, a JSON list, or a JSON object of columns,
with the column names of RAGAS, DeepEval, LangChain or ALCE) and returns a :class:`RagEvaluation`:
per sample and per claim verdicts with their reasons, and per data set the metrics (see
:data:`METRIC_MEANINGS`). ``to_dataframe()`` needs pandas; ``write_parquet`` needs pyarrow only.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphcite.claims.formats import DEFAULT_LIMITS, AnswerLimits, load_answer, parse_json
from graphcite.claims.formats.passages import EVIDENCE_KIND, PASSAGE_PREFIX, evidence_kind
from graphcite.claims.formats.ragas import REFERENCE_KEYS, first_key
from graphcite.errors import AnswerFormatError, InputError, OutputError
from graphcite.models import CitationRef, InputAnswer, Passage
from graphcite.models.findings import PASSAGE, finding_items
from graphcite.store import Store, open_store

__all__ = [
    "EVIDENCE_KIND",
    "METRIC_MEANINGS",
    "PassageMatch",
    "RagEvaluation",
    "SampleResult",
    "claim_reasons",
    "evaluate_rag",
    "load_samples",
    "match_passages",
    "store_passages",
]

METRIC_MEANINGS = {
    "citation_validity": "share of claims whose citations support them",
    "faithfulness": "share of samples whose every claim is supported by what it cites",
    "supported_elsewhere": "share of claims supported by some passage of their sample, cited or not",
    "citation_integrity": "share of citations that point at text that exists (right source, span, quote)",
}
ProgressCallback = Callable[[int, int], None]


# --------------------------------------------------------------------------------------------
# Passages -> sources
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassageMatch:
    """Where one passage is verified: its span in a stored document, or itself (``how`` says which).

    ``how`` is ``start_index`` (the text is at the producer's offset), ``located`` (found elsewhere in
    the document), or ``passage`` (the document is not stored, or does not hold the text).
    """

    passage: Passage
    source: str
    how: str
    revision: str | None = None
    start: int | None = None
    end: int | None = None


def store_passages(store: Store, answers: InputAnswer | Sequence[InputAnswer], *, audience: str = "internal") -> Any:
    """The answer(s) with every passage citation pointing at where it is verified; stores new passages.

    Given one answer, returns one; given a list, a list (all their new passages go in one ingest).
    A citation of a passage whose document the store holds cites that document's span (pinned to its
    current revision); any other cites the passage's own source. Answers without passages come back
    unchanged, and nothing is written for them. For the public audience a passage naming a restricted
    source is matched as one naming a source the store lacks: its own passage (a public verdict must not
    tell whether the restricted document holds the passage's text).
    """
    single = isinstance(answers, InputAnswer)
    items: list[InputAnswer] = [answers] if single else list(answers)  # type: ignore[list-item]
    passages = {p for answer in items for p in answer.passages}
    if not passages:
        return items[0] if single else items
    matches = match_passages(store, passages, audience=audience)
    _ingest_passages(store, [m.passage for m in matches.values() if m.how == "passage"])
    out = [_cite_matches(answer, matches) for answer in items]
    return out[0] if single else out


def match_passages(store: Store, passages: Iterable[Passage], *,
                   audience: str = "internal") -> dict[Passage, PassageMatch]:
    """Each passage's match: its span in the stored document it names, else the passage itself (for the
    public audience a restricted document is not one the store holds)."""
    from graphcite.audience import restricted_keys, verdict_may_use_restricted
    from graphcite.store.queries.ingest import current_revisions
    from graphcite.store.queries.lifecycle import revision_texts
    from graphcite.verify.resolve import source_aliases

    passages = list(passages)
    hidden = frozenset() if verdict_may_use_restricted(audience) else restricted_keys(store)
    current = {r["key"]: r["current_revision"] for r in current_revisions(store) if r["key"] not in hidden}
    names = {p.name for p in passages if p.name and p.name not in current}
    aliases, _ambiguous = source_aliases(store, names, hidden=hidden) if names else ({}, {})
    keys = {p: (p.name if p.name in current else aliases.get(p.name or "")) for p in passages}
    keys = {p: k for p, k in keys.items() if k and not k.startswith(PASSAGE_PREFIX)}
    texts = revision_texts(store, {current[k] for k in keys.values()})
    out: dict[Passage, PassageMatch] = {}
    for passage in passages:
        key = keys.get(passage)
        span = _span_in(texts.get(current[key], ""), passage) if key else None
        if key and span is not None:
            out[passage] = PassageMatch(passage, key, span[2], current[key], span[0], span[1])
        else:
            out[passage] = PassageMatch(passage, passage.key, "passage")
    return out


def _span_in(document: str, passage: Passage) -> tuple[int, int, str] | None:
    """(start, end, how) of the passage's text in the document: at ``start_index`` when it is there,
    else the occurrence nearest to it (the first, without one); None when the text is not there."""
    text, at = passage.text, passage.start_index
    if not document or not text:
        return None
    if at is not None and document[at:at + len(text)] == text:
        return at, at + len(text), "start_index"
    found, hits = document.find(text), []
    while found != -1 and len(hits) < 50:
        hits.append(found)
        found = document.find(text, found + 1)
    if not hits:
        return None
    best = min(hits, key=lambda h: abs(h - at)) if at is not None else hits[0]
    return best, best + len(text), "located"


def _cite_matches(answer: InputAnswer, matches: Mapping[Passage, PassageMatch]) -> InputAnswer:
    if not answer.passages:
        return answer
    claims = []
    for claim in answer.claims:
        refs = tuple(_cite(ref, matches[answer.passages[ref.passage]]) if ref.passage is not None
                     and ref.passage < len(answer.passages) else ref for ref in claim.citations)
        claims.append(replace(claim, citations=refs))
    return replace(answer, claims=tuple(claims))


def _cite(ref: CitationRef, match: PassageMatch) -> CitationRef:
    if match.how == "passage":
        return replace(ref, source=match.source, revision=None, chunk_id=None, start=None, end=None, page=None,
                       page_end=None, quote=None)
    return replace(ref, source=match.source, revision=match.revision, chunk_id=None, start=match.start,
                   end=match.end, quote=None, page=None, page_end=None)


def _ingest_passages(store: Store, passages: Sequence[Passage]) -> None:
    """Store each passage not stored yet as ``passages/<hash>.txt``, its metadata in a sidecar."""
    from graphcite.ingest import ingest
    from graphcite.store.queries.ingest import current_revisions

    stored = {r["key"] for r in current_revisions(store) if r["key"].startswith(PASSAGE_PREFIX)}
    new = {p.key: p for p in passages if p.key not in stored}
    if not new:
        return
    with tempfile.TemporaryDirectory(prefix="graphcite-passages-") as folder:
        for key, passage in new.items():
            name = key.removeprefix(PASSAGE_PREFIX)
            (Path(folder) / name).write_bytes(passage.text.encode("utf-8"))
            meta = {"title": f"passage from {passage.title or passage.name or 'an answer'}",
                    "evidence_kind": EVIDENCE_KIND, "source_name": passage.name, "source_url": passage.url,
                    "source_title": passage.title, "start_index": passage.start_index}
            # JSON is YAML: one "key: value" line per field, every value quoted
            lines = [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items() if v is not None]
            (Path(folder) / f"{name}.meta.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        ingest(store, [folder], prefix=PASSAGE_PREFIX)


# --------------------------------------------------------------------------------------------
# Samples
# --------------------------------------------------------------------------------------------


def load_samples(source: str | Path | Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> list[dict[str, Any]]:
    """The samples of a RAG data set: a JSON Lines file, a JSON list, ``{"data": [...]}``, a JSON object
    of columns (``{"question": [...], "answer": [...], ...}``), or those already parsed."""
    where = "SAMPLES"
    data: Any = source
    if isinstance(source, str | Path):
        where = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise InputError("no such file", where=where, fix="check the path") from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0]
            raise InputError(f"cannot read the samples: {reason}", where=where, fix="give a UTF-8 JSON Lines file") from None
        data = _parse_samples(text, where)
    if isinstance(data, Mapping):
        data = data["data"] if isinstance(data.get("data"), list) else _rows_of_columns(data, where)
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise InputError("expected a list of samples", where=where, fix="one JSON object per line, or a JSON list")
    samples = []
    for i, item in enumerate(data):
        if not isinstance(item, Mapping):
            raise InputError(f"sample {i + 1} is not an object", where=where, fix="each sample is a JSON object")
        samples.append(dict(item))
    if not samples:
        raise InputError("the data set has no samples", where=where, fix="add samples, one JSON object per line")
    return samples


def _parse_samples(text: str, where: str) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            return parse_json(text)
        except AnswerFormatError as exc:
            raise InputError(f"not JSON ({exc.cause})", where=f"{where}: {exc.where}", fix="fix the JSON") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(parse_json(line, where=f"line {number}"))
        except AnswerFormatError as exc:
            if number == 1 and stripped.startswith("{"):
                try:  # one JSON object spread over several lines (columns, or {"data": [...]})
                    return parse_json(text)
                except AnswerFormatError:
                    pass
            raise InputError(f"not JSON ({exc.cause})", where=f"{where}:{number}",
                             fix="one JSON object per line") from None
    if len(rows) == 1 and isinstance(rows[0], Mapping) and (
            isinstance(rows[0].get("data"), list) or _is_columns(rows[0])):
        return rows[0]
    return rows


def _is_columns(data: Mapping[str, Any]) -> bool:
    return bool(data) and all(isinstance(v, list) for v in data.values()) and len(
        {len(v) for v in data.values()}) == 1 and any(k in data for k in ("question", "user_input", "answer",
                                                                           "response"))


def _rows_of_columns(data: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    if not _is_columns(data):
        return [dict(data)]  # a single sample
    names = list(data)
    return [{name: data[name][i] for name in names} for i in range(len(data[names[0]]))]


# --------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class SampleResult:
    """One sample: its answer, the check report, and what the sample's passages support."""

    index: int
    answer: InputAnswer
    report: dict[str, Any]
    supported_elsewhere: list[bool]
    reference: Any = None
    repeated: bool = False  # another sample of the data set has the same id (the same content, when it gave none)

    @property
    def sample_id(self) -> str:
        """The sample's id; one that another sample shares gets its row number (``a-3fdde12e0925#2``)."""
        return f"{self.answer.answer_id}#{self.index + 1}" if self.repeated else self.answer.answer_id

    def metrics(self) -> dict[str, Any]:
        m = self.report["metrics"]
        claims = m["claims"]
        return {"sample": self.sample_id, "question": self.answer.question, "claims": claims,
                "supported_claims": m["supported_claims"], "citation_validity": m["citation_validity"],
                "faithfulness": m["faithfulness"], "citation_integrity": m["citation_integrity"],
                "supported_elsewhere": round(sum(self.supported_elsewhere) / claims, 4) if claims else 0.0,
                "passages": len(self.answer.passages)}

    def claim_rows(self) -> list[dict[str, Any]]:
        """One row per claim: its verdict, whether its citations are valid, and why."""
        rows = []
        for claim, elsewhere in zip(self.report["claims"], self.supported_elsewhere, strict=True):
            citations = claim["citations"]
            rows.append({
                "sample": self.sample_id, "question": self.answer.question, "claim": claim["index"] + 1,
                "text": claim["text"], "status": claim["status"], "supported": claim["supported"],
                "citations_valid": bool(citations) and all(c["valid"] for c in citations),
                "supported_elsewhere": elsewhere, "reasons": claim_reasons(claim),
                "evidence": [_evidence_name(c) for c in citations],
                "evidence_kinds": [c.get("evidence_kind") or evidence_kind(c.get("source")) or "stored-document"
                                   for c in citations],
                "reference": self.reference if isinstance(self.reference, str) else (
                    json.dumps(self.reference, ensure_ascii=False) if self.reference is not None else None),
            })
        return rows


@dataclass(slots=True)
class RagEvaluation:
    """The result of :func:`evaluate_rag`: the samples, the summary and the verifier that decided."""

    samples: list[SampleResult]
    verifier: dict[str, Any]
    audience: str
    summary: dict[str, Any] = field(default_factory=dict)

    def claim_rows(self) -> list[dict[str, Any]]:
        return [row for sample in self.samples for row in sample.claim_rows()]

    def sample_rows(self) -> list[dict[str, Any]]:
        return [sample.metrics() for sample in self.samples]

    def as_dict(self) -> dict[str, Any]:
        """Everything, as JSON-ready data: summary, metric meanings, samples with claims, and the verifier."""
        claims = self.claim_rows()
        return {"summary": self.summary, "metrics_explained": METRIC_MEANINGS, "audience": self.audience,
                "verifier": self.verifier,
                "samples": [{**s, "not_claims": list(r.answer.not_claims),
                             "claims": [c for c in claims if c["sample"] == s["sample"]]}
                            for s, r in zip(self.sample_rows(), self.samples, strict=True)]}

    def to_dataframe(self) -> Any:
        """One row per claim as a pandas DataFrame (``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError:
            raise OutputError("pandas is not installed", where="to_dataframe()",
                              fix="pip install pandas, or use claim_rows() / as_dict()") from None
        return pd.DataFrame(self.claim_rows())

    def write_parquet(self, path: str | Path) -> Path:
        """Write one row per claim to a Parquet file (pyarrow; lists stay lists)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        out = Path(path)
        try:
            pq.write_table(pa.Table.from_pylist(self.claim_rows()), out)
        except OSError as exc:
            raise OutputError(f"cannot write the Parquet file: {exc.strerror or exc}", where=str(out),
                              fix="check the folder exists and is writable") from None
        return out


def evaluate_rag(samples: str | Path | Sequence[Mapping[str, Any]] | Mapping[str, Any], *,
                 store: Store | None = None, config: Any = None, audience: str = "internal",
                 format: str | None = None, limits: AnswerLimits = DEFAULT_LIMITS,
                 progress: ProgressCallback | None = None) -> RagEvaluation:
    """Check every sample of a RAG data set against the passages it carries; nothing is recorded.

    ``samples`` is a path or the parsed samples (see :func:`load_samples`); each is read as ``format``
    or detected (a RAGAS/DeepEval row, a LangChain or LlamaIndex result, an ALCE item). ``store``
    holds the corpus the passages may come from; without one a temporary store holds the passages
    only. ``progress(done, total)`` is called after each sample.
    """
    from graphcite.verify.check import check_audience, verify_answer
    from graphcite.verify.config import VerifierConfig

    check_audience(audience)
    config = config or VerifierConfig()
    rows = load_samples(samples)
    answers = []
    for i, row in enumerate(rows):
        try:
            answers.append(load_answer(row, format=format or _format_of(row), limits=limits))
        except AnswerFormatError as exc:
            raise AnswerFormatError(exc.cause, where=f"sample {i + 1}: {exc.where}", fix=exc.fix) from None
    ids = Counter(answer.answer_id for answer in answers)
    with _store_for(store) as active:
        answers = store_passages(active, answers, audience=audience)
        results = []
        for i, (row, answer) in enumerate(zip(rows, answers, strict=True)):
            report = verify_answer(active, answer, config=config, audience=audience)
            elsewhere = _supported_elsewhere(active, answer, report, config, audience)
            reference_key = first_key(row, REFERENCE_KEYS)
            results.append(SampleResult(i, answer, report, elsewhere, row.get(reference_key) if reference_key else None,
                                        repeated=ids[answer.answer_id] > 1))
            if progress is not None:
                progress(i + 1, len(rows))
    verifier = results[0].report.get("verifier", {}) if results else {}
    evaluation = RagEvaluation(results, verifier, audience)
    evaluation.summary = _summary(evaluation)
    return evaluation


def _format_of(row: Mapping[str, Any]) -> str | None:
    from graphcite.claims.formats.ragas import looks_like_ragas

    return "ragas" if looks_like_ragas(row) else None


@contextlib.contextmanager
def _store_for(store: Store | None) -> Iterator[Store]:
    """The given store, or a temporary DuckDB store removed afterwards."""
    if store is not None:
        yield store
        return
    with tempfile.TemporaryDirectory(prefix="graphcite-rag-") as folder:
        own = open_store(Path(folder) / "passages.duckdb")
        try:
            yield own
        finally:
            own.close()


def _supported_elsewhere(store: Store, answer: InputAnswer, report: dict[str, Any], config: Any,
                         audience: str) -> list[bool]:
    """Per claim: supported by the passages it cites, or else by any other passage of its sample."""
    from graphcite.verify.check import verify_answer

    supported = [_passage_supports(c) for c in report["claims"]]
    every = tuple(CitationRef(source=p.name or p.key, passage=i) for i, p in enumerate(answer.passages))
    todo = [i for i, claim in enumerate(answer.claims)
            if not supported[i] and every and {r.passage for r in claim.citations} != set(range(len(every)))]
    if not todo:
        return supported
    wider = replace(answer, claims=tuple(replace(answer.claims[i], premises=(), citations=tuple(
        replace(ref, claim=answer.claims[i].text) for ref in every)) for i in todo))  # located for this claim
    again = verify_answer(store, store_passages(store, wider, audience=audience), config=config, audience=audience)
    for i, claim in zip(todo, again["claims"], strict=True):
        supported[i] = _passage_supports(claim)
    return supported


def _passage_supports(claim: Mapping[str, Any]) -> bool:
    """Whether a passage the claim cites supports it: the claim is supported, or one citation's relation
    is ``supports`` (a claim the stored documents contradict is a ``conflict``, yet its passage supports it)."""
    return bool(claim["supported"]) or any(c["relation"] == "supports" for c in claim["citations"])


def claim_reasons(claim: Mapping[str, Any]) -> list[str]:
    """Why a claim got its verdict: its failed findings in the words of every report (one per rule of a
    citation, :func:`graphcite.models.findings.finding_items`), as ``[n] Sentence. (code)``, then the
    stored evidence against it (what makes a claim its citations support a ``conflict``), as
    ``against it: SOURCE (status) says ...``."""
    reasons: list[str] = []
    for cit in claim.get("citations", []):
        for outcome, code, _, text in finding_items(cit.get("findings") or []):
            if outcome == "fail" and text:
                line = f"[{cit['index'] + 1}] {text} ({code})"
                if line not in reasons:
                    reasons.append(line)
    for item in claim.get("contradicting_evidence") or []:
        superseded = f", superseded by {item['superseded_by']}" if item.get("superseded_by") else ""
        line = (f"against it: {item.get('source') or 'a withheld source'} ({item.get('status') or 'unknown status'}"
                f"{superseded}) {item.get('reason') or 'disagrees'}")
        if line not in reasons:
            reasons.append(line)
    if not reasons and not claim.get("supported"):
        reasons.append("no citation supports it" if claim.get("citations") else "it cites nothing")
    return reasons


def _evidence_name(cit: Mapping[str, Any]) -> str:
    source = cit.get("source") or cit.get("chunk_id") or "?"
    if (cit.get("evidence_kind") or evidence_kind(source)) == EVIDENCE_KIND:
        return f"{source} ({PASSAGE})"
    return f"{source}:{cit['start']}-{cit['end']}" if cit.get("start") is not None else source


def _summary(evaluation: RagEvaluation) -> dict[str, Any]:
    samples = evaluation.sample_rows()
    claims = sum(s["claims"] for s in samples)
    supported = sum(s["supported_claims"] for s in samples)
    elsewhere = sum(sum(r.supported_elsewhere) for r in evaluation.samples)
    citations = [c for r in evaluation.samples for claim in r.report["claims"] for c in claim["citations"]]
    return {"samples": len(samples), "claims": claims, "supported_claims": supported,
            "citation_validity": round(supported / claims, 4) if claims else 0.0,
            "faithfulness": round(sum(1 for s in samples if s["faithfulness"] == 1.0) / len(samples), 4)
            if samples else 0.0,
            "supported_elsewhere": round(elsewhere / claims, 4) if claims else 0.0,
            "citation_integrity": round(sum(1 for c in citations if c["valid"]) / len(citations), 4)
            if citations else 0.0}
