"""Verifier configuration: the support decision, judge and rule selection, and the hash that versions results."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from graphcite.errors import ConfigError
from graphcite.language.domain import GENERAL, DomainLexicon, load_domain
from graphcite.verify.decision import DECISION_JSON, DecisionModel
from graphcite.verify.registry import RULES_VERSION

__all__ = ["NOTE_RULES", "VerifierConfig", "load_config", "load_decision", "split_judge"]

# Rules whose failures, measured on real text (`python -m benchmarks.realtext --by-rule`), fire about
# as often on truly supported pairs as on unsupported ones: reported as notes, without effect, in the
# general configuration. A domain configuration can make them vetoes again (`note_rules: []`).
# Lost condition (GC501) and broadened scope (GC502) are vetoes again since they read the frame of the
# aligned clause (session 8): on the dev parts they cost no SICK or CLIMATE-FEVER pair and 1 point of
# RTE recall, and cut the multi-domain suite's false support from 0.26 to 0.18.
NOTE_RULES: tuple[str, ...] = ("GC402", "GC503", "GC504", "GC603", "GC901")


def split_judge(value: str) -> tuple[str, str | None]:
    """A judge setting as ``(kind, argument)``: ``local:models/nli`` -> ``("local", "models/nli")``.

    Only ``local`` takes an argument (its model directory); every other value is a plain name.
    """
    kind, sep, argument = value.partition(":")
    if sep and kind.strip().lower() == "local":
        return "local", argument.strip() or None
    return value.strip().lower(), None


_HASHES: dict[tuple[str, str, str], str] = {}
_DECISIONS: dict[tuple[str, int], DecisionModel] = {}


def load_decision(path: str | Path) -> DecisionModel:
    """A fitted decision model from its YAML file, or from a ``.json`` file holding the same mapping
    (``scripts/fit_decision.py`` writes both; the default is read from the JSON, so a check imports no
    PyYAML), remembered per file and modification time."""
    file = Path(path)
    kind = "JSON" if file.suffix.lower() == ".json" else "YAML"
    try:
        key = (str(file), file.stat().st_mtime_ns)
        found = _DECISIONS.get(key)
        if found is not None:
            return found
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the decision model: {exc.strerror or exc}", where=str(file),
                          fix="check the path in `decision:`, or run scripts/fit_decision.py") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"bad {kind}: {exc}".splitlines()[0], where=str(file), fix="fix the syntax") from exc
    data = _model_mapping(text, file, kind)
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping with bias, threshold and weights", where=str(file),
                          fix="see graphcite/verify/decision.yaml")
    try:
        found = DecisionModel.from_mapping(data)
    except ValueError as exc:
        raise ConfigError(str(exc), where=str(file), fix="see graphcite/verify/decision.yaml") from exc
    if len(_DECISIONS) > 32:
        _DECISIONS.clear()
    _DECISIONS[key] = found
    return found


def _model_mapping(text: str, file: Path, kind: str) -> object:
    """The parsed text of a decision file, JSON or YAML (PyYAML imported only for YAML)."""
    if kind == "JSON":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"bad JSON: {exc}".splitlines()[0], where=str(file), fix="fix the syntax") from exc
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"bad YAML: {exc}".splitlines()[0], where=str(file), fix="fix the syntax") from exc


@dataclass(frozen=True, slots=True)
class VerifierConfig:
    """Everything that can change a verdict; its hash is recorded with every result."""

    # share of the claim's slots the evidence must fill, read only without a decision model
    # (``decision: none``) and by the lexical baseline (0.5)
    threshold: float = 0.65
    mention_threshold: float = 0.25
    # the fitted model that decides support from the soft signals: "default" is decision.yaml beside
    # this module (read from its twin decision.json; scripts/fit_decision.py writes both), a path names
    # another (YAML, or JSON by its suffix), "none" uses ``threshold``
    decision: str = "default"
    judge: str = "heuristic"
    judge_url: str | None = None
    judge_model: str | None = None
    judge_timeout: float = 10.0
    judge_key_env: str = "GRAPHCITE_JUDGE_KEY"
    prompt_revision: str = "support-v1"
    disabled_rules: tuple[str, ...] = ()
    lexical_only: bool = False
    store_contradictions: bool = True
    domain: str | None = None  # a domain lexicon file (YAML); None = general English
    note_rules: tuple[str, ...] = NOTE_RULES
    extra: dict[str, Any] = field(default_factory=dict)
    # the configuration file's name ("default" for the built-in one): shown in reports, never in the hash
    name: str = field(default="default", compare=False)

    def domain_lexicon(self) -> DomainLexicon:
        """The domain lexicon this configuration names (the general default when none)."""
        if not self.domain:
            return GENERAL
        try:
            return load_domain(self.domain)
        except OSError as exc:
            raise ConfigError(f"cannot read the domain lexicon: {exc.strerror or exc}", where=self.domain,
                              fix="check the path in `domain:`") from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(f"bad domain lexicon: {exc}".splitlines()[0], where=self.domain,
                              fix="see graphcite/examples/domain.yaml for the fields") from exc

    def decision_model(self) -> DecisionModel | None:
        """The decision model this configuration names, or None (``decision: none``, the lexical
        baseline, or a judge other than the heuristic one, which decides by itself)."""
        if self.lexical_only or self.decision.strip().lower() == "none":
            return None
        return load_decision(DECISION_JSON if self.decision == "default" else self.decision)

    @property
    def judge_kind(self) -> str:
        """The judge's name without its argument (``local`` for ``local:DIR``)."""
        return split_judge(self.judge)[0]

    @property
    def judge_dir(self) -> Path | None:
        """The model directory of a ``local:DIR`` judge, else ``None``."""
        argument = split_judge(self.judge)[1]
        return Path(argument).expanduser() if argument else None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("name")
        from graphcite.language.lexicon import lexicon_digest

        data["rules_version"] = RULES_VERSION
        data["disabled_rules"] = sorted(self.disabled_rules)
        data["note_rules"] = sorted(self.note_rules)
        data["domain"] = Path(self.domain).name if self.domain else None
        data["domain_digest"] = self.domain_lexicon().digest
        if self.decision not in {"default", "none"}:
            data["decision"] = Path(self.decision).name
        model = self.decision_model()
        data["decision_digest"] = model.digest if model else None
        data["lexicon_digest"] = lexicon_digest()[:16]
        return data

    @property
    def hash(self) -> str:
        """Digest of :meth:`as_dict`; remembered per configuration and domain-lexicon digest.

        A check stamps it on every record, so it is asked for many times with the same answer; the
        domain and decision digests are in the key because their files may change under a running server.
        """
        model = self.decision_model()
        key = (repr(self), self.domain_lexicon().digest, model.digest if model else "")
        found = _HASHES.get(key)
        if found is None:
            blob = json.dumps(self.as_dict(), sort_keys=True, default=str)
            found = hashlib.sha256(blob.encode()).hexdigest()[:16]
            if len(_HASHES) > 256:
                _HASHES.clear()
            _HASHES[key] = found
        return found

    def with_overrides(self, **changes: Any) -> VerifierConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def lexical_baseline(cls, threshold: float = 0.5) -> VerifierConfig:
        """The plain verifier: quote verbatim + content-token overlap, no qualifier rules."""
        return cls(threshold=threshold, lexical_only=True, store_contradictions=False, note_rules=())


