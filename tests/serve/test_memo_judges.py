"""The report memo reuses a verdict only for judges the registry marks deterministic (no list of its own)."""

from __future__ import annotations

from graphcite.serve.memo import deterministic_judge
from graphcite.verify.judges import get_judge, judge_kind, judge_kinds


def test_the_memo_asks_the_judge_registry() -> None:
    for judge in judge_kinds():
        assert deterministic_judge(judge.name) is judge.deterministic
    assert deterministic_judge("heuristic") and not deterministic_judge("no-such-judge")


def test_a_newly_registered_deterministic_judge_is_memoised_without_an_edit() -> None:
    from graphcite.verify import judges

    name = "memo-test-echo"
    judge_kind(name, deterministic=True)(lambda claim, evidence, config: get_judge("heuristic").one(  # type: ignore[union-attr]
        claim, evidence, config))
    try:
        assert deterministic_judge(name)
    finally:  # the registry is the process's: leave it as the other tests expect it
        judges._JUDGES.pop(name, None)
        judges.JUDGES.pop(name, None)
    assert not deterministic_judge(name)
