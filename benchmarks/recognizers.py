"""Score graphcite's typed-value extraction against Microsoft Recognizers-Text English specs.

Each spec case has an input sentence and the values a recognizer must find (span, value, unit).
A case counts as correct when the values graphcite extracts, restricted to the spec's type
(dimension, temperature, currency, age, percent, duration or plain number), are exactly the
expected ones: same spans, same values, same units after mapping Recognizers' unit names to
graphcite's (pint names and ISO currency codes).

Two things are left out of the expected results on purpose, and said so in the output:
- results whose value is null: a unit named without a number ("convert to fahrenheit"); graphcite
  extracts values, not unit mentions;
- cases in ``EXCLUDED``, each with its reason.

Run: ``python benchmarks/recognizers.py`` (add ``--json`` for machines, ``--failures`` to list misses).
The specs live in ``../shared/data/recognizers-text`` beside the project.

``--speed`` measures extraction throughput instead: CPU time of ``extract_values`` over a few MB of
generated prose, paragraph by paragraph as ingest calls it, with numbers at a stated density and
without any.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphcite.ingest.numbers import find_numbers  # noqa: E402
from graphcite.ingest.values import extract_values  # noqa: E402
from graphcite.models import ExtractedValue  # noqa: E402

__all__ = ["DEFAULT_SPECS", "EXCLUDED", "SPECS", "generate_prose", "measure_speed", "score_all", "score_file"]

DEFAULT_SPECS = ROOT.parent / "shared" / "data" / "recognizers-text"

SPECS: dict[str, str] = {
    "Dimension": "NumberWithUnit/English/DimensionModel.json",
    "Temperature": "NumberWithUnit/English/TemperatureModel.json",
    "Percent": "Number/English/PercentModel.json",
    "DurationExtractor": "DateTime/English/DurationExtractor.json",
    "DurationParser": "DateTime/English/DurationParser.json",
    "Currency": "NumberWithUnit/English/CurrencyModel.json",
    "Age": "NumberWithUnit/English/AgeModel.json",
    "Number": "Number/English/NumberModel.json",
}

_RANGE = "graphcite reads 'A to B <unit>' as one range value; the spec wants only the second number"
_COMPOUND = "compound measure in one span ('12 ft 2 in'); bare 'in' is never read as inches in prose"
_NON_ENGLISH = "currency written in a non-Latin script"
EXCLUDED: dict[str, dict[int, str]] = {
    "Dimension": {
        10: _RANGE,
        39: _RANGE + " ('ef 75 -300mm' is a lens focal range)",
        52: "'2 pm' is read as a time of day, never as picometres",
        61: _COMPOUND, 62: _COMPOUND,
        91: "'a half turn' / 'turns' are not read as angles: 'turns' counts turns far more often in prose",
        92: "'a half turn' / 'turns' are not read as angles: 'turns' counts turns far more often in prose",
    },
    "Temperature": {
        31: "'- 20' with a space after the minus is read as a dash, not a sign",
    },
    "DurationExtractor": {
        16: "'twenty and four hours' is not read as 24 ('between twenty and four hundred' must stay apart)",
        55: "ascending compound ('2 days 1 month') is read as two values",
        58: "'business day' is not a unit",
        59: "'business day' is not a unit",
        62: "'2ys' is not an abbreviation graphcite reads",
        63: "'2 ys' is not an abbreviation graphcite reads",
    },
    "DurationParser": {
        15: "'twenty and four hours' is not read as 24 ('between twenty and four hundred' must stay apart)",
        43: "compound duration without separators ('1 year 1 month 21 days') is read as three values",
        44: "ascending compound ('2 days 1 month') is read as two values",
        45: "compound duration without separators ('one week three days') is read as two values",
        48: "'less than a couple of days' is one value in the spec; graphcite puts 'less than' in the bound",
        49: "'more than an hour' is one value in the spec; graphcite puts 'more than' in the bound",
        53: "'business day' is not a unit",
    },
    "Currency": {
        109: _NON_ENGLISH,
    },
}

# Recognizers' unit names -> graphcite units (and a factor for minor currency units).
_UNITS: dict[str, list[tuple[str | None, float]]] = {
    "Pound": [("pound", 1.0), ("GBP", 1.0)], "Milliliter": [("milliliter", 1.0)], "Inch": [("inch", 1.0)],
    "Mile": [("mile", 1.0)], "Barrel": [("oil_barrel", 1.0)], "Foot": [("foot", 1.0)],
    "Ounce": [("ounce", 1.0)], "Acre": [("acre", 1.0)], "Gallon": [("gallon", 1.0)],
    "Cubic foot": [("cubic_foot", 1.0)], "Square meter": [("meter ** 2", 1.0)],
    "Ton": [("ton", 1.0), ("metric_ton", 1.0)], "Metric ton": [("metric_ton", 1.0)], "Bit": [("bit", 1.0)],
    "Mile per hour": [("mile_per_hour", 1.0)], "Meter": [("meter", 1.0)], "Kilometer": [("kilometer", 1.0)],
    "Millimeter": [("millimeter", 1.0)], "Square kilometer": [("kilometer ** 2", 1.0)],
    "Decimeter": [("decimeter", 1.0)], "Megabit": [("megabit", 1.0)], "Megabyte": [("megabyte", 1.0)],
    "Picometer": [("picometer", 1.0)], "Tablespoon": [("tablespoon", 1.0)], "Cup": [("cup", 1.0)],
    "Teaspoon": [("teaspoon", 1.0)], "Kilometer per hour": [("kilometer_per_hour", 1.0)],
    "Dram": [("dram", 1.0)], "Meter per millisecond": [("meter / millisecond", 1.0)],
    "Centimeter per millisecond": [("centimeter / millisecond", 1.0)],
    "Kilometer per millisecond": [("kilometer / millisecond", 1.0)], "Kilogram": [("kilogram", 1.0)],
    "Microgram": [("microgram", 1.0)], "Gram": [("gram", 1.0)], "Degree": [("degree", 1.0), (None, 1.0)],
    "Radian": [("radian", 1.0)], "Turn": [("turn", 1.0)],
    "C": [("degree_Celsius", 1.0)], "F": [("degree_Fahrenheit", 1.0)], "K": [("kelvin", 1.0)],
    "Year": [("year", 1.0)], "Month": [("month", 1.0)], "Week": [("week", 1.0)], "Day": [("day", 1.0)],
    "Dollar": [("USD", 1.0)], "Cent": [("USD", 0.01)], "Pence": [("GBP", 0.01)], "Penny": [("GBP", 0.01)],
    "Euro": [("EUR", 1.0)], "British pound": [("GBP", 1.0)], "Japanese yen": [("JPY", 1.0)],
    "Chinese yuan": [("CNY", 1.0)], "Rupee": [("INR", 1.0)], "Bitcoin": [("BTC", 1.0)],
    "Finnish markka": [("FIM", 1.0)], "Peseta": [("ESP", 1.0)], "Netherlands guilder": [("NLG", 1.0)],
}
# Recognizers' duration convention (TimexUtility): a year is 365 days and a month 30.
_SECONDS = {"nanosecond": 1e-9, "microsecond": 1e-6, "millisecond": 1e-3, "second": 1.0, "minute": 60.0,
            "hour": 3600.0, "day": 86400.0, "week": 604800.0, "fortnight": 1209600.0, "month": 2592000.0,
            "year": 31536000.0, "decade": 315360000.0, "century": 3153600000.0}
_KINDS = {"Dimension": {"quantity"}, "Temperature": {"temperature"}, "Percent": {"percent"},
          "Currency": {"money"}, "DurationExtractor": {"duration"}, "DurationParser": {"duration"}}


def _mine(model: str, text: str) -> list[tuple[int, int, float | None, str | None, float]]:
    """graphcite's results for one input as (start, end, value, unit, factor) restricted to the model."""
    if model == "Number":
        return [(n.start, n.end, n.value, None, 1.0) for n in find_numbers(text)]
    values: list[ExtractedValue] = extract_values(text)
    if model == "Age":
        chosen = [v for v in values if v.kind == "duration" and v.measured == "age"]
    else:
        chosen = [v for v in values if v.kind in _KINDS[model]]
    return [(v.start, v.end, v.magnitude, v.unit, 1.0) for v in chosen]


