"""The public redactor: placeholders, whole-name scrubbing, and whitelisted restricted citations in reports."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.graph.redact import WITHHELD_TEXT, Redactor, scrub_answer, scrub_report, withheld_report

UNIT = "0123456789abcdef"
REVISION = "fedcba9876543210"


def redactor() -> Redactor:
    return Redactor(["a.md", "ops/secret.md"], [REVISION], [UNIT], ["Vault Runbook"])


def test_scrub_replaces_whole_names_and_ids_only() -> None:
    red = redactor()
    assert red.scrub("see a.md and ops/secret.md.") == "see restricted-source-1 and restricted-source-2."
    assert red.scrub("data.md and a.mdx stay") == "data.md and a.mdx stay"
    assert red.scrub(f"unit {UNIT} of {REVISION}") == "unit restricted-unit-1 of restricted-revision-1"
    assert red.scrub(f"x{UNIT}0 is another id") == f"x{UNIT}0 is another id"
    assert red.scrub("the Vault Runbook says") == "the [restricted] says"
    assert red.scrub_json({"a.md": [f"{UNIT}", 3, None]}) == {"restricted-source-1": ["restricted-unit-1", 3, None]}
    assert Redactor().scrub("a.md") == "a.md" and not Redactor().active


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a.md", "b.md", "ops/secret.md", "zz/last.md"]), min_size=1, max_size=6),
       st.sets(st.text(alphabet="abcdefgh/.", min_size=1, max_size=8), max_size=6))
def test_placeholder_numbers_say_nothing_about_the_other_restricted_keys(named: list[str], others: set[str]) -> None:
    """A number is where this output first names the source: the same whatever other restricted keys the
    store holds (how many, how they sort), so neither the count nor the order can be read from it."""
    keys = ["a.md", "b.md", "ops/secret.md", "zz/last.md"]
    alone = Redactor(keys)
    crowded = Redactor([*keys, *others])
    first_seen = list(dict.fromkeys(named))
    assert [alone.key(k) for k in named] == [crowded.key(k) for k in named] == [
        f"restricted-source-{first_seen.index(k) + 1}" for k in named]
    assert alone.scrub(" and ".join(named)) == " and ".join(f"restricted-source-{first_seen.index(k) + 1}"
                                                          for k in named)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="xyz XYZ,;-_.", max_size=20), st.sampled_from(" ,;:()[]'\"\n/"),
       st.sampled_from([UNIT, REVISION, "ops/secret.md", "a.md", "Vault Runbook"]),
       st.sampled_from(" ,;:()[]'\"\n."), st.text(alphabet="xyz XYZ,;-_.", max_size=20))
def test_a_restricted_name_standing_as_a_word_is_always_replaced(before: str, left: str, name: str, right: str,
                                                                 after: str) -> None:
    assert name not in redactor().scrub(before + left + name + right + after)


def report() -> dict[str, Any]:
    return {
        "claim_id": "c1", "index": 0, "text": "Secrets rotate every 45 days.", "status": "supported",
        "supported": True, "qualifiers": {"object": "every 45 days"},
        "citations": [
            {"index": 0, "source": "ops/secret.md", "revision": REVISION, "unit_id": UNIT, "quote": "45 days",
             "evidence_text": "a field added later", "relation": "supports", "valid": True,
             "findings": [{"code": "GC201", "rule": "lexical-support", "outcome": "pass", "detail": "45 days"}]},
            {"index": 1, "source": "posts/p.md", "revision": "1111111111111111", "unit_id": "2222222222222222",
             "quote": "on a schedule", "relation": "insufficient", "valid": True,
             "findings": [{"code": "GC999", "rule": "restricted-origin", "outcome": "fail", "detail": f"unit {UNIT}"}]},
        ],
        "parts": [{"text": "Secrets rotate every 45 days.", "status": "supported",
                   "citations": [{"index": 0, "quote": "45 days"}]}],
        "contradicting_evidence": [{"unit_id": UNIT, "source": "ops/secret.md", "quote": "90 days", "reason": "r"}],
    }


def test_restricted_citations_are_rebuilt_from_a_whitelist() -> None:
    out = scrub_report(report(), redactor())
    restricted = out["citations"][0]
    assert restricted == {"index": 0, "relation": "supports", "valid": True, "source": "restricted-source-1",
                          "revision": "restricted-revision-1", "unit_id": "restricted-unit-1", "restricted": True,
                          "findings": [{"code": "GC201", "rule": "lexical-support", "outcome": "pass", "detail": ""}]}
    assert out["citations"][1]["quote"] == "on a schedule"  # public evidence stays
    assert out["citations"][1]["findings"][0]["detail"] == "withheld"  # the origin finding names no unit
    assert out["parts"][0]["citations"][0]["restricted"] is True
    assert out["contradicting_evidence"] == [{"unit_id": "restricted-unit-1", "source": "restricted-source-1",
                                              "status": None, "restricted": True}]
    assert out["relies_on_restricted"] is True


def test_withheld_report_keeps_ids_and_verdicts_only() -> None:
    out = withheld_report(report(), redactor(), "restricted-origin: why")
    text = repr(out)
    assert "45" not in text and "schedule" not in text and "qualifiers" not in out
    assert out["text"] == WITHHELD_TEXT and out["withheld"] is True and out["withheld_reason"] == "restricted-origin: why"
    assert [c["restricted"] for c in out["citations"]] == [True, False]
    assert out["citations"][1]["source"] == "posts/p.md"


def test_scrub_answer_blanks_withheld_claims_and_restricted_citations() -> None:
    content = {"answer_id": "a", "claims": [
        {"text": "Secrets rotate every 45 days.", "citations": [{"source": "posts/p.md", "quote": "45 days"}]},
        {"text": "Logs are kept.", "citations": [{"source": "ops/secret.md", "quote": "kept 90 days", "start": 3}]},
    ]}
    out = scrub_answer(content, redactor(), [True, False])
    assert out["claims"][0] == {"text": WITHHELD_TEXT, "withheld": True, "citations": [{"source": "posts/p.md"}]}
    assert out["claims"][1]["citations"] == [{"source": "restricted-source-1", "restricted": True}]
    assert out["claims"][1]["text"] == "Logs are kept."
