"""Ingest throughput: generated Markdown corpora (5 MB, 50 MB, fixed seed, value-dense), the real
Markdown found on this machine (prose: READMEs, manuals, changelogs) and a real corpus from
site-packages; MB/s, units/s, values/s, peak RSS; against a peer pipeline (LangChain's
MarkdownHeaderTextSplitter + quantulum3) on the same files, and extract_values vs quantulum3.

The phases row splits one whole single-process ingest (warm, best of two) into the per-file work, the
store's bulk writes, the commit and the rest, next to the cold start of the language resources, which
the whole-ingest rows include. Per core, each Markdown corpus is also timed in one process with the per-file work alone
(``prepare_file``: read, parse, units, values, rows) through the fast block scanner and through the
markdown-it-py path, next to markdown-it-py's own block+inline parse of the same files, so the
ratios hold on a busy machine (interleaved, best of three); the fast run reports how many characters fell back to markdown-it-py.

    python -m benchmarks.run ingest [--sizes 5,50] [--jobs 2] [--json]
    python -m benchmarks.run ingest --baseline DIR [--rounds 2]   # this tree against another (`git worktree add DIR COMMIT`):
                                                   # wall and CPU MB/s, phases, and whether both stored the same rows
"""

from __future__ import annotations

import json
import os
import random
import shutil
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import DATA, ROOT, run_child

WORDS = ["dispatcher", "relay", "adapter", "retry", "webhook", "queue", "carrier", "timeout", "budget", "label", "delivery", "shipment", "scheduler", "worker", "latency", "outage", "review", "policy", "decision", "contract", "incident", "lag", "backlog", "region"]
UNITS = ["ms", "seconds", "minutes", "hours", "days", "MB", "GiB", "%", "requests per second", "retries", "attempts"]
HEADINGS = ["Current decision", "Previous behaviour", "Proposal", "Rejected alternatives", "Context", "Notes"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    if rng.random() < 0.5:
        words.insert(rng.randint(1, len(words) - 1), f"{rng.randint(1, 500)} {rng.choice(UNITS)}")
    return " ".join(words).capitalize() + "."


def _document(rng: random.Random, index: int) -> str:
    parts = [f"---\ntitle: Generated {index}\nstatus: current\nkind: note\n---\n", f"# Document {index}\n"]
    for _ in range(rng.randint(3, 6)):
        parts.append(f"## {rng.choice(HEADINGS)}\n")
        for _ in range(rng.randint(2, 5)):
            parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 5))) + "\n")
        if rng.random() < 0.4:
            parts.append("| Setting | Timeout (ms) | Size (MB) |\n| --- | --- | --- |")
            parts.extend(f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {rng.randint(1, 64)} |"
                         for _ in range(rng.randint(2, 6)))
            parts.append("")
        if rng.random() < 0.4:
            parts.extend(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 4)))
            parts.append("")
    return "\n".join(parts)


