"""The trained English pipeline: tags, morphology, dependency arcs and POS-aware lemmas.

The pipeline ships in ``data/pipeline`` (built by ``scripts/build_parser.py`` from Universal
Dependencies English EWT, CC BY-SA 4.0; its licence and test-set accuracy lie beside it). It is
loaded once per process, on first use, and only by the readers that need syntax (frames): word
lemmas and tokens still come from :mod:`graphcite.language.nlp`, which never loads it.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["PIPELINE_VERSION", "Layout", "layout", "parse", "parser", "pipeline_accuracy", "pipeline_path"]


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
    """The parse of one text (claims and evidence alike), memoised: a unit is met again and again.

    Readers pass :func:`layout`'s flat copy, so the same words in another layout parse the same.
    """
    return parser()(text)


_RUN = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Layout:
    """A text with every run of white space read as one space, and where each of its characters was.

    The parser reads ``flat``, so a line break, a tab or a double space never changes a reading;
    ``where[i]`` is the offset in the original text of ``flat[i]`` (and ``where[len(flat)]`` its end),
    so every offset a reader gives back points into the text as stored.
    """

    flat: str
    where: tuple[int, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in the original text of ``flat[start:end]``."""
        if end <= start:
            return self.where[start], self.where[start]
        return self.where[start], self.where[end - 1] + 1

    def flat_span(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in ``flat`` of the original ``text[start:end]`` (the nearest characters kept)."""
        first = bisect_left(self.where, start, 0, len(self.where) - 1)
        last = bisect_left(self.where, end, 0, len(self.where) - 1)
        return first, max(first, last)


@lru_cache(maxsize=8192)
def layout(text: str) -> Layout:
    """The flattened reading copy of ``text`` (see :class:`Layout`)."""
    flat: list[str] = []
    where: list[int] = []
    position = 0
    for match in _RUN.finditer(text):
        flat.append(text[position:match.start()])
        where.extend(range(position, match.start()))
        if flat and match.start() > 0 and match.end() < len(text):
            flat.append(" ")
            where.append(match.start())
        position = match.end()
    flat.append(text[position:])
    where.extend(range(position, len(text)))
    where.append(len(text))
    return Layout("".join(flat), tuple(where))
