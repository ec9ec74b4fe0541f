"""The review app: server-rendered pages where reviewers read claims beside their evidence and judge them.

Jinja2 with autoescape renders every page; document text only ever reaches a page through escaping
(the marked paragraph is built from escaped pieces here, the chain picture by :mod:`graphcite.serve.svg`).
A quote with an ellipsis or a bracketed insertion is shown as quoted, piece by piece from the stored text,
with its omissions and insertions marked as such; no excerpt shows more than the service's
``max_quote_chars`` code points of a source (default 500), and a shortened one names its offsets.
Pages carry a Content-Security-Policy that allows scripts and styles from this server only, never
inline, so the one small script (``static/review.js``) is an enhancement: every page works with the
keyboard and without JavaScript. The annotation form is a plain POST protected by a per-process
token (CSRF) and an Origin check; it answers with a redirect back to the judged citation.

Reading needs nothing; judging needs a signed-in reviewer. ``/review/sign-in`` takes the token of
``graphcite reviewers add`` once and answers with a session cookie (HttpOnly, SameSite=Strict, signed
with the process's key; see :mod:`graphcite.serve.reviewers`); the judgement is recorded under that
reviewer's name, never under a name typed into the form.
"""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from graphcite.export.html import attach_quotes, excerpt_html, quote_pieces_html, transformed_quotes
from graphcite.export.output import DEFAULT_MAX_QUOTE_CHARS
from graphcite.models import RELATION_DISPLAY as MODEL_RELATIONS
from graphcite.models import RELATIONS, STATUS_DISPLAY, UNVERIFIED_DISPLAY
from graphcite.models.findings import (
    CONFIG_HASH_MEANING,
    citation_notes,
    finding_items,
    findings_heading,
    sentence,
)
from graphcite.serve.api import annotation_fields, record_annotation
from graphcite.serve.errors import HTTPFailure
from graphcite.serve.guard import PAGE_CSP
from graphcite.serve.http import (
    SESSION_COOKIE,
    JSONResponse,
    audience_of,
    flag,
    read_text,
    service_of,
    session_reviewer,
)
from graphcite.serve.reviewers import SESSION_SECONDS, reviewer_for_token, sign_session
from graphcite.serve.svg import chain_svg
from graphcite.serve.views import answer_view, answers_with_faithfulness, public_annotations

__all__ = ["RELATION_DISPLAY", "STATIC", "answer_page_view", "clipped", "csrf_token", "environment", "marked", "max_quote_chars",
           "quoted_pieces", "render_error", "routes"]

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
RELATION_DISPLAY: dict[str, tuple[str, str]] = {**{str(k): v for k, v in MODEL_RELATIONS.items()},
                                                "unchecked": ("…", "not checked")}


def status_display(status: str | None) -> tuple[str, str]:
    """(symbol, word) of a claim status; ``unverified`` and unknown statuses included."""
    if status in STATUS_DISPLAY:
        symbol, word, _ = STATUS_DISPLAY[status]
        return symbol, word
    if status == "unverified":
        return UNVERIFIED_DISPLAY[0], UNVERIFIED_DISPLAY[1]
    return "•", str(status)


def relation_display(relation: str | None) -> tuple[str, str]:
    """(symbol, word) of a citation relation."""
    return RELATION_DISPLAY.get(relation or "unchecked", ("•", str(relation)))


def marked(unit: dict[str, Any] | None, start: int | None, end: int | None, quote_text: str | None,
           limit: int = DEFAULT_MAX_QUOTE_CHARS) -> Markup:
    """The unit's paragraph, escaped, with the cited span inside ``<mark>``, at most ``limit`` code points.

    The exact offsets are used when they fall inside the unit, else the quote's first occurrence,
    else nothing is marked (the page then shows the quote apart, as not found in the unit). A
    shortened paragraph is followed by a note naming the code points shown and the span's offsets.
    """
    text = (unit or {}).get("text") or ""
    lo = hi = None
    base = (unit or {}).get("start")
    if isinstance(start, int) and isinstance(end, int) and isinstance(base, int):
        lo, hi = start - base, end - base
        if not 0 <= lo < hi <= len(text):
            lo = hi = None
    if lo is None and quote_text and quote_text in text:
        lo = text.index(quote_text)
        hi = lo + len(quote_text)
    body, note = excerpt_html(text, lo or 0, hi or 0, limit, base if isinstance(base, int) else None)
    return Markup(body + (f'</p><p class="meta clipped-note">{escape(note)}' if note else ""))


