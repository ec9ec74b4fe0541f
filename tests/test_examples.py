"""The bundled example corpus, demo answers and labelled set are consistent with each other.

Every quote the demo answers and the labelled set rely on must really occur in the file it cites
(otherwise the evaluation measures our typos, not the verifier), every lineage key must name a
corpus file, and the labelled set must keep the shape the metrics assume.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType

import pypdf
import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from graphcite.models import CLAIM_TYPES, KINDS, RELATIONS, STATUSES

EXAMPLES = Path(__file__).resolve().parents[1] / "graphcite" / "examples"
CORPUS = EXAMPLES / "corpus"
SIDECAR_SUFFIX = ".meta.yaml"

ALLOWED_KEYS = {
    "title", "status", "effective", "supersedes", "superseded_by", "derived_from", "quotes",
    "implements", "visibility", "kind",
}
LINEAGE_KEYS = ("supersedes", "superseded_by", "derived_from", "quotes", "implements")
CATEGORIES = {
    "topic_without_claim", "half_compound", "superseded_source", "table_units", "heading_reversal",
    "restricted_laundering", "collective_support", "number_mismatch", "counted_noun",
    "limit_vs_observed", "version_vs_revision", "negation", "modality", "lost_condition",
    "negative_claim", "code_evidence", "connective", "active_conflict", "paraphrased_quote",
    "invented_source", "clean_direct", "unit_conversion", "past_tense_history",
}
BROKEN_ON_PURPOSE = {"paraphrased_quote", "invented_source"}
# traps.json: claim indexes whose citation is meant to fail integrity (paraphrase, invented source)
TRAPS_BROKEN = {10, 11}


def corpus_documents() -> list[Path]:
    """Every corpus file except metadata sidecars (and bytecode caches, should one appear)."""
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file() and not p.name.endswith(SIDECAR_SUFFIX) and "__pycache__" not in p.parts
    )


def load_module(name: str, path: Path) -> ModuleType:
    """Import a file by path without leaving a __pycache__ inside the example corpus."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    previous, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = previous
    return module