def load_config(path: str | Path) -> VerifierConfig:
    """Read a verifier configuration from JSON or YAML (keys = VerifierConfig fields, or preset: lexical)."""
    import yaml

    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror}", where=str(file), fix="check the path") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"bad YAML/JSON: {exc}".splitlines()[0], where=str(file), fix="fix the syntax") from exc
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping of settings", where=str(file), fix="see VerifierConfig fields")
    preset = data.pop("preset", None)
    base = VerifierConfig.lexical_baseline() if preset == "lexical" else VerifierConfig()
    known = set(VerifierConfig.__dataclass_fields__) - {"name"}  # the file's own name, not a setting
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r}", where=str(file),
                          fix=f"use one of: {', '.join(sorted(known))}")
    for key in ("disabled_rules", "note_rules"):
        if key in data:
            if not isinstance(data[key], list) or not all(isinstance(v, str) for v in data[key]):
                raise ConfigError(f"{key}: expected a list of rule codes", where=str(file), fix="e.g. [GC402]")
            data[key] = tuple(v.upper() for v in data[key])
    if "decision" in data and not isinstance(data["decision"], str):
        raise ConfigError("decision: expected default, none or a file", where=str(file),
                          fix="e.g. decision: default")
    for key in ("domain", "decision"):  # a file named relative to the configuration file
        value = data.get(key)
        if isinstance(value, str) and not (key == "decision" and value.strip().lower() in {"default", "none"}):
            data[key] = str((file.parent / value).resolve()) if not Path(value).is_absolute() else value
    try:
        config = replace(base, **data, name=file.name)
    except TypeError as exc:
        raise ConfigError(str(exc), where=str(file), fix="check the setting types") from exc
    config.domain_lexicon()  # a bad domain or decision file is reported now, not in the middle of a check
    config.decision_model()
    return config
