"""The JSON API under ``/v1``: thin wrappers over the library functions the command line also calls.

==========================  ===================================================  ==========================
route                       library function                                     command line
==========================  ===================================================  ==========================
POST /v1/check              :func:`graphcite.verify.check_answer`                ``graphcite check --json``
POST /v1/gate               :func:`graphcite.verify.gate_stream` / ``gate_answer``  ``graphcite gate``
GET  /v1/sources            :func:`graphcite.ingest.list_sources`                ``graphcite sources``
GET  /v1/units/{id}         :func:`graphcite.ingest.show_unit`                   ``graphcite show``
GET  /v1/claims/{id}/chain  :func:`graphcite.graph.chain`                        ``graphcite chain``
GET  /v1/answers            :func:`graphcite.claims.list_answers`                ``graphcite answers``
POST /v1/annotations        :func:`graphcite.evaluate.annotate`                  ``graphcite annotate``
GET  /v1/annotations        :func:`graphcite.evaluate.annotations`               ``graphcite annotations``
==========================  ===================================================  ==========================

Judges that reach the network or read a model directory are the operator's choice (``--config``),
never a client's: ``?judge=`` accepts only ``heuristic`` or the server's own judge.

Reads need nothing. On a public server (``serve --audience public``) a ``POST /v1/check`` without a
reviewer token is checked on scratch (:func:`graphcite.verify.check.scratch_check`): the same report,
but no answer revision and no verification record is stored, so an anonymous client's verdicts are
never anyone's latest and its answers never appear on a page. ``POST /v1/annotations`` needs ``Authorization: Bearer TOKEN`` (a token from
``graphcite reviewers add NAME``; 401 with E808 otherwise) and records the judgement under that
reviewer's name.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from graphcite import __version__
from graphcite.claims.formats import FORMATS, load_answer_text, parse_json
from graphcite.errors import NotFoundError, make_error
from graphcite.models import RELATIONS
from graphcite.serve.errors import HTTPFailure
from graphcite.serve.gate import UNSUPPORTED_MODES, GateStream, status_label
from graphcite.serve.http import (
    JSONResponse,
    audience_of,
    bearer_reviewer,
    choice,
    flag,
    number,
    read_text,
    service_of,
)
from graphcite.serve.openapi import openapi_document
from graphcite.serve.views import (
    answers_with_faithfulness,
    public_annotations,
    visible_sources,
    visible_unit,
)
from graphcite.store import Store
from graphcite.verify.config import VerifierConfig

__all__ = ["ANSWER_MEDIA", "routes"]

ANSWER_MEDIA = ("application/json", "text/plain", "text/markdown", "application/x-ndjson", "application/jsonl")
_JSON_MEDIA = ("application/json",)


def _media(request: Request) -> str:
    return (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()


def _require_media(request: Request, accepted: tuple[str, ...]) -> str:
    media = _media(request)
    if media and media not in accepted:
        raise HTTPFailure("E803", f"Content-Type {media[:80]!r} is not read here; use {', '.join(accepted)}",
                          where="Content-Type")
    return media


def _config(request: Request) -> VerifierConfig:
    base = service_of(request).settings.config
    judges = tuple(dict.fromkeys(("heuristic", base.judge)))
    judge = choice(request, "judge", judges)
    threshold = number(request, "threshold", minimum=0, maximum=1)
    if judge is None and threshold is None:
        return base  # (a copy would be equal, and its hash computed again)
    return base.with_overrides(judge=judge, threshold=threshold)


def _documents(request: Request) -> list[str] | None:
    value = request.query_params.get("documents")
    return [d.strip() for d in value.split(",") if d.strip()] if value else None


async def _answer(request: Request) -> Any:
    """The answer in the body, in any accepted format (``?format=`` to name it, ``?documents=``)."""
    service = service_of(request)
    fmt, documents, text = await _answer_text(request)
    return await service.call(load_answer_text, text, format=fmt, documents=documents,
                              limits=service.settings.limits, where="body")


async def _answer_text(request: Request) -> tuple[str | None, list[str] | None, str]:
    """The body's answer text with ``?format=`` and ``?documents=``, read but not parsed yet."""
    _require_media(request, ANSWER_MEDIA)
    fmt = choice(request, "format", tuple(FORMATS))
    documents = _documents(request)
    return fmt, documents, await read_text(request)


# ----------------------------------------------------------------------------------------------
# verification
# ----------------------------------------------------------------------------------------------


