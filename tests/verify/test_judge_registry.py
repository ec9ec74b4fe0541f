"""Judges are a registry (issue 25): a new judge is one function and one ``@judge_kind`` registration, and
``judge``, ``judge_many`` and ``prepare_judge`` use it with nothing else edited."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from graphcite.errors import ConfigError
from graphcite.verify import judges
from graphcite.verify.config import VerifierConfig
from graphcite.verify.judges import (
    Judgement,
    get_judge,
    judge,
    judge_kind,
    judge_kinds,
    judge_many,
    prepare_judge,
)


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Register a test judge 'echo' (with a batch function and a start-up check); removed afterwards."""
    calls: list[str] = []

    def many(pairs: Sequence[tuple[str, str]], config: VerifierConfig) -> list[Judgement]:
        calls.append(f"many {len(pairs)}")
        return [Judgement("mentions", 0.5, "batch", "echo") for _ in pairs]

    def prepare(config: VerifierConfig) -> None:
        calls.append("prepare")
        if config.judge_model is None:
            raise ConfigError("the echo judge needs a model name", where="judge_model", fix="set judge_model")

    @judge_kind("echo", many=many, prepare=prepare, deterministic=True)
    def echo(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
        calls.append("one")
        return Judgement("supports" if claim == evidence else "insufficient", 1.0, "same text", "echo")

    yield calls
    judges._JUDGES.pop("echo", None)
    judges.JUDGES.pop("echo", None)


def test_the_bundled_judges_are_registered() -> None:
    assert [(j.name, j.usage) for j in judge_kinds()] == [("heuristic", "heuristic"), ("http", "http"),
                                                           ("local", "local:DIR")]
    heuristic = get_judge("heuristic")
    assert heuristic is not None and heuristic.deterministic and heuristic.many is None
    assert get_judge("local").many is not None  # type: ignore[union-attr]
    assert set(judges.JUDGES) == {"heuristic", "http", "local"}


def test_a_registered_judge_is_used_by_every_entry_point(registered: list[str]) -> None:
    config = VerifierConfig(judge="echo", judge_model="m")
    assert judge("Logs are kept.", "Logs are kept.", config).label == "supports"
    assert judge("Logs are kept.", "Other text.", config).judge == "echo"
    assert [j.rationale for j in judge_many([("a", "b"), ("c", "d")], config)] == ["batch", "batch"]
    prepare_judge(config)
    assert registered == ["one", "one", "many 2", "prepare"]
    with pytest.raises(ConfigError, match="needs a model name"):
        prepare_judge(VerifierConfig(judge="echo"))


def test_an_unknown_judge_names_every_registered_one(registered: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        judge("a", "b", VerifierConfig(judge="oracle"))
    assert "unknown judge 'oracle'" in str(info.value)
    assert info.value.fix == "use one of: heuristic, http, local:DIR, echo"


def test_a_name_cannot_be_registered_twice(registered: list[str]) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        @judge_kind("echo")
        def other(claim: str, evidence: str, config: VerifierConfig) -> Judgement:
            raise AssertionError


def test_the_heuristic_judge_still_answers_as_before() -> None:
    config = VerifierConfig()
    assert judge("The relay keeps logs.", "The relay keeps logs.", config).label == "supports"
    assert judge("The relay keeps logs.", "Nothing related here at all.", config).label == "insufficient"
