"""Write graphcite/language/data/stopwords.txt from spaCy's English stop words.

The reader's stop-word list ships as a data file so that reading a word does not import spaCy
(half a second of every process start that only ingests). tests/language/test_stopwords.py checks
the file against the installed spaCy; run this script after upgrading spaCy:

    python scripts/build_stopwords.py
"""

from __future__ import annotations

from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

TARGET = Path(__file__).resolve().parents[1] / "graphcite" / "language" / "data" / "stopwords.txt"


def build() -> str:
    """The file's text: a comment line, then one lower-case stop word per line, sorted."""
    words = sorted({word.lower() for word in STOP_WORDS})
    return "# spaCy English stop words (scripts/build_stopwords.py); one per line\n" + "\n".join(words) + "\n"


if __name__ == "__main__":
    TARGET.write_text(build(), encoding="utf-8")
    print(f"wrote {TARGET} ({len(build().splitlines()) - 1} words)")
