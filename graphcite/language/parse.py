"""The trained English pipeline: tags, morphology, dependency arcs and POS-aware lemmas.

The pipeline ships in ``data/pipeline`` (built by ``scripts/build_parser.py`` from Universal
Dependencies English EWT, CC BY-SA 4.0; its licence and test-set accuracy lie beside it). It is
loaded once per process, on first use, and only by the readers that need syntax (frames): word
lemmas and tokens still come from :mod:`graphcite.language.nlp`, which never loads it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["PIPELINE_VERSION", "parse", "parser", "pipeline_accuracy", "pipeline_path"]


def pipeline_path() -> Path:
    """Where the shipped pipeline lies inside the package."""
    return Path(str(files("graphcite.language").joinpath("data/pipeline")))


@lru_cache(maxsize=1)
def pipeline_accuracy() -> dict[str, float | int | str]:
    """The accuracy and speed figures the build script measured on the treebank's test part."""
    path = pipeline_path() / "accuracy.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _version() -> str:
    accuracy = pipeline_accuracy()
    return f"ewt-{accuracy.get('size', 'unknown')}-{accuracy.get('treebank_commit', 'unknown')[:8]}"


PIPELINE_VERSION = _version()


@lru_cache(maxsize=1)
def parser() -> Language:
    """The trained pipeline, loaded once (tok2vec, tagger, morphologiser, parser, rule lemmatizer)."""
    import spacy

    from graphcite.errors import make_error

    path = pipeline_path()
    if not (path / "config.cfg").exists():
        raise make_error("E402", model=str(path), where="graphcite/language/data/pipeline",
                         fix="rebuild it with scripts/build_parser.py --ewt PATH_TO_UD_English-EWT")
    return spacy.load(path)


@lru_cache(maxsize=8192)
def parse(text: str) -> Doc:
    """The parse of one text (claims and evidence alike), memoised: a unit is met again and again."""
    return parser()(text)
