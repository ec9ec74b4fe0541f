"""Judges answer one question: does this span entail this claim? Rules still run and still veto.

``heuristic`` (default) is the lexical test. ``http`` asks an OpenAI-compatible chat-completions
endpoint for ``{"label", "rationale"}`` as JSON; unreachable or timed out, it falls back to the
heuristic and says so in the finding. ``local:DIR`` runs an NLI / claim-verification cross-encoder
from a local directory on CPU (:mod:`graphcite.verify.judge_local`, optional extra ``local-judge``).
:func:`judge_many` answers many pairs at once, which the local judge runs in batches.

Judges are a registry, as rules and answer formats are: a judge is one function with
``@judge_kind("name")`` (optionally its batch function, its start-up check and whether its verdict is a
function of claim and evidence alone); ``--judge name`` then chooses it and :func:`judge_kinds` lists it.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphcite.errors import ConfigError
from graphcite.models import RELATIONS
from graphcite.verify.config import VerifierConfig
from graphcite.verify.lexical import lexical_score, missing_terms

if TYPE_CHECKING:
    from graphcite.verify.judge_local import LocalModel

__all__ = ["JUDGES", "Judge", "Judgement", "get_judge", "judge", "judge_kind", "judge_kinds", "judge_many",
           "prepare_judge"]

PROMPT_V1 = (
    "You check citations. Given a CLAIM and an EVIDENCE passage (with its headings), answer with JSON "
    '{"label": one of supports|contradicts|contextualizes|mentions|insufficient, "rationale": one sentence}. '
    "supports means the evidence alone entitles the whole claim, including numbers, negation, modality and "
    "conditions."
)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A judge's label for one claim/evidence pair."""

    label: str
    score: float
    rationale: str
    judge: str
    model: str | None = None
    prompt_revision: str | None = None
    fallback: str | None = None


OneJudgement = Callable[[str, str, VerifierConfig], Judgement]
ManyJudgements = Callable[[Sequence[tuple[str, str]], VerifierConfig], list[Judgement]]


@dataclass(frozen=True, slots=True)
class Judge:
    """A registered judge: its name (``--judge``), how it is written on the command line, its one-pair
    function, its batch function (None: one pair at a time), its start-up check, and whether its verdict
    depends on claim and evidence alone (a memo may then reuse it)."""

    name: str
    usage: str
    one: OneJudgement
    many: ManyJudgements | None = None
    prepare: Callable[[VerifierConfig], None] | None = None
    deterministic: bool = False


_JUDGES: dict[str, Judge] = {}
#: name -> one-pair function of every registered judge (kept for callers that index it)
JUDGES: dict[str, OneJudgement] = {}


def judge_kind(name: str, *, usage: str | None = None, many: ManyJudgements | None = None,
               prepare: Callable[[VerifierConfig], None] | None = None,
               deterministic: bool = False) -> Callable[[OneJudgement], OneJudgement]:
    """Register the decorated one-pair function as judge ``name``."""

    def register(one: OneJudgement) -> OneJudgement:
        if name in _JUDGES and _JUDGES[name].one is not one:
            raise ValueError(f"judge {name!r} is registered twice")
        _JUDGES[name] = Judge(name, usage or name, one, many, prepare, deterministic)
        JUDGES[name] = one
        return one

    return register


def judge_kinds() -> tuple[Judge, ...]:
    """Every registered judge, in registration order."""
    return tuple(_JUDGES.values())


def get_judge(name: str) -> Judge | None:
    """The judge registered as ``name``, or None."""
    return _JUDGES.get(name)


