"""A self-contained static review page: each claim with its verdict and its evidence beside it.

Built for reading, not for scripting: no JavaScript, no network, no external fonts, and a strict
Content-Security-Policy (``default-src 'none'; style-src 'unsafe-inline'``) so that nothing in the
page can load or run even if corpus text were hostile. All corpus and answer text is escaped with
:func:`html.escape`; links are only ever built from our own anchors and revision-pinned
``graphcite://`` IRIs, never from text. The verdict is a word and a symbol (never colour alone);
evidence follows its claim in reading order, with the quoted span marked inside its paragraph, the
heading path, page or symbol, revision and a revision-pinned link; each citation link names its
source and relation for assistive technology; contradicting and superseded evidence stays visible,
and supported claims show how many independent authorities they rest on.

A quote with an ellipsis or a bracketed insertion is shown as quoted: each verbatim piece rendered from the
stored revision and marked, ``[…]`` where the answer left text out, the answer's insertions underlined in
brackets, and the pieces' offsets. No excerpt reproduces more than ``max_quote_chars`` code points of a
source (``--max-quote-chars``, default 500); a longer one is shortened and says which code points it covers.
"""

from __future__ import annotations

from html import escape
from typing import Any

import networkx as nx

from graphcite.export.output import (
    DEFAULT_MAX_QUOTE_CHARS,
    OutputTarget,
    check_max_quote_chars,
    excerpt_window,
    open_output,
)
from graphcite.export.webanno import revision_iri
from graphcite.graph.build import node_id
from graphcite.graph.chain import claim_tree
from graphcite.graph.independence import independence
from graphcite.models import RELATION_DISPLAY, STATUS_DISPLAY, UNVERIFIED_DISPLAY
from graphcite.models.findings import citation_notes, finding_items, findings_heading, sentence
from graphcite.store import Store

__all__ = ["CSP", "VERDICTS", "attach_quotes", "excerpt_html", "quote_pieces_html", "render_page", "transformed_quotes", "write_html"]

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
VERDICTS = {**{str(status): (symbol, word.capitalize()) for status, (symbol, word, _) in STATUS_DISPLAY.items()},
            "unverified": (UNVERIFIED_DISPLAY[0], UNVERIFIED_DISPLAY[1].capitalize())}
RELATIONS = {**{str(r): pair for r, pair in RELATION_DISPLAY.items()}, "unchecked": ("…", "not checked")}
KIND_LABELS = {"decision": "decision", "code": "code", "test": "test", "observation": "observed evidence",
               "incident": "incident record", "post": "blog post", "manual": "manual", "note": "note",
               "contract": "contract", "registry": "registry", "manifest": "release manifest", "proposal": "proposal"}