async def check(request: Request) -> Response:
    """Store the answer, verify every claim, append one verification record per claim; the report."""
    from graphcite.verify.check import check_answer, scratch_check

    service = service_of(request)
    audience = audience_of(request)
    config = _config(request)
    if service.settings.audience == "public" and not await _signed_in(request):
        # an unauthenticated client of a public server: verified on scratch, nothing written that others read
        answer = await _answer(request)
        return JSONResponse(await service.read(scratch_check, answer, config=config, audience=audience,
                                               limits=service.settings.limits))
    if service.desk is not None:  # a kept report without a thread, or prepared in one; see graphcite.serve.checks
        fmt, documents, text = await _answer_text(request)
        body = await service.within(service.desk.check_body(text, format=fmt, documents=documents, config=config,
                                                            audience=audience, limits=service.settings.limits))
        return JSONResponse(body)  # already encoded: the same bytes as rendering the report
    answer = await _answer(request)
    report = await service.write(check_answer, answer, config=config, audience=audience,
                                 limits=service.settings.limits)
    return JSONResponse(report)


async def _signed_in(request: Request) -> bool:
    """Whether the request carries a reviewer token; a token that is sent but not valid is E808 (401)."""
    if not (request.headers.get("authorization") or "").strip():
        return False
    await bearer_reviewer(request)
    return True


def _gate_whole(store: Store, answer: Any, config: VerifierConfig, audience: str, mode: str,
                verifier: Any = None) -> dict[str, Any]:
    """:func:`graphcite.verify.gate_answer` of a whole answer; ``mark`` also lists every claim's verdict."""
    from graphcite.verify.check import gate_answer, verify_answer

    report = verify_answer(store, answer, config=config, audience=audience, verifier=verifier)
    result = gate_answer(report)
    if mode == "mark":
        result["claims"] = [{"text": c["text"], "passed": c["supported"], "status": c["status"],
                             "label": status_label(c["status"])} for c in report["claims"]]
    return result


async def gate(request: Request) -> Response:
    """NDJSON (one claim per line) in, one verdict per line out as each is checked; or a whole answer."""
    service = service_of(request)
    audience = audience_of(request)
    mode = choice(request, "unsupported", UNSUPPORTED_MODES, "mark") or "mark"
    media = _require_media(request, ANSWER_MEDIA)
    if media == "application/json":  # one whole answer: the no-span-no-claim result at once
        config = _config(request)
        answer = await _answer(request)
        return JSONResponse(await service.read(_gate_whole, answer, config, audience, mode, service.verifier))
    sse = "text/event-stream" in (request.headers.get("accept") or "")
    return GateStream(request, service, audience=audience, mode=mode, sse=sse)  # type: ignore[return-value]


# ----------------------------------------------------------------------------------------------
# reading the store
# ----------------------------------------------------------------------------------------------


async def sources(request: Request) -> Response:
    """Every source with its current revision (restricted ones left out for the public audience)."""
    audience = audience_of(request)
    return JSONResponse(await service_of(request).read(visible_sources, audience))


async def unit(request: Request) -> Response:
    """One evidence unit; for the public audience a restricted unit is answered as missing (E503)."""
    audience = audience_of(request)
    return JSONResponse(await service_of(request).read(visible_unit, request.path_params["unit_id"], audience))


async def claim_chain(request: Request) -> Response:
    """What a claim rests on (``?format=svg`` for the picture)."""
    from graphcite.graph import chain
    from graphcite.serve.svg import chain_svg

    audience = audience_of(request)
    fmt = choice(request, "format", ("json", "svg"), "json")
    ref = request.path_params["claim_id"]
    tree = await service_of(request).read(chain, ref, audience=audience)
    if fmt == "svg":
        if tree.get("kind") != "claim":
            raise NotFoundError(f"no claim {ref[:80]!r}", where="claim_id", code="E504",
                                fix="a picture is drawn for one claim; take a claim_id from /v1/check")
        return Response(chain_svg(tree), media_type="image/svg+xml")
    return JSONResponse(tree)


async def answers(request: Request) -> Response:
    """Stored answer revisions with claim counts and the share of their claims supported (``supported_share``),
    from their latest verifications for the audience."""
    audience = audience_of(request)
    return JSONResponse(await service_of(request).read(answers_with_faithfulness, audience))


# ----------------------------------------------------------------------------------------------
# annotations
# ----------------------------------------------------------------------------------------------


