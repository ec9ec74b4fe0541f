"""Answer formats: detection, every accepted shape, exact error paths, schemas, robustness."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.claims.formats import (
    FORMATS,
    NO_LIMITS,
    AnswerLimits,
    answer_to_dict,
    detect_format,
    load_answer,
    load_answer_text,
)
from graphcite.errors import AnswerFormatError, GraphciteError
from graphcite.models import CitationRef, InputAnswer

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schema"
EXAMPLES = SCHEMA / "examples"


def _schema(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA / f"answer-{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


NATIVE_SCHEMA = _schema("native")
ANTHROPIC_SCHEMA = _schema("anthropic")


def _error(data, **kwargs) -> AnswerFormatError:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(data, **kwargs)
    return info.value


# --------------------------------------------------------------------------------------------
# Examples and schemas
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt", "claims"),
    [("native.json", "native", 4), ("cairn.json", "cairn", 2), ("anthropic.json", "anthropic", 4),
     ("markers.txt", "markers", 6)],
)
def test_every_example_loads_with_detected_format(name: str, fmt: str, claims: int) -> None:
    for source in (EXAMPLES / name, str(EXAMPLES / name)):
        answer = load_answer(source)
        assert answer.format == fmt
        assert len(answer.claims) == claims
        assert all(claim.text and claim.text == claim.text.strip() for claim in answer.claims)


def test_example_directory_has_one_file_per_format() -> None:
    stems = {path.stem for path in EXAMPLES.iterdir()}
    assert stems == set(FORMATS)


@pytest.mark.parametrize(("name", "validator"), [("native.json", NATIVE_SCHEMA), ("cairn.json", NATIVE_SCHEMA),
                                                 ("anthropic.json", ANTHROPIC_SCHEMA)])
def test_examples_validate_against_schemas(name: str, validator: jsonschema.Draft202012Validator) -> None:
    validator.validate(json.loads((EXAMPLES / name).read_text()))


def test_canonical_dicts_of_all_examples_validate_as_native() -> None:
    for path in EXAMPLES.iterdir():
        NATIVE_SCHEMA.validate(answer_to_dict(load_answer(path)))


@pytest.mark.parametrize("name", ["native.json", "cairn.json", "anthropic.json", "markers.txt"])
def test_canonical_dict_round_trips(name: str) -> None:
    answer = load_answer(EXAMPLES / name)
    again = load_answer(answer_to_dict(answer))
    assert again.claims == answer.claims
    assert again.answer_id == answer.answer_id
    assert again.question == answer.question
    assert again.documents == answer.documents


# --------------------------------------------------------------------------------------------
# native and cairn
# --------------------------------------------------------------------------------------------


def _native(*claims: dict, **top) -> dict:
    return {"question": "q?", "claims": list(claims), **top}


def _message(*blocks: dict, documents: list | None = None) -> dict:
    data: dict = {"id": "msg_1", "type": "message", "role": "assistant", "content": list(blocks)}
    if documents is not None:
        data["documents"] = documents
    return data


def _char(doc: int = 0, start: int = 0, end: int = 10, text: str = "cited") -> dict:
    return {"type": "char_location", "document_index": doc, "start_char_index": start, "end_char_index": end,
            "cited_text": text}


def test_native_citation_kinds() -> None:
    answer = load_answer(_native(
        {"text": "Retries stop after three attempts.", "citations": [
            {"source": "policy.md", "revision": "abc123", "start": 4, "end": 40, "quote": "three attempts",
             "role": "policy"},
            {"chunk_id": "7c1f2a9b4e6d8035", "start": 0, "end": 9, "quote": "attempts"},
        ]},
    ))
    assert answer.format == "native"
    first, second = answer.claims[0].citations
    assert first == CitationRef(source="policy.md", revision="abc123", start=4, end=40, quote="three attempts",
                                role="policy")
    assert second == CitationRef(chunk_id="7c1f2a9b4e6d8035", start=0, end=9, quote="attempts")


def test_claim_type_and_premises_are_read() -> None:
    answer = load_answer(_native({"text": "A holds."}, {"text": "B holds."},
                                 {"text": "So C holds.", "type": "inference", "premises": [0, 1]}))
    assert answer.claims[2].claim_type == "inference"
    assert answer.claims[2].premises == (0, 1)
    assert answer.claims[0].citations == ()


def test_cairn_output_fields_are_read_and_ignored() -> None:
    data = _native({"text": "The canary lasts 48 hours.", "citations": [{"chunk_id": "c1"}], "supported": False,
                    "support_score": 0.2, "id": 7})
    answer = load_answer(data)
    assert answer.format == "cairn"
    assert answer.claims[0].text == "The canary lasts 48 hours."
    assert load_answer(data, format="native").format == "native"


def test_answer_id_is_derived_from_content_and_stable() -> None:
    a = load_answer(_native({"text": "The scheduler retries."}))
    b = load_answer(_native({"text": "The scheduler retries."}))
    c = load_answer(_native({"text": "The scheduler gives up."}))
    assert re.fullmatch(r"a-[0-9a-f]{12}", a.answer_id)
    assert a.answer_id == b.answer_id != c.answer_id
    assert load_answer(_native({"text": "x y"}, answer_id="given")).answer_id == "given"


def test_empty_claims_list_is_allowed() -> None:
    answer = load_answer({"claims": []})
    assert answer.claims == ()
    assert answer.question is None


def test_json_text_can_be_passed_as_a_string() -> None:
    answer = load_answer(json.dumps(_native({"text": "Timeouts are 30 s."})))
    assert answer.claims[0].text == "Timeouts are 30 s."


@pytest.mark.parametrize(
    ("data", "where", "cause"),
    [
        (_native({"text": "a", "citations": [{"source": "k", "quote": 12}]}),
         "claims[0].citations[0].quote", "expected a non-empty string"),
        (_native({"text": "   "}), "claims[0].text", "expected a non-empty string"),
        (_native({"citations": []}), "claims[0].text", "missing required field"),
        (_native({"text": "ok \ud800 there"}), "claims[0].text", "lone surrogate U+D800"),
        (_native({"text": "a", "citations": [{"source": "k", "chunk_id": "u"}]}),
         "claims[0].citations[0]", "exactly one of 'source' and 'chunk_id'"),
        (_native({"text": "a", "citations": [{"quote": "x"}]}),
         "claims[0].citations[0]", "missing 'source' or 'chunk_id'"),
        (_native({"text": "a", "citations": [{"source": "k", "qoute": "x"}]}),
         "claims[0].citations[0]", "unknown field 'qoute'"),
        (_native({"text": "a", "citations": [{"chunk_id": "u", "revision": "r"}]}),
         "claims[0].citations[0]", "unknown field 'revision'"),
        (_native({"text": "a", "citations": "policy.md"}), "claims[0].citations", "expected an array"),
        (_native({"text": "a", "type": "opinion"}), "claims[0].type", "unknown claim type"),
        (_native({"text": "a", "premises": [0]}), "claims[0].premises[0]", "premise 0 is not another claim"),
        (_native({"text": "a"}, {"text": "b", "premises": [-1]}), "claims[1].premises[0]",
         "expected a non-negative integer"),
        (_native({"text": "a", "citations": [{"source": "k", "defect": 3}]}), "claims[0].citations[0].defect",
         "expected a non-empty string"),
        (_native({"text": "a"}, {"text": "b", "premises": [5]}), "claims[1].premises[0]", "premise 5"),
        (_native({"text": "a", "supported": "yes"}), "claims[0].supported", "expected a boolean"),
        (_native("just a string"), "claims[0]", "expected an object"),
        ({"claims": {"text": "a"}}, "claims", "expected an array"),
        ({"question": 3, "claims": []}, "question", "expected a string"),
        ({"answer_id": "", "claims": []}, "answer_id", "expected a non-empty string"),
        ({"documents": [1], "claims": []}, "documents[0]", "expected a non-empty string"),
    ],
)
def test_native_errors_name_the_json_path(data: dict, where: str, cause: str) -> None:
    error = _error(data)
    assert error.where == where
    assert cause in error.cause
    assert str(error).startswith(f"{where}: ")
    assert "\n" not in str(error)


def test_error_message_matches_the_documented_shape() -> None:
    data = _native(*({"text": "x"} for _ in range(3)), {"text": "y", "citations": [{"source": "k", "quote": 9}]})
    error = _error(data)
    assert str(error).startswith("claims[3].citations[0].quote: expected a non-empty string")
    assert error.code == "E201"


def test_errors_are_catchable_as_value_error_and_graphcite_error() -> None:
    error = _error({"claims": 1})
    assert isinstance(error, ValueError)
    assert isinstance(error, GraphciteError)


# --------------------------------------------------------------------------------------------
# Bad offsets and pages: the citation is invalid, the answer is still read
# --------------------------------------------------------------------------------------------

_BAD_LOCATORS = [
    ({"start": -5, "end": 10}, "start -5 is negative"),
    ({"start": 0, "end": -1}, "end -1 is negative"),
    ({"start": 9, "end": 3}, "start 9 is after end 3"),
    ({"start": 1.5, "end": 3}, "start 1.5 is not an integer"),
    ({"start": 1.0, "end": 3}, "start 1.0 is not an integer"),
    ({"start": "4", "end": 9}, "start a string is not an integer"),
    ({"start": True, "end": 3}, "start true is not an integer"),
    ({"start": 0, "end": 2**63}, "end 9223372036854775808 is out of range"),
    ({"start": 0, "end": 10**5000}, "is out of range"),
    ({"start": 1}, "end is missing"),
    ({"page": 0}, "page 0 is below 1"),
    ({"page_end": 3}, "page_end 3 needs a page"),
    ({"page": 2**70, "page_end": 2}, "is out of range"),
]


@pytest.mark.parametrize(("fields", "defect"), _BAD_LOCATORS)
def test_bad_offsets_and_pages_make_only_that_citation_defective(fields: dict, defect: str) -> None:
    answer = load_answer(_native(
        {"text": "Retries stop after three attempts.", "citations": [{"source": "k", **fields},
                                                                     {"source": "k", "start": 0, "end": 4}]},
        {"text": "Timeouts are logged.", "citations": [{"chunk_id": "u1", "start": 2, "end": 8}]}))
    bad, good = answer.claims[0].citations
    assert bad.defect is not None and defect in bad.defect
    assert bad.start is None and bad.end is None
    assert good == CitationRef(source="k", start=0, end=4)
    assert answer.claims[1].citations == (CitationRef(chunk_id="u1", start=2, end=8),)
    again = load_answer(answer_to_dict(answer))
    assert again == answer  # the stored canonical form keeps the defect


def test_long_json_numbers_are_out_of_range_not_a_crash() -> None:
    digits = "9" * 5000
    text = '{"claims": [{"text": "Jobs retry.", "citations": [{"source": "k", "start": ' + digits + ', "end": 1}]}]}'
    citation = load_answer(text).claims[0].citations[0]
    assert citation.defect == "start (a 5,000-digit number) is out of range (at most 2^63 - 1)"
    assert "premises[0]: expected a non-negative integer, found a 5,000-digit number" in str(
        _error('{"claims": [{"text": "a"}, {"text": "b", "premises": [' + digits + ']}]}'))


def test_deep_nesting_is_one_error() -> None:
    error = _error('{"claims": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert error.code == "E207" and "nested too deeply" in error.cause


@pytest.mark.parametrize(("citation", "defect"), [
    (_char(0, 9, 2), "start_char_index 9 is after end_char_index 2"),
    (_char(0, -1, 2), "start_char_index -1 is negative"),
    ({"type": "char_location", "document_index": 0, "cited_text": "x"}, "start_char_index is missing"),
    ({"type": "page_location", "document_index": 0, "start_page_number": 0, "end_page_number": 2},
     "start_page_number 0 is below 1"),
    ({"type": "content_block_location", "document_index": 0, "start_block_index": 3, "end_block_index": 1},
     "start_block_index 3 is after end_block_index 1"),
])
def test_anthropic_bad_locations_are_citation_defects(citation: dict, defect: str) -> None:
    answer = load_answer(_message({"type": "text", "text": "adapters retry", "citations": [citation]},
                                  {"type": "text", "text": "timeouts log", "citations": [_char(0, 0, 5)]},
                                  documents=["x.md"]))
    assert defect in (answer.claims[0].citations[0].defect or "")
    assert answer.claims[1].citations[0].defect is None


@pytest.mark.parametrize(("marker", "defect"), [
    ("[k:-5-10]", "malformed offsets '-5-10'"),
    ("[k:1.5-3]", "malformed offsets '1.5-3'"),
    ("[k:5-]", "malformed offsets '5-'"),
    ("[k:9-3]", "start 9 is after end 3"),
    ("[k:0-99999999999999999999999]", "out of range"),
    ("[k:0-" + "9" * 5000 + "]", "out of range"),
])
def test_malformed_inline_markers_are_citation_defects_not_claim_text(marker: str, defect: str) -> None:
    answer = load_answer_text(f"Retries stop after three attempts {marker}. Timeouts are logged [k:0-4].")
    first, second = answer.claims
    assert first.text == "Retries stop after three attempts."
    assert len(first.citations) == 1 and first.citations[0].source == "k"
    assert defect in (first.citations[0].defect or "")
    assert second.citations == (CitationRef(source="k", start=0, end=4),)


def test_passage_offsets_that_cannot_be_read_are_defects() -> None:
    answer = load_answer("A holds [1]. B holds [2].\n\nPassages:\n[1] a.md:-4-9: \"q\"\n[2] b.md:3-1\n")
    assert "malformed offsets '-4-9'" in (answer.claims[0].citations[0].defect or "")
    assert answer.claims[0].citations[0].quote == "q"
    assert "start 3 is after end 1" in (answer.claims[1].citations[0].defect or "")


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_cr_marker_answers_keep_their_passage_list(newline: str) -> None:
    text = newline.join(["Question: Why?", "", "Retries stop after three attempts [1].",
                         "Timeouts are logged [2].", "", "Passages:", "[1] a.md: \"three attempts\"",
                         "[2] b.md:0-5", ""])
    answer = load_answer(text)
    assert answer.question == "Why?"
    assert [c.text for c in answer.claims] == ["Retries stop after three attempts.", "Timeouts are logged."]
    assert answer.claims[0].citations == (CitationRef(source="a.md", quote="three attempts"),)
    assert answer.claims[1].citations == (CitationRef(source="b.md", start=0, end=5),)
    assert all("\r" not in c.text for c in answer.claims)


def test_huge_marker_numbers_are_a_marker_error() -> None:
    error = _error("A holds [" + "7" * 5000 + "].\n\nPassages:\n[1] a.md\n")
    assert error.code == "E209" and "has no entry" in error.cause and len(str(error)) < 300
    error = _error("A holds [1].\n\nPassages:\n[" + "7" * 5000 + "] a.md\n")
    assert error.code == "E209" and "too large" in error.cause


# --------------------------------------------------------------------------------------------
# Limits: bytes, claims, claim length (spaCy's E088)
# --------------------------------------------------------------------------------------------


def test_claim_count_limit_in_every_format() -> None:
    limits = AnswerLimits(max_claims=2)
    native = _native({"text": "a"}, {"text": "b"}, {"text": "c"})
    assert _error(native, limits=limits).code == "E204"
    assert load_answer(native, limits=AnswerLimits(max_claims=3)).claims[2].text == "c"
    blocks = [{"type": "text", "text": "One two three.", "citations": []} for _ in range(3)]
    assert _error(_message(*blocks), limits=limits).code == "E204"
    assert _error("A b c.\nD e f.\nG h i.\n", limits=limits).code == "E204"


@pytest.mark.parametrize("fmt", ["native", "anthropic", "markers"])
def test_claim_length_limit_names_the_claim(fmt: str) -> None:
    long_text = "word " * 3000 + "end."
    data: dict | str
    if fmt == "native":
        data, where = _native({"text": "ok"}, {"text": long_text}), "claims[1].text"
    elif fmt == "anthropic":
        data, where = _message({"type": "text", "text": long_text, "citations": [_char()]}, documents=["d"]), \
            "content[0].text"
    else:
        data, where = "Short one.\n\n" + long_text + "\n", "line 3"
    error = _error(data, limits=AnswerLimits(max_claim_chars=10_000))
    assert error.code == "E205" and error.where == where and "15,004 characters" in error.cause


def test_claims_never_exceed_spacys_max_length_whatever_the_limit() -> None:
    error = _error(_native({"text": "x" * 1_000_001}), limits=AnswerLimits(max_claim_chars=None))
    assert error.code == "E205" and "1,000,000" in error.cause


def test_byte_limit_for_files_and_text(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(_native({"text": "x" * 500})))
    assert _error(path, limits=AnswerLimits(max_bytes=100)).code == "E203"
    with pytest.raises(AnswerFormatError) as info:
        load_answer_text("Jobs retry. " * 50, limits=AnswerLimits(max_bytes=100))
    assert info.value.code == "E203" and info.value.where == "--text"


def test_a_bare_word_is_a_path_never_answer_text() -> None:
    error = _error("demo-clen")
    assert error.code == "E202" and "file not found" in error.cause and error.where == "demo-clen"


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null"])
def test_devices_are_refused_without_reading(special: str) -> None:
    if not Path(special).exists():
        pytest.skip(f"{special} missing")
    error = _error(Path(special))
    assert error.code == "E202" and "not a regular file" in error.cause


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "answer.json"
    os.mkfifo(fifo)
    assert "not a regular file" in _error(fifo).cause


# --------------------------------------------------------------------------------------------
# Files and detection
# --------------------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    error = _error(tmp_path / "nope.json")
    assert "not found" in error.cause
    assert error.where == str(tmp_path / "nope.json")
    assert "not found" in _error(str(tmp_path / "nope.json")).cause


def test_missing_path_with_spaces_is_not_read_as_marker_text(tmp_path: Path) -> None:
    error = _error(str(tmp_path / "my answer.json"))
    assert "not found" in error.cause


def test_large_marker_answer_loads(tmp_path: Path) -> None:
    body = " ".join(f"Adapter {i} retries three times after a timeout [{i % 3 + 1}]. Release v2.{i} ships, e.g. today."
                    for i in range(12_000))
    text = body + "\n\nPassages:\n[1] a.md\n[2] b.md: \"quoted\"\n[3] chunk:u9:0-4\n"
    started = time.perf_counter()
    answer = load_answer(text, limits=NO_LIMITS)
    assert time.perf_counter() - started < 10
    assert len(answer.claims) == 24_000
    assert _error(text).code == "E204"  # over the default 10,000 claims
    assert answer.claims[-2].text == "Adapter 11999 retries three times after a timeout."
    assert answer.claims[-2].citations == (CitationRef(chunk_id="u9", start=0, end=4),)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"claims": [}')
    error = _error(path)
    assert "not valid JSON" in error.cause
    assert error.where == "line 1 column 13"


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"claims": [{"text": "caf\xe9"}]}')
    assert "not UTF-8" in _error(path).cause


def test_directory_is_rejected(tmp_path: Path) -> None:
    assert "directory" in _error(tmp_path).cause


def test_unknown_format_and_bad_format_option() -> None:
    assert "unknown answer format" in _error({"reply": "hello"}).cause
    assert "looks like a LangChain result" in _error({"answer": "hello"}).cause  # and names what is missing
    assert "expected a JSON object" in _error("[1, 2]").cause
    error = _error({"claims": []}, format="yaml")
    assert error.where == "--format"
    assert "markers expects plain text" in str(_error({"claims": []}, format="markers")).replace("'", "")


def test_json_escaped_lone_surrogate_in_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"claims": [{"text": "fine"}, {"text": "x", "citations": [{"source": "k", "quote": "\\udc80"}]}]}')
    error = _error(path)
    assert error.where == "claims[1].citations[0].quote"
    assert "surrogate" in error.cause


def test_detect_format() -> None:
    assert detect_format({"claims": []}) == "native"
    assert detect_format({"claims": [{"text": "a", "supported": True}]}) == "cairn"
    assert detect_format({"type": "message", "content": []}) == "anthropic"
    assert detect_format("Retries happen [1].") == "markers"


def test_forcing_anthropic_on_native_data_fails_cleanly() -> None:
    error = _error({"claims": []}, format="anthropic")
    assert error.where == "content"


def test_large_answer_loads_quickly(tmp_path: Path) -> None:
    filler = "The scheduler retries idempotent adapters three times after a timeout. " * 14
    claims = [{"text": f"{filler}{i}", "citations": [{"source": f"doc{i % 50}.md", "start": i, "end": i + 40,
                                                     "quote": filler[:200]}]} for i in range(10_000)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"claims": claims}))
    assert path.stat().st_size > 10_000_000
    started = time.perf_counter()
    answer = load_answer(path)
    elapsed = time.perf_counter() - started
    assert len(answer.claims) == 10_000
    assert answer.claims[9_999].citations[0].source == "doc49.md"
    assert elapsed < 10, elapsed


# --------------------------------------------------------------------------------------------
# anthropic
# --------------------------------------------------------------------------------------------


def test_anthropic_citation_kinds_map_to_citation_refs() -> None:
    answer = load_answer(_message(
        {"type": "text", "text": "adapters retry twice", "citations": [_char(1, 5, 30, "retry twice")]},
        {"type": "text", "text": "pages are numbered", "citations": [
            {"type": "page_location", "document_index": 0, "start_page_number": 3, "end_page_number": 5,
             "cited_text": "p"}]},
        {"type": "text", "text": "blocks count", "citations": [
            {"type": "content_block_location", "document_index": 1, "start_block_index": 0, "end_block_index": 2,
             "cited_text": "b"}]},
    ), documents=["a.md", "b.md"])
    assert answer.format == "anthropic"
    assert answer.answer_id == "msg_1"
    assert answer.documents == ("a.md", "b.md")
    assert answer.claims[0].citations == (CitationRef(source="b.md", start=5, end=30, quote="retry twice"),)
    assert answer.claims[1].citations == (CitationRef(source="a.md", page=3, page_end=4, quote="p"),)
    assert answer.claims[2].citations == (CitationRef(source="b.md", quote="b"),)


def test_anthropic_documents_from_file_and_argument_precedence() -> None:
    data = _message({"type": "text", "text": "x is y", "citations": [_char(0)]}, documents=["in-file.md"])
    assert load_answer(data).claims[0].citations[0].source == "in-file.md"
    assert load_answer(data, documents=["arg.md"]).claims[0].citations[0].source == "arg.md"
    data["documents"] = [{"key": "obj.md", "title": "Object form"}]
    assert load_answer(data).claims[0].citations[0].source == "obj.md"


def test_anthropic_uncited_blocks_become_claims_only_when_whole_sentences() -> None:
    answer = load_answer(_message(
        {"type": "text", "text": "Based on the notes, "},
        {"type": "text", "text": "timeouts are 30 s", "citations": [_char()]},
        {"type": "text", "text": ". "},
        {"type": "text", "text": "   "},
        {"type": "thinking", "thinking": "hidden"},
        {"type": "text", "text": "\nThe archive was never pruned."},
    ), documents=["d.md"])
    assert [c.text for c in answer.claims] == ["timeouts are 30 s", "The archive was never pruned."]
    assert answer.claims[1].citations == ()


@pytest.mark.parametrize(
    ("data", "where", "cause"),
    [
        (_message({"type": "text", "text": "a b c", "citations": [_char(2)]}, documents=["x.md"]),
         "content[0].citations[0].document_index", "document_index 2 has no source key"),
        (_message({"type": "text", "text": "a b c", "citations": [_char(0)]}),
         "content[0].citations[0].document_index", "0 documents given"),
        (_message({"type": "text", "text": "a", "citations": [{"type": "file_location"}]}, documents=["x"]),
         "content[0].citations[0].type", "unknown citation type 'file_location'"),
        (_message({"type": "text", "citations": []}), "content[0].text", "expected a string"),
        (_message({"text": "no type"}), "content[0].type", "string 'type'"),
        ({"type": "message", "content": "hello"}, "content", "expected an array"),
        ({"type": "completion", "content": []}, "type", "expected type 'message'"),
    ],
)
def test_anthropic_errors_name_the_json_path(data: dict, where: str, cause: str) -> None:
    error = _error(data)
    assert error.where == where
    assert cause in error.cause


# --------------------------------------------------------------------------------------------
# markers
# --------------------------------------------------------------------------------------------


def test_markers_after_full_stop_belong_to_the_sentence_before() -> None:
    text = "Retries stop after three attempts. [1] Timeouts are logged.[2][3] Nothing else.\n\nPassages:\n" \
           "[1] a.md\n[2] b.md: \"logged on timeout\"\n[3] chunk:u42:3-9\n"
    answer = load_answer(text)
    assert [c.text for c in answer.claims] == ["Retries stop after three attempts.", "Timeouts are logged.",
                                               "Nothing else."]
    assert answer.claims[0].citations == (CitationRef(source="a.md"),)
    assert answer.claims[1].citations == (CitationRef(source="b.md", quote="logged on timeout"),
                                          CitationRef(chunk_id="u42", start=3, end=9))
    assert answer.claims[2].citations == ()


def test_markers_before_full_stop_and_comma_lists() -> None:
    answer = load_answer("The budget is 30 seconds [1, 2]. Jobs retry [2].\nReferences:\n[1] x.md\n[2] y.md\n")
    assert [c.text for c in answer.claims] == ["The budget is 30 seconds.", "Jobs retry."]
    assert [c.source for c in answer.claims[0].citations] == ["x.md", "y.md"]


def test_inline_source_offset_markers_and_revision_pins() -> None:
    answer = load_answer_text("Adapter X is never retried [policy.md:120-180]. It is logged [policy.md@r9:5-6].")
    assert answer.claims[0] .citations == (CitationRef(source="policy.md", start=120, end=180),)
    assert answer.claims[1].citations == (CitationRef(source="policy.md", revision="r9", start=5, end=6),)
    assert answer.claims[0].text == "Adapter X is never retried."


def test_markers_sentence_splitting_keeps_versions_and_abbreviations() -> None:
    answer = load_answer_text("Release v2.3 shipped, e.g. for adapters [1]. The file policy.md lists it. [2]",
                              documents=["a.md", "b.md"])
    assert [c.text for c in answer.claims] == ["Release v2.3 shipped, e.g. for adapters.",
                                               "The file policy.md lists it."]
    assert answer.claims[1].citations == (CitationRef(source="b.md"),)


def test_markers_headers_bullets_and_key_with_spaces() -> None:
    answer = load_answer("Question: Why?\nAnswer-ID: ans-7\n\n- First point holds [1]\n- Second point holds\n\n"
                         "Sources:\n[1] <release notes/2.3.md>: 'quoted'\n")
    assert answer.question == "Why?"
    assert answer.answer_id == "ans-7"
    assert [c.text for c in answer.claims] == ["First point holds", "Second point holds"]
    assert answer.claims[0].citations == (CitationRef(source="release notes/2.3.md", quote="quoted"),)


@pytest.mark.parametrize(
    ("text", "where", "cause"),
    [
        ("A holds [4].\n\nPassages:\n[1] a.md\n", "line 1", "marker [4] has no entry"),
        ("A holds.\nB holds [2].", "line 2", "no 'Passages:' list"),
        ("A holds [1].\nPassages:\n[1] a.md\nnot a passage\n", "line 4", "expected a passage line"),
        ("A holds [1].\nPassages:\n[1] a.md\n[1] b.md\n", "line 4", "listed twice"),
        ("   \n  ", "$", "empty"),
    ],
)
def test_marker_errors_name_the_line(text: str, where: str, cause: str) -> None:
    error = _error(text, format="markers")
    assert error.where == where
    assert cause in error.cause


def test_marker_file_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "answer.txt"
    path.write_text("The scheduler retries three times [1].\n\nPassages:\n[1] retry.md:0-20\n", encoding="utf-8")
    answer = load_answer(path)
    assert answer.format == "markers"
    assert answer.claims[0].citations == (CitationRef(source="retry.md", start=0, end=20),)


# --------------------------------------------------------------------------------------------
# Robustness (hypothesis)
# --------------------------------------------------------------------------------------------

def _has_defect(answer: InputAnswer) -> bool:
    return any(c.defect for claim in answer.claims for c in claim.citations)


_KEYS = st.sampled_from(["claims", "text", "citations", "source", "chunk_id", "start", "end", "quote", "role",
                         "revision", "type", "premises", "answer_id", "question", "documents", "content",
                         "citations", "document_index", "start_char_index", "end_char_index", "cited_text",
                         "start_page_number", "end_page_number", "page", "page_end", "supported", "key", "id"])
_SCALARS = (st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=True) | st.text(max_size=12)
            | st.sampled_from(["message", "text", "char_location", "page_location", "content_block_location",
                               "inference", "a.md"]))
_JSON = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS | st.text(max_size=5), children,
                                                                       max_size=5),
    max_leaves=30,
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON)
def test_random_json_gives_an_answer_or_a_format_error(data) -> None:
    for source in (data, json.dumps(data)):
        try:
            answer = load_answer(source)
        except AnswerFormatError as error:
            assert str(error)
            continue
        assert isinstance(answer, InputAnswer)
        assert answer.answer_id


_OFFSET = st.integers(0, 20) | st.integers(0, 20) | _SCALARS
_WORDS = st.text(min_size=1, max_size=10).filter(str.strip)
_CITATION_ISH = st.fixed_dictionaries({}, optional={
    "source": st.sampled_from(["a.md", "a.md", "", " "]) | _SCALARS, "chunk_id": st.sampled_from(["u1", ""]) | _SCALARS,
    "start": _OFFSET, "end": _OFFSET, "quote": _WORDS | _SCALARS, "role": _WORDS | _SCALARS,
    "revision": _SCALARS, "page": _OFFSET, "page_end": _OFFSET, "qoute": _SCALARS})
_CLAIM_ISH = st.fixed_dictionaries({"text": _WORDS | _WORDS | _SCALARS}, optional={
    "citations": st.lists(_CITATION_ISH, max_size=2) | st.lists(_CITATION_ISH, max_size=2) | _SCALARS,
    "type": st.sampled_from(["direct", "inference", "proposal", "opinion"]) | _SCALARS,
    "premises": st.lists(st.integers(-1, 3), max_size=2) | _SCALARS, "supported": st.booleans() | _SCALARS,
    "support_score": st.floats(0, 1) | _SCALARS, "id": _SCALARS})
_ANTHROPIC_CITATION_ISH = st.fixed_dictionaries(
    {"type": st.sampled_from(["char_location", "page_location", "content_block_location", "search_result_location",
                              "web_search_result_location", "other"]) | _SCALARS},
    optional={name: _OFFSET for name in ["document_index", "start_char_index", "end_char_index",
                                         "start_page_number", "end_page_number", "start_block_index",
                                         "end_block_index"]} | {"cited_text": _SCALARS, "source": _SCALARS,
                                                                "url": _SCALARS})
_BLOCK_ISH = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "text", "tool_use"]) | _SCALARS},
    optional={"text": st.text(max_size=30) | st.text(max_size=30) | _SCALARS,
              "citations": st.lists(_ANTHROPIC_CITATION_ISH, max_size=2) | _SCALARS})


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({"claims": st.lists(_CLAIM_ISH | _CLAIM_ISH | _JSON, max_size=2)},
                             optional={"question": _JSON, "answer_id": _JSON}))
def test_accepted_native_answers_satisfy_the_schema(data: dict) -> None:
    try:
        answer = load_answer(data)
    except AnswerFormatError:
        return
    if _has_defect(answer):  # read, but a citation is invalid: the schema describes well-formed answers
        return
    NATIVE_SCHEMA.validate(data)
    NATIVE_SCHEMA.validate(answer_to_dict(answer))


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({"type": st.just("message"), "content": st.lists(_BLOCK_ISH | _JSON, max_size=3)},
                             optional={"documents": st.lists(st.sampled_from(["a.md", "b.md", ""]), max_size=3)
                                       | st.just(["a.md", "b.md", "c.md"])}))
def test_accepted_anthropic_answers_satisfy_the_schema(data: dict) -> None:
    try:
        answer = load_answer(data)
    except AnswerFormatError:
        return
    if _has_defect(answer):
        return
    ANTHROPIC_SCHEMA.validate(data)


_CITATION = st.one_of(
    st.builds(lambda s, a, b, q: {"source": s, "start": min(a, b), "end": max(a, b), **({"quote": q} if q else {})},
              st.sampled_from(["a.md", "dir/b.txt"]), st.integers(0, 500), st.integers(0, 500),
              st.text(min_size=0, max_size=20).filter(lambda q: q.strip() or not q)),
    st.builds(lambda c: {"chunk_id": c}, st.text("0123456789abcdef", min_size=4, max_size=16)),
)
_CLAIM = st.builds(lambda t, cs: {"text": t, "citations": cs},
                   st.text(min_size=1, max_size=40).filter(lambda t: t.strip()), st.lists(_CITATION, max_size=3))


@settings(max_examples=100, deadline=None)
@given(st.lists(_CLAIM, max_size=5), st.none() | st.text(max_size=20))
def test_valid_native_answers_round_trip(claims: list[dict], question: str | None) -> None:
    answer = load_answer({"question": question, "claims": claims})
    again = load_answer(answer_to_dict(answer))
    assert again == answer
    assert [c.text for c in answer.claims] == [c["text"].strip() for c in claims]


_SEMANTIC_ONLY = ("is after end", "is missing", "premise", "page_end needs", "lone surrogate",
                  "expected a non-empty string", "expected a non-negative integer", "expected an integer >=")
_CLAIM_FIELDS = ["text", "citations", "type", "premises", "supported", "support_score", "id", "extra"]
_CITATION_FIELDS = ["source", "chunk_id", "revision", "start", "end", "quote", "role", "page", "page_end", "extra"]


@settings(max_examples=200, deadline=None)
@given(st.lists(_CLAIM, min_size=1, max_size=3), st.data())
def test_loader_and_native_schema_agree_on_mutated_answers(claims: list[dict], data: st.DataObject) -> None:
    """Mutate one field of a valid answer: the loader rejects whatever the schema rejects, and when it
    rejects a schema-valid answer the reason is a check the schema cannot express."""
    i = data.draw(st.integers(0, len(claims) - 1))
    value = data.draw(_SCALARS | st.lists(st.integers(-1, 4), max_size=2) | st.just({"x": 1}))
    if claims[i]["citations"] and data.draw(st.booleans()):
        claims[i]["citations"][0][data.draw(st.sampled_from(_CITATION_FIELDS))] = value
    else:
        claims[i][data.draw(st.sampled_from(_CLAIM_FIELDS))] = value
    answer_data = {"claims": claims}
    schema_ok = NATIVE_SCHEMA.is_valid(answer_data)
    try:
        answer = load_answer(answer_data)
    except AnswerFormatError as error:
        assert not schema_ok or any(reason in error.cause for reason in _SEMANTIC_ONLY), error
        return
    assert schema_ok or _has_defect(answer)


_MARKER_TEXT = st.lists(
    st.sampled_from(["Retries stop.", " ", "[1]", "[2][3]", "[a.md:1-4]", "\n", "\n\n", "- ", "e.g.", "v2.3",
                     "Passages:", "[1] a.md", "[2] b.md: \"q\"", "[3] chunk:u1", "words here", "?", "[1, 2]"]),
    max_size=14,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_MARKER_TEXT | st.text(max_size=80))
def test_random_marker_text_gives_an_answer_or_a_format_error(text: str) -> None:
    try:
        answer = load_answer(text, format="markers", documents=["d1.md"])
    except AnswerFormatError as error:
        assert error.where
        return
    for claim in answer.claims:
        assert claim.text.strip() == claim.text
        assert "[1]" not in claim.text


def test_a_json_lines_data_set_given_as_one_answer_points_to_eval_rag(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text('{"question": "q", "answer": "a", "contexts": []}\n{"question": "r", "answer": "b"}\n',
                    encoding="utf-8")
    with pytest.raises(AnswerFormatError) as info:
        load_answer(path)
    assert info.value.code == "E206" and info.value.where == "line 2 column 1"
    assert "graphcite eval-rag" in info.value.fix
    with pytest.raises(AnswerFormatError) as other:  # other stray text keeps the usual fix
        load_answer_text('{"a": 1} x')
    assert "eval-rag" not in other.value.fix
