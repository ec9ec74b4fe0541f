"""The ASGI application of ``graphcite serve``: the JSON API, the review pages, and the guard around both.

:func:`create_app` builds it from :class:`~graphcite.serve.service.ServiceSettings`. On startup the
store is opened once (for writing) and the language pipeline is warmed; on shutdown the store is
closed. Any ASGI server runs it; ``graphcite serve`` uses uvicorn.

Errors: a :class:`~graphcite.errors.GraphciteError` keeps its catalogue code; a refusal only a
server makes (wrong method, unknown path, time limit, ...) has an E8xx code; a bug is E009 with the
traceback in the ``graphcite.serve`` log only. The body is ``{"error": {"code", "message", ...}}``,
or an error page for a browser on ``/review/``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from graphcite.errors import GraphciteError
from graphcite.serve import api, review
from graphcite.serve.errors import HTTPFailure, error_body, failure_for
from graphcite.serve.guard import Guard, log_refusal
from graphcite.serve.http import JSONResponse
from graphcite.serve.service import Service, ServiceSettings, ServiceTimeout
from graphcite.store import Store

__all__ = ["create_app"]

log = logging.getLogger("graphcite.serve")


def _wants_html(request: Request) -> bool:
    return request.url.path.startswith("/review/") and "text/html" in (request.headers.get("accept") or "")


def _respond(request: Request, exc: BaseException) -> Response:
    if isinstance(exc, HTTPException):
        exc = failure_for(exc.status_code, f"{request.method} {request.url.path[:200]} is not served here"
                          if exc.status_code in (404, 405) else None)
    if isinstance(exc, ServiceTimeout):
        exc = HTTPFailure("E801", str(exc), where=request.url.path[:200])
    status, body = error_body(exc)
    if status >= 500 and isinstance(exc, GraphciteError | HTTPFailure):  # a bug is logged by the Guard
        log_refusal(request.method, request.url.path, exc)  # a refusal in one line, a bug with its traceback
    if _wants_html(request):
        try:
            return review.render_error(request, status, body["error"])
        except Exception:  # the error page itself failed: plain JSON instead
            log.exception("cannot render the error page")
    headers = {"www-authenticate": 'Bearer realm="graphcite"'} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


async def _handle(request: Request, exc: Exception) -> Response:
    return _respond(request, exc)


async def _disconnected(request: Request, exc: Exception) -> Response:
    return Response(status_code=400)


def create_app(settings: ServiceSettings | None = None, *, store: Store | None = None, close_store: bool = False,
               hosts: frozenset[str] | None = None, on_ready: Callable[[], None] | None = None) -> Any:
    """The ASGI app: routes, error handling, and the :class:`~graphcite.serve.guard.Guard` around them.

    ``store`` lends an open store (closed on shutdown only with ``close_store``); by default the app
    opens ``settings.db`` on startup and closes it on shutdown. ``hosts`` are the Host names answered
    (None: any). ``on_ready`` is called once the store is open and the pipeline warm.
    """
    settings = settings or ServiceSettings()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service = await anyio.to_thread.run_sync(lambda: Service(settings, store, close_store=close_store))
        app.state.service = service
        try:
            if settings.warm:
                await anyio.to_thread.run_sync(service.warm_up)
            if on_ready is not None:
                on_ready()
            yield
        finally:
            await anyio.to_thread.run_sync(service.close)

    app = Starlette(routes=[*api.routes(), *review.routes()], lifespan=lifespan, exception_handlers={
        GraphciteError: _handle, HTTPFailure: _handle, ServiceTimeout: _handle, HTTPException: _handle,
        ClientDisconnect: _disconnected, Exception: _handle})
    return Guard(app, max_body=settings.max_body_bytes, max_stream=settings.max_stream_bytes,
                 stream_paths=("/v1/gate",), hosts=hosts)

