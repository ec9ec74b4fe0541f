"""The value scanner's anchors are found lazily and short texts are remembered: neither changes a value.

The reference below is the scan as it was before (every anchor of the text listed up front, sorted,
then visited unless the scanner's floor has passed it); the lazy scan must visit the same anchors and so
give the same values on any text, hashes, URLs, words whose lowercase is longer and runs cut by a value
included.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.language.values import extract
from graphcite.language.values.extract import MEMO_CHARS, _extract, _Scanner, extract_values, values_in
from graphcite.language.values.patterns import DIGIT_ANCHOR, URL, WORD_ANCHOR, WORD_ANCHOR_LOWER
from graphcite.models import ExtractedValue


def reference(text: str, default_unit: str | None = None) -> list[ExtractedValue]:
    """Every anchor listed first, then visited in order (the scan before the lazy one)."""
    if not text:
        return []
    digits = [(m.start(), 0, m.end()) for m in DIGIT_ANCHOR.finditer(text)]
    lowered = text.lower()
    pattern, source = (WORD_ANCHOR_LOWER, lowered) if len(lowered) == len(text) else (WORD_ANCHOR, text)
    anchors = sorted(digits + [(m.start(), 1, m.end()) for m in pattern.finditer(source)])
    urls = [(m.start(), m.end()) for m in URL.finditer(text)] if "://" in text or "www." in text else []
    scanner = _Scanner(text, default_unit)
    url_index = 0
    for pos, is_word, anchor_end in anchors:
        if pos < scanner.floor:
            continue
        while url_index < len(urls) and urls[url_index][1] <= pos:
            url_index += 1
        if url_index < len(urls) and urls[url_index][0] <= pos:
            scanner.floor = urls[url_index][1]
            continue
        try:
            (scanner.at_word if is_word else scanner.at_digit)(pos, anchor_end)
        except (ValueError, OverflowError, ZeroDivisionError, IndexError):
            scanner.floor = max(scanner.floor, pos + 1)
    return scanner.out


PIECES = ["0", "7", "8m2", "m", "12", "2024", "3.5", "1,200", "½", " ", " ", ".", ",", "-", "/", ":", "#", "%", "$", "€",
          "\n", "\n1. ", "a", "b", "x", "v", "ms", " ms", " days", " hours", " per second", " GiB", " MB",
          "one", "two", "twenty", "half", "dozen", "hundred", "minutes", "İ", "ẞ", "é", "release ", "version ",
          "between ", " and ", "at most ", "about ", "3a69b7689b", "http://h.io/v1.2/3", "www.x9.org/12 ",
          "2024-03-15", "March ", "11/29/2023", "7 pm", "±", "x10", "#4411", "RFC 7231"]

texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=600, deadline=None)
@given(texts, st.sampled_from([None, "millisecond", "percent"]))
def test_lazy_anchors_give_the_values_of_a_full_scan(text: str, default_unit: str | None) -> None:
    assert _extract(text, default_unit) == reference(text, default_unit)


def test_lazy_anchors_on_runs_the_floor_cuts_and_on_urls() -> None:
    for text in ("build 3a69b7689b1 ran 12 ms", "v1.2.3 then 45 ms", "see https://x.io/a/123/b 7 days",
                 "İstanbul 5 km and 12 retries", "2024-03-15T09:30Z then 40 ms", "12345 ms 678", "ⅷ 1½ hours",
                 "8m2½ days"):  # "8m2" ends inside the run "2½": the "½" left over is no anchor
        assert _extract(text, None) == reference(text)


def test_short_texts_are_remembered_and_long_ones_are_not() -> None:
    short = "| 300 | 16 MB |"
    assert len(short) <= MEMO_CHARS
    first, again = values_in(short, "millisecond"), values_in(short, "millisecond")
    assert first is again and isinstance(first, tuple)
    assert list(first) == _extract(short, "millisecond") != _extract(short, None) == list(values_in(short))
    copy = extract_values(short, default_unit="millisecond")
    assert copy == list(first) and copy is not extract_values(short, default_unit="millisecond")
    copy.clear()  # a caller's list is its own: the memo keeps its values
    assert values_in(short, "millisecond") == first
    long = "The relay waited 250 ms. " * 5
    assert len(long) > MEMO_CHARS and values_in(long) is not values_in(long)
    assert extract._remembered.cache_info().maxsize and values_in(long) == _extract(long, None)
