"""Offsets in the producer's unit, claims as sentences, the format registry, source maps, `graphcite formats`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphcite.claims.formats import (
    FORMAT_INFO,
    FORMATS,
    detect_format,
    list_formats,
    load_answer,
    load_answers,
    load_source_map,
)
from graphcite.claims.formats.common import AnswerLimits
from graphcite.claims.formats.text import Offsets, Pinned, marked_claims, sentence_claims
from graphcite.errors import AnswerFormatError, InputError
from graphcite.models import CitationRef

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "schema" / "examples"
NEW_FORMATS = ("openai", "gemini", "cohere", "langchain", "llamaindex", "alce")

# accents, CJK, emoji (astral), combining marks, a zero-width joiner sequence, plain ASCII
MIXED = st.text(st.sampled_from(list("abc ,.é中文😀\u0301\u200d👩🏽ØÅñ")) | st.characters(), max_size=40)


def _unit_offset(text: str, index: int, unit: str) -> int:
    head = text[:index]
    return {"codepoint": len(head), "utf8": len(head.encode("utf-8", "surrogatepass")),
            "utf16": len(head.encode("utf-16-le", "surrogatepass")) // 2}[unit]


@settings(max_examples=200, deadline=None)
@given(MIXED, st.sampled_from(["codepoint", "utf8", "utf16"]))
def test_offsets_convert_every_boundary_and_refuse_the_inside_of_characters(text: str, unit: str) -> None:
    offsets = Offsets(text, unit)
    boundaries = {_unit_offset(text, i, unit): i for i in range(len(text) + 1)}
    assert offsets.length == _unit_offset(text, len(text), unit)
    for n in range(offsets.length + 3):
        expected = boundaries.get(n)
        assert offsets.point(n) == expected
        if expected is None:
            assert "inside a character" in offsets.problem(n, "x") or "beyond" in offsets.problem(n, "x")
    assert offsets.point(-1) is None


def test_offsets_on_known_non_ascii_text() -> None:
    text = "Zoë 中 😀 e\u0301!"
    assert Offsets(text, "utf8").point(len("Zoë".encode())) == 3
    assert Offsets(text, "utf8").point(3) is None  # the middle of "ë"
    assert Offsets(text, "utf16").point(text.index("😀") + 2) == text.index("😀") + 1  # after the surrogate pair
    assert Offsets(text, "utf16").point(text.index("😀") + 1) is None
    assert "UTF-8 bytes" in Offsets(text, "utf8").problem(99, "endIndex")


def test_sentence_claims_pin_points_and_ranges() -> None:
    text = "First claim about Zoë holds here. Second one — with 中文 — holds too.\n\n- A bullet that is cited."
    second = text.index("Second")
    bullet = text.index("A bullet")
    a, b, c = CitationRef(source="a.md"), CitationRef(source="b.md"), CitationRef(source="c.md")
    claims = sentence_claims(text, [Pinned(second - 1, second - 1, a), Pinned(second + 3, second + 9, b),
                                    Pinned(len(text), len(text), c)], AnswerLimits(), "$")
    assert [c.text for c in claims] == ["First claim about Zoë holds here.", "Second one — with 中文 — holds too.",
                                        "A bullet that is cited."]
    assert claims[0].citations == (a,) and claims[1].citations == (b,) and claims[2].citations == (c,)
    assert bullet > 0


def test_uncited_fragments_are_not_claims_but_uncited_sentences_are() -> None:
    claims = sentence_claims("Here is what I found:\n\nThe relay retries five times. Sources", [], AnswerLimits(), "$")
    assert [c.text for c in claims] == ["The relay retries five times."]


def test_marked_claims_cite_marked_documents_and_mark_bad_numbers_defective() -> None:
    docs = [CitationRef(source="a.md"), CitationRef(source="b.md")]
    claims = marked_claims("One holds [1]. Two holds [1, 2]. Three holds [3]. Four is plain.", docs,
                           AnswerLimits(), "output", all_when_unmarked=True)
    assert [c.text for c in claims] == ["One holds.", "Two holds.", "Three holds.", "Four is plain."]
    assert claims[0].citations == (docs[0],)
    assert claims[1].citations == tuple(docs)
    assert claims[2].citations[0].defect and "marker [3]" in claims[2].citations[0].defect
    assert claims[3].citations == ()
    unmarked = marked_claims("Alpha holds true. Beta holds too.", docs, AnswerLimits(), "o", all_when_unmarked=True)
    assert all(c.citations == tuple(docs) for c in unmarked)


# --------------------------------------------------------------------------------------------
# Registry, examples, schemas
# --------------------------------------------------------------------------------------------


def test_every_format_has_an_example_and_the_json_ones_a_schema_that_accepts_it() -> None:
    assert tuple(f.name for f in FORMAT_INFO) == FORMATS
    for info in FORMAT_INFO:
        example = EXAMPLES / info.example
        assert example.is_file(), info.name
        answer = load_answer(example)
        assert answer.format == info.name and answer.claims, info.name
        if info.schema:
            schema = json.loads((ROOT / "schema" / info.schema).read_text(encoding="utf-8"))
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator(schema).validate(json.loads(example.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_new_format_examples_are_detected_and_cite_sources(name: str) -> None:
    data = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    assert detect_format(data) == name
    answer = load_answer(data)
    assert all(ref.source and not ref.defect for claim in answer.claims for ref in claim.citations)
    assert all(ref.claim == claim.text for claim in answer.claims for ref in claim.citations)


def test_list_formats_and_unknown_name() -> None:
    rows = list_formats()
    assert [r["format"] for r in rows] == list(FORMATS)
    assert all(r["example_text"] for r in rows)
    assert list_formats("gemini")[0]["offsets"] == "UTF-8 bytes"
    with pytest.raises(AnswerFormatError) as info:
        list_formats("yaml")
    assert info.value.code == "E105"


def test_formats_command_lists_every_format_with_an_example() -> None:
    from graphcite.cli.formats import register

    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a second command keeps `formats` a subcommand
    runner = CliRunner()
    listed = runner.invoke(app, ["formats", "--json"])
    assert listed.exit_code == 0
    assert [r["format"] for r in json.loads(listed.output)] == list(FORMATS)
    table = runner.invoke(app, ["formats"], terminal_width=250)
    assert table.exit_code == 0 and all(name in table.output for name in FORMATS)
    one = runner.invoke(app, ["formats", "cohere"])
    assert one.exit_code == 0 and '"citations"' in one.output
    bad = runner.invoke(app, ["formats", "yaml"])
    assert bad.exit_code == 2
    assert len(bad.output.strip().splitlines()) == 1 and "E105" in bad.output


# --------------------------------------------------------------------------------------------
# Detection and one-line errors naming the format and the missing field
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "fragment", "where"), [
    ({"object": "response"}, "OpenAI Responses output, but 'output' is missing", "output"),
    ({"candidates": []}, "Gemini response, but 'candidates' is empty", "candidates"),
    ({"message": {"citations": []}}, "Cohere chat response, but 'message.content' is missing", "message.content"),
    ({"answer": "x"}, "LangChain result, but it has no 'context'", "context"),
    ({"response": "x"}, "LlamaIndex response, but 'source_nodes' is missing", "source_nodes"),
    ({"docs": []}, "ALCE output, but 'output' is missing", "output"),
    ({"output": "text only"}, "ALCE (then 'docs' is missing) or LangChain", "$"),
    ({"text": "a claim", "citations": []}, "wrap it", "$"),
])
def test_wrong_documents_say_what_they_looked_like_and_what_is_missing(data: dict, fragment: str,
                                                                       where: str) -> None:
    with pytest.raises(AnswerFormatError) as info:
        load_answer(data)
    assert fragment in str(info.value)
    assert info.value.where == where
    assert "\n" not in str(info.value)


def test_alce_run_files_are_read_item_by_item() -> None:
    item = json.loads((EXAMPLES / "alce.json").read_text(encoding="utf-8"))
    run = {"args": {"model": "demo"}, "data": [item, dict(item, id="asqa-demo-2")]}
    answers = load_answers(run)
    assert [a.answer_id for a in answers] == ["asqa-demo-1", "asqa-demo-2"]
    with pytest.raises(AnswerFormatError) as info:
        load_answer(run)
    assert "2 items" in info.value.cause
    assert load_answer({"data": [item]}).answer_id == "asqa-demo-1"
    assert len(load_answers(EXAMPLES / "openai.json")) == 1


# --------------------------------------------------------------------------------------------
# Source maps
# --------------------------------------------------------------------------------------------


def test_source_map_files_in_json_and_yaml(tmp_path: Path) -> None:
    json_map = tmp_path / "map.json"
    json_map.write_text(json.dumps({"file-7Qa2": "decisions/dr-017-webhook-retries.md"}), encoding="utf-8")
    yaml_map = tmp_path / "map.yaml"
    yaml_map.write_text('"https://docs.larkspur.example/manuals/signing-keys.md": manuals/signing-keys.md\n'
                        "Zoë's notes: notes/zoe.md\n", encoding="utf-8")
    assert load_source_map(json_map) == {"file-7Qa2": "decisions/dr-017-webhook-retries.md"}
    mapping = load_source_map(yaml_map)
    assert mapping["Zoë's notes"] == "notes/zoe.md"
    data = json.loads((EXAMPLES / "openai.json").read_text(encoding="utf-8"))
    for annotation in data["output"][1]["content"][0]["annotations"]:
        annotation.pop("filename", None)
    answer = load_answer(data, source_map={**load_source_map(json_map), **mapping})
    sources = [ref.source for claim in answer.claims for ref in claim.citations]
    assert sources == ["decisions/dr-017-webhook-retries.md"] * 2 + ["manuals/signing-keys.md"]


@pytest.mark.parametrize("content", ["[1, 2]", "a: [x]", "a: 3", "{not json", "", "a: b\na: c"])
def test_bad_source_maps_are_one_line_input_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "map.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_source_map(path)
    assert info.value.code == "E101" and "\n" not in str(info.value)
    with pytest.raises(InputError):
        load_source_map(tmp_path / "missing.yaml")


@pytest.mark.parametrize(("data", "fragment"), [
    ({"candidates": [{"content": {"parts": [{"text": "Zoë owns it."}]}, "groundingMetadata": {
        "groundingChunks": [{"nope": 1}], "groundingSupports": []}}]}, "needs 'web' or 'retrievedContext'"),
    ({"object": "response"}, "OpenAI Responses output, but 'output' is missing"),
    ({"message": {"content": [{"type": "text", "text": "x"}], "citations": [{"start": 0, "end": 1}]}},
     "expected an array"),
])
def test_the_cli_refuses_a_bad_producer_document_in_one_line(data: dict, fragment: str) -> None:
    from graphcite.cli import app

    result = CliRunner().invoke(app, ["claims", "--text", json.dumps(data, ensure_ascii=False)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: E201") and fragment in lines[0]


def test_the_cli_reads_every_new_format_example() -> None:
    from graphcite.cli import app

    for name in NEW_FORMATS:
        result = CliRunner().invoke(app, ["claims", str(EXAMPLES / f"{name}.json"), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["claims"]


@pytest.mark.parametrize("name", NEW_FORMATS)
def test_canonical_dicts_round_trip_even_with_defective_citations(name: str) -> None:
    from graphcite.claims.formats import answer_to_dict

    answer = load_answer(EXAMPLES / f"{name}.json")
    broken = type(answer)(answer.answer_id, answer.question, (*answer.claims, type(answer.claims[0])(
        "A claim whose citation points nowhere.", (CitationRef(defect="marker [9] has no retrieved document"),))),
        answer.format, passages=answer.passages)
    again = load_answer(answer_to_dict(broken), format="native")
    assert again.claims == broken.claims
    assert again.claims[-1].citations[0].defect == "marker [9] has no retrieved document"