def quoted_pieces(cit: dict[str, Any], limit: int = DEFAULT_MAX_QUOTE_CHARS) -> Markup:
    """A transformed quote as quoted: marked pieces, ``[…]`` omissions, underlined insertions, and a legend."""
    body, legend = quote_pieces_html(cit.get("quote_pieces") or [], cit.get("quote_transformations") or [], limit)
    return Markup(f'<blockquote class="transformed"><p class="doc">{body}</p></blockquote>'
                  f'<p class="meta quote-legend">{escape(legend)}</p>')


def clipped(text: str | None, limit: int = DEFAULT_MAX_QUOTE_CHARS) -> Markup:
    """Source text, escaped and shortened to ``limit`` code points (with a note when it was)."""
    body, note = excerpt_html(text or "", 0, 0, limit)
    return Markup(body + (f' <span class="meta clipped-note">({escape(note)})</span>' if note else ""))


def max_quote_chars(request: Request) -> int:
    """The excerpt limit of this service (its settings' ``max_quote_chars``, else the default)."""
    limit = getattr(service_of(request).settings, "max_quote_chars", None)
    return limit if isinstance(limit, int) and limit > 0 else DEFAULT_MAX_QUOTE_CHARS


def settled_label(review: dict[str, Any] | None) -> str | None:
    """The relation reviewers settled on for a citation: its adjudication, else the one label every
    reviewer gave; None while it is contested or unreviewed."""
    if not review:
        return None
    labels = review.get("labels") or []
    return review.get("adjudicated") or (labels[0] if labels and not review.get("contested") else None)


def review_mark(tree: dict[str, Any]) -> str:
    """What reviewers made of a claim's citations, for its line beside the machine's badge: contested,
    settled on another relation than the machine's, reviewed, or "" (nobody judged it)."""
    reviews = [(cit.get("review"), cit.get("relation")) for cit in tree.get("citations") or [] if cit.get("review")]
    if any(review.get("contested") for review, _ in reviews):
        return "contested by reviewers"
    if any(settled_label(review) not in {None, relation} for review, relation in reviews):
        return "reviewers differ from the machine"
    return "reviewed" if reviews else ""


def environment() -> Environment:
    """The Jinja2 environment of the review pages (autoescape on for every template)."""
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(status_display=status_display, relation_display=relation_display, marked=marked,
                       quoted_pieces=quoted_pieces, clipped=clipped, relations=RELATIONS, quote=quote,
                       finding_items=finding_items, findings_heading=findings_heading, citation_notes=citation_notes,
                       sentence=sentence, review_mark=review_mark)
    return env


_ENV = environment()


def csrf_token(request: Request) -> str:
    """The form token: a signed-in reviewer's is derived from their session (so it changes at every
    sign-in, and a token seen before signing in is worthless after); before signing in, the sign-in
    form's token of this server process (a page from an earlier process needs a reload)."""
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and session_reviewer(request) is not None:
        digest = hmac.new(service_of(request).session_key, b"csrf\0" + cookie.encode("utf-8"), "sha256")
        return digest.hexdigest()
    state = request.app.state
    if not getattr(state, "csrf", None):
        state.csrf = secrets.token_urlsafe(32)
    return state.csrf  # type: ignore[no-any-return]


def _page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    service = service_of(request)
    html = _ENV.get_template(template).render(audience=context.pop("audience", service.settings.audience),
                                              csrf=csrf_token(request), reviewer=session_reviewer(request),
                                              here=_local_path(request.url.path),
                                              max_quote_chars=max_quote_chars(request), **context)
    return HTMLResponse(html, status_code=status, headers={"content-security-policy": PAGE_CSP,
                                                           "cache-control": "no-store"})


def render_error(request: Request, status: int, error: dict[str, Any]) -> HTMLResponse:
    """An error as a page (for browsers on /review/ paths): code, message and fix, all escaped."""
    return _page(request, "error.html", status, title=f"Error {error.get('code')}", error=error)


# ----------------------------------------------------------------------------------------------
# pages
# ----------------------------------------------------------------------------------------------


async def index(request: Request) -> Response:
    return RedirectResponse("/review/answers", status_code=307)