def key_of(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def sidecar_of(path: Path) -> Path:
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def raw_text(key: str) -> str:
    with open(CORPUS / key, encoding="utf-8", newline="") as fh:
        return fh.read()


def metadata(path: Path) -> dict:
    """Front matter for Markdown, the sidecar for everything else."""
    if path.suffix == ".md":
        text = raw_text(key_of(path))
        assert text.startswith("---\n"), f"{key_of(path)}: no front matter"
        end = text.index("\n---\n", 4)
        return yaml.safe_load(text[4:end])
    sidecar = sidecar_of(path)
    assert sidecar.is_file(), f"{key_of(path)}: missing sidecar {sidecar.name}"
    return yaml.safe_load(sidecar.read_text(encoding="utf-8"))


@cache
def quotable_segments(key: str) -> tuple[str, ...]:
    """Text a quote must fall inside: the raw file, one HTML block, or one PDF line."""
    path = CORPUS / key
    if path.suffix == ".html":
        tree = LexborHTMLParser(raw_text(key))
        return tuple(node.text(deep=True) for node in tree.css("p, li, h1, h2, h3, td, th, title"))
    if path.suffix == ".pdf":
        reader = pypdf.PdfReader(str(path))
        return tuple(line for page in reader.pages for line in page.extract_text().splitlines())
    return (raw_text(key),)


def quote_problem(citation: dict) -> str | None:
    """Why a citation does not resolve, or None when its quote is verbatim in its source."""
    key, quote = citation["source"], citation["quote"]
    if not (CORPUS / key).is_file():
        return f"no corpus file {key}"
    if not any(quote in segment for segment in quotable_segments(key)):
        return f"quote not verbatim in {key}: {quote!r}"
    if "start" in citation or "end" in citation:
        text = raw_text(key)
        if text[citation["start"]:citation["end"]] != quote:
            return f"start/end do not select the quote in {key}"
    return None


@cache
def labelled() -> tuple[dict, ...]:
    lines = (EXAMPLES / "labelled" / "set.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def load_answer(name: str) -> dict:
    return json.loads((EXAMPLES / "answers" / f"{name}.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------------
# Corpus files
# --------------------------------------------------------------------------------------------


def test_corpus_size_and_formats() -> None:
    docs = corpus_documents()
    suffixes = Counter(p.suffix for p in docs)
    assert 22 <= len(docs) <= 28
    assert suffixes[".pdf"] == 1
    assert 2 <= suffixes[".html"] <= 3
    assert suffixes[".py"] == 2
    assert suffixes[".md"] >= 15


@pytest.mark.parametrize("path", corpus_documents(), ids=key_of)
def test_file_decodes(path: Path) -> None:
    if path.suffix == ".pdf":
        assert path.read_bytes().startswith(b"%PDF-")
        reader = pypdf.PdfReader(str(path))
        assert len(reader.pages) == 2
        assert all(page.extract_text().strip() for page in reader.pages)
    else:
        text = path.read_bytes().decode("utf-8")
        assert text.strip()


@pytest.mark.parametrize("path", corpus_documents(), ids=key_of)
def test_metadata_keys_and_values(path: Path) -> None:
    meta = metadata(path)
    assert set(meta) <= ALLOWED_KEYS, set(meta) - ALLOWED_KEYS
    for required in ("title", "status", "effective", "visibility", "kind"):
        assert required in meta, f"{key_of(path)}: missing {required}"
    assert meta["status"] in STATUSES
    assert meta["kind"] in KINDS
    assert meta["visibility"] in ("public", "restricted")
    assert isinstance(meta["effective"], dt.date)
    assert isinstance(meta["title"], str) and meta["title"]


@pytest.mark.parametrize("path", corpus_documents(), ids=key_of)
def test_lineage_keys_name_corpus_files(path: Path) -> None:
    meta = metadata(path)
    for relation in LINEAGE_KEYS:
        value = meta.get(relation)
        targets = [value] if isinstance(value, str) else list(value or [])
        for target in targets:
            assert (CORPUS / target).is_file(), f"{key_of(path)}: {relation} -> {target} does not exist"
            assert target != key_of(path)


def test_supersession_is_declared_on_both_sides() -> None:
    metas = {key_of(p): metadata(p) for p in corpus_documents()}
    for key, meta in metas.items():
        if "superseded_by" in meta:
            assert meta["status"] == "superseded"
            assert metas[meta["superseded_by"]].get("supersedes") == key
        if "supersedes" in meta:
            assert metas[meta["supersedes"]].get("superseded_by") == key


def test_corpus_covers_the_statuses_kinds_and_visibilities_the_traps_need() -> None:
    metas = [metadata(p) for p in corpus_documents()]
    statuses = {m["status"] for m in metas}
    assert {"current", "superseded", "historical", "proposal", "rejected", "draft"} <= statuses
    kinds = Counter(m["kind"] for m in metas)
    assert kinds["post"] == 3
    for kind in ("decision", "incident", "manual", "note", "contract", "code", "test", "observation",
                 "registry", "manifest"):
        assert kinds[kind] >= 1, kind
    assert any(m["visibility"] == "restricted" for m in metas)
    assert any(m.get("implements") for m in metas if m["kind"] == "decision")


@pytest.mark.parametrize("path", [p for p in corpus_documents() if p.suffix == ".md"], ids=key_of)
def test_markdown_length_is_realistic(path: Path) -> None:
    words = len(raw_text(key_of(path)).split())
    assert 150 <= words <= 900, words


def test_hostile_html_keeps_its_payloads() -> None:
    text = raw_text("pages/subscriber-faq.html")
    assert "<script>alert(1)</script>" in text
    assert 'onerror="alert(2)"' in text
    assert 'href="javascript:alert(3)"' in text


def test_pdf_script_reproduces_the_committed_text(tmp_path: Path) -> None:
    pytest.importorskip("fpdf")
    module = load_module("build_example_pdf", EXAMPLES.parents[1] / "scripts" / "build_example_pdf.py")
    built = module.build(tmp_path / "out.pdf")
    fresh = [page.extract_text() for page in pypdf.PdfReader(str(built)).pages]
    committed = [page.extract_text() for page in pypdf.PdfReader(str(module.OUT)).pages]
    assert fresh == committed


def test_code_evidence_facts_hold_when_the_corpus_module_runs() -> None:
    """The labelled set says these helpers make 5, 3, 1 and 4 attempts: check by running them."""
    module = load_module("retry_policy", CORPUS / "code" / "retry_policy.py")
    calls: list[int] = []

    def always_fails(*_args: object) -> None:
        calls.append(1)
        raise module.TransientError("down")

    expected = {"deliver_webhook": 5, "poll_tracking_status": 3, "legacy_deliver_webhook": 4}
    for name, attempts in expected.items():
        calls.clear()
        with pytest.raises(module.TransientError):
            getattr(module, name)(always_fails, "x", sleep=lambda _s: None)
        assert len(calls) == attempts, name
    calls.clear()
    with pytest.raises(module.TransientError):
        module.submit_label(always_fails, "x")
    assert len(calls) == 1


# --------------------------------------------------------------------------------------------
# Demo answers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["clean", "traps"])
def test_answer_shape(name: str) -> None:
    answer = load_answer(name)
    assert set(answer) == {"answer_id", "question", "claims"}
    for claim in answer["claims"]:
        assert set(claim) <= {"text", "citations", "type"}
        assert claim.get("type", "direct") in CLAIM_TYPES
        assert claim["citations"]
        for citation in claim["citations"]:
            assert set(citation) <= {"source", "quote", "start", "end"}


def test_clean_answer_quotes_resolve_to_current_public_sources() -> None:
    answer = load_answer("clean")
    assert 5 <= len(answer["claims"]) <= 8
    for claim in answer["claims"]:
        for citation in claim["citations"]:
            assert quote_problem(citation) is None, quote_problem(citation)
            meta = metadata(CORPUS / citation["source"])
            assert meta["status"] == "current" and meta["visibility"] == "public"


def test_trap_answer_breaks_integrity_only_where_intended() -> None:
    answer = load_answer("traps")
    assert 8 <= len(answer["claims"]) <= 12
    broken = {
        index
        for index, claim in enumerate(answer["claims"])
        if any(quote_problem(c) for c in claim["citations"])
    }
    assert broken == TRAPS_BROKEN


# --------------------------------------------------------------------------------------------
# Labelled set
# --------------------------------------------------------------------------------------------


def test_labelled_set_size_balance_and_ids() -> None:
    items = labelled()
    assert len(items) >= 200
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids))
    supported = sum(item["gold_supported"] for item in items)
    assert supported / len(items) >= 0.40
    contested = sum(item["review"] == "contested" for item in items)
    assert 0.05 <= contested / len(items) <= 0.20


def test_every_category_has_five_items() -> None:
    counts = Counter(item["category"] for item in labelled())
    assert set(counts) == CATEGORIES
    assert min(counts.values()) >= 5, counts


def test_labelled_item_fields() -> None:
    for item in labelled():
        where = item["id"]
        assert item["claim"].strip(), where
        assert isinstance(item["gold_supported"], bool), where
        assert item["review"] in ("adjudicated", "contested"), where
        assert item["audience"] in ("public", "internal"), where
        assert item["rationale"].strip(), where
        assert item.get("claim_type", "direct") in CLAIM_TYPES, where
        assert item["citations"], where
        for citation in item["citations"]:
            assert citation["gold_relation"] in RELATIONS, where
            assert citation.get("role", "policy") in ("policy", "classification", "definition"), where


def test_labelled_quotes_are_verbatim_unless_broken_on_purpose() -> None:
    for item in labelled():
        problems = [quote_problem(c) for c in item["citations"]]
        if item["category"] in BROKEN_ON_PURPOSE:
            assert not item["gold_supported"], item["id"]
            assert all(problems), f"{item['id']} is meant to be broken but resolves"
        else:
            assert not any(problems), f"{item['id']}: {problems}"


def test_public_items_never_rest_on_restricted_sources() -> None:
    restricted = {key_of(p) for p in corpus_documents() if metadata(p)["visibility"] == "restricted"}
    assert restricted
    for item in labelled():
        if item["audience"] == "public" and any(c["source"] in restricted for c in item["citations"]):
            assert not item["gold_supported"], item["id"]


@pytest.mark.parametrize(
    ("schema_name", "documents"),
    [
        ("labelled-set.schema.json", lambda: list(labelled())),
        ("answer-native.schema.json", lambda: [load_answer("clean"), load_answer("traps")]),
    ],
    ids=["labelled-set", "answers"],
)
def test_examples_conform_to_the_published_schemas(schema_name: str, documents) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema_path = EXAMPLES.parents[1] / "schema" / schema_name
    if not schema_path.is_file():
        pytest.skip(f"{schema_name} not generated yet")
    validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text(encoding="utf-8")))
    for document in documents():
        errors = [error.message for error in validator.iter_errors(document)]
        assert not errors, errors