STYLE = """
:root { color: #111827; background: #ffffff; font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
        line-height: 1.5; }
body { margin: 0 auto; max-width: 78rem; padding: 1rem; }
a { color: #1d4ed8; text-decoration: underline; }
a:focus, summary:focus, main:focus { outline: 3px solid #111827; outline-offset: 2px; }
.skip { position: absolute; left: -999rem; }
.skip:focus { position: static; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
header p, footer p, .meta { color: #374151; }
.claim { border: 2px solid #6b7280; border-radius: .5rem; padding: 1rem; margin: 1.5rem 0; }
.claim-grid { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 1.5rem; }
@media (max-width: 50rem) { .claim-grid { grid-template-columns: 1fr; } }
.badge { display: inline-block; font-weight: 700; padding: .1rem .5rem; border: 2px solid currentColor;
         border-radius: .3rem; }
.s-supported { color: #14532d; background: #f0fdf4; }
.s-contradicted, .s-invalid { color: #7f1d1d; background: #fef2f2; border-style: double; }
.s-conflict { color: #713f12; background: #fefce8; border-style: dashed; }
.s-insufficient, .s-unsupported, .s-unverified { color: #3b0764; background: #faf5ff; border-style: dotted; }
.claim-text { font-size: 1.15rem; overflow-wrap: anywhere; }
nav li, .claim h2, .claim h3, .claim h4, .claim h5, .claim li { overflow-wrap: anywhere; }
.answer { border-top: 3px solid #374151; margin-top: 2rem; }
.evidence { padding-left: 1.2rem; }
.evidence > li { margin-bottom: 1.2rem; }
.evidence h4, .against h4 { margin: .2rem 0; font-size: 1rem; }
blockquote { margin: .4rem 0; padding: .4rem .8rem; border-left: 4px solid #6b7280; background: #f9fafb;
             white-space: pre-wrap; overflow-wrap: anywhere; }
blockquote p { margin: 0; }
mark { background: #fde68a; color: #111827; }
ins.insertion { text-decoration: underline dotted; font-style: italic; color: #1e3a8a; background: none; }
.omission, .clipped { color: #374151; font-weight: 600; }
.warning { color: #713f12; font-weight: 600; }
.withheld { color: #3b0764; font-style: italic; }
.independence { border-top: 1px solid #d1d5db; padding-top: .5rem; }
code { overflow-wrap: anywhere; }
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _badge(status: str) -> str:
    symbol, word = VERDICTS.get(status, ("•", status))
    return f'<span class="badge s-{_e(status)}"><span aria-hidden="true">{symbol}</span> {_e(word)}</span>'


def _relation(relation: str | None) -> tuple[str, str]:
    return RELATIONS.get(relation or "unchecked", ("•", relation or "unknown"))


def excerpt_html(text: str, lo: int, hi: int, limit: int, base: int | None = None) -> tuple[str, str]:
    """``text`` with ``[lo, hi)`` inside <mark>, shortened to ``limit`` code points: (escaped html, note).

    The note is empty when nothing was cut; else it names the code points shown and the span's full
    offsets (``base`` is the text's first offset in its revision, when known).
    """
    a, b = excerpt_window(len(text), lo, hi, limit)
    mlo, mhi = max(lo, a), min(hi, b)
    body = (("…" if a > 0 else "") + _e(text[a:mlo]) + (f"<mark>{_e(text[mlo:mhi])}</mark>" if mhi > mlo else "")
            + _e(text[max(mhi, a):b]) + ("…" if b < len(text) else ""))
    if (a, b) == (0, len(text)):
        return body, ""
    at = base if isinstance(base, int) else 0
    where = "of the revision" if isinstance(base, int) else "of the unit"
    note = (f"Shortened to {b - a} of {len(text)} code points (limit {limit}): shown {a + at}–{b + at} {where}"
            + (f"; the cited span is {lo + at}–{hi + at} ({hi - lo} code points)" if hi > lo else "") + ".")
    return body, note


def quote_pieces_html(pieces: list[dict[str, Any]], transformations: list[dict[str, Any]],
                      limit: int) -> tuple[str, str]:
    """A transformed quote as quoted: marked verbatim pieces, ``[…]`` omissions, underlined insertions.

    Returns (escaped html, note); the pieces together show at most ``limit`` code points of the source.
    """
    before: dict[int, list[dict[str, Any]]] = {}
    for change in transformations:
        before.setdefault(int(change["at"]), []).append(change)

    def changes(at: int) -> list[str]:
        return ['<span class="omission">[…]</span>' if c["kind"] == "ellipsis" else
                f'<ins class="insertion" title="the answer\'s insertion, not in the source">[{_e(c["text"])}]</ins>'
                for c in before.get(at, [])]

    out: list[str] = []
    used, cut = 0, False
    for i, piece in enumerate(pieces):
        out += changes(i)
        text, room = piece["text"], limit - used
        if room <= 0:
            out.append(f'<span class="clipped">[piece {i + 1} not reproduced]</span>')
            cut = True
            continue
        shown = text[:room]
        used += len(shown)
        out.append(f"<mark>{_e(shown)}</mark>" + ('<span class="clipped">…</span>' if len(shown) < len(text) else ""))
        cut = cut or len(shown) < len(text)
    out += changes(len(pieces))
    spans = ", ".join(f"{p['start']}–{p['end']}" for p in pieces)
    kinds = {c["kind"] for c in transformations}
    legend = [f"Quoted as {len(pieces)} verbatim piece{'s' if len(pieces) != 1 else ''} (marked, rendered from the "
              f"stored revision, code points {spans})"]
    if "ellipsis" in kinds:
        legend.append("[…] marks text the answer left out")
    if "insertion" in kinds:
        legend.append("underlined words in brackets are the answer's insertion, not the source's")
    if cut:
        legend.append(f"shortened to {limit} code points of source text")
    return " ".join(out), "; ".join(legend) + "."


def _marked_text(unit: dict[str, Any], start: int | None, end: int | None, quote: str | None,
                 limit: int = DEFAULT_MAX_QUOTE_CHARS) -> str:
    """The unit's paragraph with the cited span inside <mark> (both escaped separately), at most ``limit`` long."""
    text = unit.get("text") or ""
    lo = hi = None
    if isinstance(start, int) and isinstance(end, int) and isinstance(unit.get("start"), int):
        lo, hi = start - unit["start"], end - unit["start"]
        if not (0 <= lo <= hi <= len(text)):
            lo = hi = None
    if lo is None and quote and quote in text:
        lo = text.index(quote)
        hi = lo + len(quote)
    if lo is None or hi is None or lo == hi:
        body, note = excerpt_html(text, 0, 0, limit, unit.get("start"))
        if quote and quote not in text:
            shown, quote_note = excerpt_html(quote, 0, len(quote), limit)
            body += f'</p><p class="meta">Quoted: {shown}' + (f" ({_e(quote_note)})" if quote_note else "")
    else:
        body, note = excerpt_html(text, lo, hi, limit, unit.get("start"))
    return body + (f'</p><p class="meta clipped-note">{_e(note)}' if note else "")


def _quote_block(cit: dict[str, Any], unit: dict[str, Any], limit: int) -> str:
    if cit.get("quote_pieces"):
        body, legend = quote_pieces_html(cit["quote_pieces"], cit.get("quote_transformations") or [], limit)
        return (f'<blockquote class="transformed"><p>{body}</p></blockquote>'
                f'<p class="meta quote-legend">{_e(legend)}</p>')
    return f'<blockquote><p>{_marked_text(unit, cit.get("start"), cit.get("end"), cit.get("quote"), limit)}</p></blockquote>'


def _source_line(source: dict[str, Any]) -> str:
    kind = KIND_LABELS.get(source.get("kind") or "", source.get("kind") or "source")
    title = f" — {_e(source['title'])}" if source.get("title") else ""
    return f"<code>{_e(source['key'])}</code> ({_e(kind)}){title}"


def _where(unit: dict[str, Any]) -> list[str]:
    revision = unit["revision"]
    parts = []
    if unit.get("heading_path"):
        parts.append(f"Section: {_e(unit['heading_path'])}")
    if unit.get("page"):
        parts.append(f"page {_e(unit['page'])}")
    if unit.get("symbol"):
        parts.append(f"symbol <code>{_e(unit['symbol'])}</code>")
    state = "current revision" if revision["current"] else "not the current revision"
    effective = f", effective {_e(revision['effective'])}" if revision.get("effective") else ""
    parts.append(f"revision {_e(revision['seq'])} (<code>{_e(revision['revision_id'])}</code>, "
                 f"{_e(revision['status'])}{effective}, {state})")
    if unit.get("status") and unit["status"] != "current":
        parts.append(f"section status: {_e(unit['status'])}")
    return parts


def _lineage(source: dict[str, Any], depth: int = 0) -> str:
    items = []
    for link in source.get("lineage", []):
        parent = link["source"]
        if parent.get("cycle"):
            items.append(f"<li>{_e(link['relation'].replace('_', ' '))} <code>{_e(parent['key'])}</code> "
                         "(lineage cycle: stops here)</li>")
            continue
        inner = _lineage(parent, depth + 1) if depth < 8 else ""
        items.append(f"<li>{_e(link['relation'].replace('_', ' '))} {_source_line(parent)}{inner}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _evidence_item(n: int, cit: dict[str, Any], limit: int = DEFAULT_MAX_QUOTE_CHARS, *, shown: int | None = None,
                   level: int = 4) -> str:
    """One citation's evidence; ``n`` is the claim's anchor number, ``shown`` the number a reader sees."""
    symbol, word = _relation(cit["relation"])
    anchor = f"ev-{n}-{cit['index'] + 1}"
    h = f"h{level}"
    head = (f'<{h}>[{cit["index"] + 1}] <span aria-hidden="true">{symbol}</span> {_e(word)}'
            + ("" if cit.get("valid") is not False else " · citation invalid"))
    unit = cit.get("unit")
    rows = []
    if cit.get("restricted"):
        head += f"</{h}>"
        rows.append('<p class="withheld">Evidence withheld: this citation points to a restricted source.</p>')
    elif unit:
        source = unit["revision"]["source"]
        head += f" · {_source_line(source)}</{h}>"
        rows.append(f'<p class="meta">{" · ".join(_where(unit))} · '
                    f'<a href="{_e(revision_iri(source["key"], unit["revision"]["revision_id"]))}" '
                    f'aria-label="revision-pinned link: revision {_e(unit["revision"]["seq"])} of {_e(source["key"])}">'
                    f'revision-pinned link</a></p>')
        rows.append(_quote_block(cit, unit, limit))
        if citation_notes(cit):
            rows.append(f'<p class="meta">{_e(sentence("; ".join(citation_notes(cit))))}</p>')
        lineage = _lineage(source)
        if lineage:
            rows.append(f"<div><p>Lineage of this source:</p>{lineage}</div>")
        if cit.get("primary_authorities"):
            rows.append(f"<p>Primary authority: {', '.join(f'<code>{_e(a)}</code>' for a in cit['primary_authorities'])}</p>")
    else:
        head += f" · <code>{_e(cit.get('source') or 'unknown source')}</code></{h}>"
        if cit.get("quote"):
            shown, note = excerpt_html(cit["quote"], 0, 0, limit)
            rows.append(f"<blockquote><p>Quoted in the answer: {shown}</p></blockquote>"
                        + (f'<p class="meta clipped-note">{_e(note)}</p>' if note else ""))
        rows.append('<p class="withheld">No evidence unit was found for this citation.</p>')
    if cit.get("superseded"):
        rows.append(f'<p class="warning"><span aria-hidden="true">⚠</span> Superseded evidence: {_e(cit["superseded"])}</p>')
    items = finding_items(cit.get("findings") or [])
    if items:
        listed = "".join(f"<li>{'Note: ' if outcome == 'note' else ''}<code>{_e(code)}</code> {_e(rule)}"
                         + (f": {_e(text)}" if text else "") + "</li>" for outcome, code, rule, text in items)
        rows.append(f"<details><summary>{_e(findings_heading(items))}</summary>"
                    f"<ul>{listed}</ul></details>")
    rows.append(f'<p><a href="#claim-{n}">Back to claim {n if shown is None else shown}</a></p>')
    return f'<li id="{anchor}">{head}{"".join(rows)}</li>'


def _against(n: int, items: list[dict[str, Any]], limit: int = DEFAULT_MAX_QUOTE_CHARS, *,
             shown: int | None = None, level: int = 3, of: str = "") -> str:
    if not items:
        return ""
    h, sub = f"h{level}", f"h{level + 1}"
    out = []
    for i, item in enumerate(items, 1):
        unit = item["unit"]
        if unit.get("restricted"):
            out.append('<li><p class="withheld">A restricted source disagrees; its text is withheld.</p></li>')
            continue
        source = unit["revision"]["source"]
        note = (f'<p class="warning"><span aria-hidden="true">⚠</span> {_e(item["superseded"])}; it does not govern '
                "current behaviour but stays on record.</p>") if item.get("superseded") else ""
        out.append(f'<li id="against-{n}-{i}"><{sub}>{_e(item.get("status") or "")} evidence · '
                   f'{_source_line(source)}</{sub}>'
                   f'<p class="meta">{" · ".join(_where(unit))}</p>'
                   f'<blockquote><p>{_marked_text(unit, None, None, None, limit)}</p></blockquote>'
                   f"<p>Why it disagrees: {_e(item.get('reason') or 'withheld')}</p>{note}</li>")
    return (f'<section aria-labelledby="against-{n}-title" class="against"><{h} id="against-{n}-title">'
            f"Evidence against claim {n if shown is None else shown}{of}</{h}><ul>{''.join(out)}</ul></section>")


def _independence_block(result: dict[str, Any] | None) -> str:
    if result is None:
        return ""
    flag = ""
    if result["rests_on_one_authority"] and result["attestations"] > 1:
        flag = " <strong>These sources are not independent: the claim rests on one authority.</strong>"
    elif result["rests_on_one_authority"]:
        flag = " The claim rests on one authority."
    return f'<p class="independence">Independence: {_e(result["summary"])}.{flag}</p>'


def _claim_article(n: int, tree: dict[str, Any], result: dict[str, Any] | None,
                   limit: int = DEFAULT_MAX_QUOTE_CHARS, *, shown: int | None = None, level: int = 2,
                   answer_id: str | None = None) -> str:
    """One claim as an article: ``n`` numbers its anchors (unique in the page), ``shown`` is the number a
    reader sees (its place in its answer), ``level`` its heading level (3 inside an answer's section);
    ``answer_id`` names the answer in the evidence regions' names (for assistive technology), so the
    regions of claim 1 of two answers are told apart."""
    shown = n if shown is None else shown
    of = f'<span class="sr-only"> of answer {_e(answer_id)}</span>' if answer_id else ""
    h, sub = f"h{level}", f"h{level + 1}"
    links = []
    for cit in tree["citations"]:
        _, word = _relation(cit["relation"])
        where = "restricted source" if cit.get("restricted") else (cit.get("source") or "unknown source")
        links.append(f'<a href="#ev-{n}-{cit["index"] + 1}" aria-label="[{cit["index"] + 1}] citation of '
                     f'{_e(where)}, {_e(word)}">[{cit["index"] + 1}]</a>')
    parts = ""
    if len(tree.get("parts") or []) > 1:
        parts = "<p>Atomic parts:</p><ul>" + "".join(
            f"<li>{_badge(p['status'])} {_e(p['text'])}</li>" for p in tree["parts"]) + "</ul>"
    restricted = ('<p class="withheld">This claim relied on a restricted source; that evidence is withheld for the '
                  "public audience.</p>") if tree.get("relies_on_restricted") else ""
    if tree.get("withheld"):
        restricted += (f'<p class="withheld">The text of this claim is withheld for the public audience. Why: '
                       f'{_e(tree.get("withheld_reason"))}.</p>')
    note = f'<p class="meta">{_e(tree["note"])}</p>' if tree.get("note") else ""
    verified = (f'<p class="meta">Verified {_e(tree["verified_at"])} UTC; claim <code>{_e(tree["claim_id"])}</code>'
                f"{', type ' + _e(tree['claim_type']) if tree.get('claim_type') else ''}.</p>")
    evidence = "".join(_evidence_item(n, c, limit, shown=shown, level=level + 2) for c in tree["citations"]) or \
        '<li><p class="withheld">No citations were given for this claim.</p></li>'
    return (
        f'<article id="claim-{n}" class="claim" aria-labelledby="claim-{n}-title">'
        f'<{h} id="claim-{n}-title">Claim {shown}: {_badge(tree["status"])}</{h}>'
        '<div class="claim-grid"><div>'
        f'<p class="claim-text">{_e(tree["text"])} {" ".join(links)}</p>{parts}{note}{restricted}'
        f"{_independence_block(result)}{verified}</div>"
        f'<section aria-labelledby="evidence-{n}-title"><{sub} id="evidence-{n}-title">Evidence for claim {shown}{of}'
        f'</{sub}><ol class="evidence">{evidence}</ol></section></div>'
        f"{_against(n, tree['contradicting_evidence'], limit, shown=shown, level=level + 1, of=of)}</article>"
    )


def transformed_quotes(store: Store, claim_ids: list[str], audience: str = "internal") -> dict[tuple[str, int], dict[str, Any]]:
    """What the claims' latest verifications say of a citation that the evidence graph does not carry: the
    pieces and transformations of a transformed quote, whether graphcite located the evidence (the answer
    gave no span) and whether it is a passage that came with the answer.

    Keyed by (claim id, citation index); each value has the report's ``quote`` (as rendered from the store)
    with its ``quote_pieces`` and ``quote_transformations`` (empty when the quote was not transformed),
    ``located`` and ``evidence_kind``. One query.
    """
    from graphcite.graph import latest_verifications

    out: dict[tuple[str, int], dict[str, Any]] = {}
    for claim_id, record in latest_verifications(store, claim_ids, audience=audience).items():
        for cit in record["report"].get("citations") or []:
            kind = cit.get("evidence_kind")  # the report says it (claims.formats.passages.evidence_kind)
            if cit.get("quote_pieces") or cit.get("located") or kind:
                out[(claim_id, cit["index"])] = {"quote": cit.get("quote"), "quote_pieces": cit.get("quote_pieces") or [],
                                                 "quote_transformations": cit.get("quote_transformations") or [],
                                                 "located": bool(cit.get("located")), "evidence_kind": kind}
    return out


def attach_quotes(G: nx.MultiDiGraph | None, tree: dict[str, Any],
                  quotes: dict[tuple[str, int], dict[str, Any]]) -> None:
    """Give each citation of a claim tree its exact offsets (from ``G``), ``located`` and ``evidence_kind``
    (from ``quotes``) and, for a transformed quote, its pieces.

    Pieces are attached only where the tree shows the same quote (never for a restricted or scrubbed one).
    """
    for cit in tree["citations"]:
        if G is not None:
            data = G.nodes.get(node_id("citation", f"{tree['claim_id']}-{cit['index']}"), {})
            cit.setdefault("start", data.get("start"))
            cit.setdefault("end", data.get("end"))
        found = quotes.get((tree["claim_id"], cit["index"]))
        if not found:
            continue
        cit["located"], cit["evidence_kind"] = found.get("located", False), found.get("evidence_kind")
        if found["quote_pieces"] and not cit.get("restricted") and cit.get("quote") == found["quote"]:
            cit["quote_pieces"] = found["quote_pieces"]
            cit["quote_transformations"] = found["quote_transformations"]


def _tally(trees: list[dict[str, Any]]) -> str:
    """How many claims have each verdict, in words ("2 supported, 1 insufficient")."""
    counts: dict[str, int] = {}
    for t in trees:
        counts[t["status"]] = counts.get(t["status"], 0) + 1
    return ", ".join(f"{v} {VERDICTS.get(k, ('', k))[1].lower()}" for k, v in sorted(counts.items())) or "no claims"


def _toc_item(n: int, tree: dict[str, Any]) -> str:
    """A claim's line in the contents: its verdict and its whole text (the list numbers it)."""
    return f'<li><a href="#claim-{n}">{_badge(tree["status"])} {_e(tree["text"])}</a></li>'


def _by_answer(G: nx.MultiDiGraph, claims: list[str]) -> list[tuple[str, list[int]]]:
    """The claims' positions grouped by answer, answers in the order their first claim comes."""
    groups: dict[str, list[int]] = {}
    for i, claim_id in enumerate(claims):
        groups.setdefault(str(G.nodes[node_id("claim", claim_id)].get("answer_id") or ""), []).append(i)
    return list(groups.items())


def render_page(G: nx.MultiDiGraph, *, title: str | None = None, max_quote_chars: int | None = None,
                quotes: dict[tuple[str, int], dict[str, Any]] | None = None) -> str:
    """The review page of every claim in ``G`` as one HTML string.

    Claims of several answers (``export --all``, the demo) are shown one section per answer, each with
    its own tally and its claims numbered from 1 as its report numbers them; claim texts are shown whole.
    ``quotes`` (from :func:`transformed_quotes`) shows transformed quotes piece by piece; no excerpt shows
    more than ``max_quote_chars`` code points of a source (default 500).
    """
    limit = check_max_quote_chars(max_quote_chars)
    claims = list(G.graph.get("claim_order", []))
    cache: dict[str, Any] = {}
    trees = [claim_tree(G, c) for c in claims]
    for tree in trees:
        attach_quotes(G, tree, quotes or {})
    results = [independence(G, c, cache=cache) if t["supported"] else None
               for c, t in zip(claims, trees, strict=True)]
    groups = _by_answer(G, claims)
    several = len(groups) > 1
    if title:
        heading = title
    elif G.graph.get("answer_id"):
        heading = f"Review of answer {G.graph['answer_id']}"
    elif several:
        heading = f"Review of {len(groups)} answers ({len(claims)} claim{'s' if len(claims) != 1 else ''})"
    else:
        heading = f"Review of {len(claims)} claim{'s' if len(claims) != 1 else ''}"
    if several:
        toc = "".join(
            f'<li><a href="#answer-{a}">Answer {_e(answer_id or "(no id)")}</a>: {_e(_tally([trees[i] for i in rows]))}'
            f'<ol>{"".join(_toc_item(i + 1, trees[i]) for i in rows)}</ol></li>'
            for a, (answer_id, rows) in enumerate(groups, 1))
        sections = []
        for a, (answer_id, rows) in enumerate(groups, 1):
            body = "".join(_claim_article(i + 1, trees[i], results[i], limit, shown=k, level=3,
                                          answer_id=answer_id or "(no id)")
                           for k, i in enumerate(rows, 1))
            count = f"{len(rows)} claim{'s' if len(rows) != 1 else ''}"
            sections.append(f'<section id="answer-{a}" class="answer" aria-labelledby="answer-{a}-title">'
                            f'<h2 id="answer-{a}-title">Answer {_e(answer_id or "(no id)")}</h2>'
                            f'<p class="answer-tally">{count}: {_e(_tally([trees[i] for i in rows]))}.</p>'
                            f"{body}</section>")
        articles = "".join(sections)
    else:
        toc = "".join(_toc_item(i, t) for i, t in enumerate(trees, 1))
        articles = "".join(_claim_article(i, t, r, limit)
                           for i, (t, r) in enumerate(zip(trees, results, strict=True), 1))
    tally = _tally(trees)
    cycles = "".join(f"<li>{' ↔ '.join(f'<code>{_e(k)}</code>' for k in c)}</li>" for c in G.graph.get("cycles", []))
    dangling = "".join(f"<li><code>{_e(d['from_key'])}</code> {_e(d['relation'])} <code>{_e(d['to_key'])}</code> "
                       "(not ingested)</li>" for d in G.graph.get("dangling", []))
    problems = ""
    if cycles or dangling:
        problems = ('<section aria-labelledby="lineage-problems"><h2 id="lineage-problems">Lineage problems</h2>'
                    + (f"<p>Cycles:</p><ul>{cycles}</ul>" if cycles else "")
                    + (f"<p>Links to sources that were never ingested:</p><ul>{dangling}</ul>" if dangling else "")
                    + "</section>")
    audience = _e(G.graph.get("audience", "internal"))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(heading)}</title><style>{STYLE}</style></head><body>"
        '<a class="skip" href="#main">Skip to the claims</a>'
        f"<header><h1>{_e(heading)}</h1>"
        f"<p>{_e(tally)}. Audience: {audience}. Each verdict comes from the latest recorded verification.</p></header>"
        f'<nav aria-label="{"Answers and claims" if several else "Claims"} in this review"><ol>{toc}</ol></nav>'
        f'<main id="main" tabindex="-1">{articles}{problems}</main>'
        "<footer><p>Generated by graphcite. Quotes are rendered from the stored source revisions; a marked span is "
        f"the exact cited text; […] marks text an answer left out and underlined words in brackets are its "
        f"insertions. Excerpts show at most {limit} code points of a source.</p></footer></body></html>\n"
    )


def write_html(store: Store, G: nx.MultiDiGraph, target: OutputTarget, *,
               max_quote_chars: int | None = None) -> dict[str, Any]:
    """Write the review page of ``G``; transformed quotes piece by piece, excerpts bounded by ``max_quote_chars``."""
    limit = check_max_quote_chars(max_quote_chars if max_quote_chars is not None
                                  else G.graph.get("max_quote_chars"))
    page = render_page(G, max_quote_chars=limit, quotes=transformed_quotes(store, list(G.graph.get("claim_order", [])),
                                                                           G.graph.get("audience", "internal")))
    with open_output(target) as handle:
        handle.write(page)
    return {"bytes": len(page.encode("utf-8"))}