def review_states(store: Any, audience: str = "internal") -> dict[str, dict[str, int]]:
    """Per answer revision: how many of its citations reviewers judged, how many of those they contest,
    and how many they settled on a relation other than the machine's (an agreed label or an
    adjudication that differs from the relation of the claim's latest verification for ``audience``)."""
    from graphcite.evaluate import annotations
    from graphcite.graph import latest_verifications

    items = annotations(store)
    records = latest_verifications(store, sorted({item["claim_id"] for item in items}), record=False,
                                   audience=audience)
    out: dict[str, dict[str, int]] = {}
    for item in items:
        answer_rev = item["judgements"][0].get("claim_revision") if item["judgements"] else None
        if not answer_rev:
            continue
        state = out.setdefault(answer_rev, {"reviewed": 0, "contested": 0, "differs": 0})
        state["reviewed"] += 1
        state["contested"] += 1 if item["contested"] else 0
        settled = settled_label(item)
        report = (records.get(item["claim_id"]) or {}).get("report") or {}
        machine = next((c.get("relation") for c in report.get("citations") or [] if c.get("index") == item["citation"]),
                       None)
        state["differs"] += 1 if settled and machine and settled != machine else 0
    return out


def _answers_and_reviews(store: Any, audience: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    return answers_with_faithfulness(store, audience), review_states(store, audience)


def _failing(row: dict[str, Any]) -> bool:
    """Whether some verified claim of the answer is not supported."""
    return row.get("verified_claims", 0) > row.get("supported_claims", 0)


async def answers_page(request: Request) -> Response:
    """The stored answers, each with the machine's verdicts and the reviewers' (reviewed, contested);
    ``?failing=1`` keeps the answers with an unsupported claim, ``?contested=1`` those reviewers contest."""
    audience = audience_of(request)
    rows, reviews = await service_of(request).read(_answers_and_reviews, audience)
    failing, contested = flag(request, "failing"), flag(request, "contested")
    shown = [r for r in rows if (not failing or _failing(r))
             and (not contested or reviews.get(r["answer_rev"], {}).get("contested"))]
    return _page(request, "answers.html", title="Answers", answers=shown, reviews=reviews, audience=audience,
                 failing=failing, contested=contested, total=len(rows))


def answer_page_view(store: Any, ref: str, audience: str) -> dict[str, Any]:
    """The answer page's view: :func:`graphcite.serve.views.answer_view` plus the answer's sentences that
    assert nothing (``not_claims``: shown, never counted) and the configuration hashes that decided its
    latest verdicts (``config_hashes``; two when claims were last checked under different settings) and how
    many citations reviewers settled on another relation than the machine's (``reviews_differ``)."""
    from graphcite.audience import audience_view
    from graphcite.claims.answers import get_answer
    from graphcite.graph import latest_verifications

    view = answer_view(store, ref, audience)
    not_claims = list(get_answer(store, view["answer_rev"])[1].not_claims) if view.get("answer_rev") else []
    seen = audience_view(store, audience)
    if seen.public:
        not_claims = [seen.redactor.scrub(text) for text in not_claims]
    records = latest_verifications(store, [c["claim_id"] for c in view["claims"]], record=False, audience=audience)
    hashes = sorted({r["config_hash"] for r in records.values() if r.get("config_hash")})
    differs = sum(1 for claim in view["claims"] for cit in claim["citations"]
                  if settled_label(cit.get("review")) not in {None, cit.get("relation")})
    return {**view, "not_claims": not_claims, "config_hashes": hashes, "reviews_differ": differs}


async def answer_page(request: Request) -> Response:
    audience = audience_of(request)
    view = await service_of(request).read(answer_page_view, request.path_params["ref"], audience)
    recorded = request.query_params.get("recorded")
    return _page(request, "answer.html", title=f"Answer {view['answer_id']}", view=view, audience=audience,
                 recorded=recorded, config_hash_meaning=CONFIG_HASH_MEANING)


def _chain(store: Any, claim_id: str, audience: str) -> dict[str, Any]:
    from graphcite.errors import NotFoundError
    from graphcite.graph import chain

    tree = chain(store, claim_id, audience=audience)
    if tree.get("kind") != "claim":
        raise NotFoundError(f"no claim {claim_id[:80]!r}", where="claim_id", code="E504",
                            fix="take a claim id from an answer page")
    attach_quotes(None, tree, transformed_quotes(store, [tree["claim_id"]], audience))
    return tree


async def claim_page(request: Request) -> Response:
    audience = audience_of(request)
    tree = await service_of(request).read(_chain, request.path_params["claim_id"], audience)
    picture = Markup(chain_svg(tree, id_prefix="chain"))  # built from escaped parts in svg.py
    return _page(request, "claim.html", title=f"Support chain of claim {tree['claim_id']}", tree=tree,
                 picture=picture, audience=audience)


async def claim_svg(request: Request) -> Response:
    audience = audience_of(request)
    tree = await service_of(request).read(_chain, request.path_params["claim_id"], audience)
    return Response(chain_svg(tree), media_type="image/svg+xml")


async def annotations_page(request: Request) -> Response:
    audience = audience_of(request)
    contested = flag(request, "contested")
    rows = await service_of(request).read(public_annotations, contested, audience)
    return _page(request, "annotations.html", title="Contested judgements" if contested else "Judgements",
                 items=rows, contested=contested, audience=audience)


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


def _local_path(path: str | None) -> str:
    """``path`` when it is a page of this app, else the answers page (no open redirects)."""
    if path and path.startswith("/review/") and "//" not in path and "\\" not in path and len(path) < 2_000:
        return path
    return "/review/answers"


async def _form(request: Request) -> dict[str, str]:
    """A posted form, after its media type, CSRF token and Origin are checked (E803, E805)."""
    media = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if media != "application/x-www-form-urlencoded":
        raise HTTPFailure("E803", "post the form as application/x-www-form-urlencoded", where="Content-Type")
    form = {k: v[-1] for k, v in parse_qs(await read_text(request), keep_blank_values=True).items()}
    if not hmac.compare_digest(form.get("csrf", ""), csrf_token(request)) or not _same_origin(request):
        raise HTTPFailure("E805", "the form's token does not match this server; reload the page", where="csrf")
    return form


async def sign_in_page(request: Request) -> Response:
    """The sign-in form: one field for the reviewer token."""
    return _page(request, "sign_in.html", title="Sign in", next=_local_path(request.query_params.get("next")),
                 failed=False)


async def sign_in(request: Request) -> Response:
    """Check the token once; a session cookie carries the reviewer from then on (back to ``next``)."""
    form = await _form(request)
    target = _local_path(form.get("next"))
    token = form.get("token", "").strip()
    name = await service_of(request).read(reviewer_for_token, token) if token else None
    if name is None:
        return _page(request, "sign_in.html", 401, title="Sign in", next=target, failed=True)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(SESSION_COOKIE, sign_session(service_of(request).session_key, name), max_age=SESSION_SECONDS,
                        path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https")
    return response


async def sign_out(request: Request) -> Response:
    """Forget the session cookie and go back to the page the reviewer was on."""
    form = await _form(request)
    response = RedirectResponse(_local_path(form.get("next")), status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def post_annotation_form(request: Request) -> Response:
    """The annotation form: check the token, origin and session, record the judgement, go back to the citation.

    A script asking for JSON (``Accept: application/json``) gets the stored row instead of the redirect.
    """
    service = service_of(request)
    audience = audience_of(request)
    reviewer = session_reviewer(request)
    if reviewer is None:  # before the token: a signed-in reviewer's token belongs to their session
        raise HTTPFailure("E808", "sign in at /review/sign-in to record judgements", where="session")
    form = await _form(request)
    fields = annotation_fields(form, reviewer, where="form")
    row = await service.write(record_annotation, fields, audience)
    if "application/json" in (request.headers.get("accept") or ""):
        return JSONResponse(row, status_code=201)
    back = form.get("answer_rev") or row.get("claim_revision") or ""
    anchor = f"cit-{fields['claim_id']}-{fields['citation']}"
    return RedirectResponse(f"/review/answers/{quote(back, safe='')}?recorded={quote(row['annotation_id'])}#{anchor}",
                            status_code=303)


def routes() -> list[Route | Mount]:
    """The review routes and the static files they use."""
    return [
        Route("/", index, methods=["GET"]),
        Route("/review/answers", answers_page, methods=["GET"]),
        Route("/review/answers/{ref}", answer_page, methods=["GET"]),
        Route("/review/claims/{claim_id}", claim_page, methods=["GET"]),
        Route("/review/claims/{claim_id}/chain.svg", claim_svg, methods=["GET"]),
        Route("/review/annotations", annotations_page, methods=["GET"]),
        Route("/review/annotations", post_annotation_form, methods=["POST"]),
        Route("/review/sign-in", sign_in_page, methods=["GET"]),
        Route("/review/sign-in", sign_in, methods=["POST"]),
        Route("/review/sign-out", sign_out, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
