"""Citations without a span: the evidence is located in the cited source (and only there), on a real store."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import FORMAT_INFO, load_answer
from graphcite.claims.markers import sentence_spans
from graphcite.ingest import ingest
from graphcite.schemas import report_schema
from graphcite.store import Store
from graphcite.verify import check_answer, verify_answer
from graphcite.verify.config import load_config
from graphcite.verify.locate import LocateQuery, rank_units, revision_indexes

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT / "graphcite" / "examples" / "verifier.yaml")
DR017 = "decisions/dr-017-webhook-retries.md"
FAQ = "pages/subscriber-faq.html"
REPORT = jsonschema.Draft202012Validator(json.loads(report_schema()))


def _check(store: Store, claim: str, *citations: dict, audience: str = "internal") -> dict:
    answer = load_answer({"answer_id": "t", "claims": [{"text": claim, "citations": list(citations)}]})
    report = verify_answer(store, answer, config=CONFIG, audience=audience)
    assert not list(REPORT.iter_errors(json.loads(json.dumps(report))))
    return report["claims"][0]


def _text(store: Store, key: str) -> str:
    return store.scalar("SELECT r.text FROM source s JOIN source_revision r ON r.revision_id = s.current_revision "
                        "WHERE s.key = ?", [key])


def test_a_source_only_citation_is_located_and_verified(corpus_store: Store) -> None:
    claim = _check(corpus_store, "After the fifth failed attempt, the relay parks the event for 72 hours.",
                   {"source": DR017})
    cite = claim["citations"][0]
    assert claim["status"] == "supported" and cite["valid"] and cite["located"]
    assert 0.5 < cite["rank_score"] <= 1
    assert cite["quote"] == "After the fifth failed attempt the event is parked for 72 hours."
    assert _text(corpus_store, DR017)[cite["start"]:cite["end"]] == cite["quote"]
    assert cite["unit_id"] and cite["source"] == DR017 and cite.get("supported_elsewhere") is None


def test_span_citations_are_not_located(corpus_store: Store) -> None:
    quote = "After the fifth failed attempt the event is parked for 72 hours."
    cite = _check(corpus_store, "Parked events wait 72 hours.", {"source": DR017, "quote": quote})["citations"][0]
    assert cite["located"] is False and "rank_score" not in cite


def test_only_the_cited_source_can_support_and_the_uncited_one_is_named(corpus_store: Store) -> None:
    claim = _check(corpus_store, "Larkspur keeps webhook delivery logs for 14 days.", {"source": "manuals/signing-keys.md"})
    cite = claim["citations"][0]
    assert claim["status"] != "supported" and cite["located"]
    elsewhere = cite["supported_elsewhere"]
    assert elsewhere["source"] != "manuals/signing-keys.md"
    text = _text(corpus_store, elsewhere["source"])
    assert "14 days" in text[elsewhere["start"]:elsewhere["end"]]
    supported = _check(corpus_store, "Larkspur keeps webhook delivery logs for 14 days.", {"source": FAQ})
    assert supported["status"] == "supported" and supported["citations"][0].get("supported_elsewhere") is None


@pytest.mark.parametrize(("citation", "audience", "code"), [
    ({"source": "decisions/dr-099-made-up.md"}, "internal", "GC101"),
    ({"source": "manuals/signing-keys-internal.md"}, "public", "GC101"),
    ({"source": DR017, "revision": "ffffffffffffffff"}, "internal", "GC102"),
    ({"source": DR017, "page": 2}, "internal", "GC105"),
    ({"chunk_id": "0123456789abcdef"}, "internal", "GC101"),
])
def test_integrity_stays_strict_for_located_citations(corpus_store: Store, citation: dict, audience: str,
                                                      code: str) -> None:
    claim = _check(corpus_store, "Signing secrets are rotated every 45 days.", citation, audience=audience)
    cite = claim["citations"][0]
    assert claim["status"] == "invalid" and not cite["valid"] and not cite["located"]
    assert next(f["code"] for f in cite["findings"] if f["outcome"] == "fail") == code


def test_restricted_sources_are_located_internally_and_never_named_publicly(corpus_store: Store) -> None:
    claim = "Signing secrets are rotated every 45 days."
    internal = _check(corpus_store, claim, {"source": "manuals/signing-keys-internal.md"})
    assert internal["status"] == "supported" and internal["citations"][0]["located"]
    public = _check(corpus_store, claim, {"source": "manuals/signing-keys.md"}, audience="public")
    found = public["citations"][0].get("supported_elsewhere")
    assert found is None or found["source"] != "manuals/signing-keys-internal.md"


def test_pages_narrow_the_search_in_a_pdf(corpus_store: Store) -> None:
    key = "incidents/inc-2024-07-relay-backlog.pdf"
    claim = "Webhook events for all merchants were delayed by up to 40 minutes."
    on_page = _check(corpus_store, claim, {"source": key, "page": 2})["citations"][0]
    assert on_page["located"] and on_page["page"] == 2 and "40 minutes" in on_page["quote"]
    wrong_page = _check(corpus_store, claim, {"source": key, "page": 1})
    assert wrong_page["status"] != "supported"
    beyond = _check(corpus_store, claim, {"source": key, "page": 40})["citations"][0]
    assert not beyond["valid"] and "page 40" in beyond["findings"][0]["detail"]


def test_a_unit_cited_without_a_span_is_located_inside_it(corpus_store: Store) -> None:
    unit = corpus_store.row("SELECT unit_id, start, \"end\" FROM evidence_unit WHERE source_key = ? AND text LIKE ?",
                            [DR017, "After the fifth failed attempt%"])
    cite = _check(corpus_store, "Operators may replay a parked event from the relay console.",
                  {"chunk_id": unit["unit_id"]})["citations"][0]
    assert cite["located"] and cite["unit_id"] == unit["unit_id"]
    assert unit["start"] <= cite["start"] < cite["end"] <= unit["end"]
    assert cite["quote"].startswith("Operators may replay a parked event")


def test_each_part_of_a_compound_claim_gets_its_own_span(corpus_store: Store) -> None:
    claim = _check(corpus_store, "Brightway offers a status lookup by idempotency key and keeps idempotency keys "
                                 "for 24 hours.", {"source": "contracts/brightway-adapter.md"})
    spans = claim["citations"][0]["located_spans"]
    assert claim["status"] == "supported" and len(spans) == 2
    quotes = sorted(s["quote"] for s in spans)
    assert quotes == ["Brightway keeps idempotency keys for 24 hours.",
                      "Brightway offers a status lookup by idempotency key."]


def test_nothing_in_common_is_insufficient_not_invalid(corpus_store: Store) -> None:
    claim = _check(corpus_store, "Quarterly zebra audits require sixteen umbrellas.", {"source": DR017})
    cite = claim["citations"][0]
    assert claim["status"] == "insufficient" and cite["valid"] and cite["located"]
    assert any(f["code"] == "GC107" and f["outcome"] == "note" for f in cite["findings"])


@pytest.mark.parametrize("name", [
    "dr-017-webhook-retries.md", "/srv/corpus/decisions/dr-017-webhook-retries.md", "dr-017-webhook-retries",
    "DR-017: Webhook relay retries and parking", "file:///srv/corpus/decisions/dr-017-webhook-retries.md",
    "https://docs.example/decisions/dr-017-webhook-retries.md"])
def test_producer_names_resolve_to_the_one_source_they_fit(corpus_store: Store, name: str) -> None:
    cite = _check(corpus_store, "The relay makes at most five delivery attempts for each event.",
                  {"source": name})["citations"][0]
    assert cite["valid"] and cite["source"] == DR017


def test_front_matter_urls_and_ambiguous_names(store: Store, tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    (corpus / "a").mkdir(parents=True)
    (corpus / "b").mkdir()
    (corpus / "a" / "guide.md").write_text("---\nurl: https://help.example.org/guide/\n---\n# Guide\n\n"
                                           "Refunds are accepted for 30 days after delivery.\n", encoding="utf-8")
    (corpus / "b" / "guide.md").write_text("# Guide\n\nRefunds are never accepted.\n", encoding="utf-8")
    ingest(store, [corpus])
    by_url = _check(store, "Refunds are accepted for 30 days.", {"source": "https://help.example.org/guide#refunds"})
    assert by_url["status"] == "supported" and by_url["citations"][0]["source"] == "a/guide.md"
    ambiguous = _check(store, "Refunds are accepted for 30 days.", {"source": "guide.md"})["citations"][0]
    assert not ambiguous["valid"] and "fits 2 sources" in ambiguous["findings"][0]["detail"]


SENTENCES = [(DR017, "A 429 answer is treated like a 5xx answer."),
             (DR017, "Any other 4xx answer ends delivery at once."),
             (FAQ, "We keep delivery logs for 14 days."),
             ("manuals/signing-keys.md", "Merchants should verify it before trusting the event body."),
             ("contracts/northpass-adapter.md", "The Northpass adapter must not retry a label request."),
             ("incidents/inc-2024-03-dispatch-lag.md", "No parcels were lost.")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(SENTENCES))
def test_a_sentence_quoted_as_the_claim_is_located_on_itself(corpus_store: Store, pair: tuple[str, str]) -> None:
    key, sentence = pair
    cite = _check(corpus_store, sentence, {"source": key})["citations"][0]
    text = _text(corpus_store, key)
    at = text.index(sentence)
    assert cite["start"] < at + len(sentence) and at < cite["end"]


def test_revision_indexes_are_built_once_per_store(corpus_store: Store) -> None:
    revision = corpus_store.scalar("SELECT current_revision FROM source WHERE key = ?", [DR017])
    first = revision_indexes(corpus_store, [revision])[revision]
    assert revision_indexes(corpus_store, [revision])[revision] is first
    assert first.total_units == corpus_store.scalar("SELECT count(*) FROM evidence_unit WHERE revision_id = ?",
                                                    [revision])
    ranking = rank_units(corpus_store, [LocateQuery(0, "Parked events wait 72 hours.", revision)])[0]
    assert ranking.chosen and ranking.chosen[0].row["revision_id"] == revision


@pytest.mark.parametrize("info", [f for f in FORMAT_INFO if f.name in
                                  {"openai", "gemini", "cohere", "langchain", "llamaindex", "alce"}],
                         ids=lambda f: f.name)
def test_every_new_format_example_checks_out_on_the_bundled_corpus(corpus_store: Store, info) -> None:
    report = check_answer(corpus_store, ROOT / "schema" / "examples" / info.example, config=CONFIG)
    assert not list(REPORT.iter_errors(json.loads(json.dumps(report))))
    assert report["claims"] and all(c["status"] == "supported" for c in report["claims"]), [
        (c["text"], c["status"]) for c in report["claims"]]
    assert all(cite["located"] for c in report["claims"] for cite in c["citations"])
    for claim in report["claims"]:
        for cite in claim["citations"]:
            assert _text(corpus_store, cite["source"])[cite["start"]:cite["end"]] == cite["quote"]
    assert sentence_spans(report["claims"][0]["text"])


def test_a_bad_citation_in_a_producer_answer_makes_only_its_claim_invalid(corpus_store: Store) -> None:
    data = {"input": "q", "answer": "After the fifth failed attempt the relay parks the event for 72 hours [1]. "
                                    "Operators may replay a parked event [4].",
            "context": [{"page_content": "…", "metadata": {"source": "/srv/corpus/" + DR017}}]}
    report = check_answer(corpus_store, data, config=CONFIG)
    assert [c["status"] for c in report["claims"]] == ["supported", "invalid"]
    finding = report["claims"][1]["citations"][0]["findings"][0]
    assert finding["code"] == "GC105" and "marker [4]" in finding["detail"]