@judge_kind("heuristic", deterministic=True)
def heuristic(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Content-term overlap against the threshold: supports, mentions, or insufficient."""
    score = lexical_score(claim, evidence)
    if score >= config.threshold:
        label = "supports"
    elif score >= config.mention_threshold:
        label = "mentions"
    else:
        label = "insufficient"
    missing = missing_terms(claim, evidence) if score < 1 else []
    rationale = f"overlap {score:.2f}" + (f"; missing {', '.join(missing[:6])}" if missing else "")
    return Judgement(label, round(score, 4), rationale, "heuristic")


def _prepare_http(config: VerifierConfig) -> None:
    if not config.judge_url:
        raise ConfigError("the http judge needs a URL", where="judge_url",
                          fix="set judge_url in the config or --judge-url")


@judge_kind("http", prepare=_prepare_http)
def http(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Ask an OpenAI-compatible endpoint; fall back to the heuristic when it cannot answer."""
    _prepare_http(config)
    body = {
        "model": config.judge_model or "default",
        "temperature": 0,
        "messages": [{"role": "system", "content": PROMPT_V1},
                     {"role": "user", "content": f"CLAIM: {claim}\nEVIDENCE: {evidence}"}],
        "response_format": {"type": "json_object"},
    }
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(config.judge_key_env)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    url = config.judge_url.rstrip("/") + "/chat/completions"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=config.judge_timeout) as response:
            payload = json.loads(response.read().decode("utf-8"))
        content = payload["choices"][0]["message"]["content"]
        verdict = json.loads(content)
        label = str(verdict["label"]).strip().lower()
        if label not in RELATIONS:
            raise ValueError(f"label {label!r} is not a relation")
        score = lexical_score(claim, evidence)
        return Judgement(label, round(score, 4), str(verdict.get("rationale", ""))[:500], "http",
                         model=config.judge_model, prompt_revision=config.prompt_revision)
    except (urllib.error.URLError, TimeoutError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        fallback = heuristic(claim, evidence, config)
        reason = f"http judge unavailable ({type(exc).__name__}: {str(exc)[:120]}); used heuristic"
        return Judgement(fallback.label, fallback.score, fallback.rationale, "heuristic",
                         model=config.judge_model, prompt_revision=config.prompt_revision, fallback=reason)


def _local_model(config: VerifierConfig) -> LocalModel:
    """The ``local:DIR`` model, loaded once per process with the settings in ``config.extra``."""
    from graphcite.verify.judge_local import load_local_model

    directory = config.judge_dir
    if directory is None:
        raise ConfigError("the local judge needs a model directory", where="--judge",
                          fix="pass --judge local:DIR")
    settings: dict[str, Any] = {}
    for key, name, kind in (("judge_batch_size", "batch_size", int), ("judge_threads", "threads", int),
                            ("judge_max_length", "max_length", int), ("judge_pair_order", "pair_order", str)):
        if key in config.extra:
            value = config.extra[key]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ConfigError(f"{key} must be {'an integer' if kind is int else 'text'}, not {value!r}",
                                  where=f"extra.{key}", fix="fix the value in the config file")
            settings[name] = value
    return load_local_model(directory, **settings)


def _local_judgements(pairs: Sequence[tuple[str, str]], config: VerifierConfig) -> list[Judgement]:
    model = _local_model(config)
    out = []
    for (claim, evidence), p in zip(pairs, model.predict(pairs), strict=True):
        rationale = f"model {model.name}: {p.label} {p.probability:.2f} (p(supports) {p.support_probability:.2f})"
        out.append(Judgement(p.relation, round(lexical_score(claim, evidence), 4), rationale, "local",
                             model=model.name))
    return out


def _prepare_local(config: VerifierConfig) -> None:
    _local_model(config)


@judge_kind("local", usage="local:DIR", many=_local_judgements, prepare=_prepare_local)
def local(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Ask the local cross-encoder named by ``local:DIR``; its label answers, the score stays lexical."""
    return _local_judgements([(claim, evidence)], config)[0]


def _judge_of(config: VerifierConfig) -> Judge:
    found = _JUDGES.get(config.judge_kind)
    if found is None:
        raise ConfigError(f"unknown judge {config.judge!r}", where="--judge",
                          fix=f"use one of: {', '.join(j.usage for j in _JUDGES.values())}")
    return found


def judge(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Run the configured judge on one (claim, evidence) pair."""
    return _judge_of(config).one(claim, evidence, config)


def judge_many(pairs: Sequence[tuple[str, str]], config: VerifierConfig) -> list[Judgement]:
    """Run the configured judge on many (claim, evidence) pairs, in input order.

    The local judge runs them in length-sorted batches and keeps the answers, so a later :func:`judge`
    of the same pair costs a dictionary look-up; the other judges answer one pair at a time.
    """
    chosen = _judge_of(config)
    if chosen.many is not None:
        return chosen.many(list(pairs), config)
    return [chosen.one(claim, evidence, config) for claim, evidence in pairs]


def prepare_judge(config: VerifierConfig) -> None:
    """Check the judge setting before any work: unknown name, http without URL, a bad model directory.

    For ``local:DIR`` this loads the model (once per process), so a missing directory or file is
    reported as one line before a store is opened.
    """
    chosen = _judge_of(config)
    if chosen.prepare is not None:
        chosen.prepare(config)
