"""Prepared parses: a kept parse read back is the pipeline's parse of the same text, token for token, and
:func:`parse` uses one only for exactly its text and only from the current pipeline version."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.language import parse as P
from tests.conftest import CORPUS


def _attributes(doc: Any) -> tuple[Any, ...]:
    tokens = tuple((t.text, t.whitespace_, t.tag_, t.pos_, str(t.morph), t.dep_, t.head.i, t.lemma_, t.is_sent_start,
                    t.ent_iob_, t.norm_, t.is_stop, t.like_num, t.is_alpha) for t in doc)
    flags = tuple(doc.has_annotation(a) for a in ("TAG", "POS", "MORPH", "DEP", "LEMMA", "SENT_START"))
    return doc.text, tokens, flags, tuple((s.start, s.end) for s in doc.sents)


def _corpus_paragraphs(limit: int = 60) -> list[str]:
    out = []
    for path in sorted(CORPUS.rglob("*.md")):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            flat = P.layout(block).flat
            if flat and not flat.startswith(("---", "#", "|")):
                out.append(flat)
    return out[:limit]


def test_a_kept_parse_reads_back_as_the_pipelines_parse_of_the_bundled_corpus() -> None:
    texts = _corpus_paragraphs()
    assert len(texts) >= 30
    for text in texts:
        made = P.parser()(text)
        back = P._load(P.serialise(made))
        assert back is not None and _attributes(back) == _attributes(made), text


WORDS = st.sampled_from(["the", "relay", "retries", "3", "times", "not", "if", "it", "fails", ",", "must", "after",
                         "42", "ms", "Carriers", "were", "dropped", "because", "of", "(", ")", "and", "isn't", "."])


@settings(max_examples=40, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=30))
def test_any_parse_reads_back_token_for_token(words: list[str]) -> None:
    text = " ".join(words)
    made = P.parser()(text)
    back = P._load(P.serialise(made))
    assert back is not None and _attributes(back) == _attributes(made)


@pytest.mark.parametrize("text", ["", " ", "naïve ✓ 日本 — 42 %", "a\x00b \"quoted\" \\ back", "Line one.\n\nLine two."])
def test_edge_texts_read_back_token_for_token(text: str) -> None:
    made = P.parser()(text)
    back = P._load(P.serialise(made))
    assert back is not None and _attributes(back) == _attributes(made)


def _fresh_text(tag: str) -> str:
    return f"The {tag} relay retried the webhook 3 times before the queue drained."


def test_parse_uses_a_handed_over_parse_of_exactly_its_text() -> None:
    text = _fresh_text("prepared-one")
    doc = P.parser()(text)
    doc[1].tag_ = "FW"  # marked, so the test can tell the handed-over parse from a new one
    assert P.prepare({P.text_key(text): P.serialise(doc)}, P.pipeline_version()) == 1
    assert P.parse(text)[1].tag_ == "FW"
    assert P.parse(text + " ")[1].tag_ != "FW"  # another text is parsed by the pipeline


def test_a_parse_of_another_pipeline_version_is_never_used() -> None:
    text = _fresh_text("stale-one")
    doc = P.parser()(text)
    doc[1].tag_ = "FW"
    assert P.prepare({P.text_key(text): P.serialise(doc)}, "ewt-old/spacy-0/thinc-0/0") == 0
    assert P.parse(text)[1].tag_ != "FW"


def test_damaged_or_foreign_bytes_are_parsed_again() -> None:
    damaged, cut, other = (_fresh_text(t) for t in ("damaged-one", "cut-one", "foreign-one"))
    whole = P.serialise(P.parser()(cut))
    P.prepare({P.text_key(damaged): b"not a parse", P.text_key(cut): whole[:len(whole) // 2],
               P.text_key(other): P.serialise(P.parser()("Something else."))}, P.pipeline_version())
    assert P.parse(damaged).text == damaged
    assert P.parse(cut).text == cut
    assert P.parse(other).text == other


def test_only_wanted_pipeline_parses_are_given_back_once() -> None:
    wanted, unwanted = _fresh_text("wanted-one"), _fresh_text("unwanted-one")
    P.prepare({}, P.pipeline_version(), wanted=[P.text_key(wanted)])
    P.parse(wanted)
    P.parse(unwanted)
    data = P.fresh_parse(wanted)
    assert data is not None and _attributes(P._load(data)) == _attributes(P.parse(wanted))
    assert P.fresh_parse(wanted) is None
    assert P.fresh_parse(unwanted) is None


def test_the_pipeline_version_names_the_model_and_its_files() -> None:
    version = P.pipeline_version()
    assert version.startswith(P.PIPELINE_VERSION + "/spacy-")
    assert len(version.rsplit("/", 1)[1]) == 16


def test_a_retrained_pipeline_is_another_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "pipeline"
    shutil.copytree(P.pipeline_path(), copy)
    monkeypatch.setattr(P, "pipeline_path", lambda: copy)
    same = P.pipeline_version.__wrapped__()
    assert same == P.pipeline_version()
    weights = max((p for p in copy.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    data = bytearray(weights.read_bytes())
    data[-10] ^= 0xFF  # new weights
    weights.write_bytes(bytes(data))
    assert P.pipeline_version.__wrapped__() != same
