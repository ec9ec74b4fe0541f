"""The streaming gate in-process: time per stage for sentences the service has never seen.

``POST /v1/gate`` checks one sentence at a time; a sentence met before is answered from memory, a new
one is decomposed, its citations resolved, the store searched for contradicting and restricted
units, every rule run per (part, citation) pair and the verdict encoded. This probe runs that path
without HTTP (``graphcite.verify.check.gate_stream`` on a service's warm view, as the server does)
and times each stage per sentence:

* ``decompose``: the sentence into atomic parts (spaCy tokenizer, clause splitter, values);
* ``resolve``: the citations to evidence units (warm reads);
* ``contradictions`` and ``origins``: the candidate-unit searches of the store (term index reads);
* ``rules``: the rule engine over every (part, citation) pair, joint support included;
* ``report``: the typed report as plain data, the service's report memo and the verdict's JSON line;
* ``total``: one line in, one JSON verdict out;
* ``gc pause``: time the garbage collector ran during the sentence (inside the stages above; its
  ``max_ms`` is the longest full collection a sentence waited for, if one came);
* ``store reads``: statements sent to the store per sentence (a count, not milliseconds; this tree only);
* ``total one claim`` and ``total two claims``: ``total`` of the sentences made of one bundled claim
  and of the one in four that joins two (several parts, each against every citation: the p99).

The sentences are the bundled answers' claims made new (:func:`unseen_sentences`): new words in
them (as a client's own sentences have), new review numbers, two claims joined into one heavy
multi-part sentence. The service first streams every bundled claim once and a few hundred unseen
sentences of another seed (a server that has run for a while); the timed sentences come after.

    python -m benchmarks.gate [--sentences 300] [--warm 200] [--json]
    python -m benchmarks.gate --baseline /tmp/wt_base [--rounds 3]   # this tree vs another, interleaved
    python -m benchmarks.gate --clock cpu     # CPU time of the checking thread instead of wall time
    python -m benchmarks.gate --http [--baseline TREE] [--rounds 3] [--sentences 100]   # over HTTP

With ``--baseline`` every round runs one child process per tree (this tree first on odd rounds), each
importing its own ``graphcite``; the figures are pooled per tree and ``x_baseline`` is the baseline's
time over this tree's (higher is better).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ("clean.json", "traps.json")
STAGES = ("decompose", "resolve", "contradictions", "origins", "rules", "report", "total")

_CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
_clock = time.perf_counter


#: ordinary words the bundled corpus does not use, so each unseen sentence brings words never read before
NEW_WORDS = (
    "amber", "orchard", "lantern", "granite", "harbor", "meadow", "copper", "willow", "canyon", "saddle",
    "thimble", "quarry", "violet", "marble", "walnut", "glacier", "pepper", "falcon", "cobalt", "tundra",
    "ribbon", "sparrow", "juniper", "pebble", "compass", "cinder", "lagoon", "thistle", "bramble", "harvest",
    "ferry", "kettle", "mosaic", "nutmeg", "oyster", "parsley", "quiver", "raven", "saffron", "tulip",
    "velvet", "wrench", "yarrow", "zephyr", "anchor", "beacon", "candle", "dolphin", "ember", "fiddle",
    "gazelle", "hazel", "ivory", "jasmine", "kestrel", "lilac", "maple", "nectar", "olive", "pioneer",
    "quartz", "rustic", "summit", "timber", "umbrella", "valley", "wander", "crimson", "drizzle", "emerald",
    "fossil", "garnet", "hollow", "island", "jungle", "kernel", "ledger", "mirror", "noble", "ocean",
    "puzzle", "riddle", "shadow", "thunder", "unicorn", "voyage", "whisper", "basil", "clover", "dune",
)
_FRAMES = (
    "{text}, as noted in the {w1} review {n}.",
    "According to the {w1} {w2} notes, {lower}",
    "{text} The {w1} team confirmed this in review {n}.",
    "{stem}, and the {w1} {w2} dashboard shows it too.",
    "{stem} during the {w1} {w2} rollout {n}.",
)


def _claims() -> list[dict[str, Any]]:
    """The bundled answers' claims with their citations, in file order."""
    folder = ROOT / "graphcite" / "examples" / "answers"
    claims: list[dict[str, Any]] = []
    for name in ANSWERS:
        answer = json.loads((folder / name).read_text(encoding="utf-8"))
        claims += [{key: c[key] for key in ("text", "citations") if key in c} for c in answer["claims"]]
    return claims


