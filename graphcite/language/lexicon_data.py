"""The compiled WordNet tables behind :mod:`graphcite.language.lexicon`, read from ``data/wordnet.bin.gz``.

The file is written by ``scripts/build_lexicon.py`` (see ``encode`` there for the layout): magic bytes,
the length of a JSON header, the header (parts of speech of every synset, morphological exceptions,
function words, the byte ranges of the sections), then little-endian int32 sections, gzip'd. Lists of
ints are kept as offsets + values and read as :class:`array.array`, so loading takes a decompression,
one string split and a dict of the 147,000 lemmas. The relations keyed by a synset or a lemma (antonyms,
derivations, instances, ...) are grouped ahead of time by ``scripts/build_lexicon.py --maps`` into
``data/wordnet.maps.bin.gz`` (:data:`MAPS_FILE`, tied to the lexicon file by its SHA-256), so a look-up
reads one key's ids from arrays instead of building every group at first use; a process whose maps file
does not match its lexicon groups the pairs itself (:func:`group_pairs`), with the same results.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from importlib.resources import files
from typing import Any, Final, overload

from graphcite.errors import NotFoundError

__all__ = ["DATA_FILE", "GROUPED", "MAPS_FILE", "Grouped", "Index", "LexiconTables", "Words", "encode_maps",
           "group_pairs", "lexicon_digest", "line_starts", "load_tables"]

DATA_FILE: Final = "data/wordnet.bin.gz"
MAPS_FILE: Final = "data/wordnet.maps.bin.gz"
_MAGIC: Final = b"GCLEX1\n"
_MAPS_MAGIC: Final = b"GCLEXMAPS1\n"
_FORMAT: Final = 1

#: The grouped relations: name -> (the pair sections it is made of, both ways round?, a tuple (sorted for
#: "sorted") rather than a frozenset per key).
GROUPED: Final[dict[str, tuple[tuple[str, ...], bool, str]]] = {
    "instance_of": (("instances",), False, "sorted"),
    "antonym_links": (("antonyms",), True, "set"),
    "antonym_words": (("antonym_words", "extra_antonyms"), True, "set"),  # WordNet's pairs and the curated ones
    "adverb_bases": (("adverb_bases",), False, "set"),
    "derivation_links": (("derivations", "pertainyms"), True, "set"),
    "derived_words": (("derived_words",), True, "set"),
    "pertains_to": (("pertainyms",), False, "set"),
    "domains": (("domains",), False, "set"),
    "part_of": (("part_of",), False, "set"),
    "nationality": (("nationality",), False, "tuple"),
}


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

    def lines(self, name: str) -> memoryview:
        """A text section's bytes, not decoded (see :class:`Words`)."""
        return self._bytes(name)

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


_UNSEEN: Final = object()


def line_starts(text: bytes | memoryview) -> list[int]:
    """Where each line of a newline-joined section starts, and one past its end (``len + 1``)."""
    starts = [0]
    find = bytes(text).find
    at = find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = find(b"\n", at + 1)
    starts.append(len(text) + 1)
    return starts


class Words(Sequence[str]):
    """The lexicon's 147,000 lemmas, sorted, read from the file's bytes on demand: ``words[i]`` is lemma
    ``i``, ``words.find(word)`` its id. Holding them as bytes and offsets instead of strings and a dict
    keeps 20 MiB out of every process; a word looked up is remembered."""

    __slots__ = ("_memo", "_starts", "_text")

    def __init__(self, text: memoryview, starts: Sequence[int]) -> None:
        self._text, self._starts = text, starts
        self._memo: dict[str, int | None] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return str(self._text[self._starts[i] : self._starts[i + 1] - 1], "utf-8")

    def _key(self, i: int) -> bytes:
        return bytes(self._text[self._starts[i] : self._starts[i + 1] - 1])

    def find(self, word: str) -> int | None:
        """The id of ``word`` (an exact lemma), None when the lexicon does not hold it."""
        try:
            return self._memo[word]
        except KeyError:
            pass
        found: int | None = None
        try:
            key = word.encode("utf-8")
        except UnicodeEncodeError:
            key = None
        if key is not None:
            lo, hi = 0, len(self)
            while lo < hi:  # the lemmas are sorted by code point, which is their UTF-8 byte order
                mid = (lo + hi) // 2
                if self._key(mid) < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < len(self) and self._key(lo) == key:
                found = lo
        if len(self._memo) < 1_000_000:
            self._memo[word] = found
        return found


