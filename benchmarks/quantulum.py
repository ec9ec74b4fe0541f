"""Score ``extract_values`` and quantulum3 on quantulum3's own English test file, and time both.

quantulum3 ships ``_lang/en_US/tests/quantities.json`` in its wheel: 101 sentences, each with the
quantities it should yield (surface, unit name, value). The file is read from the installed package
at run time (it is never copied here); without quantulum3 the benchmark says so and stops.

The match rule, for both extractors:

- every value becomes (currency or None, magnitude in pint base units, dimensionality). quantulum's
  unit names go through pint's own parser ("cubic kilometre", "joule per square metre per year"),
  with the short table ``PINT_ALIASES`` only where pint spells a name differently, and
  ``MONEY_UNITS`` for money (pint has no currencies). graphcite's units are pint names or ISO codes.
- a range counts as its midpoint (quantulum gives the midpoint as the value); a vague amount
  ("a few minutes") has no value and is not scored.
- graphcite reads "1979" as a date; a date that names one whole calendar year counts as that number
  and a decade ("1960s") as its first year, as quantulum gives them; other dates, clock times,
  versions and revisions are not quantities in quantulum's sense and are not scored.
- a predicted value matches a gold one when the currencies and dimensionalities are equal and the
  base magnitudes agree within a relative 1e-6; with ``--span overlap`` (the default) the predicted
  span must also overlap the gold surface in the sentence, ``--span exact`` asks for the same
  surface, ``--span none`` ignores spans. Each gold value matches at most one prediction.

Speed is chars/s of each extractor over the same sentences in the same run, and their ratio.

    python -m benchmarks.quantulum [--by-kind] [--misses] [--span overlap|exact|none] [--json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphcite.language.values import extract_values, ureg  # noqa: E402
from graphcite.language.values.unitwords import CURRENCY_CODES  # noqa: E402

__all__ = ["MONEY_UNITS", "PINT_ALIASES", "Scored", "load_cases", "main", "normalise_gold", "score"]

PINT_ALIASES: dict[str, str] = {
    "dimensionless": "dimensionless",
    "degree Celsius": "degree_Celsius",
    "degree fahrenheit": "degree_Fahrenheit",
    "pound-mass": "pound",
    "percentage": "percent",
    "dozen": "12 * dimensionless",
    "baker's dozen": "13 * dimensionless",
    "gross": "144 * dimensionless",
}
"""quantulum unit names that pint spells differently; every other name goes to pint as written."""

MONEY_UNITS: dict[str, tuple[str, float]] = {
    "dollar": ("USD", 1.0), "cent": ("USD", 0.01), "dime": ("USD", 0.1), "euro": ("EUR", 1.0),
    "pound sterling": ("GBP", 1.0), "penny": ("GBP", 0.01),
}
"""quantulum's money units as (ISO code, amount of that currency)."""

_INVERSE = re.compile(r"\binverse (\w+)")
_TOL = 1e-6


@dataclass(frozen=True, slots=True)
class Norm:
    """A value reduced to what the match rule compares."""

    currency: str | None
    base: float
    dims: str


@dataclass(slots=True)
class Scored:
    """Counts of one extractor on the file, with the misses by kind."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    missed: Counter[str] | None = None
    spurious: Counter[str] | None = None
    missed_items: list[tuple[str, str]] | None = None
    spurious_items: list[tuple[str, str]] | None = None

    def figures(self) -> dict[str, float]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def quantities_file() -> Path | None:
    """quantulum3's English test file in the installed package, or None when it is absent."""
    spec = importlib.util.find_spec("quantulum3")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "_lang" / "en_US" / "tests" / "quantities.json"
    return path if path.is_file() else None


