"""Verification throughput: citation checks per second through integrity, lexical support and every
qualifier rule, on a store ingested from the generated 5 MB corpus; the plain lexical check's rate in the
same run as the floor; the same checks on a first check that keeps the parses it makes and again once
they are kept, with whether their reports are byte-identical to those without kept parses; and the
streaming gate's added latency per claim (p50/p99).

    python -m benchmarks.run verify [--claims 2000] [--json]
"""

from __future__ import annotations

import contextlib
import random
import statistics
import time
from typing import Any

from benchmarks.common import DATA
from benchmarks.ingest import generate


def _answers(store: Any, claims: int, per_claim: int, seed: int = 11) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    units = store.rows("SELECT u.source_key, u.start, u.\"end\", u.text FROM evidence_unit u "
                       "WHERE u.block_type = 'paragraph' ORDER BY u.unit_id LIMIT 20000")
    answers = []
    batch: list[dict[str, Any]] = []
    for _ in range(claims):
        picks = rng.sample(units, per_claim)
        sentence = picks[0]["text"].split(". ")[0].rstrip(".") + "."
        cites = []
        for unit in picks:
            quote = unit["text"].split(". ")[0]
            cites.append({"source": unit["source_key"], "start": unit["start"], "end": unit["start"] + len(quote),
                          "quote": quote})
        batch.append({"text": sentence, "citations": cites})
        if len(batch) == 50:
            answers.append({"answer_id": f"bench-{len(answers)}", "claims": batch})
            batch = []
    if batch:
        answers.append({"answer_id": f"bench-{len(answers)}", "claims": batch})
    return answers


_KEEP = frozenset({"get_nlp", "_lexicon", "_raw", "_data", "lemma_lookup", "_known_lower", "word_list"})


def clear_result_caches() -> int:
    """Empty every memo of per-text results (alignments, word lists of a text, parsed dates, verdicts of
    claim/evidence pairs ...), keeping
    loaded resources (the spaCy pipeline, the lexicon): each configuration is timed cold, not on the
    answers the previous one memoised."""
    import sys

    from graphcite.lru import LruCache

    cleared = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("graphcite") or module is None:
            continue
        for attr, value in vars(module).items():
            if attr not in _KEEP and hasattr(value, "cache_clear") and hasattr(value, "cache_info"):
                value.cache_clear()
                cleared += 1
            elif isinstance(value, LruCache):  # the engine's memo of claim/evidence pairs
                value.clear()
                cleared += 1
    return cleared


def run(claims: int = 2000, per_claim: int = 5) -> list[dict[str, Any]]:
    import json

    from graphcite.claims import load_answer, parts_for
    from graphcite.ingest import ingest
    from graphcite.ingest.analysis import prepared_parses_off
    from graphcite.store import Store
    from graphcite.verify import VerifierConfig
    from graphcite.verify.check import gate_stream
    from graphcite.verify.engine import verify_claims

    folder = generate(DATA / "md-5mb", 5)
    db = DATA / "verify-bench.duckdb"
    if not db.exists():
        with Store(db) as s:
            ingest(s, [folder])
    rows = []
    with Store(db) as store:
        store.execute("DELETE FROM unit_parse")  # every run starts with no parse kept
        units = store.scalar("SELECT count(*) FROM evidence_unit")
        loaded = [load_answer(a) for a in _answers(store, claims, per_claim)]
        parts = [parts_for(a) for a in loaded]  # decomposition is stored with the answer; not part of a check
        n_cit = sum(len(c.citations) for a in loaded for c in a.claims)
        results = {}
        reports: dict[str, list[str]] = {}
        off = prepared_parses_off
        for name, cfg, mode in (("lexical floor", VerifierConfig.lexical_baseline(), off),
                                ("all rules, no store lookup", VerifierConfig(store_contradictions=False), off),
                                ("all rules + store contradictions", VerifierConfig(), off),
                                ("all rules + store contradictions, first check keeps parses", VerifierConfig(),
                                 contextlib.nullcontext),
                                ("all rules + store contradictions, parses kept", VerifierConfig(),
                                 contextlib.nullcontext)):
            with mode():
                verify_claims(store, loaded[0], parts[0], cfg)  # warm caches of the pipeline, not of the data
                if "first check" in name:
                    store.execute("DELETE FROM unit_parse")
                clear_result_caches()
                start, cpu = time.perf_counter(), time.process_time()
                out = [verify_claims(store, answer, answer_parts, cfg)
                       for answer, answer_parts in zip(loaded, parts, strict=True)]
                elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            reports[name] = [json.dumps(r, sort_keys=True) for r in out]
            results[name] = n_cit / elapsed
            rows.append({"benchmark": f"check: {name}", "store_units": units, "citations": n_cit,
                         "seconds": round(elapsed, 2), "checks/s": round(n_cit / elapsed),
                         "cpu_s": round(cpu, 2), "checks/cpu-s": round(n_cit / cpu),
                         "kept_parses": store.scalar("SELECT count(*) FROM unit_parse")})
        floor = results["lexical floor"]
        without = reports["all rules + store contradictions"]
        cpu_floor = rows[0]["checks/cpu-s"]
        for row in rows:
            row["ratio_vs_lexical"] = round(row["checks/s"] / floor, 2)
            row["cpu_ratio_vs_lexical"] = round(row["checks/cpu-s"] / cpu_floor, 3)  # a busy machine: CPU time
            name = row["benchmark"].removeprefix("check: ")
            if name.startswith("all rules + store contradictions,"):
                row["reports_identical"] = reports[name] == without  # byte for byte, with and without kept parses
        lines = [json.dumps(c_dict) for c_dict in _answers(store, 300, 2, seed=5)[0]["claims"]]
        latencies = []
        stream = gate_stream(store, iter(lines))
        while True:
            start = time.perf_counter()
            try:
                next(stream)
            except StopIteration:
                break
            latencies.append((time.perf_counter() - start) * 1000)
        latencies.sort()
        rows.append({"benchmark": "gate --stream per claim (ms)", "claims": len(latencies),
                     "p50_ms": round(statistics.median(latencies), 2),
                     "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1], 2)})
    return rows

