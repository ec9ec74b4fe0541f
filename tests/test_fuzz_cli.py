"""Fuzz the real CLI (in-process, a few runs as a subprocess) with hostile answers, citations,
arguments and stream lines.

For every input: no traceback, an exit code of 0, 1 or 2, exactly one ``error: CODE`` line when the
input is refused, and the store byte-for-byte unchanged after a refused input. Bounded: about 30 s;
``GRAPHCITE_FUZZ_SCALE=10`` runs ten times as many examples.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from faults_corpus import GOOD_CLAIM, build_store, digest, error_lines, invoke, no_traceback
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ERROR_LINE = re.compile(r"^error: E\d{3} \S")
STATUSES = {"supported", "contradicted", "conflict", "insufficient", "unsupported", "invalid"}
SCALE = max(1, int(os.environ.get("GRAPHCITE_FUZZ_SCALE", "1")))  # e.g. 10 for a long local run
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("fuzz")
    db = build_store(folder)
    answer = folder / "answer.json"
    answer.write_text(json.dumps({"answer_id": "demo-clean", "claims": [
        {"text": GOOD_CLAIM, "citations": [{"source": "policy.md", "quote": GOOD_CLAIM}]}]}), encoding="utf-8")
    assert invoke(["add-answer", str(answer), "--db", str(db)]).exit_code == 0
    pristine = folder / "pristine.duckdb"
    shutil.copy(db, pristine)
    return {"folder": folder, "db": db, "answer": answer, "docs": folder / "docs", "pristine": pristine}


def _run(args: list[str], db: Path, *, input: str | bytes | None = None) -> Any:
    """Run once and assert the contract; returns the result."""
    before = digest(db)
    result = invoke([*args, "--db", str(db)], input=input)
    assert no_traceback(result), (args, result.output[-2000:], result.exception)
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output[-2000:])
    if result.exit_code == 2:
        lines = error_lines(result)
        assert len(lines) == 1 and ERROR_LINE.match(lines[0]), (args, result.output[-2000:])
        assert digest(db) == before, f"refused input changed the store: {args}"
    return result


# --------------------------------------------------------------------------------------------
# Answers in all four formats, with hostile citations
# --------------------------------------------------------------------------------------------

_NUMBER = st.one_of(
    st.integers(-20, 200), st.integers(2**31 - 3, 2**31 + 3), st.integers(2**63 - 2, 2**63 + 2),
    st.sampled_from([10**30, -(10**30)]), st.floats(allow_nan=True, allow_infinity=True),
)
_OFFSET = st.one_of(st.none(), _NUMBER, _NUMBER, st.text(max_size=3), st.booleans(), st.just([1]))
_SOURCE = st.sampled_from(["policy.md", "policy.md", "secret.md", "missing.md", "", "../etc/passwd", "a\x00b"])
_QUOTE = st.one_of(st.none(), st.sampled_from([GOOD_CLAIM, "25 MB", "940 requests", "", " "]), st.text(max_size=15))
_TEXT = st.one_of(st.sampled_from([GOOD_CLAIM, "Uploads are capped at 25 MB per file.", "The quota is 940.",
                                   "It is not capped; 3 attempts, maybe.", "x"]),
                  st.text(min_size=1, max_size=50))
_SOURCE_CITATION = st.fixed_dictionaries({"source": _SOURCE}, optional={
    "start": _OFFSET, "end": _OFFSET, "quote": _QUOTE, "page": _OFFSET, "page_end": _OFFSET,
    "revision": st.text(max_size=6)})
_CHUNK_CITATION = st.fixed_dictionaries({"chunk_id": st.text(max_size=16)}, optional={
    "start": _OFFSET, "end": _OFFSET, "quote": _QUOTE})
_CLAIM = st.fixed_dictionaries({"text": _TEXT}, optional={
    "citations": st.lists(_SOURCE_CITATION | _CHUNK_CITATION, max_size=3),
    "type": st.sampled_from(["direct", "inference", "opinion"]), "premises": st.lists(st.integers(-1, 3), max_size=2)})
_NATIVE = st.fixed_dictionaries({"claims": st.lists(_CLAIM, max_size=4)},
                                optional={"answer_id": st.text(max_size=8), "question": st.text(max_size=20)})
_CAIRN = st.builds(lambda data, flag: {**data, "claims": [{**c, "supported": flag, "support_score": 0.5}
                                                          for c in data["claims"]]}, _NATIVE, st.booleans())
_ANTHROPIC_CITATION = st.one_of(
    st.fixed_dictionaries({"type": st.just("char_location"), "document_index": st.integers(0, 2),
                           "start_char_index": _OFFSET, "end_char_index": _OFFSET, "cited_text": _QUOTE}),
    st.fixed_dictionaries({"type": st.just("page_location"), "document_index": st.integers(0, 2),
                           "start_page_number": _OFFSET, "end_page_number": _OFFSET, "cited_text": _QUOTE}),
    st.fixed_dictionaries({"type": st.sampled_from(["content_block_location", "other"]),
                           "document_index": st.integers(0, 2), "start_block_index": _OFFSET,
                           "end_block_index": _OFFSET}),
)
_ANTHROPIC = st.builds(
    lambda blocks, docs: {"type": "message", "id": "msg_fuzz", "content": blocks, "documents": docs},
    st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "text", "thinking"]), "text": _TEXT},
                                   optional={"citations": st.lists(_ANTHROPIC_CITATION, max_size=2)}), max_size=4),
    st.lists(st.sampled_from(["policy.md", "secret.md", "nope.md"]), max_size=3))
_MARKER_PIECES = st.sampled_from([
    GOOD_CLAIM, "Uploads are capped at 25 MB per file.", " ", "[1]", "[2][3]", "[1, 2]", "[policy.md:16-83]",
    "[policy.md:-5-10]", "[policy.md:0-99999999999999999999999]", "[policy.md:9-3]", "[k:1.5-2]",
    "[" + "9" * 60 + "]", ".", "\n", "\r\n", "\n\n", "- ", "Passages:", "\n[1] policy.md", "\n[2] secret.md: \"q\"",
    "\n[3] chunk:abc:0-4", "\n[1] policy.md:-4-9", "Question: why?\n", "e.g.", "x" * 30])
_MARKERS = st.lists(_MARKER_PIECES | st.text(max_size=10), min_size=1, max_size=14).map("".join)

_ANSWER_TEXT = st.one_of(
    _NATIVE.map(json.dumps), _CAIRN.map(json.dumps), _ANTHROPIC.map(json.dumps), _MARKERS,
    st.text(max_size=40),
)


def _assert_report(result: Any, audience: str) -> None:
    report = json.loads(result.output)
    for claim in report["claims"]:
        assert claim["status"] in STATUSES
        for citation in claim["citations"]:
            if not citation["valid"]:
                assert any(f["outcome"] == "fail" for f in citation["findings"]), citation
            elif audience == "public":
                assert citation["source"] != "secret.md", citation


@settings(FUZZ, max_examples=50 * SCALE)
@given(text=_ANSWER_TEXT, audience=st.sampled_from(["internal", "public"]))
def test_fuzzed_answers_in_every_format(world: dict[str, Path], text: str, audience: str) -> None:
    result = _run(["check", "--text", text, "--json", "--audience", audience], world["db"])
    if result.exit_code == 0:
        _assert_report(result, audience)


@settings(FUZZ, max_examples=15 * SCALE)
@given(data=_NATIVE)
def test_fuzzed_answer_files_and_stdin(world: dict[str, Path], tmp_path_factory: pytest.TempPathFactory,
                                       data: dict) -> None:
    text = json.dumps(data)
    path = tmp_path_factory.mktemp("answer") / "a.json"
    path.write_text(text, encoding="utf-8")
    by_file = _run(["claims", str(path), "--json"], world["db"])
    by_stdin = _run(["claims", "-", "--json"], world["db"], input=text)
    assert by_file.exit_code == by_stdin.exit_code
    if by_file.exit_code == 0:
        assert json.loads(by_file.output) == json.loads(by_stdin.output)


_CITATION_ONLY = st.lists(_SOURCE_CITATION, min_size=1, max_size=3)


@settings(FUZZ, max_examples=25 * SCALE)
@given(citations=_CITATION_ONLY)
def test_fuzzed_citations_never_refuse_the_answer_for_a_locator(world: dict[str, Path], citations: list) -> None:
    """Offsets and pages of any value make a citation invalid at worst; only unreadable fields refuse."""
    clean = [{k: v for k, v in c.items() if k in ("start", "end", "page", "page_end")} | {"source": "policy.md"}
             for c in citations]
    data = {"claims": [{"text": GOOD_CLAIM, "citations": clean}, {"text": GOOD_CLAIM, "citations": [
        {"source": "policy.md", "quote": GOOD_CLAIM}]}]}
    text = json.dumps(data, allow_nan=True)
    result = _run(["check", "--text", text, "--json"], world["db"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["claims"][1]["status"] == "supported"
    for given_citation, shown in zip(clean, report["claims"][0]["citations"], strict=True):
        start, end = given_citation.get("start"), given_citation.get("end")
        page, page_end = given_citation.get("page"), given_citation.get("page_end")
        bad = any(v is not None and not _usable(v, 0) for v in (start, end)) or (start is None) != (end is None)
        bad = bad or (_usable(start, 0) and _usable(end, 0) and start > end)
        bad = bad or any(v is not None and not _usable(v, 1) for v in (page, page_end))
        bad = bad or (_usable(page_end, 1) and not (_usable(page, 1) and page <= page_end))
        if bad:
            assert not shown["valid"], shown
        elif start is None and end is None and shown["valid"]:
            assert shown.get("located") is True, shown  # a citation naming only its source is located
        if bad:
            failed = [f for f in shown["findings"] if f["outcome"] == "fail"]
            assert failed[0]["code"] == "GC105", shown


def _usable(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value < 2**63


# --------------------------------------------------------------------------------------------
# Command-line arguments
# --------------------------------------------------------------------------------------------

_VALUE_TOKENS = ["0", "-1", "1", "2", "0.5", "nan", "inf", "-inf", "1e309", "99999999999999999999999", "",
                 " ", "abc", "public", "internal", "everyone", "demo-clen", "demo-clean", "/etc", "/dev/zero",
                 "/proc/version", "/nonexistent/x.json", "-", "markers", "native", "yaml", "a.md,b.md",
                 "c000000000000000", "x\x00y", "é" * 3, "{\"claims\": []}", "GC105", "E502"]
_FLAGS = ["--json", "--stream", "--quiet"]
_VALUED = ["--jobs", "--max-file-mb", "--fail-under", "--threshold", "--max-claims", "--max-answer-mb",
           "--max-claim-chars", "--audience", "--format", "--documents", "--text", "--corrects", "--judge",
           "--citation", "--label", "--nope"]
_COMMANDS = ["check", "claims", "gate", "add-answer", "show", "history", "answers", "sources", "rules",
             "errors", "ingest", "annotations"]


@st.composite
def _argv(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(_COMMANDS))
    args = [command]
    if command in ("rules", "errors") and draw(st.booleans()):
        args += ["explain", draw(st.sampled_from(["GC105", "E502", "e205", "nope", ""]))]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 2))
        if kind == 0:
            args.append(draw(st.sampled_from(_FLAGS)))
        elif kind == 1:
            args += [draw(st.sampled_from(_VALUED)), draw(st.sampled_from(_VALUE_TOKENS))]
        else:
            args.append(draw(st.sampled_from(_VALUE_TOKENS)))
    if command == "ingest":  # never ingest /etc or read a device: that is the ingest suite's job
        args = [a if a not in ("/etc", "/dev/zero", "-", "/proc/version") else "/nonexistent" for a in args]
    return args


@settings(FUZZ, max_examples=80 * SCALE)
@given(args=_argv())
def test_fuzzed_command_lines(world: dict[str, Path], args: list[str]) -> None:
    _run(args, world["db"], input="")


# --------------------------------------------------------------------------------------------
# gate --stream lines
# --------------------------------------------------------------------------------------------

_GOOD_LINE = json.dumps({"text": GOOD_CLAIM, "citations": [{"source": "policy.md", "quote": GOOD_CLAIM}]})
_LINE = st.one_of(
    st.just(_GOOD_LINE.encode()),
    _CLAIM.map(lambda c: json.dumps(c).encode()),
    st.text(max_size=30).map(lambda t: t.replace("\n", " ").encode("utf-8", "surrogatepass")),
    st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
    st.integers(1, 12_000).map(lambda n: ("[" * n + "]" * n).encode()),
    st.sampled_from([b"", b"   ", b"\r", b"null", b"[]", b"{}", b'{"text": 5}', b"\xff\xfe", b"NaN",
                     b'{"text": "' + b"y" * 1_000_001 + b'"}', b" " * 1_000_005]),
)


def _expected_records(lines: list[bytes]) -> list[int]:
    numbers = []
    for number, raw in enumerate(lines, start=1):
        if len(raw) + 1 > 1_000_000:
            numbers.append(number)
            continue
        try:
            if raw.decode("utf-8").strip():
                numbers.append(number)
        except UnicodeDecodeError:
            numbers.append(number)
    return numbers


@settings(FUZZ, max_examples=25 * SCALE)
@given(lines=st.lists(_LINE, min_size=1, max_size=6))
def test_fuzzed_stream_lines_each_get_one_record(world: dict[str, Path], lines: list[bytes]) -> None:
    data = b"\n".join(lines) + b"\n"
    result = _run(["gate", "--stream", "--audience", "public"], world["db"], input=data)
    assert result.exit_code in (0, 1), result.output[-1000:]
    assert all("\u2028" not in line and "\x85" not in line for line in result.output.split("\n"))
    records = [json.loads(line) for line in result.output.splitlines()]
    assert result.exit_code == (0 if any(r.get("passed") for r in records) else 1)  # 1: no line passed
    assert [r["line"] for r in records] == _expected_records(lines)
    for record in records:
        if "error" in record:
            assert re.fullmatch(r"E\d{3}", record["code"]) and record["error"].startswith(f"line {record['line']}")
            assert len(record["error"]) < 1000
        else:
            assert record["status"] in STATUSES and isinstance(record["passed"], bool)


def test_the_fuzzed_store_still_opens_and_only_grew(world: dict[str, Path]) -> None:
    from graphcite.store import Store

    with Store(world["db"], read_only=True) as store:
        assert store.scalar("SELECT count(*) FROM source") == 2
        assert store.scalar("SELECT count(*) FROM answer WHERE answer_id = 'demo-clean'") == 1


# --------------------------------------------------------------------------------------------
# A few runs as real processes: nothing escapes as a traceback at the process level either
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "stdin", "code"), [
    (["check", "demo-clen"], b"", 2),
    (["gate", "--stream"], b"not json\n" + b"[" * 50_000 + b"\n" + _GOOD_LINE.encode() + b"\n", 0),
])
def test_real_processes(world: dict[str, Path], tmp_path: Path, args: list[str], stdin: bytes, code: int) -> None:
    db = tmp_path / "p.duckdb"
    shutil.copy(world["pristine"], db)
    before = digest(db)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("GRAPHCITE_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "graphcite", *args, "--db", str(db)], input=stdin,
                          capture_output=True, timeout=120, env=env)
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == code, stderr
    assert "Traceback" not in stderr
    if code == 2:
        assert len([line for line in stderr.splitlines() if line.startswith("error:")]) == 1
        assert digest(db) == before
    if args[0] == "gate":
        records = [json.loads(line) for line in done.stdout.decode().splitlines()]
        assert [r.get("code") for r in records] == ["E206", "E207", None] and records[2]["passed"]