def _expected(model: str, case: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for result in case.get("Results", []):
        start = result["Start"]
        end = start + result["Length"] if "Length" in result else result["End"] + 1
        resolution = result.get("Resolution") or {}
        value: float | None = None
        unit = resolution.get("unit")
        if model == "DurationParser":
            value = float(result["Value"]["FutureResolution"]["duration"])
        elif model != "DurationExtractor":
            raw = resolution.get("value")
            if raw in (None, "null"):
                continue  # a unit named without a number: not a value
            value = float(str(raw).rstrip("%"))
        if model == "Currency" and unit not in _UNITS and resolution.get("isoCurrency"):
            unit = resolution["isoCurrency"]
        out.append({"start": start, "end": end, "value": value, "unit": unit})
    return out


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return False
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _matches(model: str, exp: dict[str, Any], got: tuple[int, int, float | None, str | None, float]) -> bool:
    start, end, value, unit, _ = got
    if (start, end) != (exp["start"], exp["end"]):
        return False
    if model == "DurationExtractor":
        return True
    if model == "DurationParser":
        return value is not None and unit in _SECONDS and _close(value * _SECONDS[unit], exp["value"])
    if model in ("Number", "Percent"):
        return _close(value, exp["value"])
    candidates = _UNITS.get(exp["unit"], [(exp["unit"], 1.0)])
    return any(unit == name and value is not None and _close(value, exp["value"] * factor)
               for name, factor in candidates)


def _case_ok(model: str, expected: list[dict[str, Any]], got: list[tuple]) -> bool:
    if len(expected) != len(got):
        return False
    remaining = list(got)
    for exp in expected:
        for i, candidate in enumerate(remaining):
            if _matches(model, exp, candidate):
                del remaining[i]
                break
        else:
            return False
    return not remaining


def score_file(model: str, specs: Path = DEFAULT_SPECS, *, subset: set[int] | None = None) -> dict[str, Any]:
    """Score one spec file; ``subset`` limits the run to those case indexes (tests use a fixed subset)."""
    cases = json.loads((specs / SPECS[model]).read_text(encoding="utf-8-sig"))
    excluded = EXCLUDED.get(model, {})
    correct = scored = raw_correct = 0
    failures = []
    for index, case in enumerate(cases):
        if subset is not None and index not in subset:
            continue
        expected = _expected(model, case)
        got = _mine(model, case["Input"])
        ok = _case_ok(model, expected, got)
        raw_correct += ok
        if index in excluded:
            continue
        scored += 1
        correct += ok
        if not ok:
            failures.append({"index": index, "input": case["Input"], "expected": expected,
                             "got": [list(g[:4]) for g in got]})
    total = len(cases) if subset is None else len(subset & set(range(len(cases))))
    return {"model": model, "file": SPECS[model], "cases": total, "excluded": total - scored,
            "scored": scored, "correct": correct, "score": correct / scored if scored else 0.0,
            "raw_score": raw_correct / total if total else 0.0, "failures": failures,
            "exclusions": {str(k): v for k, v in sorted(excluded.items())}}


def score_all(specs: Path = DEFAULT_SPECS) -> list[dict[str, Any]]:
    """Score every spec file."""
    return [score_file(model, specs) for model in SPECS]


_SUBJECTS = ["the billing service", "our upload pipeline", "each storage node", "the nightly export", "the API gateway",
             "the retry worker", "this cluster", "the search index", "the support rota", "the carrier adapter"]
_VERBS = ["keeps", "rejects", "compacts", "forwards", "tracks", "replays", "archives", "throttles", "batches", "signs"]
_OBJECTS = ["incoming webhooks", "audit entries", "stale sessions", "customer exports", "queued jobs",
            "failed deliveries", "checksum reports", "partner invoices"]
_TAILS = ["before the window closes", "when the queue backs up", "under normal load", "for every tenant",
          "after the schema change", "during planned maintenance", "unless an operator steps in", "by design"]
_VALUES = ["within 200 ms", "for 14 days", "after 3 retries", "at 12.5% of peak", "for $1,250 a month",
           "every 2 weeks", "with 512 MiB of memory", "after three attempts", "since version 2.1.0",
           "for between 3 and 5 days", "for at most 30 seconds", "in batches of 1,024 records", "below -18 °C",
           "while p99 latency was 180 ms", "across five adapters", "as of 2024", "after 6 hours of investigation",
           "at 20 req/s", "at 100 MB/s", "from revision 31", "on 2024-03-01", "since 1 March 2024",
           "with a maximum of 8 GB", "for about two hours", "at up to 40 requests per second"]


def generate_prose(n_chars: int, *, values_per_sentence: float = 0.5, seed: int = 7) -> list[str]:
    """Paragraphs of plain technical prose (about ``n_chars``) with values in some sentences."""
    rnd = random.Random(seed)
    paragraphs: list[str] = []
    size = 0
    while size < n_chars:
        sentences = []
        for _ in range(rnd.randint(3, 7)):
            sentence = f"{rnd.choice(_SUBJECTS).capitalize()} {rnd.choice(_VERBS)} {rnd.choice(_OBJECTS)}"
            if rnd.random() < values_per_sentence:
                sentence += " " + rnd.choice(_VALUES)
            sentences.append(sentence + f" {rnd.choice(_TAILS)}.")
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return paragraphs


def measure_speed(n_chars: int = 2_000_000, repeats: int = 3) -> list[dict[str, Any]]:
    """CPU-time throughput of extract_values on generated prose at four value densities (best of repeats)."""
    for paragraph in generate_prose(100_000, values_per_sentence=1.0, seed=1):
        extract_values(paragraph)  # warm the lemma table and the unit caches
    results = []
    for label, density in (("no numbers", 0.0), ("sparse (1 value per 4 sentences)", 0.25),
                           ("ordinary (1 value per 2 sentences)", 0.5), ("dense (1 value per sentence)", 1.0)):
        paragraphs = generate_prose(n_chars, values_per_sentence=density)
        size = sum(len(p.encode("utf-8")) for p in paragraphs)
        elapsed = float("inf")
        found = 0
        for _ in range(repeats):
            started = time.process_time()
            found = sum(len(extract_values(p)) for p in paragraphs)
            elapsed = min(elapsed, time.process_time() - started)
        results.append({"prose": label, "mb": round(size / 1e6, 2), "values": found,
                        "values_per_kb": round(found / (size / 1000), 2),
                        "mb_per_s": round(size / 1e6 / elapsed, 2) if elapsed else None})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--failures", action="store_true", help="list the cases that were missed")
    parser.add_argument("--specs", type=Path, default=DEFAULT_SPECS, help="folder of the Recognizers specs")
    parser.add_argument("--model", choices=sorted(SPECS), action="append", help="score only this file")
    parser.add_argument("--speed", action="store_true", help="measure extract_values throughput instead")
    args = parser.parse_args(argv)
    if args.speed:
        speeds = measure_speed()
        if args.json:
            print(json.dumps(speeds, indent=2))
        else:
            for row in speeds:
                print(f"{row['prose']:<38} {row['mb']:>5} MB {row['values_per_kb']:>6} values/KB "
                      f"{row['mb_per_s']:>7} MB/s (CPU time)")
        return 0
    if not args.specs.is_dir():
        print(f"specs not found: {args.specs} (expected ../shared/data/recognizers-text)", file=sys.stderr)
        return 2
    models = args.model or list(SPECS)
    results = [score_file(model, args.specs) for model in models]
    if args.json:
        if not args.failures:
            for result in results:
                result.pop("failures")
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    print(f"{'file':<46} {'cases':>5} {'excl':>5} {'ok':>5} {'score':>7} {'raw':>7}")
    for r in results:
        print(f"{r['file']:<46} {r['cases']:>5} {r['excluded']:>5} {r['correct']:>5} {r['score']:>7.1%} "
              f"{r['raw_score']:>7.1%}")
    print("null-valued results (a unit named without a number) are not expected; 'raw' counts every case")
    if args.failures:
        for r in results:
            for failure in r["failures"]:
                print(f"\n[{r['model']} #{failure['index']}] {failure['input']!r}")
                print("  expected:", [(e["start"], e["end"], e["value"], e["unit"]) for e in failure["expected"]])
                print("  got:     ", [tuple(g) for g in failure["got"]])
    counts = Counter(r["model"] for r in results)
    return 0 if counts else 1


if __name__ == "__main__":
    sys.exit(main())
