"""restricted_origin: which restricted units a claim's decisive values or terms come from, when no cited unit has them.

The lineage corpus has a restricted runbook (manuals/secret.md: rotation every 45 days by the nightly
vault-keeper job; logs kept 90 days) and a public post derived from it that says only "on a fixed
schedule". A claim that cites the post but states the runbook's figure or term launders it.
"""

from __future__ import annotations

import json

import pytest

from graphcite.ingest.values import extract_values
from graphcite.store import Store
from graphcite.verify.origin import OriginQuery, restricted_origin, restricted_origins


def unit(store: Store, key: str, contains: str) -> str:
    row = store.row("SELECT u.unit_id FROM evidence_unit u JOIN source s ON s.current_revision = u.revision_id "
                    "WHERE u.source_key = ? AND u.text LIKE ?", [key, f"%{contains}%"])
    assert row is not None, (key, contains)
    return row["unit_id"]


def origin(store: Store, text: str, cited: list[str]) -> list[str]:
    return restricted_origin(store, text, extract_values(text), cited)


@pytest.fixture(scope="module")
def units(lineage_store: Store) -> dict[str, str]:
    return {"secret_rotation": unit(lineage_store, "manuals/secret.md", "45 days"),
            "secret_logs": unit(lineage_store, "manuals/secret.md", "90 days"),
            "post": unit(lineage_store, "posts/public-keys.md", "fixed schedule"),
            "decision_logs": unit(lineage_store, "decisions/dr-100.md", "14 days")}


def test_a_restricted_figure_behind_a_public_citation_is_found(lineage_store: Store, units: dict[str, str]) -> None:
    found = origin(lineage_store, "Signing secrets are rotated every 45 days.", [units["post"]])
    assert found == [units["secret_rotation"]]


def test_a_restricted_term_behind_a_public_citation_is_found(lineage_store: Store, units: dict[str, str]) -> None:
    found = origin(lineage_store, "The nightly vault-keeper job rotates signing secrets.", [units["post"]])
    assert found == [units["secret_rotation"]]


def test_a_figure_the_cited_unit_holds_is_not_laundering(lineage_store: Store, units: dict[str, str]) -> None:
    assert origin(lineage_store, "Signing secrets are rotated on a fixed schedule.", [units["post"]]) == []
    assert origin(lineage_store, "Delivery logs are kept for 14 days.", [units["decision_logs"]]) == []
    # citing the restricted unit itself is open reliance (relies_on_restricted), not a hidden origin
    assert origin(lineage_store, "Signing secrets are rotated every 45 days.", [units["secret_rotation"]]) == []


def test_a_restricted_figure_the_cited_unit_lacks_is_found(lineage_store: Store, units: dict[str, str]) -> None:
    # the decision says 14 days; only the runbook says 90 (the public ops manual says 30)
    assert origin(lineage_store, "Delivery logs are kept for 90 days.", [units["decision_logs"]]) == [
        units["secret_logs"]]


@pytest.mark.parametrize("text", [
    "Signing secrets are rotated every 46 days.",  # a figure nobody states
    "Invoices are archived every 45 days.",  # the figure, but another subject
    "Signing secrets are rotated for each event.",  # a term missing from the post, but public elsewhere
    "Signing secrets are rotated every few days.",  # a vague amount is no figure
])
def test_no_origin_without_a_decisive_restricted_value_or_term(text: str, lineage_store: Store,
                                                             units: dict[str, str]) -> None:
    assert origin(lineage_store, text, [units["post"]]) == []


def test_bulk_matches_one_by_one(lineage_store: Store, units: dict[str, str]) -> None:
    texts = ["Signing secrets are rotated every 45 days.", "Signing secrets are rotated on a fixed schedule.",
             "The nightly vault-keeper job rotates signing secrets.", "Delivery logs are kept for 90 days."]
    queries = [OriginQuery(f"c{i}", t, extract_values(t), [units["post"]]) for i, t in enumerate(texts)]
    bulk = restricted_origins(lineage_store, queries)
    assert bulk == {q.claim_id: origin(lineage_store, q.text, list(q.cited_unit_ids))
                    for q in queries if origin(lineage_store, q.text, list(q.cited_unit_ids))}
    assert set(bulk) == {"c0", "c2", "c3"}


def test_a_store_without_restricted_sources_has_no_origins(store: Store) -> None:
    assert origin(store, "Signing secrets are rotated every 45 days.", []) == []
    assert restricted_origins(store, []) == {}


def test_the_check_report_names_the_origin_internally_and_withholds_it_publicly(lineage_store: Store) -> None:
    from graphcite.claims import load_answer
    from graphcite.verify import verify_answer

    quote = lineage_store.scalar("SELECT text FROM evidence_unit WHERE source_key = 'posts/public-keys.md' "
                                 "AND text LIKE '%fixed schedule%'")
    answer = load_answer({"answer_id": "launder", "claims": [{
        "text": "Signing secrets are rotated every 45 days.",
        "citations": [{"source": "posts/public-keys.md", "quote": quote}]}]})
    internal = verify_answer(lineage_store, answer, audience="internal")["claims"][0]
    public = verify_answer(lineage_store, answer, audience="public")["claims"][0]
    assert not internal["supported"] and not public["supported"]
    inside = [f for c in internal["citations"] for f in c["findings"] if f["code"] == "GC953"]
    outside = [f for c in public["citations"] for f in c["findings"] if f["code"] == "GC953"]
    assert inside and "manuals" not in inside[0]["detail"] and "restricted unit" in inside[0]["detail"]
    assert not outside  # a public verdict never reads restricted content, so it cannot point at it (issue 23 item 1)
    secret_units = {r["unit_id"] for r in lineage_store.rows(
        "SELECT unit_id FROM evidence_unit WHERE source_key = 'manuals/secret.md'")}
    assert any(u in inside[0]["detail"] for u in secret_units)
    assert not any(u in json.dumps(public) for u in secret_units)
