"""Every engine code (integrity, support, multi-citation) has a why and good and bad cases, run end to end
through a real store built from the case corpus; `rules` lists and `rules explain` explains every code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphcite.claims import load_answer
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify import explain_rule, list_rules, verify_answer
from graphcite.verify.catalogue import CASE_CORPUS, CASE_POLICY_V2, CODES, CitationCase
from graphcite.verify.registry import RULES

CASES = [(code, kind, i) for code, e in sorted(CODES.items())
         for kind, cases in (("good", e.good), ("bad", e.bad)) for i in range(len(cases))]


@pytest.fixture(scope="module")
def case_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("cases")
    for key, text in CASE_CORPUS.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_text(text, encoding="utf-8")
    with Store(root / "cases.duckdb") as store:
        ingest(store, [root / "cases"], prefix="cases/")
        first = store.scalar("SELECT current_revision FROM source WHERE key = 'cases/policy.md'")
        (root / "cases" / "policy.md").write_text(CASE_POLICY_V2, encoding="utf-8")
        ingest(store, [root / "cases"], prefix="cases/")
        current = store.scalar("SELECT current_revision FROM source WHERE key = 'cases/policy.md'")
        assert first != current
        yield store, {"@first": first, "@current": current}


def _outcomes(store: Store, revisions: dict[str, str], case: CitationCase, code: str) -> list[str]:
    cites = [{k: revisions.get(v, v) if k == "revision" else v for k, v in c.items()} for c in case.citations]
    declared = {"type": case.claim_type} if case.claim_type else {}
    answer = load_answer({"answer_id": "case", "claims": [{"text": case.claim, "citations": cites, **declared}]})
    claim = verify_answer(store, answer, audience=case.audience)["claims"][0]
    found = [f["outcome"] for c in claim["citations"] for f in c["findings"] if f["code"] == code]
    for part in claim.get("parts", []):
        found += [f["outcome"] for c in part["citations"] for f in c["findings"] if f["code"] == code]
    return found


@pytest.mark.parametrize("code, kind, index", CASES)
def test_code_case(case_store: Any, code: str, kind: str, index: int) -> None:
    store, revisions = case_store
    entry = CODES[code]
    case = (entry.good if kind == "good" else entry.bad)[index]
    outcomes = _outcomes(store, revisions, case, code)
    if entry.reports == "pass":
        assert ("pass" in outcomes) == (kind == "good"), (code, kind, case, outcomes)
    elif kind == "good":
        assert "fail" not in outcomes and "note" not in outcomes, (code, case, outcomes)
    else:
        assert "fail" in outcomes or "note" in outcomes, (code, case, outcomes)


def test_every_code_is_listed_and_explained() -> None:
    rows = list_rules()
    codes = [r["code"] for r in rows]
    assert codes == sorted(codes) and len(codes) == len(set(codes))
    assert set(CODES) | set(RULES) == set(codes)
    for code in codes:
        text = explain_rule(code)
        assert text.startswith(code) and "passes:" in text and "fails:" in text, code
        assert len(text.split("\n")[2]) > 40, code
    assert explain_rule("quote-not-verbatim").startswith("GC106")


def test_case_offsets_point_at_the_sentence() -> None:
    text = CASE_CORPUS["cases/policy.md"]
    assert text[57:105] == "Refunds are accepted for 14 days after delivery."
    assert Path("cases/policy.md").suffix == ".md"
