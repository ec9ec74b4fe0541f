"""Long evidence: a 50-claim answer whose every citation is a whole article (about 300 sentences each).

Fifty generated Markdown articles (12 sections of 5 paragraphs of 5 sentences) are made of the bundled
example corpus's sentences with their numbers redrawn, so each article says something of its own about
the same subjects. Claim *i* cites article *i* from its first to its last code point: 30 claims are
sentences of the article, 10 are such a sentence with one number changed, 10 are a sentence of another
article. The answer is verified once per process after a warm-up on another answer (pipeline and
lexicon loaded, no per-text memo), and the verification alone is timed (wall and CPU).

    python -m benchmarks.long_evidence [--baseline DIR] [--rounds 2] [--json]

With ``--baseline`` the same is run against another graphcite tree (``git worktree add DIR COMMIT``)
in the same run, interleaved, best of ``--rounds``, with the ratio new / baseline. Each tree ingests its
own copy of the corpus once (not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import DATA, ROOT, emit

ARTICLES, SECTIONS, PARAGRAPHS, SENTENCES = 50, 12, 5, 5
_NUMBER = re.compile(r"\b\d+\b")


def _pool() -> list[str]:
    """Distinct prose sentences of the bundled corpus (five words or more, ending in a full stop)."""
    from graphcite.claims.markers import sentence_spans

    found: set[str] = set()
    for path in sorted((ROOT / "graphcite" / "examples" / "corpus").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---"):
            text = text.split("---", 2)[2]
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith(("#", "|", "```", "-", ">", "*")):
                continue
            for a, b in sentence_spans(line):
                sentence = line[a:b].strip()
                if len(sentence.split()) >= 5 and sentence.endswith("."):
                    found.add(sentence)
    return sorted(found)


def build(folder: Path, seed: int = 3) -> tuple[Path, list[dict[str, Any]]]:
    """The articles (written once) and the answer's claims, the same for the same seed."""
    rng = random.Random(seed)
    pool = _pool()
    bodies: list[list[str]] = []
    texts: list[str] = []
    for index in range(ARTICLES):
        parts = [f"---\ntitle: Article {index}\nkind: note\n---\n", f"# Article {index}\n"]
        body: list[str] = []
        for section in range(SECTIONS):
            parts.append(f"## Section {section}\n")
            for _ in range(PARAGRAPHS):
                sentences = [_NUMBER.sub(lambda _: str(rng.randint(2, 99)), rng.choice(pool))
                             for _ in range(SENTENCES)]
                body += sentences
                parts.append(" ".join(sentences) + "\n")
        bodies.append(body)
        texts.append("\n".join(parts))
    marker = folder / ".complete"
    if not marker.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for index, text in enumerate(texts):
            (folder / f"article-{index:03}.md").write_text(text, encoding="utf-8")
        marker.write_text("ok")
    claims = []
    for index in range(ARTICLES):
        key = f"article-{index:03}.md"
        if index % 5 == 3:  # a sentence of another article
            text = rng.choice(bodies[(index + 7) % ARTICLES])
        else:
            text = rng.choice(bodies[index])
            if index % 5 == 4:  # one number changed
                numbered = [s for s in bodies[index] if _NUMBER.search(s)]
                text = rng.choice(numbered) if numbered else text
                text = _NUMBER.sub(lambda m: str(int(m.group(0)) + 100), text, count=1)
        # the whole stored article: the child sets "end" to its length in the store
        claims.append({"text": text, "citations": [{"source": key, "start": 0}]})
    return folder, claims


CHILD = r"""
import json, sys, time
from pathlib import Path
from graphcite.claims import load_answer, parts_for
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify import VerifierConfig
from graphcite.verify.engine import verify_claims

folder, db, claims_file = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
if not db.exists():
    with Store(db) as s:
        ingest(s, [folder])
claims = json.loads(claims_file.read_text())
with Store(db) as store:
    texts = {r["source_key"]: r["text"] for r in store.rows("SELECT source_key, text FROM source_revision")}
    for claim in claims:
        for cit in claim["citations"]:
            cit["end"] = len(texts[cit["source"]])
    answer = load_answer({"answer_id": "long-evidence", "claims": claims})
    warm = load_answer({"answer_id": "warm-up", "claims": [
        {"text": "The relay keeps parked events.", "citations": [{"source": claims[1]["citations"][0]["source"]}]}]})
    verify_claims(store, warm, parts_for(warm), VerifierConfig())
    parts = parts_for(answer)  # decomposition is stored with the answer; not part of a check
    wall, cpu = time.perf_counter(), time.process_time()
    report = verify_claims(store, answer, parts, VerifierConfig())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
statuses = [c["status"] for c in report["claims"]]
counts = {s: statuses.count(s) for s in sorted(set(statuses))}
print(json.dumps({"seconds": wall, "cpu": cpu, "statuses": counts, "verdicts": statuses}))
"""


def _child(tree: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, cwd=tree, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(baseline: Path | None = None, rounds: int = 2) -> list[dict[str, Any]]:
    """Seconds to verify the 50-claim whole-article answer in this tree (and ``baseline``), best of ``rounds``."""
    DATA.mkdir(parents=True, exist_ok=True)
    folder, claims = build(DATA / "long-articles")
    claims_file = DATA / "long-evidence-claims.json"
    claims_file.write_text(json.dumps(claims), encoding="utf-8")
    trees = {"new": ROOT} if baseline is None else {"baseline": baseline.resolve(), "new": ROOT}
    best: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        for name, tree in trees.items():
            result = _child(tree, str(folder), str(DATA / f"long-evidence-{name}.duckdb"), str(claims_file))
            if name not in best or result["seconds"] < best[name]["seconds"]:
                best[name] = result
    rows = []
    for name, result in best.items():
        rows.append({"benchmark": f"long evidence, {name}", "claims": len(claims),
                     "seconds": round(result["seconds"], 2), "cpu_s": round(result["cpu"], 2),
                     "statuses": " ".join(f"{k}={v}" for k, v in result["statuses"].items())})
    if baseline is not None:
        rows[-1]["ratio_seconds"] = round(best["new"]["seconds"] / best["baseline"]["seconds"], 3)
        rows[-1]["ratio_cpu"] = round(best["new"]["cpu"] / best["baseline"]["cpu"], 3)
        rows[-1]["same_verdicts"] = sum(a == b for a, b in zip(best["new"]["verdicts"], best["baseline"]["verdicts"],
                                                               strict=True))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.long_evidence")
    parser.add_argument("--baseline", type=Path, help="another graphcite tree, timed in the same run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    emit(run(args.baseline, args.rounds), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