class Index(Mapping[str, int]):
    """Lemma -> id over :class:`Words` (what a dict of every lemma was, without building it)."""

    __slots__ = ("_memo", "_words")

    def __init__(self, words: Words) -> None:
        self._words = words
        self._memo = words._memo

    def __getitem__(self, word: str) -> int:
        found = self._words.find(word) if isinstance(word, str) else None
        if found is None:
            raise KeyError(word)
        return found

    def get(self, word: str, default: Any = None) -> Any:  # type: ignore[override]
        found = self._memo.get(word, _UNSEEN)  # a word asked before: one dict look-up
        if found is _UNSEEN:
            found = self._words.find(word) if isinstance(word, str) else None
        return default if found is None else found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._words.find(word) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)


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


def group_pairs(container: _Container, name: str) -> tuple[list[int], list[int], list[int]]:
    """One relation of :data:`GROUPED` as compressed rows: sorted keys, offsets, and per key its ids in the
    order the pairs list them (for a two-way relation: each pair read both ways, in pair order).

    The order matters for a frozenset: one made from a set filled in that order iterates as the sets the
    readers always saw, so every answer that walks a group keeps its order.
    """
    sections, symmetric, _shape = GROUPED[name]
    grouped: dict[int, list[int]] = defaultdict(list)
    for section in sections:
        for a, b in container.pairs(section):
            grouped[a].append(b)
            if symmetric:
                grouped[b].append(a)
    keys = sorted(grouped)
    offsets, values = [0], []
    for key in keys:
        values.extend(grouped[key])
        offsets.append(len(values))
    return keys, offsets, values


class Grouped:
    """A relation keyed by a synset or lemma id, read from compressed rows on demand (memoised per key).

    Answers ``get``, ``in`` and ``[]`` as the dict of frozensets (or tuples) it replaces, without building
    one value per key up front.
    """

    __slots__ = ("_keys", "_memo", "_offsets", "_shape", "_values")

    def __init__(self, keys: array[int], offsets: array[int], values: array[int], shape: str) -> None:
        self._keys, self._offsets, self._values, self._shape = keys, offsets, values, shape
        self._memo: dict[int, frozenset[int] | tuple[int, ...] | None] = {}

    def _find(self, key: int) -> frozenset[int] | tuple[int, ...] | None:
        try:
            return self._memo[key]
        except KeyError:
            pass
        keys = self._keys
        i = bisect_left(keys, key)
        found: frozenset[int] | tuple[int, ...] | None = None
        if i < len(keys) and keys[i] == key:
            piece = self._values[self._offsets[i] : self._offsets[i + 1]]
            found = (frozenset(set(piece)) if self._shape == "set" else
                     tuple(sorted(set(piece))) if self._shape == "sorted" else tuple(piece))
        self._memo[key] = found
        return found

    def get(self, key: int, default: Any = None) -> Any:
        found = self._memo.get(key, _UNSEEN)  # a key asked before: one dict look-up
        if found is _UNSEEN:
            found = self._find(key)
        return default if found is None else found

    def __getitem__(self, key: int) -> frozenset[int] | tuple[int, ...]:
        found = self._find(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int) and self._find(key) is not None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys)

    def items(self) -> Iterator[tuple[int, frozenset[int] | tuple[int, ...]]]:
        for key in self._keys:
            yield key, self[key]


def _int32_array(values: Iterable[int]) -> array[int]:
    return array("i", values)


