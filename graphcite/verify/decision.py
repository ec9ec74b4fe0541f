"""The calibrated support decision: soft signals as features, combined by a fitted logistic model.

The precise rules stay vetoes (a wrong number, a negation, a swapped name). What is left once no rule
vetoes is a judgement of degree: how much of the claim the evidence says, how much of it only by
paraphrase or through a broader word, how much lexical overlap there is, which rules the
configuration reports as notes. Those signals were compared with hand-set thresholds; here they are
features of one logistic model whose weights ``scripts/fit_decision.py`` fits on the labelled
development parts and ships as configuration (``decision.yaml`` in this folder). The model's
probability is compared with the threshold the script chose on the pooled development data, and
every term's contribution (weight x value, in log-odds) is reported with the verdict.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphcite.language.align import Alignment

__all__ = ["DECISION_FILE", "DECISION_JSON", "FEATURES", "NOTE_FEATURES", "Decision", "DecisionModel", "alignment_features",
           "features_for"]

#: the model that ships with graphcite, fitted by scripts/fit_decision.py
DECISION_FILE = Path(__file__).resolve().parent / "decision.yaml"
#: the same model as JSON, written beside it by the same script: what a check reads (no PyYAML on its path)
DECISION_JSON = DECISION_FILE.with_suffix(".json")

# a paraphrased slot found only through a class and its member ("instrument" for "guitar")
_CLASS = frozenset({"hyponym", "hypernym"})

#: the rules reported as notes in the general configuration; each is a feature (1 when it noted)
NOTE_FEATURES: tuple[str, ...] = ("GC402", "GC501", "GC502", "GC503", "GC504", "GC603", "GC901")

#: every feature the model reads, in the order the weights are stored
FEATURES: tuple[str, ...] = (
    "share_found",        # weighted share of the claim's slots found, directly or by paraphrase
    "share_direct",       # ... found as written (or as an acronym)
    "share_paraphrase",   # ... found by a synonym, a derived form, parts of a compound
    "share_class",        # ... found only through a broader or narrower word (WordNet hyponymy)
    "missing_words",      # content-word slots not found (capped at 4, over 4)
    "missing_light",      # light-word slots not found (capped at 4, over 4)
    "few_slots",          # 1 / (1 + slot weight): a claim that asserts little
    "no_slots",           # the claim has no slot at all ("OK.", "It is so.")
    "lexical_overlap",    # share of the claim's content terms in the evidence envelope
    "evidence_words",     # log(1 + words of the quote) / 5: a long quote aligns by chance
    *(f"note_{code}" for code in NOTE_FEATURES),
)


def alignment_features(found: Alignment) -> dict[str, float]:
    """The features the slot alignment gives: shares of slot weight by how each slot was found."""
    total = sum(s.weight for s in found.slots)
    direct = paraphrase = by_class = 0.0
    missing_words = missing_light = 0
    for slot in found.slots:
        if slot.status == "found":
            direct += slot.weight
        elif slot.status == "paraphrase":
            if slot.relation in _CLASS:
                by_class += slot.weight
            else:
                paraphrase += slot.weight
        elif slot.status == "missing":
            if slot.weight >= 1.0:
                missing_words += 1
            else:
                missing_light += 1
    share = (lambda w: w / total) if total else (lambda w: 0.0)
    return {
        "share_found": found.score if total else 0.0,
        "share_direct": share(direct),
        "share_paraphrase": share(paraphrase),
        "share_class": share(by_class),
        "missing_words": min(missing_words, 4) / 4,
        "missing_light": min(missing_light, 4) / 4,
        "few_slots": 1.0 / (1.0 + total),
        "no_slots": 0.0 if found.slots else 1.0,
    }


def features_for(found: Alignment, lexical_overlap: float, quote: str, noted: Iterable[str]) -> dict[str, float]:
    """Every feature of one claim/evidence pair: the alignment's, the lexical overlap, the quote's
    length and the codes of the rules that noted something (failures the configuration demotes)."""
    out = alignment_features(found)
    out["lexical_overlap"] = float(lexical_overlap)
    out["evidence_words"] = math.log1p(len(quote.split())) / 5
    codes = set(noted)
    for code in NOTE_FEATURES:
        out[f"note_{code}"] = 1.0 if code in codes else 0.0
    return out


@dataclass(frozen=True, slots=True)
class Decision:
    """The model's verdict on one pair: probability of support, the threshold, each term's share."""

    probability: float
    threshold: float
    contributions: tuple[tuple[str, float, float], ...]  # (feature, value, weight x value), bias first
    blocked: str = ""  # why support is ruled out whatever the probability ("the claim asserts nothing")

    @property
    def supports(self) -> bool:
        return not self.blocked and self.probability >= self.threshold

    def contribution(self, feature: str) -> float:
        return next((c for name, _, c in self.contributions if name == feature), 0.0)

    def summary(self, limit: int = 4) -> str:
        """The probability against the threshold and the largest terms, for a finding's detail."""
        terms = sorted((t for t in self.contributions if t[0] != "bias" and t[2]), key=lambda t: -abs(t[2]))
        shown = ", ".join(f"{name} {value:.2f} ({c:+.2f})" for name, value, c in terms[:limit])
        head = f"p(supports) {self.probability:.2f} {'>=' if self.probability >= self.threshold else '<'} " \
               f"{self.threshold:.2f}" + (f"; {self.blocked}" if self.blocked else "")
        return head + (f"; {shown}" if shown else "")


@dataclass(frozen=True, slots=True)
class DecisionModel:
    """A fitted logistic model: bias, one weight per feature, and the decision threshold."""

    bias: float
    weights: tuple[tuple[str, float], ...]
    threshold: float
    fitted_on: tuple[str, ...] = ()
    note: str = ""

    @property
    def digest(self) -> str:
        """A short digest of the bias, the weights and the threshold (what changes a verdict)."""
        blob = json.dumps({"bias": self.bias, "weights": list(self.weights), "threshold": self.threshold},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def decide(self, features: Mapping[str, float]) -> Decision:
        weights = dict(self.weights)
        terms = [("bias", 1.0, self.bias)]  # every feature is listed, weighted or not, so the record is whole
        terms.extend((name, value, weights.get(name, 0.0) * value) for name in FEATURES
                     if (value := features.get(name, 0.0)) or name in weights)
        logit = sum(t[2] for t in terms)
        probability = 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0
        return Decision(round(probability, 4), self.threshold,
                        tuple((name, round(value, 4), round(c, 4)) for name, value, c in terms))

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], features: Sequence[str] = FEATURES) -> DecisionModel:
        """Read the file's mapping (YAML or JSON): ``bias``, ``threshold``, ``weights: {feature: weight}``; unknown features
        and missing numbers raise ValueError (the caller names the file)."""
        weights = data.get("weights")
        if not isinstance(weights, Mapping):
            raise ValueError("weights: expected a mapping of feature -> weight")
        unknown = sorted(set(weights) - set(features))
        if unknown:
            raise ValueError(f"unknown feature {unknown[0]!r} in weights")
        try:
            bias = float(data["bias"])  # type: ignore[arg-type]
            threshold = float(data["threshold"])  # type: ignore[arg-type]
            ordered = tuple((name, float(weights[name])) for name in features if name in weights)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bias, threshold and every weight must be numbers ({exc})") from exc
        if not 0.0 < threshold < 1.0:
            raise ValueError("threshold must lie between 0 and 1")
        fitted = data.get("fitted_on") or ()
        return cls(bias, ordered, threshold, tuple(str(f) for f in fitted) if isinstance(fitted, list) else (),
                   str(data.get("note", "")))
