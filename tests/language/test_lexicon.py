"""The WordNet lexicon: the shipped compiled file, read through graphcite.language.lexicon (no mocks)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
import time
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import InputError, NotFoundError
from graphcite.language import lexicon
from graphcite.language.lexicon import (
    RELATIONS,
    antonyms,
    base_form,
    base_forms,
    is_antonym,
    is_derived,
    is_kind_of,
    is_known,
    is_sibling,
    is_synonym,
    lexicon_digest,
    nationality_of,
    related,
    synonyms,
)

ROOT = Path(__file__).resolve().parents[2]
WORDNET = Path("/usr/share/wordnet")
DATA = files("graphcite.language").joinpath("data")

# -- relations, one table -------------------------------------------------------------------------

CASES = [
    # same lemma, any case, inflections
    ("City", "cities", "same"),
    ("geese", "goose", "same"),
    ("ran", "run", "same"),
    ("break_up", "Break Up", "same"),
    # synonyms
    ("physician", "doctor", "synonym"),
    ("big", "large", "synonym"),
    ("biggest", "largest", "synonym"),
    ("beijing", "peking", "synonym"),
    # kinds and instances
    ("beijing", "city", "hypernym"),
    ("beijing", "location", "hypernym"),
    ("car", "vehicle", "hypernym"),
    ("vehicle", "car", "hyponym"),
    ("ice creams", "desserts", "hypernym"),
    # derivations, pertainyms, topic domains
    ("politician", "politics", "derived"),
    ("dissolve", "dissolution", "derived"),
    ("dutch", "netherlands", "derived"),
    ("belgian", "belgium", "derived"),
    ("heavily", "heavy", "derived"),
    ("physician", "medicine", "topic"),
    # antonyms: direct, through base forms, adverbs, clusters, curated
    ("increase", "decrease", "antonym"),
    ("increased", "decreased", "antonym"),
    ("win", "lose", "antonym"),
    ("won", "lost", "antonym"),
    ("alive", "dead", "antonym"),
    ("strongest", "weakest", "antonym"),
    ("stronger", "weaker", "antonym"),
    ("better", "worse", "antonym"),
    ("heavy", "light", "antonym"),
    ("heavily", "lightly", "antonym"),
    ("ponderous", "light", "antonym"),
    ("dense", "sparse", "antonym"),
    ("densely", "sparsely", "antonym"),
    ("sparsely", "heavily", "antonym"),
    ("man", "woman", "antonym"),
    # siblings
    ("dutch", "belgian", "sibling"),
    ("american", "french", "sibling"),
    ("paris", "london", "sibling"),
    ("paris", "lyon", "sibling"),
    ("ohio", "texas", "sibling"),
    ("france", "germany", "sibling"),
    ("einstein", "newton", "sibling"),
    ("monday", "friday", "sibling"),
    ("march", "june", "sibling"),
    ("dollar", "euro", "sibling"),
    ("japan", "germany", "sibling"),
    ("turkey", "greece", "sibling"),
    # no relation
    ("city", "painter", None),
    ("dog", "cat", None),
    ("strongest", "strong", None),
    ("paris", "france", None),
    ("lyon", "france", None),
    ("ohio", "united states", None),
    ("british", "english", None),
    ("man", "piece", None),
    ("two", "first", None),
    ("nice", "paris", None),
    ("us", "uk", None),
    ("in", "me", None),
    ("is", "have", None),
    ("a", "b", None),
    ("xyzzy", "plugh", None),
    ("georgia", "united states", None),
    ("marked", "pound", None),
    ("polished", "german", None),
    ("nation", "holmes", None),
    ("banks", "gates", None),
]


@pytest.mark.parametrize(("a", "b", "expected"), CASES)
def test_related(a: str, b: str, expected: str | None) -> None:
    assert related(a, b) == expected


def test_relations_are_the_documented_names() -> None:
    assert {expected for _, _, expected in CASES} - {None} == set(RELATIONS)


# -- synonyms and base forms ----------------------------------------------------------------------


def test_synonyms_of_a_word() -> None:
    assert synonyms("physician") >= {"doctor", "medico"}
    assert "physician" not in synonyms("physician")
    assert "large" in synonyms("Big")
    assert synonyms("doctor", pos="v").isdisjoint({"physician", "medico"})


def test_synonyms_agree_with_is_synonym() -> None:
    for word in ("physician", "quick", "increase", "begin", "break up"):
        found = synonyms(word)
        assert found
        assert all(is_synonym(word, other) for other in found)


def test_multi_word_lemmas_answer_with_spaces_or_underscores() -> None:
    assert synonyms("break_up") == synonyms("break up") == synonyms("BREAK  UP")
    assert "split" in synonyms("break up")
    assert is_synonym("break up", "split")
    assert is_kind_of("ice_cream", "dessert")
    assert base_forms("breaking up") == ("break up",)
    assert is_known("well known") and is_known("well-known")


def test_function_words_and_letters_have_no_relations_but_same() -> None:
    assert synonyms("is") == frozenset()
    assert related("is", "are") == "same"
    for word in ("is", "have", "the", "in", "a", "i", "us", "may"):
        for other in ("be", "out", "me", "uk", "june", "iodine", "indiana", "b"):
            assert related(word, other) in (None, "same"), (word, other)


def test_base_form() -> None:
    assert base_form("strongest") == "strong"
    assert base_form("weakest") == "weak"
    assert base_form("better") == "good"
    assert base_form("geese") == "goose"
    assert base_form("children") == "child"
    assert base_form("went") == "go"
    assert base_form("is") == "be"
    assert base_form("Break_Up") == "break up"
    assert base_form("xyzzy") == "xyzzy"
    assert base_form("saw") == "saw"
    assert base_forms("saw") == ("saw", "see")
    assert base_form("better", pos="adv") == "well"
    assert base_form("leaves", pos="n") == "leaf"
    assert base_form("leaves", pos="v") == "leave"


def test_unknown_part_of_speech_is_an_input_error() -> None:
    with pytest.raises(InputError, match="part of speech") as caught:
        base_form("dog", pos="pronoun")
    assert isinstance(caught.value, ValueError)
    assert caught.value.fix


# -- antonyms, kinds, derivations, siblings -------------------------------------------------------


def test_antonyms_of_a_word() -> None:
    assert "decrease" in antonyms("increase")
    assert "dead" in antonyms("alive")
    assert "lightly" in antonyms("heavily")
    assert "sparsely" in antonyms("heavily")
    assert antonyms("the") == frozenset()


def test_antonym_needs_the_same_degree_and_no_shared_sense() -> None:
    assert is_antonym("strongest", "weakest")
    assert is_antonym("strong", "weak")
    assert not is_antonym("strongest", "weak")
    assert not is_antonym("big", "large")


def test_kind_of_follows_instances_and_skips_the_top_of_the_hierarchy() -> None:
    assert is_kind_of("beijing", "city")
    assert is_kind_of("Beijing", "national capital")
    assert is_kind_of("physician", "person")
    assert not is_kind_of("city", "beijing")
    assert not is_kind_of("dog", "entity")
    assert not is_kind_of("painter", "city")


def test_derived() -> None:
    assert is_derived("politician", "politics")
    assert is_derived("dissolution", "dissolve")
    assert not is_derived("politician", "painter")


def test_siblings_exclude_containment_and_kinds() -> None:
    assert is_sibling("ohio", "texas")
    assert is_sibling("Dutch", "Belgian")
    assert not is_sibling("ohio", "ohio")
    assert not is_sibling("paris", "france")
    assert not is_sibling("paris", "city")
    assert not is_sibling("dog", "cat")
    assert not is_sibling("winter", "wintertime")


def test_nationality_of() -> None:
    assert nationality_of("dutch") == "netherlands"
    assert nationality_of("Belgian") == "belgium"
    assert nationality_of("frenchman") == "france"
    assert nationality_of("city") is None
    assert nationality_of("anti-american") is None
    assert nationality_of("polished") is None
    assert nationality_of("polish") == "poland"


# -- properties over a vocabulary -----------------------------------------------------------------

VOCABULARY = sorted({w for a, b, _ in CASES for w in (a, b)} | {
    "good", "bad", "high", "low", "rise", "fall", "first", "last", "open", "close", "march", "may",
    "spring", "winter", "north", "south", "gold", "silver", "london", "texan", "more", "less", "one",
})


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(VOCABULARY), st.sampled_from(VOCABULARY))
def test_relations_are_symmetric_or_mirrored(a: str, b: str) -> None:
    forward, backward = related(a, b), related(b, a)
    mirror = {"hypernym": "hyponym", "hyponym": "hypernym"}
    assert forward in (*RELATIONS, None)
    assert backward == mirror.get(forward, forward) if forward else backward in (None, "topic")
    assert is_antonym(a, b) == is_antonym(b, a)
    assert is_sibling(a, b) == is_sibling(b, a)
    assert is_synonym(a, b) == is_synonym(b, a)


# -- the shipped file -----------------------------------------------------------------------------


def test_the_package_ships_the_lexicon_and_its_licence() -> None:
    assert DATA.joinpath("wordnet.bin.gz").is_file()
    licence = DATA.joinpath("WORDNET-LICENSE").read_text(encoding="utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in licence
    raw = DATA.joinpath("wordnet.bin.gz").read_bytes()
    assert len(raw) < 5_000_000
    assert lexicon_digest() == hashlib.sha256(raw).hexdigest()


def test_a_damaged_file_is_a_typed_error() -> None:
    from graphcite.language.lexicon_data import _Container

    with pytest.raises(NotFoundError, match="not a graphcite lexicon"):
        _Container(b"not a lexicon")


def test_loads_without_the_wordnet_database(tmp_path: Path) -> None:
    """A fresh interpreter answers while any access to /usr/share/wordnet would raise."""
    script = textwrap.dedent("""
        import sys
        def guard(event, args):
            if event == "open" and str(args[0]).startswith("/usr/share/wordnet"):
                raise RuntimeError("the lexicon read the WordNet database")
            if event == "os.listdir" and str(args[0]).startswith("/usr/share/wordnet"):
                raise RuntimeError("the lexicon listed the WordNet database")
        sys.addaudithook(guard)
        from graphcite.language.lexicon import related, base_form
        print(related("dutch", "belgian"), related("beijing", "city"), base_form("geese"))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["sibling", "hypernym", "goose"]


