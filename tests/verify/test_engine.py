"""The engine on a real store: integrity failures, qualifier verdicts, parts, conflicts, metrics, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims import load_answer
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify import VerifierConfig, check_answer, gate_answer, history, verify_answer

POLICY = """---
title: Delivery retry policy
status: current
effective: 2025-01-10
kind: decision
supersedes: notes/retry-2023.md
---
# Delivery retry policy

## Current decision

The dispatcher retries a failed delivery 4 times.

Refund requests are accepted for 14 days.

The relay retries a webhook only after a confirmed timeout.

## Rejected alternatives

Automatic retry is allowed for the fax adapter.
"""

OLD_NOTE = """---
title: Retry note 2023
status: current
kind: note
---
# Retry note

The dispatcher retries a failed delivery 3 times.
"""

SECRET = """---
title: Internal keys
visibility: restricted
kind: manual
---
# Keys

Signing keys rotate every 30 days.
"""


@pytest.fixture
def policy_store(store: Store, tmp_path: Path) -> Store:
    root = tmp_path / "docs"
    (root / "decisions").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "decisions" / "policy.md").write_text(POLICY, encoding="utf-8")
    (root / "notes" / "retry-2023.md").write_text(OLD_NOTE, encoding="utf-8")
    (root / "notes" / "keys.md").write_text(SECRET, encoding="utf-8")
    ingest(store, [root])
    return store


def claim(text: str, *cites: dict) -> dict:
    return {"text": text, "citations": list(cites)}


def cite(quote: str, source: str = "decisions/policy.md", **extra: object) -> dict:
    return {"source": source, "quote": quote, **extra}


def run(store: Store, *claims: dict, audience: str = "internal") -> dict:
    return check_answer(store, {"answer_id": "t", "claims": list(claims)}, audience=audience)


def test_clean_claims_are_supported(policy_store: Store) -> None:
    report = run(policy_store,
                 claim("The dispatcher retries a failed delivery 4 times.",
                       cite("The dispatcher retries a failed delivery 4 times.")),
                 claim("Refund requests are accepted for two weeks.", cite("Refund requests are accepted for 14 days.")))
    assert [c["status"] for c in report["claims"]] == ["supported", "supported"]
    assert report["metrics"]["citation_validity"] == 1.0 and report["metrics"]["faithfulness"] == 1.0
    first = report["claims"][0]["citations"][0]
    assert first["heading_path"] == ["Delivery retry policy", "Current decision"]
    assert first["valid"] and first["relation"] == "supports"


def test_number_mismatch_contradicts(policy_store: Store) -> None:
    report = run(policy_store, claim("Refund requests are accepted for 30 days.",
                                     cite("Refund requests are accepted for 14 days.")))
    c = report["claims"][0]
    assert c["status"] == "contradicted"
    assert any(f["code"] == "GC301" and f["outcome"] == "fail" for f in c["citations"][0]["findings"])


def test_heading_reversal(policy_store: Store) -> None:
    report = run(policy_store, claim("Automatic retry is allowed for the fax adapter.",
                                     cite("Automatic retry is allowed for the fax adapter.")))
    c = report["claims"][0]
    assert not c["supported"]
    assert any(f["code"] == "GC601" and f["outcome"] == "fail" for f in c["citations"][0]["findings"])


def test_lost_condition_vetoes_in_every_configuration_and_a_note_where_configured(policy_store: Store) -> None:
    answer = load_answer({"answer_id": "lost", "claims": [claim(
        "The relay retries a webhook.", cite("The relay retries a webhook only after a confirmed timeout."))]})
    strict = verify_answer(policy_store, answer, config=VerifierConfig(note_rules=()))
    assert not strict["claims"][0]["supported"]
    findings = strict["claims"][0]["citations"][0]["findings"]
    assert any(f["code"] == "GC501" and f["outcome"] == "fail" and "confirmed timeout" in f["detail"]
               for f in findings)
    general = verify_answer(policy_store, answer, config=VerifierConfig())
    assert not general["claims"][0]["supported"]  # a veto in general English too since it reads the frame
    lenient = verify_answer(policy_store, answer, config=VerifierConfig(note_rules=("GC501",)))
    notes = [f for f in lenient["claims"][0]["citations"][0]["findings"] if f["code"] == "GC501"]
    assert notes and notes[0]["outcome"] == "note"  # a configuration may still demote it, and it is reported


def test_superseded_source_for_present_tense_names_the_superseder(policy_store: Store) -> None:
    report = run(policy_store, claim("The dispatcher retries a failed delivery 3 times.",
                                     cite("The dispatcher retries a failed delivery 3 times.", "notes/retry-2023.md")))
    c = report["claims"][0]
    assert not c["supported"]
    details = " ".join(f["detail"] for f in c["citations"][0]["findings"])
    assert "decisions/policy.md" in details and "2025-01-10" in details


def test_restricted_source_fails_for_public_audience(policy_store: Store) -> None:
    text = "Signing keys rotate every 30 days."
    internal = run(policy_store, claim(text, cite(text, "notes/keys.md")))
    public = run(policy_store, claim(text, cite(text, "notes/keys.md")), audience="public")
    assert internal["claims"][0]["supported"]
    assert public["claims"][0]["status"] == "invalid"
    assert any(f["code"] == "GC101" for f in public["claims"][0]["citations"][0]["findings"])  # as if missing


@pytest.mark.parametrize("citation, code", [
    ({"source": "decisions/nope.md", "quote": "x"}, "GC101"),
    ({"chunk_id": "0123456789abcdef", "quote": "x"}, "GC101"),
    ({"source": "decisions/policy.md", "quote": "The dispatcher re-tries deliveries four times."}, "GC107"),
    ({"source": "decisions/policy.md", "start": 0, "end": 10_000_000}, "GC105"),
    ({"source": "decisions/policy.md", "revision": "ffffffffffffffff", "quote": "x"}, "GC102"),
])
def test_integrity_failures_are_invalid(policy_store: Store, citation: dict, code: str) -> None:
    report = run(policy_store, claim("The dispatcher retries a failed delivery 4 times.", citation))
    c = report["claims"][0]
    assert c["status"] == "invalid" and not c["citations"][0]["valid"]
    assert code in {f["code"] for f in c["citations"][0]["findings"]}


def test_reversed_offsets_make_that_claim_invalid_and_the_rest_is_checked(policy_store: Store) -> None:
    report = run(policy_store, claim("x", {"source": "decisions/policy.md", "start": 5, "end": 2}),
                 claim("Refund requests are accepted for 14 days.", cite("Refund requests are accepted for 14 days.")))
    first, second = report["claims"]
    assert first["status"] == "invalid"
    assert any(f["code"] == "GC105" and "after" in f["detail"] for f in first["citations"][0]["findings"])
    assert second["supported"]


def test_quote_drift_is_reported_with_the_real_offsets(policy_store: Store) -> None:
    text = policy_store.scalar("SELECT text FROM source_revision WHERE source_key = 'decisions/policy.md'")
    quote = "Refund requests are accepted for 14 days."
    at = text.index(quote)
    report = run(policy_store, claim("Refund requests are accepted for 14 days.",
                                     cite(quote, start=at + 3, end=at + 3 + len(quote))))
    detail = report["claims"][0]["citations"][0]["findings"][0]["detail"]
    assert "drifted" in detail and f"{at}-{at + len(quote)}" in detail
    exact = run(policy_store, claim("Refund requests are accepted for 14 days.",
                                    cite(quote, start=at, end=at + len(quote))))
    assert exact["claims"][0]["supported"]


def test_compound_half_support(policy_store: Store) -> None:
    report = run(policy_store, claim(
        "The dispatcher retries a failed delivery 4 times and sends refunds to manual review.",
        cite("The dispatcher retries a failed delivery 4 times.")))
    c = report["claims"][0]
    assert len(c["parts"]) == 2
    assert c["parts"][0]["supported"] and not c["parts"][1]["supported"]
    assert not c["supported"]


def test_store_contradiction_from_superseded_note_is_attached(policy_store: Store) -> None:
    report = run(policy_store, claim("The dispatcher retries a failed delivery 4 times.",
                                     cite("The dispatcher retries a failed delivery 4 times.")))
    c = report["claims"][0]
    assert c["supported"]
    against = c["contradicting_evidence"]
    assert against and against[0]["source"] == "notes/retry-2023.md" and against[0]["status"] == "superseded"


def test_no_claims_is_not_faithful(policy_store: Store) -> None:
    report = run(policy_store)
    assert report["metrics"]["citation_validity"] == 0 and report["metrics"]["faithfulness"] == 0
    assert "no claims" in report["metrics"]["reason"]


def test_reports_are_byte_identical_and_records_append(policy_store: Store) -> None:
    answer = {"answer_id": "same", "claims": [claim("Refund requests are accepted for 14 days.",
                                                    cite("Refund requests are accepted for 14 days."))]}
    first_report = check_answer(policy_store, answer)
    second_report = check_answer(policy_store, answer)
    assert "earlier" not in first_report and second_report.pop("earlier")["checks"] == 1  # the store grew
    first = json.dumps(first_report, sort_keys=True)
    assert first == json.dumps(second_report, sort_keys=True)
    loaded = load_answer(answer)
    assert json.dumps(verify_answer(policy_store, loaded), sort_keys=True) == \
        json.dumps(verify_answer(policy_store, loaded), sort_keys=True)
    claim_id = json.loads(first)["claims"][0]["claim_id"]
    records = history(policy_store, claim_id)
    assert len(records) == 2 and all(r["status"] == "supported" for r in records)


def test_lexical_baseline_misses_what_rules_catch(policy_store: Store) -> None:
    answer = load_answer({"answer_id": "b", "claims": [claim("Automatic retry is allowed for the fax adapter.",
                                                             cite("Automatic retry is allowed for the fax adapter."))]})
    assert verify_answer(policy_store, answer, config=VerifierConfig.lexical_baseline())["claims"][0]["supported"]
    assert not verify_answer(policy_store, answer)["claims"][0]["supported"]


def test_gate_keeps_only_supported(policy_store: Store) -> None:
    report = run(policy_store,
                 claim("Refund requests are accepted for 14 days.", cite("Refund requests are accepted for 14 days.")),
                 claim("Refund requests are accepted for 30 days.", cite("Refund requests are accepted for 14 days.")))
    gated = gate_answer(report)
    assert gated["text"] == "Refund requests are accepted for 14 days." and not gated["declined"]
    assert gate_answer(run(policy_store))["declined"]


citation_strategy = st.fixed_dictionaries({}, optional={
    "source": st.sampled_from(["decisions/policy.md", "notes/keys.md", "missing.md", ""]),
    "chunk_id": st.text(max_size=20),
    "start": st.one_of(st.integers(-5, 2000), st.none()),
    "end": st.one_of(st.integers(-5, 2000), st.none()),
    "quote": st.one_of(st.text(max_size=60), st.sampled_from(["The dispatcher retries", "14 days", ""])),
    "revision": st.text(alphabet="0123456789abcdef", max_size=16),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(citation=citation_strategy)
def test_random_citations_never_crash(policy_store: Store, citation: dict) -> None:
    from graphcite.errors import GraphciteError

    try:
        answer = load_answer({"answer_id": "h", "claims": [{"text": "The dispatcher retries 4 times.",
                                                            "citations": [citation]}]})
    except GraphciteError:
        return
    report = verify_answer(policy_store, answer, audience="public")
    c = report["claims"][0]
    assert c["status"] in {"supported", "contradicted", "conflict", "insufficient", "unsupported", "invalid"}
    for cit in c["citations"]:
        if cit["valid"]:
            text = policy_store.scalar("SELECT text FROM source_revision WHERE revision_id = ?", [cit["revision"]])
            assert text[cit["start"]:cit["end"]] == cit["quote"]


def test_public_report_echoes_nothing_the_store_knows_of_a_restricted_citation(policy_store: Store) -> None:
    text = "Signing keys rotate every 30 days."
    public = run(policy_store, claim(text, cite(text, "notes/keys.md")), audience="public")
    cit = public["claims"][0]["citations"][0]
    revisions = {r["revision_id"] for r in policy_store.rows(
        "SELECT revision_id FROM source_revision WHERE source_key = 'notes/keys.md'")}
    units = {r["unit_id"] for r in policy_store.rows(
        "SELECT unit_id FROM evidence_unit WHERE source_key = 'notes/keys.md'")}
    blob = json.dumps(public)
    assert revisions and not any(r in blob for r in revisions)
    assert units and not any(u in blob for u in units)
    assert cit["revision"] is None and cit["unit_id"] is None and cit["heading_path"] == []


def test_a_second_check_shows_the_checks_performed_before(policy_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps({"answer_id": "again", "claims": [
        claim("Refund requests are accepted for 14 days.", cite("Refund requests are accepted for 14 days."))]}),
        encoding="utf-8")
    first = check_answer(policy_store, path)
    assert "earlier" not in first
    second = check_answer(policy_store, path)
    earlier = second["earlier"]
    assert earlier["checks"] == 1 and earlier["corrected_by"] == []
    item = earlier["claims"][0]
    assert item["claim_id"] == second["claims"][0]["claim_id"]
    assert item["last_status"] == "supported" and item["status_changed"] is False
    assert second["claims"][0]["status"] == "supported"


def test_remembered_pair_verdicts_are_fresh_copies_and_keyed_by_configuration() -> None:
    from graphcite.claims.decompose import decompose
    from graphcite.verify.engine import _PAIRS, evaluate_pair
    from graphcite.verify.evidence import evidence_from_text

    claim = decompose("The dispatcher retries a failed delivery 4 times.")[0]
    evidence = evidence_from_text("The dispatcher retries a failed delivery 5 times.")
    config = VerifierConfig()
    first = evaluate_pair(claim, evidence, config, index=2)
    remembered = len(_PAIRS)
    first.findings.append(first.findings[0])
    first.relation = "edited by a caller"
    second = evaluate_pair(claim, evidence, config, index=3)
    assert len(_PAIRS) == remembered and second.index == 3  # from memory, under the caller's index
    assert second.relation == "contradicts" and len(second.findings) == len(first.findings) - 1
    lexical = evaluate_pair(claim, evidence, VerifierConfig.lexical_baseline(), index=3)
    assert len(_PAIRS) == remembered + 1 and lexical.relation != second.relation  # another configuration


PLANS = """# Plans

Extra hours on the premium plan cost £12 each.

Extra hours on the basic plan cost £18 each.
"""


def test_citations_that_disagree_are_a_conflict_even_in_one_source(store: Store, tmp_path: Path) -> None:
    # the span about another plan supports the words, the cited span about the claim's own plan denies it
    root = tmp_path / "plans"
    root.mkdir()
    (root / "plans.md").write_text(PLANS, encoding="utf-8")
    ingest(store, [root])
    premium = cite("Extra hours on the premium plan cost £12 each.", source="plans.md")
    basic = cite("Extra hours on the basic plan cost £18 each.", source="plans.md")
    alone = run(store, claim("Extra hours cost £12 each.", premium))["claims"][0]
    assert alone["status"] == "supported"
    both = run(store, claim("Extra hours cost £12 each.", premium, basic))["claims"][0]
    assert both["status"] == "conflict" and not both["supported"]
    assert [c["relation"] for c in both["citations"]] == ["supports", "contradicts"]
