"""The calibrated support decision: the shipped model, its contributions in every verdict, its hash."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from graphcite.claims import decompose
from graphcite.errors import ConfigError
from graphcite.models import Outcome, Relation
from graphcite.verify.config import VerifierConfig, load_config, load_decision
from graphcite.verify.decision import DECISION_FILE, DECISION_JSON, FEATURES, DecisionModel
from graphcite.verify.engine import PairVerdict, evaluate_pair
from graphcite.verify.evidence import evidence_from_text


def _pair(claim: str, evidence: str, config: VerifierConfig | None = None) -> PairVerdict:
    part = decompose(claim)[0]
    return evaluate_pair(part, evidence_from_text(evidence), config or VerifierConfig())


def test_the_shipped_model_weighs_every_feature_and_was_fitted_on_development_parts_only() -> None:
    data = yaml.safe_load(DECISION_FILE.read_text(encoding="utf-8"))
    model = load_decision(DECISION_FILE)
    assert [name for name, _ in model.weights] == list(FEATURES)
    assert 0.0 < model.threshold < 1.0
    assert data["fitted_on"] and all(" dev " in item for item in data["fitted_on"])
    assert not any("heldout" in item or "held-out" in item for item in data["fitted_on"])
    assert VerifierConfig().decision_model() == model


def test_the_json_twin_holds_the_yaml_model_and_is_what_a_check_reads() -> None:
    # scripts/fit_decision.py --write writes both; a hand edit of one alone fails here
    assert json.loads(DECISION_JSON.read_text(encoding="utf-8")) == yaml.safe_load(
        DECISION_FILE.read_text(encoding="utf-8"))
    from_json, from_yaml = load_decision(DECISION_JSON), load_decision(DECISION_FILE)
    assert from_json == from_yaml and from_json.digest == from_yaml.digest
    assert VerifierConfig().decision_model() is from_json


def test_a_check_reads_the_default_model_without_pyyaml() -> None:
    probe = ("import sys; from graphcite.verify.config import VerifierConfig; "
             "m = VerifierConfig().decision_model(); print(m.threshold, 'yaml' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    threshold, yaml_loaded = done.stdout.split()
    assert float(threshold) == load_decision(DECISION_FILE).threshold and yaml_loaded == "False"


def test_contributions_add_up_to_the_log_odds_of_the_probability() -> None:
    model = DecisionModel(-1.0, (("share_found", 3.0), ("lexical_overlap", 0.5)), 0.6)
    decision = model.decide({"share_found": 0.8, "lexical_overlap": 0.4, "no_slots": 0.0})
    logit = sum(c for _, _, c in decision.contributions)
    assert logit == pytest.approx(-1.0 + 2.4 + 0.2, abs=1e-3)
    assert decision.probability == pytest.approx(1 / (1 + math.exp(-logit)), abs=1e-4)
    assert decision.supports is (decision.probability >= 0.6)
    assert decision.contribution("share_found") == pytest.approx(2.4)
    assert "p(supports)" in decision.summary()


def test_a_supported_verdict_lists_each_finding_with_its_contribution() -> None:
    verdict = _pair("The ferry carries bicycles on the lower deck.",
                    "The ferry carries bicycles on the lower deck every morning.")
    assert verdict.relation is Relation.SUPPORTS
    assert verdict.decision is not None and verdict.decision.supports
    support = verdict.findings[0]
    assert support.code == "GC201" and support.outcome is Outcome.PASS and support.contribution is not None
    soft = sum(f.contribution for f in verdict.findings if f.contribution is not None)
    assert soft == pytest.approx(sum(c for _, _, c in verdict.decision.contributions), abs=1e-3)
    p = verdict.decision.probability
    out = verdict.as_dict()
    assert out["decision"].probability == p
    assert {t.feature for t in out["decision"].terms} >= {"bias", "share_found"}


def test_a_claim_that_asserts_nothing_is_never_supported() -> None:
    for claim in ("OK.", "It is so.", "x"):
        part = decompose(claim)[0] if decompose(claim) else None
        if part is None:
            continue
        verdict = evaluate_pair(part, evidence_from_text("The ferry carries bicycles."), VerifierConfig())
        assert verdict.relation is not Relation.SUPPORTS, claim


def test_a_vetoed_pair_stays_vetoed_whatever_the_model_says(tmp_path: Path) -> None:
    eager = tmp_path / "eager.yaml"
    eager.write_text("bias: 20.0\nthreshold: 0.5\nweights: {share_found: 1.0}\n", encoding="utf-8")
    verdict = _pair("Refunds are accepted for 14 days.", "Refunds are accepted for 30 days.",
                    VerifierConfig(decision=str(eager)))
    assert verdict.decision is not None and verdict.decision.supports
    assert verdict.relation is Relation.CONTRADICTS
    assert any(f.code == "GC301" and f.outcome is Outcome.FAIL and f.contribution is None for f in verdict.findings)


def test_the_weights_are_in_the_configuration_hash(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text(DECISION_FILE.read_text(encoding="utf-8").replace("threshold:", "threshold: 0.51 #"),
                     encoding="utf-8")
    default = VerifierConfig()
    assert default.as_dict()["decision_digest"] == load_decision(DECISION_FILE).digest
    assert VerifierConfig(decision=str(other)).hash != default.hash
    assert VerifierConfig(decision="none").hash != default.hash
    assert VerifierConfig(decision="none").decision_model() is None
    assert VerifierConfig.lexical_baseline().decision_model() is None


def test_without_a_model_the_share_threshold_decides() -> None:
    verdict = _pair("The ferry carries bicycles on the lower deck.", "The ferry carries bicycles on the lower deck.",
                    VerifierConfig(decision="none"))
    assert verdict.decision is None and verdict.relation is Relation.SUPPORTS
    assert "p(supports)" not in verdict.findings[0].detail and verdict.findings[0].contribution is None


@pytest.mark.parametrize("text, message", [
    ("bias: 1\nthreshold: 0.5\nweights: {colour: 1}\n", "unknown feature 'colour'"),
    ("bias: 1\nthreshold: 2\nweights: {}\n", "threshold must lie between 0 and 1"),
    ("bias: x\nthreshold: 0.5\nweights: {}\n", "must be numbers"),
    ("- 1\n", "expected a mapping"),
    ("bias: [\n", "bad YAML"),
])
def test_a_bad_decision_file_is_a_one_line_config_error(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "decision.yaml"
    bad.write_text(text, encoding="utf-8")
    config = tmp_path / "verifier.yaml"
    config.write_text("decision: decision.yaml\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert message in str(caught.value) and "\n" not in str(caught.value).strip()


@pytest.mark.parametrize("text, message", [
    ('{"bias": 1, "threshold": 0.5, "weights": {"colour": 1}}', "unknown feature 'colour'"),
    ('[1]', "expected a mapping"),
    ('{"bias": ', "bad JSON"),
])
def test_a_bad_json_decision_file_is_a_one_line_config_error(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "decision.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        VerifierConfig(decision=str(bad)).decision_model()
    assert message in str(caught.value) and "\n" not in str(caught.value).strip()


def test_a_missing_decision_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the decision model"):
        VerifierConfig(decision=str(tmp_path / "absent.yaml")).decision_model()
