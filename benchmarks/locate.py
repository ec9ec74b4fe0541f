"""Located citations: what locating the evidence costs, and how well it does.

Speed: one generated 500-unit Markdown document (among 40 smaller ones, so the term index is not
trivial) and claims taken from its sentences, checked twice in the same run: cited with a span
(offsets and quote) and cited with the source only, so the evidence has to be located. Answers hold
20 claims (the bulk queries are shared by an answer's claims) and, separately, one claim each. The
figure is the difference per claim (target: <= 5 ms), in wall time and in CPU time (the machine may be
shared: CPU time is the steadier of the two).

Accuracy: the bundled labelled sets with every span citation replaced by a source-only citation
(same claims, same labels), scored with the corpus's verifier configuration next to the span-cited
sets in the same run. ``--write DIR`` keeps the source-only sets, for ``graphcite eval``.

    python -m benchmarks.locate [--claims 100] [--json] [--write DIR] [--skip-accuracy]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, emit

EXAMPLES = ROOT / "graphcite" / "examples"
# integrity-only categories: their gold label says "unsupported" because the quote was paraphrased or
# the source invented; without a quote, the first kind tests nothing of the locator
INTEGRITY_CATEGORIES = {"paraphrased_quote"}

_SUBJECTS = ["The dispatcher", "The webhook relay", "Each carrier adapter", "The review queue", "The billing job",
             "The tracking poller", "The address check", "The label service", "The rate service", "Support staff"]
_VERBS = ["retries", "holds", "parks", "escalates", "rejects", "signs", "logs", "archives", "batches", "sends"]
_OBJECTS = ["a failed delivery", "every label request", "each held parcel", "the nightly export",
            "a timed-out quote", "duplicate shipments", "the merchant callback", "stale tracking events",
            "the signing secret", "each refund request"]
_TAILS = ["{n} times before giving up", "for {n} minutes", "within {n} seconds", "after {n} hours",
          "up to {n} times a day", "for at most {n} days", "every {n} minutes", "in batches of {n}"]
_HEADINGS = ["Current behaviour", "Operations", "Limits", "History", "Exceptions", "Monitoring"]


def _sentence(rng: random.Random) -> str:
    tail = rng.choice(_TAILS).format(n=rng.randint(2, 90))
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {tail}."


def _document(rng: random.Random, units: int, title: str) -> str:
    """A Markdown document of about ``units`` evidence units (paragraphs and a heading every 12)."""
    parts = [f"---\ntitle: {title}\nstatus: current\n---\n"]
    for i in range(units):
        if i % 12 == 0:
            parts.append(f"## {rng.choice(_HEADINGS)} {i // 12}\n")
        else:
            parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(1, 4))) + "\n")
    return "\n".join(parts)


def build_store(folder: Path, seed: int = 5) -> tuple[Any, str]:
    """A store with one 500-unit document (``big.md``) and 40 small ones; returns (store, key)."""
    from graphcite.ingest import ingest
    from graphcite.store import Store

    rng = random.Random(seed)
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "big.md").write_text(_document(rng, 500, "Operations handbook"), encoding="utf-8")
    for i in range(40):
        (corpus / f"small-{i:02}.md").write_text(_document(rng, 20, f"Note {i}"), encoding="utf-8")
    store = Store(folder / "bench.duckdb")
    ingest(store, [corpus])
    units = store.scalar("SELECT count(*) FROM evidence_unit WHERE source_key = 'big.md'")
    assert units >= 500, units
    return store, "big.md"


def _claims(store: Any, key: str, count: int, seed: int = 9) -> list[dict[str, Any]]:
    """Distinct claims taken from sentences of the big document, each with its span (document offsets)."""
    from graphcite.claims.markers import sentence_spans

    units = store.rows("SELECT start, text FROM evidence_unit WHERE source_key = ? AND block_type = 'paragraph' "
                       "ORDER BY start", [key])
    sentences: dict[str, int] = {}
    for unit in units:
        for a, b in sentence_spans(unit["text"]):
            sentence = unit["text"][a:b].strip()
            sentences.setdefault(sentence, unit["start"] + unit["text"].index(sentence, a))
    if count > len(sentences):
        raise ValueError(f"the document has {len(sentences)} distinct sentences; ask for fewer claims")
    picks = random.Random(seed).sample(sorted(sentences), count)
    return [{"text": t, "start": sentences[t], "end": sentences[t] + len(t)} for t in picks]


def _answers(claims: list[dict[str, Any]], key: str, per_answer: int, located: bool) -> list[Any]:
    from graphcite.claims.formats import load_answer

    answers = []
    for i in range(0, len(claims), per_answer):
        batch = []
        for claim in claims[i:i + per_answer]:
            cite = {"source": key} if located else {"source": key, "start": claim["start"], "end": claim["end"],
                                                     "quote": claim["text"]}
            batch.append({"text": claim["text"], "citations": [cite]})
        answers.append(load_answer({"answer_id": f"bench-{located}-{i}", "claims": batch}))
    return answers


def _time(store: Any, answers: list[Any], config: Any) -> tuple[tuple[float, float], list[dict[str, Any]]]:
    """((wall seconds, CPU seconds of this process and its DuckDB threads), reports)."""
    from graphcite.verify.check import verify_answer

    start, cpu = time.perf_counter(), time.process_time()
    reports = [verify_answer(store, answer, config=config) for answer in answers]
    return (time.perf_counter() - start, time.process_time() - cpu), reports


def speed(claims: int = 100, rounds: int = 3) -> list[dict[str, Any]]:
    """Per-claim check time with span citations and with source-only citations, same claims, same run.

    Each round takes fresh claims (no cache holds their alignments yet) and the order of the two runs
    alternates, so neither profits from the other's warm caches; the median round counts.
    """
    from graphcite.verify.config import VerifierConfig

    config = VerifierConfig()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store, key = build_store(Path(tmp))
        try:
            pool = _claims(store, key, claims * rounds * 2 + 20)
            _time(store, _answers(pool[-20:], key, 20, True) + _answers(pool[-20:], key, 20, False), config)
            for n, per_answer in enumerate((20, 1)):
                span_times, located_times, hits = [], [], 0
                for r in range(rounds):
                    picked = pool[(n * rounds + r) * claims:(n * rounds + r + 1) * claims]
                    spans = _answers(picked, key, per_answer, False)
                    located = _answers(picked, key, per_answer, True)
                    if r % 2:
                        located_times.append(_time(store, located, config)[0])
                        span_times.append(_time(store, spans, config)[0])
                        continue
                    span_times.append(_time(store, spans, config)[0])
                    seconds, reports = _time(store, located, config)
                    located_times.append(seconds)
                    cites = [c["citations"][0] for report in reports for c in report["claims"]]
                    hits = sum(1 for cite, claim in zip(cites, picked, strict=True)
                               if cite.get("start") is not None and cite["start"] < claim["end"]
                               and claim["start"] < cite["end"])
                row: dict[str, Any] = {"benchmark": f"locate in a 500-unit document, {per_answer} claim(s) per answer",
                                       "claims": claims}
                for i, clock in enumerate(("wall", "cpu")):
                    span_ms = statistics.median(t[i] for t in span_times) / claims * 1000
                    located_ms = statistics.median(t[i] for t in located_times) / claims * 1000
                    row |= {f"span_ms_{clock}": round(span_ms, 2), f"located_ms_{clock}": round(located_ms, 2),
                            f"added_ms_{clock}": round(located_ms - span_ms, 2)}
                row["located_on_the_cited_sentence"] = round(hits / claims, 3)
                rows.append(row)
            rows.append(_index_build(store, key))
        finally:
            store.close()
    return rows


def _index_build(store: Any, key: str, rounds: int = 5) -> dict[str, Any]:
    """What the first located claim of a revision pays once per store: reading its units and terms."""
    from graphcite.verify import locate

    revision = store.scalar("SELECT current_revision FROM source WHERE key = ?", [key])
    times = []
    for _ in range(rounds):
        locate._INDEXES.pop(store, None)
        start = time.perf_counter()
        index = locate.revision_indexes(store, [revision])[revision]
        times.append(time.perf_counter() - start)
    return {"benchmark": "first located claim of a revision: index of its units (once per store)",
            "units": index.total_units, "index_ms": round(statistics.median(times) * 1000, 2)}


def source_only(item: dict[str, Any]) -> dict[str, Any]:
    """A labelled item with its citations reduced to the source (labels kept)."""
    out = dict(item)
    out["citations"] = [{k: v for k, v in c.items() if k not in {"quote", "start", "end"}} for c in item["citations"]]
    return out


def write_sets(folder: Path) -> list[Path]:
    """The bundled labelled sets with source-only citations, as JSONL files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted((EXAMPLES / "labelled").glob("*.jsonl")):
        items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        target = folder / f"{path.stem}-source-only.jsonl"
        target.write_text("".join(json.dumps(source_only(i), ensure_ascii=False) + "\n" for i in items),
                          encoding="utf-8")
        written.append(target)
    return written


