#!/usr/bin/env python3
"""Compile Princeton WordNet 3.0 into graphcite's lexicon file ``graphcite/language/data/wordnet.bin.gz``.

Reads the WordNet database files (``data.*``, ``index.*``, ``*.exc``; Debian's ``wordnet-base`` puts
them in /usr/share/wordnet) with nothing but the standard library, keeps only what the verifier's
lexical rules ask for (lemmas and synsets, hypernym and instance edges, antonyms, adjective clusters,
pertainyms, derivations, topic domains, part-of edges between named places, nationality words, safe
sibling classes, morphological exceptions) and writes them as one gzip'd container: a small JSON
header and binary int32 tables with small integer ids (see :func:`encode`), so that the package reads
it in a few tens of milliseconds. The output is byte-identical on every run from the same input
(sorted ids, gzip mtime 0). The licence of WordNet 3.0 is written beside it as WORDNET-LICENSE.

Usage::

    python scripts/build_lexicon.py [WORDNET_DIR] [--out PATH]
    python scripts/build_lexicon.py --maps [--out PATH]

Beside the lexicon it writes ``wordnet.maps.bin.gz``: the relations the reader looks up by synset or
lemma (antonyms, derivations, instances, ...) grouped per key, tied to the lexicon by its SHA-256, so a
process reads one key's ids instead of grouping every pair at first use (the grouping is
``graphcite.language.lexicon_data.encode_maps``; ``--maps`` rewrites only this file from the lexicon
file already at ``--out``, without WordNet).

The curated additions (function words, a few antonym pairs WordNet lacks) are read from
``graphcite/language/data/lexicon_curated.txt``. The runtime reader is :mod:`graphcite.language.lexicon`.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["build", "encode", "licence_text", "main", "maps_path", "write_maps"]

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = Path("/usr/share/wordnet")
DEFAULT_OUT = ROOT / "graphcite" / "language" / "data" / "wordnet.bin.gz"
CURATED = ROOT / "graphcite" / "language" / "data" / "lexicon_curated.txt"
FORMAT_VERSION = 1
CORE_MAX = 3
CORE_SHARE = 0.1
MAGIC = b"GCLEX1\n"

POS_FILES = ("noun", "verb", "adj", "adv")
POS_CHAR = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
FILE_OF_CHAR = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
POS_BIT = {"n": 1, "v": 2, "a": 4, "s": 4, "r": 8}

# Classes whose members are mutually exclusive values of one attribute: swapping one member for
# another changes a claim ("on Monday" / "on Friday", "in March" / "in May"). (lemma, pos, sense number)
SAFE_SIBLING_CLASSES = (
    ("day_of_the_week", "n", 1),
    ("gregorian_calendar_month", "n", 1),
    ("time_of_year", "n", 1),
    ("cardinal_compass_point", "n", 1),
    ("monetary_unit", "n", 1),
)
SAFE_CLASS_DEPTH = 3  # hyponym levels below a safe class that count as its members
LOCATION = ("location", "n", 1)
INFLECTION_RULES = {  # WordNet's morphy detachment rules, to spot names that are also inflected words
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
          ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
}
NOT_A_NATIONALITY = ("anti-", "pro-", "non-", "pre-", "post-")  # "anti-American" is about, not of, a place
PERSON = ("person", "n", 1)


@dataclass
class Synset:
    """One synset as read from a data file: its type, lemmas and pointers."""

    key: tuple[str, int]
    ss_type: str
    lemmas: list[str]
    surfaces: list[str]
    pointers: list[tuple[str, tuple[str, int], int, int]] = field(default_factory=list)


def _file_key(pos_char: str, offset: str | int) -> tuple[str, int]:
    return (FILE_OF_CHAR[pos_char], int(offset))


def normalise(lemma: str) -> str:
    """A WordNet lemma as graphcite looks it up: lower case, spaces for underscores, no adjective marker."""
    if lemma.endswith(")") and "(" in lemma:
        lemma = lemma[: lemma.index("(")]
    return lemma.replace("_", " ").lower()


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8", errors="strict") as handle:
        for line in handle:
            if line.startswith("  ") or not line.strip():
                continue  # the licence header of data and index files
            yield line.rstrip("\n")


def read_data(source: Path) -> dict[tuple[str, int], Synset]:
    """Every synset of data.noun/verb/adj/adv keyed by (file, offset)."""
    synsets: dict[tuple[str, int], Synset] = {}
    for name in POS_FILES:
        for line in _lines(source / f"data.{name}"):
            fields = line.split(" | ", 1)[0].split()
            offset, ss_type = int(fields[0]), fields[2]
            count = int(fields[3], 16)
            surfaces = [fields[4 + 2 * i] for i in range(count)]
            at = 4 + 2 * count
            n_pointers = int(fields[at])
            at += 1
            synset = Synset((name, offset), ss_type, [normalise(s) for s in surfaces],
                            [s.split("(")[0].replace("_", " ") for s in surfaces])
            for _ in range(n_pointers):
                symbol, target, pos_char, source_target = fields[at : at + 4]
                at += 4
                synset.pointers.append((symbol, _file_key(pos_char, target),
                                        int(source_target[:2], 16), int(source_target[2:], 16)))
            synsets[synset.key] = synset
    return synsets


def read_index(source: Path) -> dict[str, list[tuple[str, int]]]:
    """Lemma -> its synsets in WordNet's sense order (most frequent first), nouns, verbs, adjectives, adverbs."""
    senses: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for name in POS_FILES:
        for line in _lines(source / f"index.{name}"):
            fields = line.split()
            lemma = fields[0].replace("_", " ")
            count = int(fields[2])
            senses[lemma].extend((name, int(offset)) for offset in fields[-count:])
    return senses


