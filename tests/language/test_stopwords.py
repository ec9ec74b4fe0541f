"""The shipped stop-word list is spaCy's, and reading words does not import spaCy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_stop_words_match_the_installed_spacy() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from build_stopwords import TARGET, build
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert TARGET.read_text(encoding="utf-8") == build(), "run `python scripts/build_stopwords.py`"


def test_stop_words_keep_negations_out() -> None:
    from graphcite.language.words import STOPWORDS

    assert {"the", "of", "which"} <= STOPWORDS
    assert not {"no", "not", "never", "none", "nor"} & STOPWORDS


def test_ingest_and_lemmas_do_not_import_spacy() -> None:
    code = ("import sys, graphcite.ingest\n"
            "from graphcite.language.nlp import lemma\n"
            "from graphcite.ingest.terms import content_terms\n"
            "assert lemma('putting') == 'put' and lemma('Retries') == 'retry'\n"
            "content_terms('The relays were putting retries on hold.')\n"
            "print('spacy' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert shown.stdout.strip() == "False"
