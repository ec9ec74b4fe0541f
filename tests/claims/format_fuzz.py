"""Shared fuzzing for the producer formats: mutate a real example and require an answer or one clear error.

A mutation deletes a field, or replaces a value by another JSON type, a negative, huge or fractional
number, or a string; the reader must then either read the answer (possibly with defective citations,
reported invalid for that claim only) or refuse it with one AnswerFormatError line naming the path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from graphcite.claims.formats import load_answer
from graphcite.errors import AnswerFormatError
from graphcite.models import InputAnswer

EXAMPLES = Path(__file__).resolve().parents[2] / "schema" / "examples"

REPLACEMENTS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.integers(2**63, 2**70), st.just(10**4000 + 1),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6), st.just([]), st.just({}),
    st.just([1, "x", None]), st.just({"type": "unknown"}), st.just(""), st.just("\u00e9\u4e2d\U0001f600"),
)


def example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in a JSON tree."""
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out += paths(value, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with one to three fields deleted or replaced."""
    out = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        choices = paths(out)
        if not choices:
            break
        path = draw(st.sampled_from(choices))
        parent: Any = out
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[last]
        else:
            parent[last] = copy.deepcopy(draw(REPLACEMENTS))
    return out


def read_or_refuse(data: Any, fmt: str | None = None) -> InputAnswer | None:
    """The answer, or None after checking the refusal is one AnswerFormatError line with a path."""
    try:
        answer = load_answer(data, format=fmt)
    except AnswerFormatError as error:
        line = str(error)
        assert line and "\n" not in line and len(line) < 1000, line
        assert error.code.startswith("E2") or error.code == "E105", error.code
        return None
    assert isinstance(answer, InputAnswer) and answer.answer_id
    for claim in answer.claims:
        assert claim.text == claim.text.strip() and claim.text
        for ref in claim.citations:
            assert ref.defect or ref.source or ref.chunk_id
    return answer
