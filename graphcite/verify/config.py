"""Verifier configuration: thresholds, judge and rule selection, and the hash that versions results."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from graphcite.errors import GraphciteError
from graphcite.verify.registry import RULES_VERSION

__all__ = ["VerifierConfig", "load_config", "split_judge"]


def split_judge(value: str) -> tuple[str, str | None]:
    """A judge setting as ``(kind, argument)``: ``local:models/nli`` -> ``("local", "models/nli")``.

    Only ``local`` takes an argument (its model directory); every other value is a plain name.
    """
    kind, sep, argument = value.partition(":")
    if sep and kind.strip().lower() == "local":
        return "local", argument.strip() or None
    return value.strip().lower(), None


@dataclass(frozen=True, slots=True)
class VerifierConfig:
    """Everything that can change a verdict; its hash is recorded with every result."""

    threshold: float = 0.5
    mention_threshold: float = 0.25
    judge: str = "heuristic"
    judge_url: str | None = None
    judge_model: str | None = None
    judge_timeout: float = 10.0
    judge_key_env: str = "GRAPHCITE_JUDGE_KEY"
    prompt_revision: str = "support-v1"
    disabled_rules: tuple[str, ...] = ()
    lexical_only: bool = False
    store_contradictions: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

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
        data["rules_version"] = RULES_VERSION
        data["disabled_rules"] = sorted(self.disabled_rules)
        return data

    @property
    def hash(self) -> str:
        blob = json.dumps(self.as_dict(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def with_overrides(self, **changes: Any) -> VerifierConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def lexical_baseline(cls, threshold: float = 0.5) -> VerifierConfig:
        """The plain verifier: quote verbatim + content-token overlap, no qualifier rules."""
        return cls(threshold=threshold, lexical_only=True, store_contradictions=False)


def load_config(path: str | Path) -> VerifierConfig:
    """Read a verifier configuration from JSON or YAML (keys = VerifierConfig fields, or preset: lexical)."""
    import yaml

    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise GraphciteError(f"cannot read config: {exc.strerror}", where=str(file), fix="check the path") from exc
    except yaml.YAMLError as exc:
        raise GraphciteError(f"bad YAML/JSON: {exc}".splitlines()[0], where=str(file), fix="fix the syntax") from exc
    if not isinstance(data, dict):
        raise GraphciteError("expected a mapping of settings", where=str(file), fix="see VerifierConfig fields")
    preset = data.pop("preset", None)
    base = VerifierConfig.lexical_baseline() if preset == "lexical" else VerifierConfig()
    known = set(VerifierConfig.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise GraphciteError(f"unknown setting {unknown[0]!r}", where=str(file),
                             fix=f"use one of: {', '.join(sorted(known))}")
    if "disabled_rules" in data:
        data["disabled_rules"] = tuple(data["disabled_rules"])
    try:
        return replace(base, **data)
    except TypeError as exc:
        raise GraphciteError(str(exc), where=str(file), fix="check the setting types") from exc