def generate(folder: Path, megabytes: float, seed: int = 7) -> Path:
    """A Markdown corpus of about ``megabytes`` MB, the same bytes for the same seed."""
    marker = folder / ".complete"
    if marker.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    total, index = 0, 0
    target = int(megabytes * 1_000_000)
    while total < target:
        text = _document(rng, index)
        (folder / f"doc-{index:06}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
        index += 1
    marker.write_text("ok")
    return folder


def _copy_corpus(folder: Path, candidates: list[Path], limit_mb: float, min_bytes: int) -> Path:
    """Copy readable UTF-8 ``candidates`` (not empty, no NUL, no front matter) into ``folder`` once, up
    to ``limit_mb``; a marker file says the copy is complete."""
    marker = folder / ".complete"
    if marker.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    total = 0
    for i, path in enumerate(candidates):
        try:
            data = path.read_bytes()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(data) < min_bytes or not data.strip() or b"\x00" in data or data.startswith(b"---"):
            continue  # front matter in installed files is often a template, which ingest refuses
        (folder / f"{i:05}-{path.name}").write_bytes(data)
        total += len(data)
        if total > limit_mb * 1_000_000:
            break
    marker.write_text("ok")
    return folder


def real_corpus(folder: Path, limit_mb: float = 8.0, patterns: tuple[str, ...] = ("*.md", "*.txt")) -> Path:
    """Markdown and text files shipped in site-packages (READMEs, changelogs, licences), copied once."""
    if (folder / ".complete").exists():
        return folder
    candidates: list[Path] = []
    for base in site.getsitepackages():
        for pattern in patterns:
            candidates.extend(sorted(p for p in Path(base).rglob(pattern) if p.stat().st_size > 200))
    return _copy_corpus(folder, candidates, limit_mb, min_bytes=0)


def prose_corpus(folder: Path, limit_mb: float = 8.0) -> Path:
    """The ``*.md`` files installed on this machine (site-packages, then /usr), copied once, in path order;
    files with front matter are left out."""
    if (folder / ".complete").exists():
        return folder
    bases = [*site.getsitepackages(), "/usr/share/doc", "/usr/lib"]
    candidates = [p for base in bases for p in sorted(Path(base).rglob("*.md")) if p.is_file()]
    return _copy_corpus(folder, candidates, limit_mb, min_bytes=200)


PREPARE_CHILD = """
import json, sys, time
from pathlib import Path
from markdown_it import MarkdownIt
from graphcite.ingest import files, markdown
from graphcite.ingest.prepare import prepare_file
found = [f for f in files.discover([Path(sys.argv[1])])[0] if f.format == "markdown"]
size = sum(Path(f.path).stat().st_size for f in found)
texts = [Path(f.path).read_text(encoding="utf-8") for f in found]
stock = MarkdownIt("commonmark").enable("table")
fast_parse = markdown.parse
def with_parser(fast):
    markdown.parse = lambda text, *, where, fast=fast: fast_parse(text, where=where, fast=fast)
def timed(fn):
    start = time.perf_counter(); fn(); return time.perf_counter() - start
prepare_file(found[0])
seconds = {}
def best(key, seconds_taken):
    seconds[key] = min(seconds.get(key, seconds_taken), seconds_taken)
for _ in range(int(sys.argv[2])):  # interleaved, best of n: a busy machine slows every configuration alike
    best("markdown_it", timed(lambda: [stock.parse(t) for t in texts]))
    with_parser(False)
    best("old_parse", timed(lambda: [markdown.parse(t, where="x") for t in texts]))
    best("old", timed(lambda: [prepare_file(f) for f in found]))
    with_parser(True)
    best("fast_parse", timed(lambda: [markdown.parse(t, where="x") for t in texts]))
    before = markdown.parser_counts()
    best("fast", timed(lambda: [prepare_file(f) for f in found]))
    counts = {k: v - before[k] for k, v in markdown.parser_counts().items()}
print(json.dumps({"bytes": size, "files": len(found), "seconds": seconds, "counts": counts}))
"""

INGEST_CHILD = """
import json, sys, time
from pathlib import Path
from graphcite.store import Store
from graphcite.ingest import ingest
folder, db, jobs = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if len(sys.argv) > 4 and sys.argv[4] == "old":
    from graphcite.ingest import markdown
    fast_parse = markdown.parse
    markdown.parse = lambda text, *, where, fast=False: fast_parse(text, where=where, fast=False)
Path(db).unlink(missing_ok=True)
start, cpu = time.perf_counter(), time.process_time()
with Store(db) as s:
    r = ingest(s, [folder], jobs=jobs)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
digests = {}
if len(sys.argv) > 5 and sys.argv[5] == "digest":  # each stored column in key order, timestamps left out
    import hashlib
    with Store(db) as s:
        for table, key in DIGESTED:
            rows = s.arrow(f"SELECT * FROM {table} ORDER BY {key}")
            for name in rows.column_names:
                if name not in ("ingested_at", "first_ingested_at"):
                    digests[f"{table}.{name}"] = hashlib.sha256(repr(rows[name].to_pylist()).encode()).hexdigest()[:16]
print(json.dumps({"seconds": elapsed, "cpu": cpu, "bytes": r.bytes, "units": r.units, "values": r.values,
                  "files": len(r.added), "digests": digests}))
""".replace("DIGESTED", repr([("source", "key"), ("source_revision", "revision_id"), ("evidence_unit", "unit_id"),
                              ("typed_value", "value_id"), ("term_posting", "term, unit_id"),
                              ("source_link", "link_id")]))

PHASES_CHILD = """
import json, sys, time
from pathlib import Path
from graphcite.ingest import files, pipeline
from graphcite.language import nlp
from graphcite.store import Store
folder, db, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
clock = time.perf_counter
start = clock(); nlp.lemma("retries"); startup = clock() - start  # spaCy pipeline + lemma tables, cold
found = files.discover([folder])[0]
spent = {}
def timed(owner, name, label):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        begin = clock()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + clock() - begin
    setattr(owner, name, wrapper)
timed(pipeline, "prepare_file", "prepare")
timed(pipeline._Writer, "flush", "writes")
best = {}
for _ in range(rounds):  # best of n: a busy machine slows every phase alike
    spent.clear()
    Path(db).unlink(missing_ok=True)
    begin, cpu = clock(), time.process_time()
    with Store(db) as store:
        timed(store, "_commit", "commit")
        report = pipeline.ingest(store, [folder])
    spent["whole"] = clock() - begin
    spent["whole_cpu"] = time.process_time() - cpu
    for key, value in spent.items():
        best[key] = min(best.get(key, value), value)
Path(db).unlink(missing_ok=True)
print(json.dumps({"bytes": report.bytes, "startup": startup, **best}))
"""

PARSE_CHILD = """
import json, sys, time
from pathlib import Path
from graphcite.ingest import files
from graphcite.ingest.prepare import prepare_file
from graphcite.language.parse import layout, parser, serialise
found = [f for f in files.discover([Path(sys.argv[1])])[0] if f.format == "markdown"]
limit = float(sys.argv[2])
nlp = parser()
nlp("Warm the pipeline up.")
prepare_s = parse_s = keep_s = 0.0
file_bytes = unit_chars = units = 0
for f in found:  # what parsing every unit at ingest would add to each file's work (time-limited sample)
    begin = time.perf_counter()
    prepared = prepare_file(f)
    prepare_s += time.perf_counter() - begin
    texts = [layout(t).flat for table in prepared.units.tables() for t in table.column("text").to_pylist()]
    begin = time.perf_counter()
    docs = [nlp(t) for t in texts]
    parse_s += time.perf_counter() - begin
    begin = time.perf_counter()
    blobs = [serialise(d) for d in docs]
    keep_s += time.perf_counter() - begin
    file_bytes += Path(f.path).stat().st_size
    unit_chars += sum(map(len, texts))
    units += len(texts)
    if parse_s > limit:
        break
print(json.dumps({"bytes": file_bytes, "units": units, "unit_chars": unit_chars, "prepare_s": prepare_s,
                  "parse_s": parse_s, "keep_s": keep_s}))
"""


def parse_at_ingest(name: str, folder: Path, seconds: float = 8.0) -> dict[str, Any]:
    """What parsing every evidence unit at ingest would cost (the choice between parsing a unit at ingest
    and on its first check): per-file work alone, and with each unit parsed and serialised, per core."""
    r = run_child(PARSE_CHILD, str(folder), str(seconds))
    mb = r["bytes"] / 1e6
    with_parse = r["prepare_s"] + r["parse_s"] + r["keep_s"]
    return {"benchmark": f"parse at ingest, {name}", "MB": round(mb, 2), "units": r["units"],
            "prepare_MB/s": round(mb / r["prepare_s"], 3), "prepare+parse_MB/s": round(mb / with_parse, 3),
            "ratio": round(r["prepare_s"] / with_parse, 3),
            "parse_ms/unit": round(1000 * (r["parse_s"] + r["keep_s"]) / r["units"], 2)}


PEER_CHILD = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
from pathlib import Path
from langchain_text_splitters import MarkdownHeaderTextSplitter
from quantulum3 import parser
folder = Path(sys.argv[1])
files = sorted([*folder.glob("*.md"), *folder.glob("*.txt")])
limit = float(sys.argv[2])
splitter = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2"), ("###", "h3")])
start = time.perf_counter(); done = 0; units = 0; values = 0
for f in files:
    text = f.read_text(encoding="utf-8")
    docs = splitter.split_text(text)
    units += len(docs)
    for d in docs:
        values += len(parser.parse(d.page_content))
    done += len(text.encode())
    if time.perf_counter() - start > limit:
        break
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "bytes": done, "units": units, "values": values}))
"""


def _row(name: str, result: dict[str, Any]) -> dict[str, Any]:
    mb = result["bytes"] / 1e6
    return {"benchmark": name, "MB": round(mb, 2), "seconds": round(result["seconds"], 2),
            "MB/s": round(mb / result["seconds"], 3), "units/s": round(result["units"] / result["seconds"]),
            "values/s": round(result["values"] / result["seconds"]), "peak_rss_mb": result.get("peak_rss_mb")}


def per_core(name: str, folder: Path, rounds: int = 3) -> list[dict[str, Any]]:
    """prepare_file MB/s on one core with the fast scanner and with the markdown-it-py path, and
    markdown-it-py's own parse, timed in one process (best of ``rounds``); ratios against both."""
    r = run_child(PREPARE_CHILD, str(folder), str(rounds))
    mb, s, counts = r["bytes"] / 1e6, r["seconds"], r["counts"]
    rate = {key: round(mb / value, 3) for key, value in s.items()}
    fallback = counts["fallback_chars"] / counts["chars"] if counts["chars"] else 0.0
    return [
        {"benchmark": f"markdown-it-py parse alone, {name}", "MB": round(mb, 2), "MB/s": rate["markdown_it"]},
        {"benchmark": f"markdown.parse, markdown-it path, {name}", "MB": round(mb, 2), "MB/s": rate["old_parse"]},
        {"benchmark": f"markdown.parse, fast scanner, {name}", "MB": round(mb, 2), "MB/s": rate["fast_parse"],
         "ratio_vs_markdown_it": round(rate["fast_parse"] / rate["markdown_it"], 2),
         "ratio_vs_old": round(rate["fast_parse"] / rate["old_parse"], 2),
         "fallback": f"{counts['mixed']}/{counts['fast'] + counts['mixed']} files, {counts['regions']} regions, "
                     f"{fallback:.1%} of chars"},
        {"benchmark": f"prepare_file per core, markdown-it path, {name}", "MB": round(mb, 2), "MB/s": rate["old"]},
        {"benchmark": f"prepare_file per core, fast scanner, {name}", "MB": round(mb, 2), "MB/s": rate["fast"],
         "ratio_vs_markdown_it": round(rate["fast"] / rate["markdown_it"], 2),
         "ratio_vs_old": round(rate["fast"] / rate["old"], 2)},
    ]