def encode_maps(lexicon_raw: bytes) -> bytes:
    """The maps file for a compiled lexicon file's bytes: every relation of :data:`GROUPED` grouped, and the
    lexicon's SHA-256 (deterministic: the same lexicon always gives the same bytes)."""
    container = _Container(gzip.decompress(lexicon_raw))
    blob = bytearray()
    sections: dict[str, list[int]] = {}
    parts: dict[str, tuple[list[int], ...]] = {name: group_pairs(container, name) for name in GROUPED}
    parts["words"] = (line_starts(container.lines("words")),)
    for name, groups in parts.items():
        for part, values in zip(("keys", "offsets", "values"), groups, strict=False):
            packed = _int32_array(values)
            if sys.byteorder == "big":
                packed.byteswap()
            sections[f"{name}.{part}"] = [len(blob), len(packed) * 4]
            blob.extend(packed.tobytes())
    header = json.dumps({"format": _FORMAT, "lexicon_sha256": hashlib.sha256(lexicon_raw).hexdigest(),
                         "sections": sections}, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return gzip.compress(_MAPS_MAGIC + len(header).to_bytes(8, "little") + header + bytes(blob), compresslevel=9,
                         mtime=0)


def _shipped_maps(digest: str) -> dict[str, tuple[array[int], ...]] | None:
    """The grouped relations from :data:`MAPS_FILE` (and ``words``: where each lemma starts in the words
    section), or None when it is missing, damaged or made for another lexicon file."""
    try:
        raw = gzip.decompress(files("graphcite.language").joinpath(MAPS_FILE).read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if not raw.startswith(_MAPS_MAGIC):
        return None
    size = int.from_bytes(raw[len(_MAPS_MAGIC) : len(_MAPS_MAGIC) + 8], "little")
    start = len(_MAPS_MAGIC) + 8
    try:
        header = json.loads(raw[start : start + size])
    except ValueError:
        return None
    if header.get("format") != _FORMAT or header.get("lexicon_sha256") != digest:
        return None
    blob = memoryview(raw)[start + size :]
    out: dict[str, tuple[array[int], ...]] = {}
    for name in (*GROUPED, "words"):
        parts = []
        for part in (("keys",) if name == "words" else ("keys", "offsets", "values")):
            offset, length = header["sections"][f"{name}.{part}"]
            values = array("i")
            values.frombytes(blob[offset : offset + length])
            if sys.byteorder == "big":
                values.byteswap()
            parts.append(values)
        out[name] = tuple(parts)
    return out


class LexiconTables:
    """The compiled tables; the ones only some relations need are built on first use, not at load."""

    def __init__(self, container: _Container) -> None:
        header = container.header
        self.pos: str = header["pos"]
        self.exceptions: dict[str, dict[str, list[str]]] = header["exceptions"]
        self.function_words = frozenset(header["function_words"])
        self._shipped = _shipped_maps(lexicon_digest())
        text = container.lines("words")
        starts = self._shipped["words"][0] if self._shipped is not None else line_starts(text)
        self.words = Words(text, starts)
        self.index = Index(self.words)
        self.word_pos = container.uint8("word_pos")
        self.senses = _Rows(container.int32("senses.offsets"), container.int32("senses.values"))
        self.core_flags = container.uint8("core_flags")
        self.members = _Rows(container.int32("members.offsets"), container.int32("members.values"))
        self.hypernyms = _Rows(container.int32("hypernyms.offsets"), container.int32("hypernyms.values"))
        self._container = container

    @cached_property
    def _grouped(self) -> dict[str, tuple[array[int], ...]]:
        if self._shipped is not None:
            return self._shipped
        return {name: tuple(_int32_array(v) for v in group_pairs(self._container, name))  # type: ignore[misc]
                for name in GROUPED}

    def _relation(self, name: str) -> Grouped:
        keys, offsets, values = self._grouped[name]
        return Grouped(keys, offsets, values, GROUPED[name][2])

    @cached_property
    def instance_of(self) -> Grouped:
        """Synset -> the classes it is an instance of (a sorted tuple)."""
        return self._relation("instance_of")

    @cached_property
    def adj_head(self) -> dict[int, int]:
        return dict(self._container.pairs("adj_head"))

    @cached_property
    def antonym_links(self) -> Grouped:
        return self._relation("antonym_links")

    @cached_property
    def antonym_words(self) -> Grouped:
        """Lemma-level antonyms: WordNet's own pairs and the curated ones, both ways round."""
        return self._relation("antonym_words")

    @cached_property
    def adverb_bases(self) -> Grouped:
        return self._relation("adverb_bases")

    def core(self, lemma: int) -> tuple[int, ...]:
        """The lemma's dominant senses (see ``core_senses`` in the build script)."""
        start = self.senses.start(lemma)
        flags = self.core_flags
        return tuple(s for i, s in enumerate(self.senses[lemma]) if flags[start + i])

    @cached_property
    def derivation_links(self) -> Grouped:
        return self._relation("derivation_links")

    @cached_property
    def derived_words(self) -> Grouped:
        return self._relation("derived_words")

    @cached_property
    def pertains_to(self) -> Grouped:
        return self._relation("pertains_to")

    @cached_property
    def domains(self) -> Grouped:
        return self._relation("domains")

    @cached_property
    def part_of(self) -> Grouped:
        return self._relation("part_of")

    @cached_property
    def nationality(self) -> Grouped:
        """Nationality or demonym word -> the places it belongs to (in pair order)."""
        return self._relation("nationality")

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
