"""The multi-domain suite (benchmarks/suites) is well formed, and the real-text loaders read their formats.

Every claim cites a document of the manifest by a quote that occurs in it verbatim, names a known kind
whose truth matches its label, and explains itself; the dev, held-out, fresh and blind2 parts share no
document. The blind2 part (new domains, scored blind) also gives each quote's code point offsets in its document.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.realtext import (
    BEGIN_DIR,
    FACTCHECKBENCH_FILE,
    _begin_records,
    _covidfact_records,
    _factcheckbench_records,
    _healthver_records,
    _rte_records,
    part_of,
)
from benchmarks.suites.run import DOCS, load_claims, load_manifest
from graphcite.models import RELATIONS

MANIFEST = load_manifest()
PARTS = ("dev", "heldout", "fresh", "blind2")
CLAIMS = load_claims()
EXTRA_FALSE_KINDS = MANIFEST.get("extra_false_kinds", [])
BLIND2 = [c for c in CLAIMS if c["part"] == "blind2"]


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_every_document_is_in_the_manifest_with_a_domain_and_one_part() -> None:
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk == set(MANIFEST["documents"])
    for entry in MANIFEST["documents"].values():
        assert entry["part"] in PARTS
        assert entry["domain"]
    assert len({e["domain"] for e in MANIFEST["documents"].values()}) >= 4


def test_documents_hold_tables_lists_footnotes_and_percentiles() -> None:
    texts = [_text(name) for name in MANIFEST["documents"]]
    assert all("|---|" in t for t in texts), "every document has a table"
    joined = "\n".join(texts)
    for needle in ("[^1]:", "\n- ", "\n1. ", "p95", "p99", "the greater of", "the lower of", "only on weekdays",
                   "per dose", "by 28 March"):
        assert needle.lower() in joined.lower(), needle


def test_ids_are_unique_and_the_suite_is_large_enough() -> None:
    ids = [c["id"] for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert len(CLAIMS) >= 150
    share_true = sum(c["gold_supported"] for c in CLAIMS) / len(CLAIMS)
    assert 0.4 <= share_true <= 0.6


@pytest.mark.parametrize("claim", CLAIMS, ids=[c["id"] for c in CLAIMS])
def test_claim_is_well_formed(claim: dict) -> None:
    assert claim["claim"].strip() and claim["why"].strip()
    kinds = MANIFEST["true_kinds"] if claim["gold_supported"] else MANIFEST["false_kinds"] + EXTRA_FALSE_KINDS
    assert claim["kind"] in kinds, f"{claim['kind']} is not a kind of {'true' if claim['gold_supported'] else 'false'} claim"
    assert claim["citations"]
    relations = [c["gold_relation"] for c in claim["citations"]]
    assert all(r in RELATIONS for r in relations)
    assert ("supports" in relations) == claim["gold_supported"]
    for cit in claim["citations"]:
        assert cit["source"] in MANIFEST["documents"], cit["source"]
        assert MANIFEST["documents"][cit["source"]]["part"] == claim["part"]
        assert MANIFEST["documents"][cit["source"]]["domain"] == claim["domain"]
        assert cit["quote"] in _text(cit["source"]), f"quote not verbatim in {cit['source']}: {cit['quote']!r}"


def test_parts_are_disjoint_by_document_and_dev_is_about_sixty_percent() -> None:
    docs_of = {part: {cit["source"] for c in CLAIMS if c["part"] == part for cit in c["citations"]}
               for part in PARTS}
    assert all(docs_of.values())
    for i, part in enumerate(PARTS):
        for other in PARTS[i + 1:]:
            assert not docs_of[part] & docs_of[other], (part, other)
    parts = Counter(c["part"] for c in CLAIMS)
    assert set(parts) <= set(PARTS)
    share = parts["dev"] / (parts["dev"] + parts["heldout"])
    assert 0.55 <= share <= 0.75, "the fresh part is extra; dev and held-out keep their split"


def test_the_fresh_part_is_balanced_and_holds_every_kind_of_false_claim() -> None:
    fresh = [c for c in CLAIMS if c["part"] == "fresh"]
    assert len(fresh) >= 60
    assert 0.4 <= sum(c["gold_supported"] for c in fresh) / len(fresh) <= 0.6
    assert set(MANIFEST["false_kinds"]) <= {c["kind"] for c in fresh if not c["gold_supported"]}


def test_blind2_is_large_balanced_and_from_new_domains() -> None:
    assert len(BLIND2) >= 100
    assert 0.4 <= sum(c["gold_supported"] for c in BLIND2) / len(BLIND2) <= 0.6
    domains = {e["domain"] for e in MANIFEST["documents"].values() if e["part"] == "blind2"}
    others = {e["domain"] for e in MANIFEST["documents"].values() if e["part"] != "blind2"}
    assert len(domains) >= 4 and not domains & others
    assert {c["domain"] for c in BLIND2} == domains
    false_kinds = {c["kind"] for c in BLIND2 if not c["gold_supported"]}
    assert set(MANIFEST["false_kinds"]) | set(EXTRA_FALSE_KINDS) <= false_kinds
    assert set(MANIFEST["true_kinds"]) <= {c["kind"] for c in BLIND2 if c["gold_supported"]}


def test_blind2_documents_hold_tables_lists_footnotes_and_statistics() -> None:
    for name, entry in MANIFEST["documents"].items():
        if entry["part"] != "blind2":
            continue
        text = _text(name)
        assert text.startswith("---\ntitle: "), name
        assert "|---|" in text and "[^1]:" in text, name
        assert "\n- " in text or "\n1. " in text, f"{name} has no list"
        assert any(w in text.lower() for w in ("percentile", "median", "p95")), name


@pytest.mark.parametrize("claim", BLIND2, ids=[c["id"] for c in BLIND2])
def test_blind2_quote_matches_its_document_at_its_offsets(claim: dict) -> None:
    assert len(claim["offsets"]) == len(claim["citations"])
    for cit, span in zip(claim["citations"], claim["offsets"], strict=True):
        text = _text(cit["source"])
        assert text[span["start"]:span["end"]] == cit["quote"], (claim["id"], span)
        assert text.count(cit["quote"]) == 1, f"quote of {claim['id']} is not unique in {cit['source']}"


def test_every_kind_of_false_claim_is_present() -> None:
    present = {c["kind"] for c in CLAIMS if not c["gold_supported"]}
    assert set(MANIFEST["false_kinds"]) <= present


def test_rte_reader(tmp_path: Path) -> None:
    for name in ("train", "dev"):
        (tmp_path / f"{name}.tsv").write_text(
            "sentence1\tsentence2\tlabel\tidx\nThe ferry left at noon.\tA ferry left.\t0\t0\n"
            "The ferry left at noon.\tThe ferry sank.\t1\t1\n", encoding="utf-8")
    records = _rte_records(tmp_path)
    assert [r["evidences"][0]["evidence_label"] for r in records] == ["ENTAILMENT", "NOT_ENTAILMENT"] * 2
    assert len({r["claim_id"] for r in records}) == 4


def test_healthver_reader_groups_by_claim(tmp_path: Path) -> None:
    for name in ("dev", "test"):
        (tmp_path / f"healthver_{name}.csv").write_text(
            'id,evidence,claim,label,topic_ip,question\n1,"Masks cut spread, a trial found.",Masks help,Supports,1,q\n'
            '2,Another study.,Masks help,Neutral,1,q\n', encoding="utf-8")
    records = _healthver_records(tmp_path)
    assert len(records) == 4
    assert len({part_of(r["group"]) for r in records}) == 1, "one claim's pairs stay in one part"
    assert records[0]["evidences"][0]["evidence"] == "Masks cut spread, a trial found."


def test_covidfact_reader_keeps_all_sentences_of_a_claim(tmp_path: Path) -> None:
    path = tmp_path / "covidfact.jsonl"
    rows = [{"claim": "Vaccine A works", "label": "SUPPORTED", "evidence": ["One.", "Two."]},
            {"claim": "Vaccine B works", "label": "REFUTED", "evidence": ["One.", "Two."]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    records = _covidfact_records(path)
    assert [len(r["evidences"]) for r in records] == [2, 2]
    assert records[0]["group"] == records[1]["group"], "a claim and its counter-claim share a part"
    assert all(r["multi"] for r in records)


def test_factcheckbench_reader_reads_each_pair_once_and_keeps_a_claim_in_one_part(tmp_path: Path) -> None:
    path = tmp_path / "stance.jsonl"
    rows = [{"claim": "The bridge opened in 1932.", "evidence": "The bridge was opened in March 1932.",
             "stance": "completely-support"},
            {"claim": "The bridge opened in 1932.", "evidence": "The bridge was opened in March 1932.",
             "stance": "completely-support"},
            {"claim": "The bridge opened in 1932.", "evidence": "Tolls were lifted in 1950.", "stance": "irrelevant"},
            {"claim": "The bridge opened in 1932.", "evidence": "It opened to traffic in 1929.", "stance": "refute"},
            {"claim": "The bridge opened in 1932.", "evidence": "It opened to traffic in 1929.", "stance": "irrelevant"},
            {"claim": "The bridge is 500 m long.", "evidence": "Its span is 503 m.", "stance": "partially-support"},
            {"claim": "The bridge is 500 m long.", "evidence": "A scraped\u0000binary file", "stance": "refute"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    records = _factcheckbench_records(path)
    labels = [r["evidences"][0]["evidence_label"] for r in records]
    assert labels == ["completely-support", "irrelevant", "partially-support"], "duplicates once, conflicts dropped"
    assert len({r["claim_id"] for r in records}) == 3
    bridge = {part_of(r["group"]) for r in records if r["claim"].startswith("The bridge opened")}
    assert len(bridge) == 1, "one claim's passages stay in one part"


@pytest.mark.skipif(not FACTCHECKBENCH_FILE.exists(), reason="Factcheck-Bench is not in .cache/factcheckbench/")
def test_factcheckbench_cache_reads_whole() -> None:
    records = _factcheckbench_records(FACTCHECKBENCH_FILE)
    assert len(records) > 3000
    assert {r["evidences"][0]["evidence_label"] for r in records} == {
        "completely-support", "partially-support", "refute", "irrelevant"}


def test_begin_reader_drops_generic_turns_and_keeps_a_snippet_in_one_part(tmp_path: Path) -> None:
    head = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
    snippet = "The lighthouse was built in 1874 and automated in 1990."
    (tmp_path / "begin_dev_wow.tsv").write_text(
        head + f"t5\twow\t{snippet}\tDo you like lighthouses?\tIt was built in 1874.\tFully attributable\n"
        f"gpt2\twow\t{snippet}\tDo you like lighthouses?\tIt was built by sailors.\tNot fully attributable\n"
        f"ctrl\twow\t{snippet}\tDo you like lighthouses?\tI love that!\tGeneric\n", encoding="utf-8")
    (tmp_path / "begin_test_wow.tsv").write_text(
        head + f"doha\twow\t{snippet}\tDo you like lighthouses?\tIt was built in 1874.\tFully attributable\n",
        encoding="utf-8")
    records = _begin_records(tmp_path)
    assert [r["evidences"][0]["evidence_label"] for r in records] == ["Fully attributable", "Not fully attributable"]
    assert records[0]["claim"] == "It was built in 1874." and records[0]["evidences"][0]["evidence"] == snippet
    assert len({part_of(r["group"]) for r in records}) == 1


@pytest.mark.skipif(not BEGIN_DIR.exists(), reason="BEGIN is not in .cache/begin/")
def test_begin_cache_reads_whole() -> None:
    records = _begin_records(BEGIN_DIR)
    assert len(records) > 4500
    assert {r["evidences"][0]["evidence_label"] for r in records} == {"Fully attributable", "Not fully attributable"}
