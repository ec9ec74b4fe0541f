"""The check report's JSON Schema is generated from the typed report, and real reports validate against it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from graphcite.claims import load_answer
from graphcite.models import STATUS_DISPLAY, ClaimStatus
from graphcite.schemas import report_schema
from graphcite.store import Store
from graphcite.verify import check_answer, verify_answer

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"


def test_committed_schema_is_the_generated_one() -> None:
    assert (ROOT / "schema" / "check-report.schema.json").read_text(encoding="utf-8") == report_schema(), \
        "run `python scripts/build_schemas.py` and commit schema/"


def test_real_reports_validate(corpus_store: Store) -> None:
    schema = json.loads(report_schema())
    validator = jsonschema.Draft202012Validator(schema)
    for name in ("clean", "traps"):
        for audience in ("internal", "public"):
            report = check_answer(corpus_store, ANSWERS / f"{name}.json", audience=audience)
            errors = sorted(validator.iter_errors(json.loads(json.dumps(report))), key=str)
            assert not errors, errors[:3]
    bad = load_answer({"answer_id": "bad", "claims": [{"text": "x", "citations": [
        {"source": "nowhere.md", "start": 9, "end": 2}]}, {"text": "No citation here.", "citations": []}]})
    report = verify_answer(corpus_store, bad)
    assert not list(validator.iter_errors(json.loads(json.dumps(report))))
    assert {c["status"] for c in report["claims"]} <= {s.value for s in ClaimStatus}


def test_every_status_has_a_symbol_and_a_word() -> None:
    assert set(STATUS_DISPLAY) == set(ClaimStatus)
    symbols = [symbol for symbol, _, _ in STATUS_DISPLAY.values()]
    assert len(set(symbols)) == len(symbols)
