"""Web Annotation export: every annotation passes every assertion of the W3C annotationMusts.test.

The W3C test suite's assertions are draft-04 JSON Schemas that refer to each other by file name
("id.json#/definitions/stringUri"); they are loaded into a ``referencing`` registry keyed by those
names. Formats "uri" and "date-time" are checked (the suite relies on them and jsonschema would
otherwise ignore them without optional packages).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from graphcite.store import Store

URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>\"{}|\\^`]*$")


def _checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker()

    @checker.checks("uri")
    def is_uri(value: object) -> bool:
        return not isinstance(value, str) or bool(URI.match(value))

    @checker.checks("date-time", raises=ValueError)
    def is_datetime(value: object) -> bool:
        if not isinstance(value, str):
            return True
        if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", value):
            raise ValueError(f"not RFC 3339: {value}")
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True

    return checker


@pytest.fixture(scope="module")
def must_validators(web_annotation_tests: Path) -> list[tuple[str, jsonschema.Draft4Validator]]:
    resources = []
    for path in sorted((web_annotation_tests / "definitions").glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((path.name, Resource.from_contents(schema, default_specification=DRAFT4)))
    registry = Registry().with_resources(resources)
    listed = json.loads((web_annotation_tests / "annotations" / "annotationMusts.test").read_text())["assertions"]
    validators = []
    checker = _checker()
    for rel in listed:
        schema = json.loads((web_annotation_tests / rel).read_text(encoding="utf-8"))
        jsonschema.Draft4Validator.check_schema(schema)
        validators.append((rel, jsonschema.Draft4Validator(schema, registry=registry, format_checker=checker)))
    assert len(validators) == len(listed) > 40
    return validators


def failures(anno: dict[str, Any], validators: list[tuple[str, jsonschema.Draft4Validator]]) -> list[str]:
    out = []
    for name, validator in validators:
        errors = list(validator.iter_errors(anno))
        if errors:
            out.append(f"{name}: {errors[0].message[:200]}")
    return out


def items(path: Path) -> list[dict[str, Any]]:
    collection = json.loads(path.read_text(encoding="utf-8"))
    assert collection["type"] == "AnnotationCollection" and collection["total"] == len(collection["first"]["items"])
    return collection["first"]["items"]


@pytest.mark.parametrize("audience", ["internal", "public"])
def test_every_annotation_passes_every_must(audience: str, exported: Callable[..., Path],
                                            must_validators: list[tuple[str, jsonschema.Draft4Validator]],
                                            export_report: dict[str, Any]) -> None:
    annotations = items(exported("webanno", audience))
    assert len(annotations) == sum(len(c["citations"]) for c in export_report["claims"])
    for anno in annotations:
        assert failures(anno, must_validators) == [], anno["id"]


def test_the_assertions_can_fail(must_validators: list[tuple[str, jsonschema.Draft4Validator]],
                                 exported: Callable[..., Path]) -> None:
    good = items(exported("webanno"))[0]
    no_context = {k: v for k, v in good.items() if k != "@context"}
    assert any("annotationContextValidated" in f for f in failures(no_context, must_validators))
    bad_selector = json.loads(json.dumps(good))
    bad_selector["target"]["selector"][1]["start"] = -1
    assert failures(bad_selector, must_validators)
    bad_state = json.loads(json.dumps(good))
    bad_state["target"]["state"]["sourceDate"] = "yesterday"
    assert any("timeState" in f for f in failures(bad_state, must_validators))


def test_targets_pin_the_revision_and_select_the_span(exported: Callable[..., Path], export_store: Store,
                                                      export_report: dict[str, Any]) -> None:
    annotations = {a["id"]: a for a in items(exported("webanno"))}
    for claim in export_report["claims"]:
        for cit in claim["citations"]:
            anno = annotations[f"urn:graphcite:annotation:{claim['claim_id']}-{cit['index']}"]
            assert anno["motivation"] == "assessing"
            verdict, described = anno["body"]
            assert verdict["purpose"] == "assessing" and cit["relation"] in verdict["value"]
            assert described == {"type": "TextualBody", "purpose": "describing", "value": claim["text"],
                                 "format": "text/plain"}
            target = anno["target"]
            assert target["source"].endswith(f"?rev={cit['revision']}")
            quote, position = target["selector"]
            text = export_store.scalar("SELECT text FROM source_revision WHERE revision_id = ?", [cit["revision"]])
            assert (position["start"], position["end"]) == (cit["start"], cit["end"])
            assert quote["exact"] == text[cit["start"]:cit["end"]] == cit["quote"]
            assert text[:cit["start"]].endswith(quote["prefix"]) and text[cit["end"]:].startswith(quote["suffix"])
            assert target["state"]["type"] == "TimeState"


def test_public_annotations_withhold_restricted_targets(exported: Callable[..., Path],
                                                        export_report: dict[str, Any]) -> None:
    annotations = {a["id"]: a for a in items(exported("webanno", "public"))}
    secret = export_report["claims"][3]["claim_id"]
    anno = annotations[f"urn:graphcite:annotation:{secret}-0"]
    assert anno["target"] == {"type": "SpecificResource", "source": "urn:graphcite:restricted-source-1"}
    assert "withheld" in anno["body"][0]["value"]
