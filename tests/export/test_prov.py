"""PROV-JSON: reads back with the prov package and validates against the PROV-JSON schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import prov
import pytest
from prov.model import ProvDocument

VENDORED = Path(__file__).parent / "data" / "prov-json.schema.json"
SHIPPED = Path(prov.__file__).parent / "tests" / "schemas" / "prov-json.schema.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    # prov ships the W3C member-submission schema with its tests; a vendored copy covers installs without them
    schema = json.loads((SHIPPED if SHIPPED.exists() else VENDORED).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


@pytest.fixture(scope="module")
def document(exported: Callable[..., Path]) -> dict[str, Any]:
    return json.loads(exported("prov").read_text(encoding="utf-8"))


def relations(document: dict[str, Any], name: str, prov_type: str | None = None) -> set[tuple[str, str]]:
    out = set()
    for record in document.get(name, {}).values():
        kind = record.get("prov:type")
        kind = kind.get("$") if isinstance(kind, dict) else kind
        if prov_type is None and kind in {"prov:Quotation", "prov:Revision", "prov:PrimarySource"}:
            continue
        if prov_type is not None and kind != prov_type:
            continue
        a = record.get("prov:generatedEntity") or record.get("prov:entity") or record.get("prov:influencee")
        b = record.get("prov:usedEntity") or record.get("prov:activity") or record.get("prov:influencer")
        out.add((a, b))
    return out


@pytest.mark.parametrize("audience", ["internal", "public"])
def test_validates_and_reads_back(audience: str, exported: Callable[..., Path],
                                  validator: jsonschema.Draft4Validator) -> None:
    text = exported("prov", audience).read_text(encoding="utf-8")
    errors = sorted(validator.iter_errors(json.loads(text)), key=str)
    assert not errors, "\n".join(str(e.message) for e in errors[:5])
    doc = ProvDocument.deserialize(content=text, format="json")
    assert len(doc.get_records()) > 50
    assert ProvDocument.deserialize(content=doc.serialize(format="json"), format="json") == doc


def test_schema_rejects_a_broken_document(document: dict[str, Any], validator: jsonschema.Draft4Validator) -> None:
    broken = json.loads(json.dumps(document))
    broken["wasDerivedFrom"] = {"_:x": {"prov:generatedEntity": 42}}
    assert list(validator.iter_errors(broken))


def test_lineage_maps_onto_prov(document: dict[str, Any]) -> None:
    derived = relations(document, "wasDerivedFrom")
    assert ("src:posts/p1.md", "src:decisions/dr-100.md") in derived
    assert ("src:posts/p3.md", "src:posts/p1.md") in derived
    assert ("src:posts/p2.md", "src:decisions/dr-100.md") in relations(document, "wasDerivedFrom", "prov:Quotation")
    primary = relations(document, "wasDerivedFrom", "prov:PrimarySource")
    assert ("src:posts/p3.md", "src:decisions/dr-100.md") in primary
    assert ("src:contracts/relay-contract.md", "src:decisions/dr-100.md") in primary
    assert ("src:contracts/relay-contract.md", "src:decisions/dr-100.md") in relations(
        document, "wasDerivedFrom", "gc:implements")
    revisions = relations(document, "wasDerivedFrom", "prov:Revision")
    assert len(revisions) == 1
    (newer, older), = revisions
    assert document["entity"][newer]["gc:seq"]["$"] == "2" and document["entity"][older]["gc:seq"]["$"] == "1"


def test_supersession_is_an_invalidation_and_a_replacement(document: dict[str, Any]) -> None:
    invalidations = list(document["wasInvalidatedBy"].values())
    assert [(r["prov:entity"], r["prov:activity"]) for r in invalidations] == [
        ("src:notes/old-note.md", "act:supersession/decisions/dr-100.md")]
    assert invalidations[0]["prov:time"].startswith("2024-01-10")
    assert document["entity"]["src:decisions/dr-100.md"]["dcterms:replaces"]["$"] == "src:notes/old-note.md"


def test_citations_and_contradictions(document: dict[str, Any], export_report: dict[str, Any]) -> None:
    cites = relations(document, "wasDerivedFrom", "gc:Citation")
    assert cites == {(f"claim:{c['claim_id']}", f"unit:{cit['unit_id']}")
                     for c in export_report["claims"] for cit in c["citations"] if cit["unit_id"]}
    conflict = export_report["claims"][7]["claim_id"]
    against = {b for a, b in relations(document, "wasInfluencedBy", "gc:ContradictedBy") if a == f"claim:{conflict}"}
    assert len(against) == 3
