"""Train graphcite's English pipeline on Universal Dependencies English EWT and ship it in the package.

The pipeline (tokenizer, shared CNN tok2vec, tagger, morphologiser, dependency parser whose arcs also
give sentence boundaries, rule lemmatizer reading the part of speech) is trained from the treebank's
own training documents, so nothing is downloaded at run time. The repository's combined training
file is not always present (it is large), so the training set is rebuilt from
``not-to-release/sources/`` in the order ``not-to-release/file-lists/files.train`` lists.

    python scripts/build_parser.py --ewt /path/to/UD_English-EWT [--size small|medium] [--epochs 12]

``--ewt`` is a checkout or a bare git directory of UniversalDependencies/UD_English-EWT. The script
prints the accuracy on the treebank's test part and the words per second of the trained pipeline,
writes them to ``graphcite/language/data/pipeline/accuracy.json`` and installs the pipeline there
(with the treebank's licence, CC BY-SA 4.0, beside it). ``--out DIR`` writes elsewhere (to compare
sizes without replacing the shipped one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "graphcite" / "language" / "data" / "pipeline"
CONFIG = Path(__file__).with_name("parser.cfg")

# width of the shared encoder, hash-embedding rows, parser hidden layer, maxout pieces
SIZES: dict[str, dict[str, object]] = {
    "small": {"width": 64, "depth": 4, "rows": [2500, 500, 1250, 1250], "hidden": 64, "maxout": 2},
    "medium": {"width": 96, "depth": 4, "rows": [5000, 1000, 2500, 2500], "hidden": 128, "maxout": 3},
    "large": {"width": 128, "depth": 4, "rows": [10000, 2000, 5000, 5000], "hidden": 192, "maxout": 3},
}


class TreebankFiles:
    """Read files of the treebank from a checkout or from a bare git directory (``git show``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.is_checkout = (root / "README.md").exists()

    def read(self, relative: str) -> str | None:
        if self.is_checkout:
            path = self.root / relative
            return path.read_text(encoding="utf-8") if path.exists() else None
        done = subprocess.run(["git", "--git-dir", str(self.root), "show", f"HEAD:{relative}"],
                              capture_output=True, check=False)
        return done.stdout.decode("utf-8") if done.returncode == 0 else None

    def commit(self) -> str:
        git_dir = self.root / ".git" if self.is_checkout else self.root
        done = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
                              capture_output=True, check=False, text=True)
        return done.stdout.strip() or "unknown"


def training_conllu(treebank: TreebankFiles) -> str:
    """The training part, from the combined file when present, else from the listed source documents."""
    combined = treebank.read("en_ewt-ud-train.conllu")
    if combined:
        return combined
    listing = treebank.read("not-to-release/file-lists/files.train")
    if not listing:
        sys.exit("error: the treebank has neither en_ewt-ud-train.conllu nor not-to-release/file-lists/files.train")
    parts = []
    for name in listing.split():
        text = treebank.read(f"not-to-release/sources/{name}")
        if text is None:
            sys.exit(f"error: files.train lists {name}, which is not under not-to-release/sources/")
        parts.append(text.strip("\n") + "\n\n")
    return "".join(parts)


def to_docbin(conllu: str, out: Path) -> int:
    """Convert CoNLL-U text into a spaCy DocBin of 10-sentence documents; return the sentence count."""
    from spacy.tokens import DocBin
    from spacy.training.converters import conllu_to_docs

    docs = list(conllu_to_docs(conllu, n_sents=10, merge_subtokens=False, no_print=True))
    DocBin(docs=docs, store_user_data=False).to_disk(out)
    return sum(len(list(doc.sents)) for doc in docs)


def train(work: Path, size: str, epochs: int) -> Path:
    from spacy.cli.train import train as spacy_train

    shape = SIZES[size]
    overrides = {
        "paths.train": str(work / "train.spacy"),
        "paths.dev": str(work / "dev.spacy"),
        "training.max_epochs": epochs,
        "components.tok2vec.model.encode.width": shape["width"],
        "components.tok2vec.model.encode.depth": shape["depth"],
        "components.tok2vec.model.embed.rows": shape["rows"],
        "components.parser.model.hidden_width": shape["hidden"],
        "components.parser.model.maxout_pieces": shape["maxout"],
    }
    output = work / "model"
    spacy_train(CONFIG, output, overrides=overrides)
    return output / "model-best"


def add_lemmatizer(model_dir: Path, out: Path) -> None:
    """Add the rule lemmatizer (lemmas by part of speech; tables from spacy-lookups-data) and save."""
    import spacy

    nlp = spacy.load(model_dir)
    lemmatizer = nlp.add_pipe("lemmatizer", config={"mode": "rule"})
    lemmatizer.initialize()
    nlp.meta["name"] = "graphcite_ewt"
    nlp.meta["license"] = "CC BY-SA 4.0"
    nlp.meta["sources"] = [{"name": "Universal Dependencies English EWT", "license": "CC BY-SA 4.0",
                            "url": "https://github.com/UniversalDependencies/UD_English-EWT"}]
    nlp.to_disk(out)


def evaluate(model_dir: Path, test_conllu: str) -> dict[str, float]:
    """Accuracy on the treebank's test part and words per second on its raw text (one process, one core)."""
    import spacy
    from spacy.training import Example
    from spacy.training.converters import conllu_to_docs

    nlp = spacy.load(model_dir)
    gold = list(conllu_to_docs(test_conllu, n_sents=10, merge_subtokens=False, no_print=True))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in gold]
    scores = nlp.evaluate(examples)
    texts = [doc.text for doc in gold]
    words = sum(len(doc) for doc in gold)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _doc in nlp.pipe(texts, batch_size=64):
            pass
        best = min(best, time.perf_counter() - start)
    keys = ("tag_acc", "pos_acc", "morph_acc", "lemma_acc", "dep_uas", "dep_las", "sents_f")
    result = {key: round(float(scores[key]), 4) for key in keys if scores.get(key) is not None}
    result["words_per_second"] = round(words / best)
    result["test_words"] = words
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ewt", type=Path, required=True, help="UD_English-EWT checkout or bare git directory")
    parser.add_argument("--size", choices=sorted(SIZES), default="medium")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--out", type=Path, default=SHIPPED, help="where the trained pipeline goes")
    parser.add_argument("--work", type=Path, default=None, help="keep the converted data and checkpoints here")
    args = parser.parse_args()

    treebank = TreebankFiles(args.ewt)
    work = args.work or Path(tempfile.mkdtemp(prefix="graphcite-parser-"))
    work.mkdir(parents=True, exist_ok=True)
    dev = treebank.read("en_ewt-ud-dev.conllu")
    test = treebank.read("en_ewt-ud-test.conllu")
    if not dev or not test:
        sys.exit("error: the treebank lacks en_ewt-ud-dev.conllu or en_ewt-ud-test.conllu")
    counts = {"train": to_docbin(training_conllu(treebank), work / "train.spacy"),
              "dev": to_docbin(dev, work / "dev.spacy")}
    print(f"sentences: train {counts['train']}, dev {counts['dev']}", flush=True)
    best = train(work, args.size, args.epochs)
    staged = work / "pipeline"
    add_lemmatizer(best, staged)
    scores = evaluate(staged, test)
    scores.update({"size": args.size, "epochs": args.epochs, "treebank_commit": treebank.commit(),
                   "train_sentences": counts["train"]})
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(staged, args.out)
    licence = treebank.read("LICENSE.txt")
    if licence:
        (args.out / "LICENSE.txt").write_text(licence, encoding="utf-8")
    (args.out / "accuracy.json").write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(scores, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
