"""Request and response helpers shared by the API and the review pages: query values, bodies, JSON.

Every query value a client sends is checked here and refused with the catalogue's code (E103 for a
number out of range, E104 for an unknown audience, E105 for a name outside its set), so a route
never sees a value it has to doubt.
"""

from __future__ import annotations

import math
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response

from graphcite.errors import make_error
from graphcite.serve.errors import HTTPFailure
from graphcite.serve.jsontext import json_text
from graphcite.serve.reviewers import read_session, reviewer_for_token
from graphcite.serve.service import Service
from graphcite.verify.check import check_audience

__all__ = ["SESSION_COOKIE", "JSONResponse", "audience_of", "bearer_reviewer", "choice", "flag", "number", "read_body",
           "read_text", "service_of", "session_reviewer"]

#: the review app's session cookie: a signed reviewer name and expiry (HttpOnly, SameSite=Strict)
SESSION_COOKIE = "graphcite_session"


class JSONResponse(Response):
    """JSON with non-ASCII kept and dates as strings; non-finite floats become null, never invalid JSON."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, bytes):  # already encoded by json_text (a check's report, see serve.checks)
            return content
        return json_text(content).encode("utf-8")


def service_of(request: Request) -> Service:
    """The service the app was created with."""
    return request.app.state.service  # type: ignore[no-any-return]


def audience_of(request: Request) -> str:
    """``?audience=`` or the server's audience; a public server never answers for the internal audience."""
    service = service_of(request)
    wanted = request.query_params.get("audience", service.settings.audience)
    check_audience(wanted)
    if service.settings.audience == "public" and wanted != "public":
        raise HTTPFailure("E804", "this server serves the public audience only", where="audience")
    return wanted


def flag(request: Request, name: str, default: bool = False) -> bool:
    """A boolean query value: true/false, 1/0, yes/no (E105 for anything else)."""
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"true", "1", "yes", "on"}:
        return True
    if lowered in {"false", "0", "no", "off"}:
        return False
    raise make_error("E105", where=name, what=name, value=value[:80], choices="true, false")


def choice(request: Request, name: str, choices: tuple[str, ...], default: str | None = None) -> str | None:
    """A query value from a fixed set (E105 naming the set otherwise)."""
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value not in choices:
        raise make_error("E105", where=name, what=name, value=value[:80], choices=", ".join(choices))
    return value


def number(request: Request, name: str, *, minimum: float, maximum: float) -> float | None:
    """A finite number query value in ``minimum..maximum`` (E103 otherwise)."""
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    try:
        parsed = float(value)
    except ValueError:
        parsed = math.nan
    if not math.isfinite(parsed) or not minimum <= parsed <= maximum:
        raise make_error("E103", where=name, option=name, expected=f"a finite number from {minimum:g} to {maximum:g}",
                         value=value[:80])
    return parsed


async def read_body(request: Request) -> bytes:
    """The whole request body, read within the time limit (the Guard enforces the size limit)."""
    service = service_of(request)
    try:
        with anyio.fail_after(service.settings.timeout):
            return await request.body()
    except TimeoutError:
        raise HTTPFailure("E801", f"the request body was not received within {service.settings.timeout:g} s",
                          where="body") from None


async def read_text(request: Request) -> str:
    """The body as UTF-8 text (a BOM is dropped); E202 when it is not UTF-8, E208 when empty."""
    data = await read_body(request)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise make_error("E202", where="body", detail=f"not UTF-8 text (bad byte at offset {exc.start})",
                         fix="send the body as UTF-8") from None
    if not text.strip():
        raise make_error("E208", where="body")
    return text


async def bearer_reviewer(request: Request) -> str:
    """The reviewer whose token came as ``Authorization: Bearer TOKEN``; E808 (401) without a valid one."""
    scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPFailure("E808", "writing needs a reviewer token: send Authorization: Bearer TOKEN",
                          where="Authorization")
    name = await service_of(request).read(reviewer_for_token, token.strip())
    if name is None:
        raise HTTPFailure("E808", "the reviewer token is not valid (it is shown once, by `graphcite reviewers add`)",
                          where="Authorization")
    return name


def session_reviewer(request: Request) -> str | None:
    """The signed-in reviewer of the review app (from the session cookie), or None."""
    return read_session(service_of(request).session_key, request.cookies.get(SESSION_COOKIE))
