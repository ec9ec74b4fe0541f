"""Accuracy of the claim reader per qualifier on a JSON-lines sentence set (tests/claims/data/sentences.jsonl).

    python scripts/score_sentences.py SENTENCES.jsonl [--spacy-model NAME]

Prints one line per qualifier (parts, negated, modality, tense, ...) with the share read right, then the
seconds the set took; exit 2 on a usage or input error. The scoring itself is
:func:`graphcite.claims.decompose.score_sentence_set`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from graphcite.claims.decompose import score_sentence_set
from graphcite.errors import GraphciteError


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/score_sentences.py")
    parser.add_argument("sentences", type=Path, help="a JSON-lines sentence set")
    parser.add_argument("--spacy-model", help="an installed spaCy pipeline instead of the blank English one")
    args = parser.parse_args(argv)
    if not args.sentences.is_file():
        sys.stderr.write(f"error: {args.sentences}: no such file (pass a JSON-lines sentence set)\n")
        return 2
    started = time.perf_counter()
    try:
        scores = score_sentence_set(args.sentences, model=args.spacy_model)
    except (GraphciteError, ValueError, KeyError) as exc:
        sys.stderr.write(f"error: {args.sentences}: {exc}\n")
        return 2
    for key, value in scores.items():
        sys.stdout.write(f"{key:<14} {value:6.1%}\n")
    sys.stdout.write(f"{'seconds':<14} {time.perf_counter() - started:6.2f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