def annotation_fields(data: Any, reviewer: str, where: str = "body") -> dict[str, Any]:
    """The checked arguments of :func:`graphcite.evaluate.annotate` from a JSON object or a form.

    ``reviewer`` is the signed-in reviewer (from the token or the session), never a value the client
    chooses: a ``reviewer`` field naming someone else is refused (E201).
    """
    if not isinstance(data, dict):
        raise make_error("E201", where=where, detail="expected a JSON object with claim_id, citation, label "
                         "and rationale")
    claimed = data.get("reviewer")
    if claimed is not None and claimed != reviewer:
        raise make_error("E201", where=f"{where}.reviewer", detail="reviewer is taken from your token; leave it out",
                         fix=f"you are signed in as {reviewer!r}")
    fields: dict[str, Any] = {"reviewer": reviewer}
    for name in ("claim_id", "label", "rationale"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            raise make_error("E201", where=f"{where}.{name}", detail=f"{name} must be a non-empty string")
        if len(value) > 10_000:
            raise make_error("E201", where=f"{where}.{name}", detail=f"{name} is longer than 10,000 characters")
        fields[name] = value.strip()
    if fields["label"] not in RELATIONS:
        raise make_error("E105", where=f"{where}.label", what="label", value=fields["label"][:80],
                         choices=", ".join(RELATIONS))
    citation = data.get("citation")
    if isinstance(citation, str) and citation.strip().isdigit():
        citation = int(citation.strip())
    if not isinstance(citation, int) or isinstance(citation, bool) or not 0 <= citation < 1_000_000:
        raise make_error("E201", where=f"{where}.citation", detail="citation must be a citation number from 0")
    fields["citation"] = citation
    adjudication = data.get("adjudication", False)
    if adjudication in ("on", "true", "1"):
        adjudication = True
    if not isinstance(adjudication, bool):
        raise make_error("E201", where=f"{where}.adjudication", detail="adjudication must be true or false")
    fields["adjudication"] = adjudication
    return fields


def record_annotation(store: Store, fields: dict[str, Any], audience: str) -> dict[str, Any]:
    """Append one judgement (:func:`graphcite.evaluate.annotate`); ids scrubbed for the public audience."""
    from graphcite.evaluate import annotate
    from graphcite.store import constraint_errors

    try:
        row = annotate(store, fields["claim_id"], citation=fields["citation"], label=fields["label"],
                       rationale=fields["rationale"], reviewer=fields["reviewer"],
                       adjudication=fields["adjudication"])
    except constraint_errors():  # the annotation id is made of claim, citation, reviewer, label, second
        raise make_error("E101", where="citation", detail=f"{fields['reviewer']} recorded this label for this "
                         "citation less than a second ago", fix="it is already recorded; reload the page") from None
    row = {**row, "created_at": str(row["created_at"])}
    if audience == "public":
        from graphcite.audience import audience_view

        row = audience_view(store, audience).judgement(row)
    return row


async def post_annotation(request: Request) -> Response:
    """Record the token holder's judgement of one citation (appended; disagreements stay visible)."""
    service = service_of(request)
    audience = audience_of(request)
    reviewer = await bearer_reviewer(request)
    _require_media(request, _JSON_MEDIA)
    if not _media(request):
        raise HTTPFailure("E803", "send the annotation as application/json", where="Content-Type")
    data = parse_json(await read_text(request), where="body")
    fields = annotation_fields(data, reviewer)
    row = await service.write(record_annotation, fields, audience)
    return JSONResponse(row, status_code=201)


async def list_annotations(request: Request) -> Response:
    """Judgements per (claim, citation); ``?contested=true`` keeps only unresolved disagreements."""
    audience = audience_of(request)
    contested = flag(request, "contested")
    return JSONResponse(await service_of(request).read(public_annotations, contested, audience))


# ----------------------------------------------------------------------------------------------
# service
# ----------------------------------------------------------------------------------------------


async def openapi(request: Request) -> Response:
    """The OpenAPI 3.1 description of this API."""
    return JSONResponse(openapi_document())


async def health(request: Request) -> Response:
    """Ready when this answers: the store is open and the language pipeline loaded."""
    settings = service_of(request).settings
    return JSONResponse({"status": "ok", "version": __version__, "audience": settings.audience})


def routes() -> list[Route]:
    """The API routes."""
    return [
        Route("/v1/check", check, methods=["POST"]),
        Route("/v1/gate", gate, methods=["POST"]),
        Route("/v1/sources", sources, methods=["GET"]),
        Route("/v1/units/{unit_id}", unit, methods=["GET"]),
        Route("/v1/claims/{claim_id}/chain", claim_chain, methods=["GET"]),
        Route("/v1/answers", answers, methods=["GET"]),
        Route("/v1/annotations", post_annotation, methods=["POST"]),
        Route("/v1/annotations", list_annotations, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
    ]
