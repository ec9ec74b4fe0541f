"""Marker detection reads a line once: text that opens with thousands of "[" was quadratic.

``looks_like_markers`` decides whether text that opens with "[" is a marker answer or broken JSON;
the key lookahead of the marker pattern scanned to the end of the line from every "[", so a body of
100,000 "[" took about 50 s (the service answered E801 after its 30 s limit instead of E207 at
once). The scan now stops at the next "[" (a marker holds none), which keeps every marker it read.
"""

from __future__ import annotations

import time

import pytest

from graphcite.claims.markers import looks_like_markers, parse_markers


@pytest.mark.parametrize("text", ["[" * 200_000, "[a" * 100_000, "[1" * 100_000, "[a.md:" * 50_000,
                                  "[" * 100_000 + "[1] The relay keeps logs."])
def test_bracket_runs_are_read_in_linear_time(text: str) -> None:
    started = time.process_time()
    looks_like_markers(text)
    assert time.process_time() - started < 2.0  # quadratic: minutes


@pytest.mark.parametrize(("text", "markers"), [
    ("[1] The relay keeps logs for seven days.\n", True),
    ("[Draft] The relay keeps logs [policy.md:3-9].\n", True),
    ("[Note] The relay keeps logs [<a [b] c.md>:1-2].\n", True),  # an angle key may hold brackets
    ("[Note] The relay keeps logs [policy.md:a-b].\n", True),  # malformed offsets are still a marker
    ("[not json, no marker\n", False),
    ('[{"answer_id": "a"}]', False),
])
def test_detection_is_unchanged(text: str, markers: bool) -> None:
    assert looks_like_markers(text) is markers


def test_an_angle_key_with_brackets_is_still_parsed() -> None:
    answer = parse_markers("The relay keeps logs for seven days [<a [b] c.md>:1-2].\n")
    [claim] = answer.claims
    assert [(c.source, c.start, c.end) for c in claim.citations] == [("a [b] c.md", 1, 2)]
