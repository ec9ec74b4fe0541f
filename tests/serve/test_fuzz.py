"""Hypothesis-generated requests: whatever a client sends, the answer is never a 500 or a traceback."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=int(os.environ.get("GC_FUZZ_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
MEDIA = st.sampled_from(["application/json", "text/plain", "application/x-ndjson", "", "text/markdown; charset=utf-8"])
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                    max_leaves=12)
CITATION = st.fixed_dictionaries({}, optional={
    "source": st.sampled_from(["decisions/dr-017-webhook-retries.md", "nope.md", "", "manuals/signing-keys-internal.md"])
    | st.text(max_size=30),
    "quote": st.text(max_size=60), "start": st.integers(-5, 2**70) | st.none(), "end": st.integers(-5, 2**70),
    "chunk_id": st.text(max_size=20), "revision": st.text(max_size=20), "page": st.integers(-3, 10**20),
    "role": st.text(max_size=10)})
CLAIM = st.fixed_dictionaries({"text": st.text(min_size=1, max_size=80)},
                              optional={"citations": st.lists(CITATION, max_size=2) | JSON,
                                        "type": st.sampled_from(["direct", "inference", "bogus"]) | JSON})
ANSWER = st.fixed_dictionaries({"claims": st.lists(CLAIM, max_size=2)},
                               optional={"answer_id": st.text(max_size=30) | JSON, "question": st.text(max_size=30)})


def assert_clean(response: Any) -> None:
    assert response.status_code < 500, response.text[:2000]
    assert "Traceback" not in response.text and 'File "' not in response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"].startswith("E") and error["message"]


@FUZZ
@given(body=st.binary(max_size=300), media=MEDIA)
def test_any_bytes_to_check(client: Any, body: bytes, media: str) -> None:
    assert_clean(client.post("/v1/check", content=body, headers={"content-type": media} if media else {}))


@FUZZ
@given(data=JSON | ANSWER)
def test_any_json_to_check(client: Any, data: Any) -> None:
    assert_clean(client.post("/v1/check", content=json.dumps(data).encode(), headers={"content-type": "application/json"}))


@FUZZ
@given(lines=st.lists(st.binary(max_size=80) | CLAIM.map(lambda c: json.dumps(c).encode()) | JSON.map(
    lambda v: json.dumps(v).encode()), max_size=4))
def test_any_stream_to_gate(client: Any, lines: list[bytes]) -> None:
    response = client.post("/v1/gate", content=b"\n".join(lines), headers={"content-type": "application/x-ndjson"})
    assert_clean(response)
    records = [json.loads(line) for line in response.text.splitlines()]
    assert records[-1]["done"] is True
    assert all(("error" in r and r["code"].startswith("E")) or "passed" in r for r in records[:-1])


@FUZZ
@given(data=JSON | st.fixed_dictionaries({}, optional={
    "claim_id": st.text(max_size=20) | JSON, "citation": st.integers() | JSON, "label": st.text(max_size=15),
    "rationale": st.text(max_size=20), "reviewer": st.text(max_size=10), "adjudication": JSON}))
def test_any_json_to_annotations(client: Any, tokens: dict[str, dict[str, str]], data: Any) -> None:
    assert_clean(client.post("/v1/annotations", content=json.dumps(data).encode(),
                             headers={"content-type": "application/json", **tokens["ana"]}))


@FUZZ
@given(path=st.sampled_from(["/v1/sources", "/v1/answers", "/v1/annotations", "/v1/units/{x}", "/v1/claims/{x}/chain",
                             "/review/answers", "/review/answers/{x}", "/review/claims/{x}", "/review/annotations"]),
       value=st.text(max_size=30), name=st.sampled_from(["audience", "contested", "format", "x"]))
def test_any_query_and_path(client: Any, path: str, value: str, name: str) -> None:
    from urllib.parse import quote

    url = path.replace("{x}", quote(value, safe="") or "x")
    assert_clean(client.get(url, params={name: value}))
