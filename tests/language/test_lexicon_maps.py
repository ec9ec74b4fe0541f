"""The grouped relations shipped in ``wordnet.maps.bin.gz`` are the lexicon's pairs grouped, key for key.

The maps file exists so a process reads one key's ids instead of grouping every pair of the lexicon at
first use. Each relation must answer exactly as the dicts of frozensets it replaces, including the order
a frozenset iterates in (a reader that walks a group and keeps the first match would otherwise change).
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from importlib.resources import files

import pytest

from graphcite.language import lexicon_data
from graphcite.language.lexicon_data import (
    GROUPED,
    MAPS_FILE,
    Grouped,
    encode_maps,
    lexicon_digest,
    load_tables,
)


def _reference(name: str) -> dict[int, object]:
    """The relation as the reader built it before the maps file: sets filled pair by pair, then frozen."""
    container = load_tables()._container
    sections, symmetric, shape = GROUPED[name]
    grouped: dict[int, set[int]] = defaultdict(set)
    ordered: dict[int, list[int]] = defaultdict(list)
    for section in sections:
        for a, b in container.pairs(section):
            grouped[a].add(b)
            ordered[a].append(b)
            if symmetric:
                grouped[b].add(a)
    if shape == "sorted":
        return {k: tuple(sorted(v)) for k, v in grouped.items()}
    if shape == "tuple":
        return {k: tuple(v) for k, v in ordered.items()}
    return {k: frozenset(v) for k, v in grouped.items()}


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_every_relation_answers_as_the_grouped_pairs_in_the_same_order(name: str) -> None:
    relation = getattr(load_tables(), name)
    assert isinstance(relation, Grouped)
    expected = _reference(name)
    assert len(relation) == len(expected) and list(relation) == sorted(expected)
    for key, value in expected.items():
        found = relation[key]
        assert found == value and list(found) == list(value), (name, key)
        assert key in relation and relation.get(key) is found  # memoised: one object per key
    missing = max(expected) + 1
    assert missing not in relation and relation.get(missing, ()) == () and "word" not in relation
    with pytest.raises(KeyError):
        relation[missing]


def test_the_shipped_maps_file_belongs_to_the_shipped_lexicon() -> None:
    lexicon = files("graphcite.language").joinpath(lexicon_data.DATA_FILE).read_bytes()
    shipped = files("graphcite.language").joinpath(MAPS_FILE).read_bytes()
    assert lexicon_data._shipped_maps(lexicon_digest()) is not None, "rebuild it: scripts/build_lexicon.py --maps"
    assert encode_maps(lexicon) == shipped  # deterministic, and what the script writes


def test_a_maps_file_for_another_lexicon_is_not_used() -> None:
    assert lexicon_data._shipped_maps("0" * 64) is None
    raw = gzip.decompress(files("graphcite.language").joinpath(MAPS_FILE).read_bytes())
    assert lexicon_digest().encode() in raw  # the file names the lexicon it was made from