def test_load_and_calls_are_fast() -> None:
    started = time.perf_counter()
    lexicon._lexicon()
    assert time.perf_counter() - started < 2.0  # about 0.1 s cold; generous for a busy machine
    pairs = [("heavily", "sparsely"), ("paris", "lyon"), ("physician", "doctor"), ("dog", "cat")]
    for a, b in pairs:
        related(a, b)
    started = time.perf_counter()
    for _ in range(2_500):
        for a, b in pairs:
            related(a, b)
    assert (time.perf_counter() - started) / 10_000 < 50e-6  # about 0.3 µs when cached


@pytest.mark.skipif(not (WORDNET / "data.noun").is_file(),
                    reason="WordNet 3.0 database not installed (apt-get install wordnet-base); the compiled "
                           "file ships in the package, so only the rebuild check is skipped")
def test_rebuild_is_byte_identical_to_the_shipped_file(tmp_path: Path) -> None:
    out = tmp_path / "wordnet.bin.gz"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_lexicon.py"), str(WORDNET), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == DATA.joinpath("wordnet.bin.gz").read_bytes()
    assert (tmp_path / "WORDNET-LICENSE").read_bytes() == DATA.joinpath("WORDNET-LICENSE").read_bytes()


def test_name_class() -> None:
    from graphcite.language.lexicon import name_class

    assert name_class("Paris") == "national capital"
    assert name_class("ohio") == "american state"
    assert name_class("dog") is None  # a common noun names no instance
    assert name_class("zzyzxqv") is None


def test_word_forms_live_in_their_own_module() -> None:
    from graphcite.language import lexicon, lexicon_forms

    assert lexicon.base_form is lexicon_forms.base_form
    assert lexicon_forms.base_forms("geese") == ("goose",)
    assert lexicon_forms.senses_of("strongest").by_degree.keys() == {2}