def load_cases(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def _pint_norm(value: float, expression: str) -> tuple[float, str]:
    quantity = ureg.Quantity(value, ureg.parse_units(expression)) if "*" not in expression else (
        value * ureg(expression))
    base = quantity.to_base_units()
    return float(base.magnitude), str(base.dimensionality) or "dimensionless"


def _split_money(name: str, table: Callable[[str], tuple[str, float] | None]) -> tuple[str, float, str] | None:
    """("USD", 1.0, "hour") for "dollar per hour"; None when the name is not money."""
    head, _, rest = name.partition(" per ")
    found = table(head.strip())
    if found is None:
        return None
    return found[0], found[1], rest.strip()


def _money_norm(value: float, code: str, amount: float, per: str) -> Norm:
    if not per:
        return Norm(code, value * amount, "")
    base, dims = _pint_norm(value * amount, "1 / (" + per + ")")
    return Norm(code, base, dims)


def normalise_gold(value: float, name: str) -> Norm | None:
    """A quantulum (value, unit name) in base units; None when neither table nor pint knows the name."""
    money = _split_money(name, MONEY_UNITS.get)
    if money is not None:
        return _money_norm(value, *money)
    expression = PINT_ALIASES.get(name) or _INVERSE.sub(r"1 / \1", name).replace("-", "_")
    try:
        base, dims = _pint_norm(value, expression)
    except Exception:
        return None
    return Norm(None, base, dims)


def _graphcite_money(unit: str) -> tuple[str, float, str] | None:
    code, _, rest = unit.partition(" / ")
    return (code, 1.0, rest) if code in CURRENCY_CODES else None


def _year_number(low: float, high: float) -> float | None:
    first, last = dt.date.fromordinal(int(low)), dt.date.fromordinal(int(high))
    if (first.month, first.day, last.month, last.day) != (1, 1, 12, 31):
        return None
    if last.year == first.year or (last.year == first.year + 9 and first.year % 10 == 0):
        return float(first.year)
    return None


def normalise_graphcite(value: Any) -> Norm | None:
    """An ExtractedValue in base units, or None when it is not scored (see the module docstring)."""
    if value.kind in ("version", "revision"):
        return None
    if value.kind == "date":
        if value.low is None or value.high is None:
            return None
        year = _year_number(value.low, value.high)
        return None if year is None else Norm(None, year, "dimensionless")
    magnitude = value.magnitude
    if magnitude is None:
        if value.low is None or value.high is None:
            return None
        magnitude = (value.low + value.high) / 2
    if value.unit is None:
        return Norm(None, magnitude, "dimensionless") if value.kind in ("count", "number") else None
    money = _graphcite_money(value.unit)
    if money is not None:
        return _money_norm(magnitude, *money)
    try:
        base, dims = _pint_norm(magnitude, value.unit)
    except Exception:
        return None
    return Norm(None, base, dims)


def _agree(a: Norm, b: Norm) -> bool:
    return a.currency == b.currency and a.dims == b.dims and math.isclose(a.base, b.base, rel_tol=_TOL,
                                                                          abs_tol=1e-12)


_DIM_KINDS = {
    "": "money", "dimensionless": "number", "[length]": "length", "[length] ** 2": "area",
    "[length] ** 3": "volume", "[time]": "duration", "[temperature]": "temperature", "[mass]": "mass",
    "[information]": "information", "[mass] * [length] ** 2 / [time] ** 2": "energy",
}


def kind_of(gold: dict[str, Any], norm: Norm | None) -> str:
    """The kind a gold value is counted under in the breakdown: money, number, length, area, ..."""
    if norm is None:
        return "unmapped"
    if norm.currency is not None:
        return "money" if not norm.dims else "money rate"
    kind = _DIM_KINDS.get(norm.dims)
    if kind is None:
        return "rate" if "/ [time]" in norm.dims else "other unit"
    if kind == "number" and gold["unit"] != "dimensionless":
        return "number (named unit)"
    if kind == "number" and not float(gold["value"]).is_integer():
        return "fraction"
    return kind


Prediction = tuple[int, int, str, Norm | None]


def _spans_ok(mode: str, text: str, gold: dict[str, Any], pred: Prediction) -> bool:
    if mode == "none":
        return True
    if mode == "exact":
        return pred[2] == gold["surface"]
    start = text.find(gold["surface"])
    if start < 0:
        return True
    return pred[0] < start + len(gold["surface"]) and start < pred[1]


def score(cases: list[dict[str, Any]], predict: Callable[[str], Iterable[Prediction]], span: str = "overlap") -> Scored:
    """Precision/recall counts of ``predict`` on ``cases`` under the match rule."""
    result = Scored(missed=Counter(), spurious=Counter(), missed_items=[], spurious_items=[])
    for case in cases:
        text = case["req"]
        preds = [p for p in predict(text) if p[3] is not None]
        used = [False] * len(preds)
        for gold in case["res"]:
            norm = normalise_gold(float(gold["value"]), gold["unit"])
            hit = None
            if norm is not None:
                for i, pred in enumerate(preds):
                    if not used[i] and pred[3] is not None and _agree(norm, pred[3]) and _spans_ok(span, text, gold, pred):
                        hit = i
                        break
            if hit is None:
                result.fn += 1
                kind = kind_of(gold, norm)
                result.missed[kind] += 1  # type: ignore[index]
                result.missed_items.append((kind, f"{gold['surface']!r} ({gold['unit']} {gold['value']}) in {text!r}"))  # type: ignore[union-attr]
            else:
                used[hit] = True
                result.tp += 1
        for i, pred in enumerate(preds):
            if not used[i]:
                result.fp += 1
                kind = "money" if pred[3] and pred[3].currency else _DIM_KINDS.get(pred[3].dims if pred[3] else "", "other unit")
                result.spurious[kind] += 1  # type: ignore[index]
                result.spurious_items.append((kind, f"{pred[2]!r} in {text!r}"))  # type: ignore[union-attr]
    return result


def graphcite_predict(text: str) -> list[Prediction]:
    return [(v.start, v.end, v.surface, normalise_graphcite(v)) for v in extract_values(text)]


def _quantulum_parser() -> Any:
    warnings.filterwarnings("ignore")
    from quantulum3 import parser  # the benchmark peer only; never imported by graphcite itself

    return parser


def quantulum_predict(text: str) -> list[Prediction]:
    out: list[Prediction] = []
    for q in _quantulum_parser().parse(text):
        out.append((q.span[0], q.span[1], q.surface, normalise_gold(float(q.value), q.unit.name)))
    return out


def _chars_per_second(fn: Callable[[str], Any], texts: list[str], min_seconds: float) -> float:
    chars = sum(len(t) for t in texts)
    done = 0
    start = time.process_time()
    while True:
        for text in texts:
            fn(text)
        done += chars
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return done / elapsed


def run(span: str = "overlap", seconds: float = 2.0) -> dict[str, Any] | None:
    """Both extractors' figures on the file, or None when quantulum3 is not installed."""
    path = quantities_file()
    if path is None:
        return None
    cases = load_cases(path)
    parser = _quantulum_parser()
    texts = [case["req"] for case in cases]
    ours = score(cases, graphcite_predict, span)
    theirs = score(cases, quantulum_predict, span)
    ours_speed = _chars_per_second(extract_values, texts, seconds)
    theirs_speed = _chars_per_second(parser.parse, texts, seconds)
    return {"file": str(path), "cases": len(cases), "gold": ours.tp + ours.fn, "span": span,
            "graphcite": ours, "quantulum3": theirs, "graphcite_chars_per_s": ours_speed,
            "quantulum3_chars_per_s": theirs_speed}


def _print(result: dict[str, Any], by_kind: bool, misses: bool) -> None:
    print(f"{result['cases']} sentences, {result['gold']} gold values ({result['file']}); spans: {result['span']}")
    print(f"{'extractor':<12} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7} {'f1':>6} {'chars/s':>12}")
    for name in ("graphcite", "quantulum3"):
        s: Scored = result[name]
        f = s.figures()
        speed = result[f"{name}_chars_per_s"]
        print(f"{name:<12} {s.tp:>4} {s.fp:>4} {s.fn:>4} {f['precision']:>9.3f} {f['recall']:>7.3f} {f['f1']:>6.3f} "
              f"{speed:>12,.0f}")
    print(f"speed ratio graphcite / quantulum3: {result['graphcite_chars_per_s'] / result['quantulum3_chars_per_s']:.1f}x")
    if by_kind:
        for name in ("graphcite", "quantulum3"):
            s = result[name]
            print(f"{name} misses by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(s.missed.items())))
            print(f"{name} false values by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(s.spurious.items())))
    if misses:
        s = result["graphcite"]
        for kind, item in sorted(s.missed_items):
            print(f"missed   [{kind}] {item}")
        for kind, item in sorted(s.spurious_items):
            print(f"spurious [{kind}] {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quantulum", description=__doc__.splitlines()[0])
    parser.add_argument("--by-kind", action="store_true", help="misses and false values by kind")
    parser.add_argument("--misses", action="store_true", help="list graphcite's misses and false values")
    parser.add_argument("--span", choices=["overlap", "exact", "none"], default="overlap")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per speed measurement")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.span, args.seconds)
    if result is None:
        print("quantulum3 is not installed, so its test file is absent: install the bench extra "
              "(pip install -e '.[bench]') to run this benchmark; skipped.")
        return 0
    if args.json:
        row = {"benchmark": "quantulum3 quantities.json", "cases": result["cases"], "gold": result["gold"],
               "span": result["span"]}
        for name in ("graphcite", "quantulum3"):
            s = result[name]
            row[name] = {"tp": s.tp, "fp": s.fp, "fn": s.fn, **s.figures(), "chars_per_s": round(result[f"{name}_chars_per_s"]),
                         "missed_by_kind": dict(sorted(s.missed.items())),
                         "false_by_kind": dict(sorted(s.spurious.items()))}
        row["speed_ratio"] = round(result["graphcite_chars_per_s"] / result["quantulum3_chars_per_s"], 1)
        print(json.dumps(row, sort_keys=True))
        return 0
    _print(result, args.by_kind, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
