"""Judges answer one question: does this span entail this claim? Rules still run and still veto.

``heuristic`` (default) is the lexical test. ``http`` asks an OpenAI-compatible chat-completions
endpoint for ``{"label", "rationale"}`` as JSON; unreachable or timed out, it falls back to the
heuristic and says so in the finding.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass

from graphcite.errors import GraphciteError
from graphcite.models import RELATIONS
from graphcite.verify.config import VerifierConfig
from graphcite.verify.lexical import lexical_score, missing_terms

__all__ = ["JUDGES", "Judgement", "judge"]

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


def http(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Ask an OpenAI-compatible endpoint; fall back to the heuristic when it cannot answer."""
    if not config.judge_url:
        raise GraphciteError("the http judge needs a URL", where="judge_url",
                             fix="set judge_url in the config or --judge-url")
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


JUDGES = {"heuristic": heuristic, "http": http}


def judge(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
    """Run the configured judge."""
    try:
        fn = JUDGES[config.judge]
    except KeyError:
        raise GraphciteError(f"unknown judge {config.judge!r}", where="--judge",
                             fix=f"use one of: {', '.join(sorted(JUDGES))}") from None
    return fn(claim, evidence, config)