def accuracy(write: Path | None = None) -> list[dict[str, Any]]:
    """Agreement, false-support rate and recall on each bundled set: span-cited and source-only."""
    from graphcite.evaluate import load_set, metrics, score_items
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify.config import load_config

    config = load_config(EXAMPLES / "verifier.yaml")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sets = write_sets(write or Path(tmp) / "sets")
        with Store(Path(tmp) / "corpus.duckdb") as store:
            ingest(store, [EXAMPLES / "corpus"])
            for path, located_path in zip(sorted((EXAMPLES / "labelled").glob("*.jsonl")), sets, strict=True):
                for label, items in (("span-cited", load_set(path)), ("source-only", load_set(located_path))):
                    start = time.perf_counter()
                    scored = score_items(store, items, config)
                    seconds = time.perf_counter() - start
                    kept = [s for s in scored if s["category"] not in INTEGRITY_CATEGORIES]
                    for name, subset in ((f"{path.stem} {label}", scored),
                                         (f"{path.stem} {label} (without {', '.join(INTEGRITY_CATEGORIES)})", kept)):
                        m = metrics(subset)
                        rows.append({"benchmark": name, "items": m["items"], "agreement": m["agreement"],
                                     "false_support_rate": m["false_support_rate"],
                                     "support_recall": m["support_recall"],
                                     "ms_per_item": round(seconds / len(scored) * 1000, 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.locate")
    parser.add_argument("--claims", type=int, default=100, help="claims per round (3 rounds, 2 answer sizes)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", type=Path, help="keep the source-only labelled sets in this folder")
    parser.add_argument("--skip-accuracy", action="store_true")
    args = parser.parse_args(argv)
    rows = speed(args.claims)
    if not args.skip_accuracy:
        rows += accuracy(args.write)
    emit(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
