"""The OpenAPI 3.1 description served at ``/openapi.json``, written out by hand beside the routes.

The check report's schema is the one in ``schema/check-report.schema.json`` when the source tree is
at hand; an installed wheel, which has no ``schema/`` folder, describes the report as an object.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from graphcite import __version__
from graphcite.claims.formats import FORMATS
from graphcite.models import RELATIONS
from graphcite.serve.errors import SERVICE_CODES

__all__ = ["openapi_document"]

_SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema" / "check-report.schema.json"


def _report_schema() -> dict[str, Any]:
    try:
        schema = json.loads(_SCHEMA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"type": "object", "description": "the report of `graphcite check --json`"}
    schema.pop("$schema", None)
    return schema


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}}


def _param(name: str, description: str, schema: dict[str, Any], where: str = "query",
           required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": where, "required": required, "description": description, "schema": schema}


AUDIENCE = _param("audience", "public hides restricted sources entirely; a public server refuses internal (E804)",
                  {"enum": ["public", "internal"]})
ERRORS = {"400": _error("bad input: the catalogue code says what (see `graphcite errors`)"),
          "403": _error("forbidden for this server's audience (E804)"),
          "404": _error("no such id (E5xx) or path (E806)"),
          "413": _error("body over the size limit (E203)"),
          "415": _error("Content-Type not read here (E803)"),
          "500": _error("a bug (E009); the server log has the traceback"),
          "504": _error("over the per-request time limit (E801)")}
ANSWER_BODY = {"required": True, "description": "an answer in any accepted format: " + ", ".join(FORMATS),
               "content": {"application/json": {"schema": {"type": "object"}},
                           "text/plain": {"schema": {"type": "string"}}}}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


@functools.cache
def _document() -> str:
    array = {"type": "array", "items": {"type": "object"}}
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "graphcite", "version": __version__,
                 "description": "Check what a cited sentence rests on: the service behind `graphcite serve`. "
                                "Every 4xx/5xx body is {\"error\": {\"code\", \"message\", \"where\", \"cause\", "
                                "\"fix\"}}."},
        "paths": {
            "/v1/check": {"post": {
                "summary": "Store an answer, verify every claim and record the result (graphcite check --json)",
                "parameters": [AUDIENCE,
                               _param("format", "the answer's format (detected when absent)", {"enum": list(FORMATS)}),
                               _param("documents", "KEY,KEY,... for document_index or [n] markers", {"type": "string"}),
                               _param("threshold", "lexical support threshold", {"type": "number", "minimum": 0,
                                                                                 "maximum": 1}),
                               _param("judge", "heuristic, or the judge the server was configured with",
                                      {"type": "string"})],
                "requestBody": ANSWER_BODY,
                "responses": {"200": _json("the check report", {"$ref": "#/components/schemas/CheckReport"}),
                              **ERRORS}}},
            "/v1/gate": {"post": {
                "summary": "No span, no claim: one verdict per streamed sentence, flushed as each is checked",
                "description": "NDJSON in (one claim object per line: text, citations); NDJSON out, or "
                               "server-sent events with Accept: text/event-stream. A bad line gives an error "
                               "record and the stream goes on; the last record is {\"done\": true, ...} and "
                               "says whether the answer is declined and why. A body sent as "
                               "application/json is one whole answer, gated at once.",
                "parameters": [AUDIENCE, _param("unsupported", "mark unsupported sentences, or remove their text",
                                                {"enum": ["mark", "remove"]})],
                "requestBody": {"required": True, "content": {
                    "application/x-ndjson": {"schema": {"type": "string"}},
                    "application/json": {"schema": {"type": "object"}}}},
                "responses": {"200": {"description": "verdict records", "content": {
                    "application/x-ndjson": {"schema": {"$ref": "#/components/schemas/GateRecord"}},
                    "text/event-stream": {"schema": {"type": "string"}},
                    "application/json": {"schema": {"type": "object"}}}}, **ERRORS}}},
            "/v1/sources": {"get": {"summary": "Ingested sources (graphcite sources --json)", "parameters": [AUDIENCE],
                                    "responses": {"200": _json("sources", array), **ERRORS}}},
            "/v1/units/{unit_id}": {"get": {
                "summary": "One evidence unit (graphcite show --json)",
                "parameters": [_param("unit_id", "evidence unit id", {"type": "string"}, "path", True), AUDIENCE],
                "responses": {"200": _json("the unit", {"type": "object"}), **ERRORS}}},
            "/v1/claims/{claim_id}/chain": {"get": {
                "summary": "What a claim rests on (graphcite chain --json); ?format=svg draws it",
                "parameters": [_param("claim_id", "claim id (or answer id)", {"type": "string"}, "path", True),
                               AUDIENCE, _param("format", "json or svg", {"enum": ["json", "svg"]})],
                "responses": {"200": {"description": "the support chain", "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "image/svg+xml": {"schema": {"type": "string"}}}}, **ERRORS}}},
            "/v1/answers": {"get": {"summary": "Stored answers with the share of their claims supported", "parameters": [AUDIENCE],
                                    "responses": {"200": _json("answers", array), **ERRORS}}},
            "/v1/annotations": {
                "post": {"summary": "Record the token holder's judgement of one citation (graphcite annotate)",
                         "security": [{"reviewerToken": []}], "parameters": [AUDIENCE],
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"$ref": "#/components/schemas/AnnotationIn"}}}},
                         "responses": {"201": _json("the stored judgement", {"type": "object"}), **ERRORS}},
                "get": {"summary": "Judgements per citation; disagreements stay visible (graphcite annotations)",
                        "parameters": [AUDIENCE, _param("contested", "only unresolved disagreements",
                                                        {"type": "boolean"})],
                        "responses": {"200": _json("judgements", array), **ERRORS}}},
            "/openapi.json": {"get": {"summary": "This description",
                                      "responses": {"200": _json("OpenAPI 3.1", {"type": "object"})}}},
            "/healthz": {"get": {"summary": "Ready when this answers",
                                 "responses": {"200": _json("status", {"type": "object"})}}},
        },
        "components": {"securitySchemes": {"reviewerToken": {
            "type": "http", "scheme": "bearer",
            "description": "a reviewer token from `graphcite reviewers add NAME`; without it a write is 401 (E808)"}},
                       "schemas": {
            "CheckReport": _report_schema(),
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"type": "string", "pattern": "^E[0-9]{3}$",
                                        "description": "catalogue code; service codes: " + ", ".join(
                                            f"{c} ({s[0]})" for c, s in SERVICE_CODES.items())},
                               "message": {"type": "string"}, "where": {"type": ["string", "null"]},
                               "cause": {"type": ["string", "null"]}, "fix": {"type": ["string", "null"]}}}}},
            "GateRecord": {"type": "object", "properties": {
                "line": {"type": "integer"}, "text": {"type": "string"}, "passed": {"type": "boolean"},
                "status": {"type": "string"}, "label": {"type": "string"}, "removed": {"type": "boolean"},
                "error": {"type": "string"}, "code": {"type": "string"}, "done": {"type": "boolean"},
                "declined": {"type": "boolean"}, "reason": {"type": ["string", "null"]}}},
            "AnnotationIn": {"type": "object", "required": ["claim_id", "citation", "label", "rationale"],
                             "properties": {"claim_id": {"type": "string"},
                                            "citation": {"type": "integer", "minimum": 0},
                                            "label": {"enum": list(RELATIONS)}, "rationale": {"type": "string"},
                                            "reviewer": {"type": "string", "description": "optional; must be "
                                                         "the token's reviewer"},
                                            "adjudication": {"type": "boolean"}}},
        }},
    }
    return json.dumps(doc, ensure_ascii=False)


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document (a fresh copy each call)."""
    return json.loads(_document())  # type: ignore[no-any-return]
