"""The multi-domain suite (benchmarks/suites) is well formed, and the real-text loaders read their formats.

Every claim cites a document of the manifest by a quote that occurs in it verbatim, names a known kind
whose truth matches its label, and explains itself; the dev and held-out parts share no document.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.realtext import _covidfact_records, _healthver_records, _rte_records, part_of
from benchmarks.suites.run import DOCS, load_claims, load_manifest
from graphcite.models import RELATIONS

MANIFEST = load_manifest()
CLAIMS = load_claims()


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_every_document_is_in_the_manifest_with_a_domain_and_one_part() -> None:
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk == set(MANIFEST["documents"])
    for entry in MANIFEST["documents"].values():
        assert entry["part"] in ("dev", "heldout")
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
    kinds = MANIFEST["true_kinds"] if claim["gold_supported"] else MANIFEST["false_kinds"]
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
               for part in ("dev", "heldout")}
    assert docs_of["dev"] and docs_of["heldout"]
    assert not docs_of["dev"] & docs_of["heldout"]
    share = Counter(c["part"] for c in CLAIMS)["dev"] / len(CLAIMS)
    assert 0.55 <= share <= 0.75


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
