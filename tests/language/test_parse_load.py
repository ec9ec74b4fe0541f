"""The shipped pipeline loads with its tokenizer built empty and filled from the saved one: the same
tokenizer, field for field, and the same parses as an ordinary ``spacy.load`` of the same folder."""

from __future__ import annotations

from pathlib import Path

import spacy

from graphcite.language import parse as P

ROOT = Path(__file__).resolve().parents[2]


def test_the_quickly_loaded_pipeline_tokenizes_and_parses_as_spacy_load_does() -> None:
    ordinary = spacy.load(P.pipeline_path())
    loaded = P.parser()
    # (the vocab left out: the process's pipeline has met the strings of every text parsed before)
    assert loaded.tokenizer.to_bytes(exclude=["vocab"]) == ordinary.tokenizer.to_bytes(exclude=["vocab"])
    assert loaded.tokenizer.rules and loaded.tokenizer.rules == ordinary.tokenizer.rules
    texts = []
    for path in sorted((ROOT / "graphcite" / "examples" / "corpus").rglob("*.md"))[:6]:
        texts += [line for line in path.read_text(encoding="utf-8").splitlines() if len(line) > 30][:8]
    texts += ["Don't retry; it's the U.S. team's call (e.g. at 5:30 p.m.) -- see https://example.org/a?b=1.",
              "We'll ship v2.3.1 on 2024-09-01, won't we?"]
    assert len(texts) > 20
    for text in texts:
        assert P.serialise(loaded(text)) == P.serialise(ordinary(text)), text
