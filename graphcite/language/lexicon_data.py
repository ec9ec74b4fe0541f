"""The compiled WordNet tables behind :mod:`graphcite.language.lexicon`, read from ``data/wordnet.bin.gz``.

The file is written by ``scripts/build_lexicon.py`` (see ``encode`` there for the layout): magic bytes,
the length of a JSON header, the header (parts of speech of every synset, morphological exceptions,
function words, the byte ranges of the sections), then little-endian int32 sections, gzip'd. Lists of
ints are kept as offsets + values and read as :class:`array.array`, so loading takes a decompression,
one string split and a dict of the 147,000 lemmas; the tables only some relations need (antonyms,
derivations, instances, ...) become dicts on first use.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from array import array
from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property, lru_cache
from importlib.resources import files
from typing import Any, Final

from graphcite.errors import NotFoundError

__all__ = ["DATA_FILE", "LexiconTables", "lexicon_digest", "load_tables"]

DATA_FILE: Final = "data/wordnet.bin.gz"
_MAGIC: Final = b"GCLEX1\n"
_FORMAT: Final = 1


class _Container:
    """The sections of a compiled lexicon file (layout: ``scripts/build_lexicon.py``, ``encode``)."""

    def __init__(self, raw: bytes) -> None:
        if not raw.startswith(_MAGIC):
            raise NotFoundError("the lexicon file is not a graphcite lexicon", where=f"graphcite/language/{DATA_FILE}",
                                fix="rebuild it with scripts/build_lexicon.py")
        size = int.from_bytes(raw[len(_MAGIC) : len(_MAGIC) + 8], "little")
        start = len(_MAGIC) + 8
        self.header: dict[str, Any] = json.loads(raw[start : start + size])
        if self.header.get("format") != _FORMAT:
            raise NotFoundError(f"the lexicon file has format {self.header.get('format')!r}, not {_FORMAT}",
                                where=f"graphcite/language/{DATA_FILE}", fix="rebuild it with scripts/build_lexicon.py")
        self._blob = memoryview(raw)[start + size :]

    def _bytes(self, name: str) -> memoryview:
        _kind, offset, length = self.header["sections"][name]
        return self._blob[offset : offset + length]

    def text(self, name: str) -> list[str]:
        return str(self._bytes(name), "utf-8").split("\n")

    def uint8(self, name: str) -> bytes:
        return bytes(self._bytes(name))

    def int32(self, name: str) -> array[int]:
        values = array("i")
        values.frombytes(self._bytes(name))
        if sys.byteorder == "big":
            values.byteswap()
        return values

    def pairs(self, name: str) -> Iterable[tuple[int, int]]:
        values = self.int32(name)
        return zip(values[::2], values[1::2], strict=True)


class _Rows:
    """Lists of ints stored as offsets + values (compressed sparse rows): ``rows[i]`` is a tuple."""

    __slots__ = ("_offsets", "_values")

    def __init__(self, offsets: array[int], values: array[int]) -> None:
        self._offsets, self._values = offsets, values

    def __getitem__(self, i: int) -> tuple[int, ...]:
        return tuple(self._values[self._offsets[i] : self._offsets[i + 1]])

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def start(self, i: int) -> int:
        """Where row ``i`` starts among all values (to index a table aligned with them)."""
        return self._offsets[i]


def _pairs_to_map(pairs: Iterable[tuple[int, int]], symmetric: bool = False) -> dict[int, frozenset[int]]:
    grouped: dict[int, set[int]] = defaultdict(set)
    for a, b in pairs:
        grouped[a].add(b)
        if symmetric:
            grouped[b].add(a)
    return {k: frozenset(v) for k, v in grouped.items()}


class LexiconTables:
    """The compiled tables; the ones only some relations need are built on first use, not at load."""

    def __init__(self, container: _Container) -> None:
        header = container.header
        self.pos: str = header["pos"]
        self.exceptions: dict[str, dict[str, list[str]]] = header["exceptions"]
        self.function_words = frozenset(header["function_words"])
        self.words = container.text("words")
        self.index = {word: i for i, word in enumerate(self.words)}
        self.word_pos = container.uint8("word_pos")
        self.senses = _Rows(container.int32("senses.offsets"), container.int32("senses.values"))
        self.core_flags = container.uint8("core_flags")
        self.members = _Rows(container.int32("members.offsets"), container.int32("members.values"))
        self.hypernyms = _Rows(container.int32("hypernyms.offsets"), container.int32("hypernyms.values"))
        self._container = container

    @cached_property
    def instance_of(self) -> dict[int, tuple[int, ...]]:
        return {k: tuple(sorted(v)) for k, v in _pairs_to_map(self._container.pairs("instances")).items()}

    @cached_property
    def adj_head(self) -> dict[int, int]:
        return dict(self._container.pairs("adj_head"))

    @cached_property
    def antonym_links(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("antonyms"), symmetric=True)

    @cached_property
    def antonym_words(self) -> dict[int, frozenset[int]]:
        """Lemma-level antonyms: WordNet's own pairs and the curated ones, both ways round."""
        return _pairs_to_map([*self._container.pairs("antonym_words"), *self._container.pairs("extra_antonyms")],
                             symmetric=True)

    @cached_property
    def adverb_bases(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("adverb_bases"))

    def core(self, lemma: int) -> tuple[int, ...]:
        """The lemma's dominant senses (see ``core_senses`` in the build script)."""
        start = self.senses.start(lemma)
        flags = self.core_flags
        return tuple(s for i, s in enumerate(self.senses[lemma]) if flags[start + i])

    @cached_property
    def derivation_links(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map([*self._container.pairs("derivations"), *self._container.pairs("pertainyms")],
                             symmetric=True)

    @cached_property
    def derived_words(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("derived_words"), symmetric=True)

    @cached_property
    def pertains_to(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("pertainyms"))

    @cached_property
    def domains(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("domains"))

    @cached_property
    def part_of(self) -> dict[int, frozenset[int]]:
        return _pairs_to_map(self._container.pairs("part_of"))

    @cached_property
    def nationality(self) -> dict[int, tuple[int, ...]]:
        grouped: dict[int, list[int]] = defaultdict(list)
        for word, place in self._container.pairs("nationality"):
            grouped[word].append(place)
        return {k: tuple(v) for k, v in grouped.items()}

    @cached_property
    def instance_words(self) -> frozenset[int]:
        return frozenset(self._container.int32("instance_words"))

    @cached_property
    def safe_words(self) -> frozenset[int]:
        return frozenset(self._container.int32("safe_words"))

    @cached_property
    def safe_class(self) -> dict[int, int]:
        return dict(self._container.pairs("safe_classes"))


@lru_cache(maxsize=1)
def _raw() -> bytes:
    resource = files("graphcite.language").joinpath(DATA_FILE)
    try:
        return resource.read_bytes()
    except OSError as exc:
        raise NotFoundError(f"the WordNet lexicon file is missing ({exc.strerror or exc})",
                            where=f"graphcite/language/{DATA_FILE}",
                            fix="reinstall graphcite, or run scripts/build_lexicon.py") from exc


@lru_cache(maxsize=1)
def load_tables() -> LexiconTables:
    """The compiled lexicon, read from the package once per process (about 0.1 s)."""
    return LexiconTables(_Container(gzip.decompress(_raw())))


@lru_cache(maxsize=1)
def lexicon_digest() -> str:
    """SHA-256 of the compiled lexicon file, for reports that record which knowledge they used
    (hashed once per process: every configuration hash asks for it)."""
    return hashlib.sha256(_raw()).hexdigest()