def unseen_sentences(count: int, seed: int) -> list[str]:
    """``count`` NDJSON gate lines, each a bundled claim made new: new words and numbers in a frame,
    or (one in four) two claims joined into one multi-part sentence citing both claims' spans."""
    claims = _claims()
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        claim = claims[rng.randrange(len(claims))]
        text = claim["text"].strip()
        stem = text.rstrip(".")
        words = {"w1": rng.choice(NEW_WORDS), "w2": rng.choice(NEW_WORDS), "n": f"{seed}-{i}"}
        citations = list(claim["citations"])
        if i % 4 == 3:
            other = claims[rng.randrange(len(claims))]
            text = f"{stem}; {other['text'][0].lower()}{other['text'][1:].rstrip('.')} in the {words['w1']} {words['n']} plan."
            citations += other["citations"]
        else:
            frame = _FRAMES[i % len(_FRAMES)]
            text = frame.format(text=text, stem=stem, lower=text[0].lower() + text[1:], **words)
        lines.append(json.dumps({"text": text, "citations": citations}, ensure_ascii=False))
    return lines


def seen_sentences() -> list[str]:
    return [json.dumps(claim, ensure_ascii=False) for claim in _claims()]


def _store(folder: Path) -> Path:
    """A store of the bundled corpus in ``folder`` (a copy of the benchmarks' one when it exists)."""
    cached = ROOT / "benchmarks" / "data" / "serve-corpus.duckdb"
    target = folder / "gate.duckdb"
    if cached.exists():
        shutil.copy(cached, target)
        return target
    from graphcite.ingest import ingest
    from graphcite.store import Store

    with Store(target) as store:
        ingest(store, [ROOT / "graphcite" / "examples" / "corpus"])
    return target


