"""Errors over HTTP: every refusal is ``{"error": {"code", "message", ...}}`` with a fitting status.

A :class:`~graphcite.errors.GraphciteError` keeps its catalogue code (E203 is 413, E5xx are 404, other
input errors 400, a locked store 503). Conditions only a server has get codes of their own in the
E8xx range (:data:`SERVICE_CODES`); a bug is E009, as on the command line, and its traceback goes to
the server log only.
"""

from __future__ import annotations

import json
from typing import Any

from graphcite.errors import (
    AnswerFormatError,
    GraphciteError,
    NotFoundError,
    StoreError,
    StoreLockedError,
    make_error,
)

__all__ = ["SERVICE_CODES", "BodyTooLarge", "HTTPFailure", "error_body", "error_json", "failure_for", "status_for"]

#: Codes for what only the service can refuse (the catalogue in graphcite/errors.py has no E8xx yet).
SERVICE_CODES: dict[str, tuple[int, str, str]] = {  # code -> (status, cause, fix)
    "E801": (504, "the request took longer than the server's time limit", "send a smaller answer, or raise --timeout"),
    "E802": (405, "the path does not take this HTTP method", "see /openapi.json for the methods of each path"),
    "E803": (415, "the body's Content-Type is not one this path reads", "see /openapi.json for the media types"),
    "E804": (403, "the request asks for more than the server's audience allows",
             "this server was started with --audience public"),
    "E805": (403, "a form was posted without the token of the page that showed it",
             "reload the page and submit the form again"),
    "E806": (404, "no such path", "see /openapi.json for the paths"),
    "E807": (400, "the Host header names a host this server does not answer to",
             "connect to the address the server printed when it started"),
    "E808": (401, "writing needs a signed-in reviewer: no valid token or session came with the request",
             "send Authorization: Bearer TOKEN (from `graphcite reviewers add NAME`), or sign in at /review/sign-in"),
    "E809": (400, "the request is not valid HTTP/1.1: a header with a control character, an unknown method, a "
                  "request line or header too long, or a Content-Length that is not one whole number",
             "send a well-formed request (see /openapi.json for the methods and paths)"),
    "E009": (500, "a bug in graphcite: the request could not be completed", "report it with the server log"),
}


class HTTPFailure(Exception):
    """A refusal the service itself makes, with an E8xx code (or E009)."""

    def __init__(self, code: str, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = SERVICE_CODES[code][0]
        self.message = message
        self.where = where

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "where": self.where, "cause": SERVICE_CODES[self.code][1],
                "fix": SERVICE_CODES[self.code][2]}


class BodyTooLarge(AnswerFormatError):
    """The request body is over the byte limit (E203, HTTP 413); raised while the body is read."""

    def __init__(self, size: int, limit: int) -> None:
        error = make_error("E203", where="body", size=size, limit=limit,
                           fix="split the answer, or start the server with a larger --max-body-mb")
        super().__init__(error.cause, where=error.where, fix=error.fix, code="E203")
        self.size = size
        self.limit = limit


def status_for(exc: GraphciteError) -> int:
    """The HTTP status of a library error."""
    if exc.code == "E203":
        return 413
    if isinstance(exc, NotFoundError) or exc.code.startswith("E5"):
        return 404
    if isinstance(exc, StoreLockedError):
        return 503
    if isinstance(exc, StoreError | OSError):
        return 500
    return 400


def error_body(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """``(status, {"error": {...}})`` for any exception; internal details of a bug are never included."""
    if isinstance(exc, GraphciteError):
        return status_for(exc), {"error": exc.as_dict()}
    if isinstance(exc, HTTPFailure):
        return exc.status, {"error": exc.as_dict()}
    failure = HTTPFailure("E009", "internal error: the request could not be completed; the server log has details")
    return failure.status, {"error": failure.as_dict()}


def failure_for(status: int, detail: str | None = None) -> HTTPFailure:
    """The service failure for a status Starlette raised (unknown path, wrong method)."""
    if status == 405:
        return HTTPFailure("E802", detail or "method not allowed")
    if status == 404:
        return HTTPFailure("E806", detail or "no such path")
    return HTTPFailure("E009", detail or "the request could not be completed")


def error_json(status_and_body: tuple[int, dict[str, Any]]) -> bytes:
    """The error body as UTF-8 JSON."""
    return json.dumps(status_and_body[1], ensure_ascii=False).encode("utf-8")
