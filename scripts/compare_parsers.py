"""Words per second of trained pipelines on the same text, measured in one run (ratios hold on a noisy machine).

    python scripts/compare_parsers.py --ewt PATH_TO_UD_English-EWT DIR [DIR ...]

Each DIR is a pipeline written by scripts/build_parser.py (``--out``); its accuracy.json gives the
accuracy it reached on the treebank's test part. Prints one row per pipeline: size, LAS, UAS, POS and
the best of three timings of parsing the test part's raw text, as words per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_parser import TreebankFiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ewt", type=Path, required=True)
    parser.add_argument("pipelines", type=Path, nargs="+")
    args = parser.parse_args()
    import spacy
    from spacy.training.converters import conllu_to_docs

    test = TreebankFiles(args.ewt).read("en_ewt-ud-test.conllu") or ""
    texts = [doc.text for doc in conllu_to_docs(test, n_sents=10, merge_subtokens=False, no_print=True)]
    for path in args.pipelines:
        nlp = spacy.load(path)
        list(nlp.pipe(texts[:20]))  # warm-up: the first batch pays for allocations
        words = 0
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=64))
            best = min(best, time.perf_counter() - start)
        accuracy = json.loads((path / "accuracy.json").read_text(encoding="utf-8"))
        print(json.dumps({"pipeline": str(path), "size": accuracy.get("size"), "dep_las": accuracy.get("dep_las"),
                          "dep_uas": accuracy.get("dep_uas"), "pos_acc": accuracy.get("pos_acc"),
                          "words_per_second": round(words / best)}))


if __name__ == "__main__":
    main()