def phases(name: str, folder: Path, rounds: int = 2) -> dict[str, Any]:
    """Where a whole single-process ingest spends its time (warm, best of ``rounds``): the per-file work,
    the store's bulk writes, the commit and the rest; and the cold start of the language resources."""
    r = run_child(PHASES_CHILD, str(folder), str(DATA / "phases.duckdb"), str(rounds))
    mb = r["bytes"] / 1e6
    rest = r["whole"] - r["prepare"] - r["writes"] - r["commit"]
    return {"benchmark": f"ingest phases, {name}", "MB": round(mb, 2), "MB/s": round(mb / r["whole"], 3),
            "prepare_MB/s": round(mb / r["prepare"], 3), "whole/prepare": round(r["prepare"] / r["whole"], 2),
            "prepare_s": round(r["prepare"], 2), "writes_s": round(r["writes"], 2),
            "commit_s": round(r["commit"], 2), "rest_s": round(rest, 2), "startup_s": round(r["startup"], 2)}


def _child_in(tree: Path, code: str, *args: str) -> dict[str, Any]:
    """Run a benchmark child against the graphcite source tree at ``tree`` (this one or a baseline)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tree, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(baseline: Path, rounds: int = 2) -> list[dict[str, Any]]:
    """Whole single-process ingest (a fresh process each: cold start included) and its phases, for this
    tree and a ``baseline`` tree (``git archive COMMIT | tar -x -C DIR``), interleaved in one run, best
    of ``rounds``, on the value-dense generated corpus and the prose corpus; ratios new / baseline.

    Wall-clock MB/s and MB per CPU second of the process (all its threads: the store's too), which
    moves less than wall time on a machine other jobs load. ``rows`` says whether both trees stored
    the same rows: every column of every table ingest writes, in key order (timestamps left out),
    compared by digest after the first round."""
    corpora = [("generated 5 MB", generate(DATA / "md-5mb", 5)), ("prose", prose_corpus(DATA / "prose-md"))]
    trees = {"baseline": baseline.resolve(), "new": ROOT}
    rows = []
    for name, folder in corpora:
        best: dict[str, dict[str, float]] = {tree: {} for tree in trees}
        digests: dict[str, dict[str, str]] = {}
        size = 0
        for round_index in range(rounds):
            for tree, path in trees.items():
                extra = ["fast", "digest"] if round_index == 0 else []
                whole = _child_in(path, INGEST_CHILD, str(folder), str(DATA / f"cmp-{tree}.duckdb"), "1", *extra)
                parts = _child_in(path, PHASES_CHILD, str(folder), str(DATA / f"cmp-{tree}.duckdb"), "1")
                size = whole["bytes"]
                if round_index == 0:
                    digests[tree] = whole["digests"]
                for key, value in [("cold", whole["seconds"]), ("cold_cpu", whole["cpu"]), *parts.items()]:
                    if key != "bytes":
                        best[tree][key] = min(best[tree].get(key, value), value)
        shared = sorted(set(digests["baseline"]) & set(digests["new"]))
        differing = [column for column in shared if digests["baseline"][column] != digests["new"][column]]
        mb = size / 1e6
        for tree in trees:
            b = best[tree]
            rows.append({"benchmark": f"ingest {tree}, {name}", "MB": round(mb, 2),
                         "MB/s": round(mb / b["cold"], 3), "warm_MB/s": round(mb / b["whole"], 3),
                         "MB/cpu_s": round(mb / b["cold_cpu"], 3), "warm_MB/cpu_s": round(mb / b["whole_cpu"], 3),
                         "prepare_MB/s": round(mb / b["prepare"], 3), "whole/prepare": round(b["prepare"] / b["whole"], 2),
                         "writes_s": round(b["writes"], 2), "commit_s": round(b["commit"], 2),
                         "rest_s": round(b["whole"] - b["prepare"] - b["writes"] - b["commit"], 2),
                         "startup_s": round(b["startup"], 2)})
        new_row, old_row = rows[-1], rows[-2]
        for key in ("MB/s", "warm_MB/s", "MB/cpu_s", "warm_MB/cpu_s"):
            new_row[f"ratio {key}"] = round(new_row[key] / old_row[key], 2)
        new_row["rows"] = (f"identical ({len(shared)} columns)" if not differing
                           else f"DIFFER: {', '.join(differing[:4])}")
    for tree in trees:
        (DATA / f"cmp-{tree}.duckdb").unlink(missing_ok=True)
    return rows


def run(sizes: list[float], jobs: int, peer_seconds: float = 20.0) -> list[dict[str, Any]]:
    rows = []
    corpora = [(f"generated {size:g} MB", generate(DATA / f"md-{size:g}mb", size)) for size in sizes]
    corpora.append(("Markdown on this machine (prose)", prose_corpus(DATA / "prose-md")))
    corpora.append(("site-packages *.md/*.txt", real_corpus(DATA / "real-docs")))
    for name, folder in corpora:
        if name != "site-packages *.md/*.txt":
            rows += per_core(name, folder)
            rows.append(phases(name, folder))
            rows.append(parse_at_ingest(name, folder))
        ours = run_child(INGEST_CHILD, str(folder), str(DATA / "bench.duckdb"), "1")
        ours_row = _row(f"graphcite ingest {name}", ours)
        old = _row(f"graphcite ingest {name}, markdown-it path",
                   run_child(INGEST_CHILD, str(folder), str(DATA / "bench.duckdb"), "1", "old"))
        ours_row["ratio_vs_old"] = round(ours_row["MB/s"] / old["MB/s"], 2)
        rows += [old, ours_row]
        if jobs > 1:
            rows.append(_row(f"graphcite ingest {name} --jobs {jobs}",
                             run_child(INGEST_CHILD, str(folder), str(DATA / "bench.duckdb"), str(jobs))))
        try:
            peer = run_child(PEER_CHILD, str(folder), str(peer_seconds))
        except RuntimeError as exc:
            rows.append({"benchmark": f"peer {name}", "error": str(exc).splitlines()[-1]})
            continue
        peer_row = _row(f"peer (langchain+quantulum3) {name}", peer)
        peer_row["ratio_vs_peer"] = round(ours_row["MB/s"] / peer_row["MB/s"], 1)
        rows.append(peer_row)
    (DATA / "bench.duckdb").unlink(missing_ok=True)
    return rows


VALUES_CHILD = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
from pathlib import Path
folder = Path(sys.argv[1])
text = "\\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))[:400])
from graphcite.ingest.values import extract_values
extract_values("warm up 3 days")
t = time.perf_counter(); ours = extract_values(text); ours_s = time.perf_counter() - t
from quantulum3 import parser
parser.parse("warm up 3 days")
sample = text[:20_000]
t = time.perf_counter(); theirs = parser.parse(sample); theirs_s = time.perf_counter() - t
print(json.dumps({"chars": len(text), "ours_s": ours_s, "ours_values": len(ours),
                  "peer_chars": len(sample), "peer_s": theirs_s, "peer_values": len(theirs)}))
"""


def run_values() -> list[dict[str, Any]]:
    folder = generate(DATA / "md-5mb", 5)
    r = run_child(VALUES_CHILD, str(folder))
    ours = r["chars"] / r["ours_s"] / 1e6
    peer = r["peer_chars"] / r["peer_s"] / 1e6
    return [{"benchmark": "extract_values", "MB/s": round(ours, 3), "values": r["ours_values"]},
            {"benchmark": "quantulum3 parser.parse", "MB/s": round(peer, 3), "values": r["peer_values"],
             "ratio_vs_peer": round(ours / peer, 1)}]
