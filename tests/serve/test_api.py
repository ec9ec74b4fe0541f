"""The JSON API in process (Starlette's TestClient): every endpoint, its errors and the audience rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from serve_support import HOSTILE_ANSWER, copy_db, load_answer_json

from graphcite.models import STATUS_DISPLAY
from graphcite.serve.errors import SERVICE_CODES

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "schema" / "check-report.schema.json").read_text(encoding="utf-8"))


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert body["error"]["message"] and "Traceback" not in response.text
    return body["error"]


@pytest.fixture(scope="module")
def traps(client: Any) -> dict[str, Any]:
    response = client.post("/v1/check", json=load_answer_json("traps.json"))
    assert response.status_code == 200, response.text
    return response.json()


# ----------------------------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------------------------


def test_check_returns_the_cli_report_and_stores_it(client: Any) -> None:
    from graphcite.verify.check import check_answer

    response = client.post("/v1/check", json=load_answer_json("clean.json"))
    assert response.status_code == 200, response.text
    report = response.json()
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["metrics"]["claims"] == 7 and report["metrics"]["supported_claims"] == 7
    assert all(c["claim_id"] for c in report["claims"]) and report["answer_rev"]
    # exactly what the library (and so `graphcite check --json`) reports for the same answer and store
    with client.app.app.state.service.writer() as store:
        direct = check_answer(store, load_answer_json("clean.json"), record=False)
    assert direct.pop("earlier")["checks"] == 1  # the service's check was recorded; the library says so
    assert json.loads(json.dumps(direct, default=str)) == report
    listed = client.get("/v1/answers").json()
    clean = next(a for a in listed if a["answer_rev"] == report["answer_rev"])
    assert clean["supported_share"] == 1.0 and clean["verified_claims"] == 7 and clean["status_counts"] == {"supported": 7}


def test_check_reads_marker_text_and_judge_options(client: Any) -> None:
    text = ("The relay makes at most five delivery attempts for each event [1].\n\nPassages:\n"
            '[1] decisions/dr-017-webhook-retries.md: "The relay makes at most five delivery attempts for each '
            'event: the first delivery and up to four retries."\n')
    response = client.post("/v1/check?format=markers&threshold=0.4&judge=heuristic", content=text,
                           headers={"content-type": "text/plain"})
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["verifier"]["threshold"] == 0.4 and report["claims"][0]["citations"]


@pytest.mark.parametrize(("query", "code"), [("audience=everyone", "E104"), ("threshold=2", "E103"),
                                             ("threshold=nan", "E103"), ("judge=http", "E105"),
                                             ("format=yaml", "E105")])
def test_check_refuses_bad_options(client: Any, query: str, code: str) -> None:
    error_of(client.post(f"/v1/check?{query}", json=load_answer_json("clean.json")), 400, code)


@pytest.mark.parametrize(("body", "media", "code"), [
    (b"{not json", "application/json", "E206"),
    (b"", "application/json", "E208"),
    (b"\xff\xfe\x00bad", "application/json", "E202"),
    (b"[1, 2]", "application/json", "E201"),
    (b'{"claims": "nope"}', "application/json", "E201"),
    (b"[" * 100_000, "application/json", "E207"),
])
def test_check_refuses_bad_bodies_with_catalogue_codes(client: Any, body: bytes, media: str, code: str) -> None:
    error_of(client.post("/v1/check", content=body, headers={"content-type": media}), 400, code)
    assert client.get("/healthz").status_code == 200  # and keeps serving


def test_wrong_media_method_and_path(client: Any, tokens: dict[str, dict[str, str]]) -> None:
    error_of(client.post("/v1/check", content=b"x=1", headers={"content-type": "application/x-www-form-urlencoded"}),
             415, "E803")
    error_of(client.delete("/v1/check"), 405, "E802")
    error_of(client.get("/v2/nothing"), 404, "E806")
    error_of(client.post("/v1/annotations", content=b"{}", headers={"content-type": "text/plain", **tokens["ana"]}),
             415, "E803")
    error_of(client.post("/v1/annotations", content=b"{}", headers={"content-type": "text/plain"}), 401, "E808")


def test_body_over_the_limit_is_413_declared_or_streamed(client: Any) -> None:
    big = b'{"answer_id": "big", "claims": []}' + b" " * 1_100_000
    error = error_of(client.post("/v1/check", content=big, headers={"content-type": "application/json"}), 413, "E203")
    assert "1,000,000" in error["message"]

    def chunks() -> Any:  # no Content-Length: counted while read
        for _ in range(12):
            yield b" " * 100_000

    error_of(client.post("/v1/check", content=chunks(), headers={"content-type": "application/json"}), 413, "E203")
    assert client.get("/healthz").json()["status"] == "ok"


# ----------------------------------------------------------------------------------------------
# gate
# ----------------------------------------------------------------------------------------------


def ndjson(*records: Any) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)


def test_gate_stream_verdicts_errors_and_summary(client: Any) -> None:
    clean = load_answer_json("clean.json")["claims"]
    traps = load_answer_json("traps.json")["claims"]
    body = ndjson(clean[0], b"{broken", b"", traps[1], {"text": 5}, clean[1])
    response = client.post("/v1/gate", content=body, headers={"content-type": "application/x-ndjson"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in response.text.splitlines()]
    assert [r.get("line") for r in records[:-1]] == [1, 2, 4, 5, 6]
    symbol, word, _ = STATUS_DISPLAY["supported"]
    assert records[0]["passed"] is True and records[0]["label"] == f"{symbol} {word}"
    assert records[1]["code"] == "E206" and records[1]["error"].startswith("line 2")
    assert records[2]["passed"] is False and records[2]["text"] == traps[1]["text"]
    assert records[3]["code"].startswith("E2")
    assert records[4]["passed"] is True
    assert records[-1] == {"done": True, "lines": 6, "passed": 2, "failed": 1, "errors": 2, "declined": False,
                           "reason": None}


def test_gate_remove_mode_and_decline(client: Any) -> None:
    traps = load_answer_json("traps.json")["claims"]
    response = client.post("/v1/gate?unsupported=remove", content=ndjson(traps[0], traps[1]),
                           headers={"content-type": "application/x-ndjson"})
    records = [json.loads(line) for line in response.text.splitlines()]
    assert all(r["removed"] and "text" not in r for r in records[:-1])
    assert records[-1]["declined"] is True and "no sentence" in records[-1]["reason"]


def test_gate_server_sent_events(client: Any) -> None:
    clean = load_answer_json("clean.json")["claims"]
    response = client.post("/v1/gate", content=ndjson(clean[0]), headers={
        "content-type": "application/x-ndjson", "accept": "text/event-stream"})
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [block for block in response.text.split("\n\n") if block]
    assert events[0].startswith("event: verdict\ndata: ") and json.loads(events[0].split("data: ", 1)[1])["passed"]
    assert events[-1].startswith("event: done\n")


def test_gate_whole_answer(client: Any) -> None:
    response = client.post("/v1/gate", json=load_answer_json("traps.json"))
    result = response.json()
    assert response.status_code == 200 and result["declined"] is False
    assert len(result["claims"]) == 12 and all(c["label"] for c in result["claims"])
    assert {d["text"] for d in result["dropped"]} == {c["text"] for c in result["claims"] if not c["passed"]}


def test_gate_stream_over_the_limit_ends_with_an_e203_record(client: Any) -> None:
    line = json.dumps({"text": "x" * 1000, "citations": []}).encode() + b"\n"

    def chunks() -> Any:
        for _ in range(2_100):
            yield line

    response = client.post("/v1/gate?unsupported=remove", content=chunks(),
                           headers={"content-type": "application/x-ndjson"})
    records = [json.loads(x) for x in response.text.splitlines()]
    assert any(r.get("code") == "E203" for r in records) and records[-1]["done"] is True


# ----------------------------------------------------------------------------------------------
# reading the store
# ----------------------------------------------------------------------------------------------


def test_sources_and_units_by_audience(client: Any, traps: dict[str, Any]) -> None:
    internal = client.get("/v1/sources").json()
    public = client.get("/v1/sources?audience=public").json()
    restricted = [s["key"] for s in internal if s["visibility"] == "restricted"]
    assert restricted and not set(restricted) & {s["key"] for s in public}
    assert len(public) == len(internal) - len(restricted)
    unit_id = traps["claims"][0]["citations"][0]["unit_id"]
    unit = client.get(f"/v1/units/{unit_id}").json()
    assert unit["unit_id"] == unit_id and unit["text"]
    error_of(client.get("/v1/units/nope"), 404, "E501")
    error_of(client.get("/v1/units/nope?audience=public"), 404, "E503")


def test_restricted_unit_is_answered_like_a_missing_one(client: Any) -> None:
    service = client.app.app.state.service  # the Guard wraps the Starlette app
    with service.reader() as store:
        unit_id = store.scalar("SELECT u.unit_id FROM evidence_unit u JOIN source s ON s.key = u.source_key "
                               "WHERE s.visibility = 'restricted' LIMIT 1")
    assert unit_id
    assert client.get(f"/v1/units/{unit_id}").status_code == 200
    hidden = error_of(client.get(f"/v1/units/{unit_id}?audience=public"), 404, "E503")
    missing = error_of(client.get("/v1/units/0000000000000000?audience=public"), 404, "E503")
    assert hidden["message"].replace(unit_id, "X") == missing["message"].replace("0000000000000000", "X")


def test_claim_chain_json_and_svg(client: Any, traps: dict[str, Any]) -> None:
    claim_id = traps["claims"][3]["claim_id"]
    tree = client.get(f"/v1/claims/{claim_id}/chain").json()
    assert tree["kind"] == "claim" and tree["claim_id"] == claim_id and tree["citations"]
    svg = client.get(f"/v1/claims/{claim_id}/chain?format=svg")
    assert svg.headers["content-type"].startswith("image/svg+xml") and svg.text.startswith("<svg")
    error_of(client.get("/v1/claims/nothing-here/chain"), 404, "E501")
    error_of(client.get(f"/v1/claims/{claim_id}/chain?format=png"), 400, "E105")


def test_public_check_and_chain_hide_the_restricted_source(client: Any) -> None:
    with client.app.app.state.service.reader() as store:
        key = store.scalar("SELECT key FROM source WHERE visibility = 'restricted' LIMIT 1")
        texts = [r["text"] for r in store.rows("SELECT text FROM evidence_unit WHERE source_key = ?", [key])]
    assert key and texts
    answer = load_answer_json("traps.json")
    internal = json.dumps(client.post("/v1/check", json=answer).json())
    public = json.dumps(client.post("/v1/check?audience=public", json=answer).json())
    said = [t for t in texts if len(t) > 20 and json.dumps(t)[1:-1] in internal]
    assert said  # the internal report quotes the restricted source ...
    assert not [t for t in said if json.dumps(t)[1:-1] in public]  # ... the public one does not
    stored = client.get("/v1/answers?audience=public").json()
    traps = next(a for a in stored if a["answer_id"] == "demo-traps")
    for claim_id in (c["claim_id"] for c in json.loads(public)["claims"]):
        chain = client.get(f"/v1/claims/{claim_id}/chain?audience=public").text
        assert key not in chain and not [t for t in said if json.dumps(t)[1:-1] in chain]
    assert traps["claims"] == 12


def test_public_server_refuses_internal_requests(serve_db: Path, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from graphcite.serve import ServiceSettings, create_app


    settings = ServiceSettings(db=copy_db(serve_db, tmp_path), audience="public", warm=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as public:
        assert public.get("/v1/sources").status_code == 200
        assert all(s["visibility"] == "public" for s in public.get("/v1/sources").json())
        error_of(public.get("/v1/sources?audience=internal"), 403, "E804")


def test_time_limit_gives_504(serve_db: Path, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from graphcite.serve import ServiceSettings, create_app


    settings = ServiceSettings(db=copy_db(serve_db, tmp_path), timeout=0.000_001, warm=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as slow:
        error = error_of(slow.post("/v1/check", json=load_answer_json("clean.json")), 504, "E801")
        assert "longer than" in error["message"]
        assert slow.get("/healthz").status_code == 200


# ----------------------------------------------------------------------------------------------
# annotations
# ----------------------------------------------------------------------------------------------


def test_annotations_append_and_show_contested(client: Any, traps: dict[str, Any],
                                               tokens: dict[str, dict[str, str]]) -> None:
    claim_id = traps["claims"][1]["claim_id"]
    first = client.post("/v1/annotations", json={"claim_id": claim_id, "citation": 0, "label": "contradicts",
                                                 "rationale": "the decision forbids it"}, headers=tokens["ana"])
    assert first.status_code == 201, first.text
    assert first.json()["claim_revision"] == traps["answer_rev"]
    agreed = [a for a in client.get("/v1/annotations").json() if a["claim_id"] == claim_id]
    assert agreed and not agreed[0]["contested"]
    assert claim_id not in {a["claim_id"] for a in client.get("/v1/annotations?contested=true").json()}
    second = client.post("/v1/annotations", json={"claim_id": claim_id, "citation": 0, "label": "mentions",
                                                  "rationale": "it only names retries", "reviewer": "ben"},
                         headers=tokens["ben"])  # naming yourself is allowed
    assert second.status_code == 201
    contested = [a for a in client.get("/v1/annotations?contested=true").json() if a["claim_id"] == claim_id]
    assert contested and contested[0]["labels"] == ["contradicts", "mentions"]
    assert sorted(j["reviewer"] for j in contested[0]["judgements"]) == ["ana", "ben"]  # same second: any order
    third = client.post("/v1/annotations", json={"claim_id": claim_id, "citation": 0, "label": "contradicts",
                                                 "rationale": "adjudicated", "adjudication": True},
                        headers=tokens["cy"])
    assert third.status_code == 201
    assert claim_id not in {a["claim_id"] for a in client.get("/v1/annotations?contested=1").json()}


@pytest.mark.parametrize(("body", "code", "status"), [
    ({"claim_id": "nope", "citation": 0, "label": "supports", "rationale": "r"}, "E504", 404),
    ({"claim_id": "c", "citation": 0, "label": "great", "rationale": "r"}, "E105", 400),
    ({"claim_id": "c", "citation": -1, "label": "supports", "rationale": "r"}, "E201", 400),
    ({"claim_id": "c", "citation": 0, "label": "supports", "rationale": " "}, "E201", 400),
    ({"claim_id": "c", "citation": 0, "label": "supports", "rationale": "r", "reviewer": "ben"}, "E201", 400),
    ([1, 2], "E201", 400),
])
def test_annotation_refusals(client: Any, tokens: dict[str, dict[str, str]], body: Any, code: str,
                             status: int) -> None:
    response = client.post("/v1/annotations", json=body, headers=tokens["ana"])
    if code == "E504":  # annotate raises NotFoundError without a catalogue code of its own
        assert response.status_code == 404 and response.json()["error"]["code"].startswith("E5")
    else:
        error_of(response, status, code)


def test_annotation_on_a_missing_citation(client: Any, traps: dict[str, Any],
                                          tokens: dict[str, dict[str, str]]) -> None:
    response = client.post("/v1/annotations", json={"claim_id": traps["claims"][0]["claim_id"], "citation": 99,
                                                    "label": "supports", "rationale": "r"}, headers=tokens["ana"])
    assert response.status_code == 404 and "citation" in response.json()["error"]["message"]


@pytest.mark.parametrize("authorization", [None, "Bearer", "Basic YW5hOnB3", "Bearer not-a-token",
                                           "Bearer gc1.YW5h.wrong-secret", "Bearer gc1.bm9ib2R5.wrong-secret",
                                           "Bearer gc1.%%%.x"])
def test_annotations_need_a_valid_token(client: Any, traps: dict[str, Any], tokens: dict[str, dict[str, str]],
                                        authorization: str | None) -> None:
    claim_id = traps["claims"][0]["claim_id"]
    body = {"claim_id": claim_id, "citation": 0, "label": "supports", "rationale": "no token"}
    before = len(client.get("/v1/annotations").json())
    response = client.post("/v1/annotations", json=body,
                           headers={"authorization": authorization} if authorization else {})
    error = error_of(response, 401, "E808")
    assert response.headers["www-authenticate"].startswith("Bearer") and error["fix"]
    assert len(client.get("/v1/annotations").json()) == before  # nothing was written
    # another reviewer's name with a valid token's secret is refused too
    secret = tokens["ana"]["authorization"].rsplit(".", 1)[1]
    forged = "Bearer gc1.YmVu." + secret  # "ben" with ana's secret
    error_of(client.post("/v1/annotations", json=body, headers={"authorization": forged}), 401, "E808")


def test_the_same_judgement_twice_in_a_second_is_never_a_500(client: Any, traps: dict[str, Any],
                                                             tokens: dict[str, dict[str, str]]) -> None:
    body = {"claim_id": traps["claims"][6]["claim_id"], "citation": 0, "label": "mentions", "rationale": "twice"}
    responses = [client.post("/v1/annotations", json=body, headers=tokens["ben"]) for _ in range(3)]
    assert responses[0].status_code == 201
    for response in responses[1:]:  # the annotation id has one-second resolution
        assert response.status_code == 201 or error_of(response, 400, "E101")


def test_reviewer_is_the_token_holder(client: Any, traps: dict[str, Any], tokens: dict[str, dict[str, str]]) -> None:
    claim_id = traps["claims"][5]["claim_id"]
    posted = client.post("/v1/annotations", json={"claim_id": claim_id, "citation": 0, "label": "supports",
                                                   "rationale": "checked by hand"}, headers=tokens["cy"])
    assert posted.status_code == 201 and posted.json()["reviewer"] == "cy"


# ----------------------------------------------------------------------------------------------
# the service itself
# ----------------------------------------------------------------------------------------------


def test_openapi_describes_every_route(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    paths = doc["paths"]
    for path, method in [("/v1/check", "post"), ("/v1/gate", "post"), ("/v1/sources", "get"),
                         ("/v1/units/{unit_id}", "get"), ("/v1/claims/{claim_id}/chain", "get"),
                         ("/v1/answers", "get"), ("/v1/annotations", "post"), ("/v1/annotations", "get")]:
        assert method in paths[path], path
    assert doc["components"]["schemas"]["CheckReport"]["title"].startswith("graphcite check --json report")
    assert set(SERVICE_CODES) <= set(doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]
                                     ["code"]["description"].replace(",", " ").replace("(", " ").split())


def test_security_headers_on_every_response(client: Any) -> None:
    for response in (client.get("/healthz"), client.get("/nope"), client.get("/review/answers")):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in response.headers["content-security-policy"]
        assert "unsafe-inline" not in response.headers["content-security-policy"]


def test_openapi_says_writes_need_a_token(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["paths"]["/v1/annotations"]["post"]["security"] == [{"reviewerToken": []}]
    assert doc["components"]["securitySchemes"]["reviewerToken"]["scheme"] == "bearer"
    assert "reviewer" not in doc["components"]["schemas"]["AnnotationIn"]["required"]


def test_hostile_answer_round_trips_as_data(client: Any) -> None:
    report = client.post("/v1/check", json=HOSTILE_ANSWER).json()
    assert report["claims"][0]["citations"][0]["quote"].startswith("The relay keeps <script>")
    assert report["claims"][0]["citations"][0]["valid"] is True