def read_counts(source: Path) -> dict[tuple[str, str, int], int]:
    """(lemma, file, sense number) -> how often the sense was tagged in WordNet's corpora (cntlist.rev)."""
    files = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
    counts: dict[tuple[str, str, int], int] = {}
    path = source / "cntlist.rev"
    if not path.is_file():
        return counts
    for line in path.read_text(encoding="utf-8").splitlines():
        key, number, count = line.split()
        lemma, rest = key.split("%", 1)
        counts[(lemma.replace("_", " "), files[rest[0]], int(number))] = int(count)
    return counts


def core_senses(lemma: str, keys: list[tuple[str, int]], counts: dict[tuple[str, str, int], int]) -> list[int]:
    """Positions (in ``keys``) of a lemma's dominant senses: per part of speech the first, and up to
    ``CORE_MAX`` senses tagged at least ``CORE_SHARE`` as often as the first (the first two when none
    is tagged); a part of speech whose first sense is tagged less than ``CORE_SHARE`` as often as the
    word's most frequent sense is left out. Relations are looked for between dominant senses, so that a rare sense ("man" as a
    chess piece, "make" as "reach") cannot relate two everyday words."""
    out: list[int] = []
    firsts = [counts.get((lemma, name, 1), 0) for name in POS_FILES]
    for name, first in zip(POS_FILES, firsts, strict=True):
        positions = [i for i, key in enumerate(keys) if key[0] == name]
        if not positions or (max(firsts) > 0 and first < CORE_SHARE * max(firsts)):
            continue  # a part of speech the word is hardly ever used in ("thus" as a resin, "man" as a verb)
        tagged = [counts.get((lemma, name, rank), 0) for rank in range(1, len(positions) + 1)]
        for rank, position in enumerate(positions[:CORE_MAX], start=1):
            if rank == 1 or (tagged[0] == 0 and rank <= 2) or (
                    tagged[0] > 0 and tagged[rank - 1] > 0 and tagged[rank - 1] >= CORE_SHARE * tagged[0]):
                out.append(position)
    return out


def read_exceptions(source: Path) -> dict[str, dict[str, list[str]]]:
    """Per POS letter: irregular form -> base forms, from the *.exc files (identity lines dropped)."""
    out: dict[str, dict[str, list[str]]] = {}
    for name in POS_FILES:
        table: dict[str, list[str]] = {}
        for line in _lines(source / f"{name}.exc"):
            form, *bases = line.split()
            form = form.replace("_", " ")
            bases = [b.replace("_", " ") for b in bases if b != form]
            if bases:
                table.setdefault(form, [])
                table[form].extend(b for b in bases if b not in table[form])
        out[POS_CHAR[name]] = dict(sorted(table.items()))
    return out


