"""Typed-value extraction scored against Microsoft Recognizers-Text English specs (outside test data).

The specs live in ``../shared/data/recognizers-text``; benchmarks/recognizers.py holds the scoring,
the unit-name mapping and the excluded cases. Why cases are excluded (each listed with its reason in
``EXCLUDED`` there, and checked below to still fail, so no exclusion hides a case that now passes):

- ranges: "eight to 10 feet" is one range value for graphcite, the spec wants "10 feet" alone;
- compound measures in one span ("12 ft 2 in"): bare "in" is never read as inches in prose;
- "2 pm" is a time of day, never picometres; "turns" are not an angle unit here;
- a minus sign followed by a space ("- 20 degrees") is read as a dash;
- "twenty and four hours", "business day", "2ys", and compound durations without separators;
- "less than a couple of days": the spec puts the bound inside the span, graphcite in ``bound``;
- currency written in a non-Latin script.

Results whose value is null (a unit named without a number, "convert to fahrenheit") are not
expected at all: graphcite extracts values, not unit mentions.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT.parent / "shared" / "data" / "recognizers-text"

pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason=f"Recognizers-Text specs not found at {SPECS} "
                                "(they come with ../shared beside the project)")

# Minimum share of scored cases with span, value and unit all exactly right.
MINIMUM = {"Dimension": 0.95, "Temperature": 0.95, "Percent": 0.95, "DurationExtractor": 0.95,
           "DurationParser": 0.95, "Currency": 0.85, "Age": 0.85, "Number": 0.60}


def _benchmark() -> ModuleType:
    name = "graphcite_bench_recognizers"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "recognizers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _benchmark()


@pytest.mark.parametrize("model", sorted(MINIMUM))
def test_minimum_score(bench: ModuleType, model: str) -> None:
    result = bench.score_file(model, SPECS)
    assert result["scored"] >= 0.8 * result["cases"], "too many cases excluded"
    missed = [f"#{f['index']} {f['input'][:60]!r}" for f in result["failures"]]
    assert result["score"] >= MINIMUM[model], f"{model}: {result['score']:.1%} < {MINIMUM[model]:.0%}; {missed}"


def test_every_exclusion_is_real_and_still_fails(bench: ModuleType) -> None:
    for model, excluded in bench.EXCLUDED.items():
        cases = json.loads((SPECS / bench.SPECS[model]).read_text(encoding="utf-8-sig"))
        result = bench.score_file(model, SPECS, subset=set(excluded))
        assert result["scored"] == 0
        for index, reason in excluded.items():
            assert 0 <= index < len(cases) and len(reason) > 10, (model, index)
        # an excluded case that now passes should be put back into the score
        passing = result["raw_score"] * result["cases"]
        assert passing == 0, f"{model}: an excluded case passes now; remove it from EXCLUDED"


@pytest.mark.parametrize(("model", "index"), [
    ("Dimension", 4),      # "10 1/2 miles": a mixed fraction
    ("Dimension", 67),     # "10 Kilometers per hour", "10kph", "10kmph", "10km/hr"
    ("Dimension", 50),     # "100 MB" is megabytes, "100 mb" megabits
    ("Dimension", 78),     # "24703 L-202" is an identifier, not litres
    ("Temperature", 14),   # "98 degrees" with a temperature nearby
    ("Percent", 14),       # "minus five percent"
    ("DurationParser", 38),  # "an hour and a half"
    ("Currency", 2),       # "$94,000"
    ("Age", 3),            # "ninety five years of age"
])
def test_named_cases(bench: ModuleType, model: str, index: int) -> None:
    result = bench.score_file(model, SPECS, subset={index})
    assert result["correct"] == 1, result["failures"]
