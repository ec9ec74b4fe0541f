"""Regression tests, one per kind of fault found by hostile use of the CLI (issue 12).

Each refused input must give exit 2, exactly one ``error: CODE ...`` line, no traceback, and leave
the store byte-for-byte as it was; each readable answer with a bad citation must be verified with
that citation invalid and the rest checked.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from faults_corpus import (
    GOOD_CLAIM,
    SECRET,
    build_store,
    digest,
    error_lines,
    good_answer,
    invoke,
    no_traceback,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("faults"))


@pytest.fixture
def db(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "s.duckdb"
    shutil.copy(built, copy)
    return copy


def _refused(args: list[str], db: Path, code: str, *, input: str | bytes | None = None) -> str:
    before = digest(db)
    result = invoke([*args, "--db", str(db)], input=input)
    assert no_traceback(result), result.output
    assert result.exit_code == 2, result.output
    lines = error_lines(result)
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {code} "), lines[0]
    assert digest(db) == before, "a refused input changed the store"
    return lines[0]


def _stored_answers(db: Path) -> list[dict]:
    result = invoke(["answers", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _check_json(args: list[str], db: Path, *, input: str | None = None) -> dict:
    result = invoke(["check", *args, "--db", str(db), "--json"], input=input)
    assert result.exit_code == 0 and no_traceback(result), result.output
    return json.loads(result.output)


# --------------------------------------------------------------------------------------------
# A typo becomes data: an argument is a file or a stored id; text only with --text or -
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "claims", "gate", "add-answer"])
def test_typo_in_answer_id_is_refused_and_names_the_closest_id(db: Path, tmp_path: Path, command: str) -> None:
    answer = tmp_path / "clean.json"
    answer.write_text(json.dumps(good_answer("demo-clean")), encoding="utf-8")
    assert invoke(["add-answer", str(answer), "--db", str(db)]).exit_code == 0
    line = _refused([command, "demo-clen"], db, "E502")
    assert "no answer file or stored answer 'demo-clen'" in line and "did you mean 'demo-clean'?" in line
    assert [a["answer_id"] for a in _stored_answers(db)] == ["demo-clean"]


def test_typo_without_a_store_creates_no_store(tmp_path: Path) -> None:
    missing = tmp_path / "new.duckdb"
    result = invoke(["check", "demo-clen", "--db", str(missing)])
    assert result.exit_code == 2 and len(error_lines(result)) == 1 and "E502" in result.output
    assert not missing.exists()


@pytest.mark.parametrize(("path", "cause"), [("/etc", "directory"), ("/dev/zero", "not a regular file"),
                                             ("/dev/null", "not a regular file")])
def test_folders_and_devices_are_not_answers(db: Path, path: str, cause: str) -> None:
    if not Path(path).exists():
        pytest.skip(f"{path} missing")
    for command in ("check", "claims", "add-answer", "gate"):
        assert cause in _refused([command, path], db, "E202")


def test_fifo_answer_is_refused_without_blocking(db: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "answer.json"
    import os

    os.mkfifo(fifo)
    assert "not a regular file" in _refused(["check", str(fifo)], db, "E202")


def test_inline_answers_only_with_text_or_stdin(db: Path) -> None:
    by_text = _check_json(["--text", json.dumps(good_answer("via-text"))], db)
    assert by_text["claims"][0]["status"] == "supported"
    by_stdin = _check_json(["-"], db, input=f"{GOOD_CLAIM} [1]\n\nPassages:\n[1] policy.md: \"{GOOD_CLAIM}\"\n")
    assert by_stdin["claims"][0]["status"] == "supported"
    assert {"via-text", by_stdin["answer_id"]} <= {a["answer_id"] for a in _stored_answers(db)}
    assert "either ANSWER or --text" in _refused(["check", "x.json", "--text", "a b c."], db, "E106")
    assert "no answer given" in _refused(["check"], db, "E106")


def test_stored_answer_id_is_checked_again(db: Path, tmp_path: Path) -> None:
    answer = tmp_path / "a.json"
    answer.write_text(json.dumps(good_answer("again")), encoding="utf-8")
    first = _check_json([str(answer)], db)
    second = _check_json(["again"], db)
    assert second["answer_rev"] == first["answer_rev"] and second["claims"][0]["status"] == "supported"


# --------------------------------------------------------------------------------------------
# Offsets: a bad offset makes that citation invalid; the rest of the answer is verified
# --------------------------------------------------------------------------------------------

_BAD_SPANS = [(-5, 10, "start -5 is negative"), (30, 10, "start 30 is after end 10"),
              (1.5, 10, "start 1.5 is not an integer"), (0, 2**63, "out of range"),
              (0, 10**30, "out of range")]


@pytest.mark.parametrize(("start", "end", "detail"), _BAD_SPANS)
def test_bad_offsets_make_that_claim_invalid_and_the_rest_is_verified(db: Path, start: object, end: object,
                                                                      detail: str) -> None:
    data = good_answer("offsets")
    data["claims"].append({"text": "Uploads are capped at 25 MB per file.",
                           "citations": [{"source": "policy.md", "start": start, "end": end}]})
    report = _check_json(["--text", json.dumps(data)], db)
    good, bad = report["claims"]
    assert good["status"] == "supported"
    assert bad["status"] == "invalid" and not bad["citations"][0]["valid"]
    failures = [f for f in bad["citations"][0]["findings"] if f["outcome"] == "fail"]
    assert failures[0]["code"] == "GC105" and detail in failures[0]["detail"]
    again = _check_json(["offsets"], db)  # the stored revision reports the same invalid citation
    assert again["claims"][1]["citations"][0]["findings"] == bad["citations"][0]["findings"]


def test_five_thousand_digit_offset_is_an_invalid_citation(db: Path) -> None:
    text = ('{"answer_id": "digits", "claims": [{"text": "Uploads are capped at 25 MB per file.", "citations": '
            '[{"source": "policy.md", "start": 0, "end": ' + "9" * 5000 + "}]}]}")
    claim = _check_json(["--text", text], db)["claims"][0]
    assert claim["status"] == "invalid"
    assert "5,000-digit number" in claim["citations"][0]["findings"][0]["detail"]


@pytest.mark.parametrize("marker", ["[policy.md:-5-10]", "[policy.md:0-99999999999999999999999]",
                                    "[policy.md:70-3]", "[policy.md:1.5-9]"])
def test_malformed_or_out_of_range_markers_are_invalid_citations(db: Path, marker: str) -> None:
    text = f"Uploads are capped at 25 MB per file {marker}.\n{GOOD_CLAIM} [policy.md:16-83]\n"
    report = _check_json(["--text", text], db)
    bad, good = report["claims"]
    assert bad["text"] == "Uploads are capped at 25 MB per file." and marker not in bad["text"]
    assert bad["status"] == "invalid" and bad["citations"][0]["findings"][0]["code"] == "GC105"
    assert good["status"] == "supported", good


def test_crlf_marker_answer_keeps_its_passage_list(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "answer.txt"
    path.write_bytes(f"{GOOD_CLAIM} [1]\r\n\r\nPassages:\r\n[1] policy.md: \"{GOOD_CLAIM}\"\r\n".encode())
    report = _check_json([str(path)], db)
    assert len(report["claims"]) == 1 and report["claims"][0]["status"] == "supported"


# --------------------------------------------------------------------------------------------
# Size limits and spaCy's E088
# --------------------------------------------------------------------------------------------


def test_answer_with_too_many_claims_is_refused_with_one_line(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"claims": [{"text": f"Claim {i} holds."} for i in range(10_001)]}))
    assert "10,001 claims, over the limit of 10,000" in _refused(["check", str(path)], db, "E204")
    small = tmp_path / "three.json"
    small.write_text(json.dumps({"claims": [{"text": f"Claim {i} holds."} for i in range(3)]}))
    _refused(["check", str(small), "--max-claims", "2"], db, "E204")


def test_answer_over_the_byte_limit_is_refused(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(good_answer()))
    assert "over the limit of 100" in _refused(["check", str(path), "--max-answer-mb", "0.0001"], db, "E203")
    _refused(["check", "-", "--max-answer-mb", "0.0001"], db, "E203", input=json.dumps(good_answer()))


def test_claim_longer_than_spacy_can_read_is_refused_not_a_crash(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"claims": [{"text": "ok fine."}, {"text": "word " * 250_000}]}))
    line = _refused(["check", str(path)], db, "E205")
    assert "claims[1].text" in line and "over the limit of 10,000" in line
    line = _refused(["check", str(path), "--max-claim-chars", "2000000"], db, "E103")
    assert "--max-claim-chars must be an integer from 1 to 1,000,000" in line


# --------------------------------------------------------------------------------------------
# gate --stream: one bad line is one error record; the stream goes on
# --------------------------------------------------------------------------------------------


def test_gate_stream_reports_bad_lines_and_goes_on(db: Path) -> None:
    good = json.dumps({"text": GOOD_CLAIM, "citations": [{"source": "policy.md", "quote": GOOD_CLAIM}]})
    lines = [good, "not json at all", "[" * 10_000 + "]" * 10_000, '{"text": "' + "x" * 1_000_100 + '"}',
             '{"text": "no', json.dumps({"text": "Jobs retry.", "citations": [{"source": "policy.md", "start": -1,
                                                                                "end": 4}]}), good]
    data = ("\n".join(lines) + "\n").encode() + b'{"text": "caf\xe9"}\n' + good.encode() + b"\n"
    result = invoke(["gate", "--stream", "--db", str(db)], input=data)
    assert result.exit_code == 0 and no_traceback(result), result.output[:500]
    records = [json.loads(line) for line in result.output.splitlines()]
    assert [r["line"] for r in records] == list(range(1, 10))
    assert [r.get("code") for r in records] == [None, "E206", "E207", "E210", "E206", None, None, "E202", None]
    assert records[0]["passed"] and records[6]["passed"] and records[8]["passed"]
    assert records[5]["status"] == "invalid"
    assert records[3]["error"].startswith("line 4: ") and len(records[3]["error"]) < 300


def test_gate_stream_declines_with_exit_1_when_no_line_passes(db: Path) -> None:
    lines = [json.dumps({"text": "Jobs retry forever.", "citations": [{"source": "policy.md", "quote": GOOD_CLAIM}]}),
             "not json at all"]
    result = invoke(["gate", "--stream", "--db", str(db)], input=("\n".join(lines) + "\n").encode())
    records = [json.loads(line) for line in result.output.splitlines()]
    assert len(records) == 2 and not any(r.get("passed") for r in records)
    assert result.exit_code == 1 and no_traceback(result)


# --------------------------------------------------------------------------------------------
# Options: nan, inf, zero, unwritable targets, usage errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "code"), [
    (["ingest", "docs", "--jobs", "0"], "E103"),
    (["ingest", "docs", "--jobs", "-3"], "E103"),
    (["ingest", "docs", "--max-file-mb", "nan"], "E103"),
    (["ingest", "docs", "--max-file-mb", "inf"], "E103"),
    (["ingest", "docs", "--max-file-mb", "0"], "E103"),
    (["ingest", ""], "E101"),
    (["check", "a.json", "--fail-under", "nan"], "E103"),
    (["check", "a.json", "--fail-under", "1.5"], "E103"),
    (["check", "a.json", "--threshold", "nan"], "E103"),
    (["check", "a.json", "--threshold", "-0.1"], "E103"),
    (["check", "a.json", "--max-claims", "0"], "E103"),
    (["check", "a.json", "--max-answer-mb", "nan"], "E103"),
    (["check", "a.json", "--max-answer-mb", "inf"], "E103"),
    (["gate", "a.json", "--max-claim-chars", "0"], "E103"),
    (["check", "a.json", "--audience", "everyone"], "E104"),
    (["show", "x", "--audience", "everyone"], "E104"),
    (["gate", "--stream", "a.json"], "E106"),
    (["ingest", "docs", "--jobs", "abc"], "E102"),
    (["check", "a.json", "--no-such-option"], "E102"),
    (["nonsense-command"], "E102"),
])
def test_bad_options_are_refused_with_one_line(db: Path, args: list[str], code: str) -> None:
    _refused(args, db, code)


@pytest.mark.parametrize("target", ["/proc/version", "/dev/null", "/proc/self/nonexistent/out"])
def test_unwritable_output_folders_are_refused(tmp_path: Path, target: str) -> None:
    result = invoke(["demo", "--db", str(tmp_path / "d.duckdb"), "--out", target])
    assert result.exit_code == 2 and no_traceback(result)
    lines = error_lines(result)
    assert len(lines) == 1 and lines[0].startswith("error: E701 "), result.output
    assert not (tmp_path / "d.duckdb").exists()


def test_db_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    result = invoke(["sources", "--db", str(tmp_path)])
    assert result.exit_code == 2 and error_lines(result)[0].startswith("error: E603 ")


# --------------------------------------------------------------------------------------------
# show --audience
# --------------------------------------------------------------------------------------------


def _unit_of(db: Path, source: str) -> str:
    from graphcite.store import Store

    with Store(db, read_only=True) as store:
        return store.scalar("SELECT unit_id FROM evidence_unit WHERE source_key = ? AND text LIKE '%quota%'",
                            [source])


def test_show_public_hides_restricted_units_and_their_existence(db: Path) -> None:
    unit = _unit_of(db, "secret.md")
    internal = invoke(["show", unit, "--db", str(db), "--json"])
    assert internal.exit_code == 0 and "940 requests" in internal.output
    line = _refused(["show", unit, "--audience", "public"], db, "E503")
    assert line == f"error: E503 UNIT_ID: no unit '{unit}' visible to audience public " \
                   "(take a unit id from `graphcite check --json`)"
    missing = _refused(["show", "0000000000000000", "--audience", "public"], db, "E503")
    assert missing == line.replace(unit, "0000000000000000")
    hidden_text = SECRET.split("\n")[-2]
    assert hidden_text not in line


def test_show_public_still_shows_public_units(db: Path) -> None:
    from graphcite.store import Store

    with Store(db, read_only=True) as store:
        unit = store.scalar("SELECT unit_id FROM evidence_unit WHERE source_key = 'policy.md' AND text LIKE "
                            "'%dispatcher%'")
    result = invoke(["show", unit, "--db", str(db), "--audience", "public"])
    assert result.exit_code == 0 and GOOD_CLAIM in result.output