def test_heldout_set_is_valid_and_disjoint_from_the_tuning_set() -> None:
    """heldout.jsonl measures the verifier on claims its rules were not tuned on.

    Same checks as for set.jsonl (shape, verbatim quotes, balance, visibility), plus: its ids and
    claims must not repeat the tuning set's, or it stops being held out.
    """
    lines = (EXAMPLES / "labelled" / "heldout.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines if line.strip()]
    assert len(items) >= 60
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {item["id"] for item in labelled()}
    assert not {item["claim"] for item in items} & {item["claim"] for item in labelled()}
    assert sum(item["gold_supported"] for item in items) / len(items) >= 0.35
    counts = Counter(item["category"] for item in items)
    assert set(counts) <= CATEGORIES, set(counts) - CATEGORIES
    assert min(counts.values()) >= 2, counts
    restricted = {key_of(p) for p in corpus_documents() if metadata(p)["visibility"] == "restricted"}
    for item in items:
        where = item["id"]
        assert item["claim"].strip() and item["rationale"].strip(), where
        assert isinstance(item["gold_supported"], bool), where
        assert item["review"] in ("adjudicated", "contested"), where
        assert item["audience"] in ("public", "internal"), where
        assert item.get("claim_type", "direct") in CLAIM_TYPES, where
        assert item["citations"], where
        for citation in item["citations"]:
            assert citation["gold_relation"] in RELATIONS, where
            assert citation.get("role", "policy") in ("policy", "classification", "definition"), where
        problems = [quote_problem(c) for c in item["citations"]]
        if item["category"] in BROKEN_ON_PURPOSE:
            assert not item["gold_supported"], where
            assert all(problems), f"{where} is meant to be broken but resolves"
        else:
            assert not any(problems), f"{where}: {problems}"
        if item["audience"] == "public" and any(c["source"] in restricted for c in item["citations"]):
            assert not item["gold_supported"], where