class _Stages:
    """Wall time per stage of the sentence being checked, from wrappers around the stages' functions."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}
        self._depth: dict[str, int] = {}

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        stages = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            depth = stages._depth.get(stage, 0)
            stages._depth[stage] = depth + 1
            began = _clock()
            try:
                return original(*args, **kwargs)
            finally:
                stages._depth[stage] = depth
                if depth == 0:  # nested calls of one stage (joint support) count once
                    stages.current[stage] = stages.current.get(stage, 0.0) + _clock() - began

        setattr(owner, name, timed)


def _instrument() -> _Stages:
    from graphcite.claims import answers
    from graphcite.verify import check, contradictions, engine

    try:
        from graphcite.verify import statuses
    except ImportError:  # a tree before the gate decided statuses alone
        statuses = engine

    stages = _Stages()
    stages.wrap(answers, "decompose", "decompose")
    stages.wrap(check, "parts_for", "decompose")
    stages.wrap(engine, "resolve_citations", "resolve")
    if statuses is not engine:
        stages.wrap(statuses, "resolve_citations", "resolve")
    stages.wrap(contradictions, "find_contradictions", "contradictions")
    stages.wrap(engine, "_mark_restricted_origins", "origins")
    stages.wrap(engine, "_verify_part", "rules")
    stages.wrap(statuses, "_part_relations", "rules")
    return stages


def probe(db: Path, sentences: int, warm: int, seed: int, clock: str = "wall",
          prewarm: bool = False) -> dict[str, list[float]]:
    """Per-stage milliseconds for ``sentences`` unseen lines on an in-process service over ``db``, by the
    wall clock or by this thread's CPU time (``cpu``: what other processes on a loaded machine cannot move)."""
    global _clock
    _clock = _CLOCKS[clock]
    from graphcite.serve.gate import GateStream
    from graphcite.serve.service import Service, ServiceSettings
    from graphcite.verify.check import gate_stream

    service = Service(ServiceSettings(db=str(db)))
    service.warm_up()
    if prewarm and hasattr(service.warm, "prewarm"):
        with service.reader() as view:
            service.warm.prewarm(view)
    stages = _instrument()
    settings = service.settings
    shaper = GateStream.__new__(GateStream)  # its record shaping and encoding, without a request
    shaper.mode, shaper.sse, shaper.counts = "mark", False, {"lines": 0, "passed": 0, "failed": 0, "errors": 0}
    encode: Callable[[dict[str, Any]], bytes] = shaper._encode

    reads: list[float] = []
    collecting: list[float] = [0.0, 0.0]  # garbage collector: start of the running collection, ms so far

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[0] = _clock()
        else:
            collecting[1] += (_clock() - collecting[0]) * 1000

    gc.callbacks.append(on_gc)

    stream = GateStream.__new__(GateStream)
    if hasattr(GateStream, "_check"):  # the served path: from memory on the event loop, else one worker hop
        stream.__init__(None, service, audience=settings.audience, mode="mark", sse=False)  # type: ignore[arg-type]

    def check(line: str) -> float:
        began = _clock()
        if hasattr(stream, "_check"):
            raw, before = line.encode() + b"\n", service.warm.store_reads
            verdict = stream._remembered(1, raw) or stream._check(1, raw)
            assert verdict is not None and "error" not in verdict, verdict
            encode(shaper._shape(verdict))
            reads.append(float(service.warm.store_reads - before))
            return _clock() - began
        with service.reader() as store:  # a tree before GateStream._check: gate_stream in one thread
            for verdict in gate_stream(store, [line], config=settings.config, audience=settings.audience,
                                       limits=settings.limits, max_line_chars=settings.max_line_bytes,
                                       verifier=service.verifier):
                if "error" in verdict:
                    raise RuntimeError(verdict["error"])
                encode(shaper._shape(verdict))
            reads.append(float(getattr(store, "store_reads", -1)))
        return _clock() - began

    for line in seen_sentences() + unseen_sentences(warm, seed + 1000):
        check(line)
    out: dict[str, list[float]] = {stage: [] for stage in STAGES}
    reads.clear()
    pauses: list[float] = []
    by_kind: dict[str, list[float]] = {"total one claim": [], "total two claims": []}
    for i, line in enumerate(unseen_sentences(sentences, seed)):
        stages.current = {}
        collecting[1] = 0.0
        total = check(line)
        pauses.append(collecting[1])
        inner = sum(stages.current.get(s, 0.0) for s in STAGES[:-2])
        for stage in STAGES[:-2]:
            out[stage].append(stages.current.get(stage, 0.0) * 1000)
        out["report"].append(max(0.0, total - inner) * 1000)
        out["total"].append(total * 1000)
        by_kind["total two claims" if i % 4 == 3 else "total one claim"].append(total * 1000)  # as unseen_sentences joins
    gc.callbacks.remove(on_gc)
    service.close()
    out.update(by_kind)
    out["gc pause"] = pauses
    if reads and reads[0] >= 0:
        out["store reads"] = reads
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def _summary(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {stage: {"p50_ms": round(_percentile(v, 50), 2), "p99_ms": round(_percentile(v, 99), 2),
                    "mean_ms": round(sum(v) / len(v), 2) if v else 0.0, "max_ms": round(max(v, default=0.0), 2)}
            for stage, v in times.items()}


def _child(tree: Path, sentences: int, warm: int, seed: int, clock: str) -> dict[str, list[float]]:
    """:func:`probe` in a fresh process importing ``tree``'s graphcite (this module from this tree)."""
    code = ("import importlib.util, json, sys, tempfile; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "spec = importlib.util.spec_from_file_location('gate_probe', sys.argv[2]); "
            "g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g); "
            "print(json.dumps(g.probe(g._store(Path(tempfile.mkdtemp())), *map(int, sys.argv[3:6]), sys.argv[6])))")
    done = subprocess.run([sys.executable, "-c", code, str(tree), __file__, str(sentences), str(warm), str(seed), clock],
                          capture_output=True, text=True, cwd=tree)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def compare(baseline: Path, *, rounds: int, sentences: int, warm: int, clock: str) -> list[dict[str, Any]]:
    """This tree against ``baseline``, one child per tree per round, alternating which goes first."""
    pooled: dict[str, dict[str, list[float]]] = {"this": {s: [] for s in STAGES}, "baseline": {s: [] for s in STAGES}}
    for r in range(rounds):
        order = [("this", ROOT), ("baseline", baseline)]
        for name, tree in order if r % 2 == 0 else order[::-1]:
            for stage, values in _child(tree, sentences, warm, r, clock).items():
                pooled[name].setdefault(stage, []).extend(values)
    this, base = _summary(pooled["this"]), _summary(pooled["baseline"])
    rows = []
    for stage in (*STAGES, "total one claim", "total two claims", "gc pause", "store reads"):
        if stage not in this:
            continue
        row: dict[str, Any] = {"stage": stage, **this[stage], "baseline_p50_ms": base.get(stage, {}).get("p50_ms"),
                               "baseline_p99_ms": base.get(stage, {}).get("p99_ms"),
                               "baseline_max_ms": base.get(stage, {}).get("max_ms")}
        for q in ("p50", "p99"):
            ours, theirs = this[stage][f"{q}_ms"], base.get(stage, {}).get(f"{q}_ms")
            row[f"x_baseline_{q}"] = round(theirs / ours, 2) if theirs and ours else None
        rows.append(row)
    return rows


def http(baseline: Path | None, *, rounds: int, sentences: int, warm: int) -> list[dict[str, Any]]:
    """Unseen sentences over HTTP (``POST /v1/gate``, one chunked stream, a line sent once the previous
    verdict is read) against ``graphcite serve`` from this tree and from ``baseline``, both up at once,
    each on its own store copy and first sent the bundled claims and ``warm`` unseen sentences; then
    ``rounds`` turns of ``sentences`` new ones each (the same lines to both), and as the floor of the
    HTTP layer the same number of lines refused before any check (not JSON). ``server_cpu_ms`` is the
    server process's CPU time per line (steadier than latency while other processes load the machine)."""
    import asyncio

    from benchmarks.serve import Server, _cpu_seconds, _stream

    trees = {"this": ROOT, **({"baseline": baseline} if baseline else {})}
    folder = Path(tempfile.mkdtemp())
    servers = {}
    try:
        for name, tree in trees.items():
            (folder / name).mkdir()
            servers[name] = Server(_store(folder / name), tree=tree)
        times: dict[str, dict[str, list[float]]] = {
            name: {"unseen": [], "unseen one claim": [], "unseen two claims": [], "refused": []} for name in trees}
        cpu: dict[str, dict[str, float]] = {name: {"unseen": 0.0, "refused": 0.0} for name in trees}
        for server in servers.values():
            lines = [(line + "\n").encode() for line in seen_sentences() + unseen_sentences(warm, 1000)]
            asyncio.run(_stream(server.url, lines))
        for r in range(rounds):
            lines = [(line + "\n").encode() for line in unseen_sentences(sentences, r)]
            order = list(servers.items()) if r % 2 == 0 else list(servers.items())[::-1]
            for name, server in order:
                for kind, sent in (("unseen", lines), ("refused", [b"{not json}\n"] * sentences)):
                    before = _cpu_seconds(server.process.pid)
                    got = asyncio.run(_stream(server.url, sent, errors_expected=kind == "refused"))
                    cpu[name][kind] += _cpu_seconds(server.process.pid) - before
                    times[name][kind] += got
                    if kind == "unseen":  # one in four joins two claims (see unseen_sentences)
                        for i, took in enumerate(got):
                            times[name]["unseen two claims" if i % 4 == 3 else "unseen one claim"].append(took)
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    rows = []
    for kind in ("unseen", "unseen one claim", "unseen two claims", "refused"):
        row: dict[str, Any] = {"stage": f"http {kind}"}
        for name in trees:
            ms = [t * 1000 for t in times[name][kind]]
            prefix = "" if name == "this" else "baseline_"
            row.update({f"{prefix}p50_ms": round(_percentile(ms, 50), 2), f"{prefix}p99_ms": round(_percentile(ms, 99), 2),
                        f"{prefix}mean_ms": round(sum(ms) / len(ms), 2)})
            if kind in cpu[name]:
                row[f"{prefix}server_cpu_ms"] = round(cpu[name][kind] * 1000 / len(ms), 2)
        if baseline:
            for q in ("p50", "p99"):
                row[f"x_baseline_{q}"] = round(row[f"baseline_{q}_ms"] / row[f"{q}_ms"], 2) if row[f"{q}_ms"] else None
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gate")
    parser.add_argument("--sentences", type=int, default=300, help="unseen sentences timed (per round and tree)")
    parser.add_argument("--warm", type=int, default=200, help="unseen sentences of another seed streamed first")
    parser.add_argument("--baseline", type=Path, help="a graphcite tree to compare with (a git worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clock", choices=sorted(_CLOCKS), default="wall",
                        help="wall time, or this thread's CPU time (steadier on a loaded machine)")
    parser.add_argument("--prewarm", action="store_true", help="read the evidence ahead (WarmReads.prewarm) first")
    parser.add_argument("--http", action="store_true",
                        help="over HTTP against graphcite serve (this tree, and --baseline's when given)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from benchmarks.common import emit

    if args.http:
        rows = http(args.baseline.resolve() if args.baseline else None, rounds=args.rounds,
                    sentences=args.sentences, warm=args.warm)
    elif args.baseline:
        rows = compare(args.baseline.resolve(), rounds=args.rounds, sentences=args.sentences, warm=args.warm,
                       clock=args.clock)
    else:
        with tempfile.TemporaryDirectory() as folder:
            summary = _summary(probe(_store(Path(folder)), args.sentences, args.warm, args.seed, args.clock,
                                     args.prewarm))
        rows = [{"stage": stage, **figures} for stage, figures in summary.items()]
    emit(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