def read_curated(path: Path) -> dict[str, list[list[str]]]:
    """Sections of the curated file: [function] words, [antonym] pairs, [no_sibling] words."""
    sections: dict[str, list[list[str]]] = defaultdict(list)
    current = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            continue
        sections[current].append(line.split())
    return sections


def _sym(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def _is_abbreviation(surface: str, others: list[str]) -> bool:
    """An abbreviation among a synset's lemmas: capitals only ("OH"), a full stop ("U.S."), or a short
    head of a longer one-word lemma ("Mar" for March, "Sept" for September; not "Lyon" beside
    "Lyons" nor "Nile" beside "Nile River")."""
    letters = surface.replace(" ", "").replace("-", "")
    if "." in surface or (letters.isupper() and len(letters) <= 4):
        return True
    low = surface.lower()
    return len(low) <= 4 and any(o.lower().startswith(low) and len(o) >= len(low) + 2 and " " not in o
                                 for o in others)


@dataclass
class Lexicon:
    """WordNet with small integer ids: synsets in (noun, verb, adjective, adverb; offset) order, words
    sorted; the pointer tables the runtime needs, synset-level and lemma-level."""

    synsets: dict[tuple[str, int], Synset]
    index: dict[str, list[tuple[str, int]]]
    exceptions: dict[str, dict[str, list[str]]]
    order: list[tuple[str, int]] = field(default_factory=list)
    sid: dict[tuple[str, int], int] = field(default_factory=dict)
    pos: str = ""
    words: list[str] = field(default_factory=list)
    wid: dict[str, int] = field(default_factory=dict)
    senses: list[list[int]] = field(default_factory=list)
    core: list[set[int]] = field(default_factory=list)
    tagged: set[tuple[int, int]] = field(default_factory=set)  # (word, synset) seen in the corpora
    word_pos: list[int] = field(default_factory=list)
    members: list[list[int]] = field(default_factory=list)
    hypernyms: list[list[int]] = field(default_factory=list)
    instance_of: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    hyponyms: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    member_of: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    edges: dict[str, set[tuple[int, int]]] = field(default_factory=lambda: defaultdict(set))

    def number(self, source: Path) -> None:
        """Give synsets and words their ids; fill senses (with dominant senses), members and word POS."""
        self.order = sorted(self.synsets, key=lambda k: (POS_FILES.index(k[0]), k[1]))
        self.sid = {key: i for i, key in enumerate(self.order)}
        self.pos = "".join(self.synsets[k].ss_type for k in self.order)
        vocabulary = set(self.index)
        for syn in self.synsets.values():
            vocabulary.update(syn.lemmas)
        for table in self.exceptions.values():
            for bases in table.values():
                vocabulary.update(b for b in bases if b in self.index)
        self.words = sorted(vocabulary)
        self.wid = {w: i for i, w in enumerate(self.words)}
        counts = read_counts(source)
        self.senses = [[] for _ in self.words]
        self.core = [set() for _ in self.words]
        for lemma, keys in self.index.items():
            self.senses[self.wid[lemma]] = [self.sid[k] for k in keys]
            ranks = {name: 0 for name in POS_FILES}
            for key in keys:
                ranks[key[0]] += 1
                if counts.get((lemma, key[0], ranks[key[0]]), 0) > 0:
                    self.tagged.add((self.wid[lemma], self.sid[key]))
            self.core[self.wid[lemma]] = {self.sid[keys[i]] for i in core_senses(lemma, keys, counts)}
        for key in self.order:  # a lemma missing from the index would still be found (none in 3.0)
            for lemma in self.synsets[key].lemmas:
                if self.sid[key] not in self.senses[self.wid[lemma]]:
                    self.senses[self.wid[lemma]].append(self.sid[key])
                    self.core[self.wid[lemma]].add(self.sid[key])
        self.word_pos = [0] * len(self.words)
        for i, ids in enumerate(self.senses):
            for s in ids:
                self.word_pos[i] |= POS_BIT[self.pos[s]]
        self.members = [list(dict.fromkeys(self.wid[w] for w in self.synsets[key].lemmas)) for key in self.order]

    def link(self) -> None:
        """Read every pointer into the hypernym rows and the edge tables."""
        self.hypernyms = [[] for _ in self.order]
        edges = self.edges
        for key in self.order:
            syn, s = self.synsets[key], self.sid[key]
            for symbol, target, src, dst in syn.pointers:
                t = self.sid[target]
                words = None
                if src and dst:
                    words = (self.wid[syn.lemmas[src - 1]], self.wid[self.synsets[target].lemmas[dst - 1]])
                if symbol in ("@", "@i"):
                    (self.instance_of[s] if symbol == "@i" else self.hypernyms[s]).append(t)
                    self.hyponyms[t].append(s)
                elif symbol == "&" and syn.ss_type == "s":
                    edges["adj_head"].add((s, t))
                elif symbol == "!":
                    edges["antonyms"].add(_sym(s, t))
                    if words:
                        edges["antonym_words"].add(_sym(*words))
                elif symbol in ("+", "<") and s != t:
                    edges["derivations"].add(_sym(s, t))
                    if words and words[0] != words[1]:
                        edges["derived_words"].add(_sym(*words))
                elif symbol == "\\":
                    edges["pertainyms"].add((s, t))
                    if words and words[0] != words[1]:
                        edges["derived_words"].add(_sym(*words))
                        if syn.ss_type == "r":
                            edges["adverb_bases"].add(words)
                elif symbol == ";c":
                    edges["domains"].add((s, t))
                elif symbol == "#p":
                    edges["part_of"].add((s, t))
                elif symbol == "#m":
                    self.member_of[s].append(t)

    def find(self, lemma: str, pos: str, number: int) -> int:
        """The id of a lemma's n-th sense in one part of speech."""
        keys = [k for k in self.index[lemma.replace("_", " ")] if k[0] == FILE_OF_CHAR[pos]]
        return self.sid[keys[number - 1]]

    def ancestors(self, s: int) -> set[int]:
        """Every hypernym and instance hypernym above a synset."""
        seen: set[int] = set()
        stack = [s]
        while stack:
            node = stack.pop()
            for parent in self.hypernyms[node] + self.instance_of.get(node, []):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def inflected_from(self, word: str) -> set[str]:
        """The parts of speech of which ``word`` is an inflection of another lemma ("banks", "drew")."""
        found = {pos for pos in "nva" if self.exceptions[pos].get(word)}
        for pos, rules in INFLECTION_RULES.items():
            for suffix, ending in rules:
                base = word[: len(word) - len(suffix)] + ending
                if (word.endswith(suffix) and len(base) >= 3 and base != word and base in self.wid
                        and self.word_pos[self.wid[base]] & POS_BIT[pos]):
                    found.add(pos)
        return found


def nationality_pairs(lex: Lexicon) -> set[tuple[int, int]]:
    """(word, place) for nationality adjectives ("Dutch" -> the Netherlands: a pertainym to a named
    location) and demonym nouns ("Belgian": a kind of person who is a member of a named location),
    when that is a dominant sense of the word ("same" is not read as the Sami people)."""
    location, person = lex.find(*LOCATION), lex.find(*PERSON)
    places = {s for s in lex.instance_of if location in lex.ancestors(s)}
    out: set[tuple[int, int]] = set()
    for s, t in lex.edges["pertainyms"]:
        if lex.pos[s] in "as" and t in places:
            out.update((w, t) for w in lex.members[s]
                       if s in lex.core[w] and not lex.words[w].startswith(NOT_A_NATIONALITY))
    for s, holders in lex.member_of.items():
        if lex.pos[s] == "n" and s not in lex.instance_of and person in lex.ancestors(s):
            out.update((w, t) for t in holders if t in places for w in lex.members[s] if s in lex.core[w])
    return out


def sibling_instance_words(lex: Lexicon, excluded: set[str]) -> set[int]:
    """Words that may stand for a named instance in a sibling test: at least three letters, not an
    abbreviation, not a tagged dominant adjective/verb/adverb too ("nice", "mobile"; not "japan" the lacquer
    or "shanghai" the verb, which the corpora never tagged), the instance a dominant sense
    of the word and one of its first two noun senses ("turkey" yes, "day", "guest", "nation" no), not a verb or adjective form ("drew", "fuller")
    unless a place, not a plural common noun when a person ("banks", "gates"), not excluded."""
    location, person = lex.find(*LOCATION), lex.find(*PERSON)
    out: set[int] = set()
    for s in sorted(lex.instance_of):
        surfaces = lex.synsets[lex.order[s]].surfaces
        for surface in surfaces:
            w = lex.wid[normalise(surface)]
            if not (len(surface) >= 3 and not _is_abbreviation(surface, surfaces)
                    and lex.words[w] not in excluded and s in lex.core[w]
                    and all(lex.pos[x] == "n" or (w, x) not in lex.tagged for x in lex.core[w])
                    and s in [x for x in lex.senses[w] if lex.pos[x] == "n"][:2]):
                continue
            inflection, above = lex.inflected_from(lex.words[w]), lex.ancestors(s)
            if (inflection & {"v", "a"} and location not in above) or ("n" in inflection and person in above):
                continue
            out.add(w)
    return out


def safe_class_members(lex: Lexicon, excluded: set[str]) -> tuple[set[tuple[int, int]], set[int]]:
    """(synset, class) for the hyponyms, ``SAFE_CLASS_DEPTH`` levels down, of each safe sibling class,
    and the words that may stand for them: the member a dominant sense of the word ("ban" the coin is
    not), not an abbreviation ("Sun" for Sunday), an adjective or an adverb ("real"), or excluded."""
    members: set[tuple[int, int]] = set()
    allowed: set[int] = set()
    for spec in SAFE_SIBLING_CLASSES:
        root = lex.find(*spec)
        frontier = [root]
        for _ in range(SAFE_CLASS_DEPTH):
            frontier = [h for c in frontier for h in sorted(set(lex.hyponyms.get(c, [])))]
            for h in frontier:
                surfaces = lex.synsets[lex.order[h]].surfaces
                for x in surfaces:
                    w = lex.wid[normalise(x)]
                    if (len(x) >= 3 and not _is_abbreviation(x, surfaces) and lex.words[w] not in excluded
                            and h in lex.core[w] and not lex.word_pos[w] & (POS_BIT["a"] | POS_BIT["r"])):
                        members.add((h, root))
                        allowed.add(w)
    return members, allowed


def build(source: Path, curated_path: Path = CURATED) -> bytes:
    """The compiled lexicon file's bytes (deterministic for a given input)."""
    lex = Lexicon(read_data(source), read_index(source), read_exceptions(source))
    lex.number(source)
    lex.link()
    curated = read_curated(curated_path)
    function_words = sorted({w for row in curated.get("function", []) for w in row})
    excluded = {w for row in curated.get("no_sibling", []) for w in row} | set(function_words)
    missing = [pair for pair in curated.get("antonym", []) if len(pair) != 2 or not set(pair) <= set(lex.wid)]
    if missing:
        raise SystemExit(f"curated antonyms must be pairs of WordNet lemmas: {missing}")

    safe_members, safe_words = safe_class_members(lex, excluded)
    header = {
        "format": FORMAT_VERSION,
        "source": "Princeton WordNet 3.0 (see WORDNET-LICENSE)",
        "pos": lex.pos,
        "exceptions": lex.exceptions,
        "function_words": function_words,
    }
    edges = lex.edges
    tables: dict[str, tuple[str, Any]] = {
        "words": ("text", lex.words),
        "word_pos": ("uint8", lex.word_pos),
        "senses": ("csr", lex.senses),
        "core_flags": ("uint8", [int(x in lex.core[i]) for i, row in enumerate(lex.senses) for x in row]),
        "members": ("csr", lex.members),
        "hypernyms": ("csr", lex.hypernyms),
        "instances": ("pairs", [(s, c) for s, classes in lex.instance_of.items() for c in classes]),
        "adj_head": ("pairs", edges["adj_head"]),
        "antonyms": ("pairs", edges["antonyms"]),
        "antonym_words": ("pairs", edges["antonym_words"]),
        "extra_antonyms": ("pairs", {_sym(lex.wid[a], lex.wid[b]) for a, b in curated.get("antonym", [])}),
        "adverb_bases": ("pairs", edges["adverb_bases"]),
        "derivations": ("pairs", edges["derivations"]),
        "derived_words": ("pairs", edges["derived_words"]),
        "pertainyms": ("pairs", edges["pertainyms"]),
        "domains": ("pairs", edges["domains"]),
        "part_of": ("pairs", {(s, t) for s, t in edges["part_of"] if s in lex.instance_of}),
        "nationality": ("pairs", nationality_pairs(lex)),
        "safe_classes": ("pairs", safe_members),
        "safe_words": ("int32", sorted(safe_words)),
        "instance_words": ("int32", sorted(sibling_instance_words(lex, excluded))),
    }
    return encode(header, tables)


def _int32(values: Iterable[int]) -> bytes:
    packed = array("i", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def encode(header: dict[str, Any], tables: dict[str, tuple[str, Any]]) -> bytes:
    """The lexicon container: magic, header length, JSON header, then the binary sections, gzip'd.

    Section kinds: ``text`` (UTF-8 lines joined by newlines), ``uint8``, ``int32`` (little-endian),
    ``pairs`` (sorted unique (a, b) pairs, flattened int32) and ``csr`` (lists of ints as two int32
    sections, ``NAME.offsets`` with len+1 entries and ``NAME.values``). The header's ``sections``
    maps each name to [kind, byte offset, byte length] within the blob after the header.
    """
    blob = bytearray()
    sections: dict[str, list[Any]] = {}

    def put(name: str, kind: str, data: bytes) -> None:
        sections[name] = [kind, len(blob), len(data)]
        blob.extend(data)

    for name, (kind, data) in tables.items():
        if kind == "text":
            put(name, kind, "\n".join(data).encode("utf-8"))
        elif kind == "uint8":
            put(name, kind, bytes(data))
        elif kind == "int32":
            put(name, kind, _int32(data))
        elif kind == "pairs":
            put(name, "int32", _int32(x for pair in sorted({tuple(p) for p in data}) for x in pair))
        elif kind == "csr":
            offsets = [0]
            for row in data:
                offsets.append(offsets[-1] + len(row))
            put(f"{name}.offsets", "int32", _int32(offsets))
            put(f"{name}.values", "int32", _int32(x for row in data for x in row))
        else:
            raise ValueError(f"unknown section kind {kind!r}")
    head = json.dumps({**header, "sections": sections}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")
    raw = MAGIC + len(head).to_bytes(8, "little") + head + bytes(blob)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as archive:
        archive.write(raw)
    return buffer.getvalue()


def licence_text(source: Path) -> str:
    """WordNet 3.0's licence, as printed at the head of its data files (line numbers removed)."""
    lines = []
    with (source / "data.noun").open(encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("  "):
                break
            lines.append(line.strip().split(" ", 1)[1].rstrip() if line.strip()[:1].isdigit() and " " in line.strip()
                         else "")
    return "\n".join(lines).strip() + "\n"


def maps_path(out: Path) -> Path:
    """Where the grouped relations of the lexicon at ``out`` go (``wordnet.bin.gz`` -> ``wordnet.maps.bin.gz``)."""
    return out.with_name(out.name.replace(".bin.gz", "") + ".maps.bin.gz")


def write_maps(out: Path) -> Path:
    """Write the maps file of the lexicon file at ``out``; returns its path."""
    sys.path.insert(0, str(ROOT))
    from graphcite.language.lexicon_data import encode_maps

    target = maps_path(out)
    payload = encode_maps(out.read_bytes())
    target.write_bytes(payload)
    sys.stdout.write(f"wrote {target} ({len(payload):,} bytes, sha256 {hashlib.sha256(payload).hexdigest()})\n")
    return target


def main(argv: list[str] | None = None) -> int:
    """Build the lexicon file and its maps file; print their sizes and SHA-256."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE,
                        help="folder holding WordNet 3.0's data.*, index.* and *.exc files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the lexicon (WORDNET-LICENSE goes beside it)")
    parser.add_argument("--maps", action="store_true",
                        help="only rewrite the maps file from the lexicon file at --out (no WordNet needed)")
    args = parser.parse_args(argv)
    if args.maps:
        if not args.out.is_file():
            parser.error(f"{args.out} does not exist: build the lexicon first")
        write_maps(args.out)
        return 0
    if not (args.source / "data.noun").is_file():
        parser.error(f"{args.source} has no data.noun: install wordnet-base or pass the WordNet folder")
    payload = build(args.source)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(payload)
    (args.out.parent / "WORDNET-LICENSE").write_text(licence_text(args.source), encoding="utf-8")
    digest = hashlib.sha256(payload).hexdigest()
    sys.stdout.write(f"wrote {args.out} ({len(payload):,} bytes, sha256 {digest})\n")
    write_maps(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
