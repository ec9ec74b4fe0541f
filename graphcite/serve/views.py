"""Read-side views the API and the review pages share, each a plain function of a store and an audience.

They combine library functions (``list_sources``, ``show_unit``, ``list_answers``, ``annotations``,
``build_graph`` and ``claim_tree``) and ask :mod:`graphcite.audience` what the audience may see, as
the command line does: for the public audience a restricted source is not listed, a restricted unit is
answered exactly as a missing one (E503), identifiers, titles and withheld claim texts are replaced by
placeholders, and a reviewer's rationale on a withheld claim is withheld with it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from graphcite.audience import as_written, asked_publicly, audience_view
from graphcite.audience import visible_unit as shown_unit
from graphcite.errors import NotFoundError
from graphcite.store import Store

__all__ = ["answer_view", "answers_with_faithfulness", "public_annotations", "visible_sources", "visible_unit"]


def visible_sources(store: Store, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.ingest.list_sources`, without the sources the audience may not see."""
    from graphcite.ingest import list_sources

    view = audience_view(store, audience)
    return [r for r in list_sources(store) if view.sees_source(r["key"])]


def visible_unit(store: Store, unit_id: str, audience: str) -> dict[str, Any]:
    """:func:`graphcite.audience.visible_unit`: for the public audience a restricted unit is E503, like a missing one."""
    return shown_unit(store, unit_id, audience, where="unit_id")


def answers_with_faithfulness(store: Store, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.claims.list_answers` with each revision's latest verdicts for the audience counted.

    ``supported_share`` is the share of verified claims whose latest verification for this audience found
    them supported (None when no claim was verified for it); ``status_counts`` tallies those statuses. It
    is not called ``faithfulness``: a report's ``faithfulness`` is 1 only when every claim is supported.
    """
    from graphcite.claims import list_answers
    from graphcite.graph import latest_verifications, select

    view = audience_view(store, audience)
    rows = list_answers(store)
    latest = latest_verifications(store, select(store, all=True).claim_ids, audience=audience) if rows else {}
    per_answer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in latest.values():
        per_answer[record["answer_rev"]].append(record)
    own_words = asked_publicly(store, ((r["answer_rev"], r["claim_id"]) for r in latest.values())) \
        if view.public and view.redactor.active else set()
    if view.public:
        view.redactor.prefetch([rows, list(latest.values())])  # the ids shown, asked about in one statement
    out = []
    for row in rows:
        verified = per_answer.get(row["answer_rev"], [])
        supported = sum(1 for v in verified if v["supported"])
        item = {**row, "verified_claims": len(verified), "supported_claims": supported,
                "supported_share": round(supported / len(verified), 4) if verified else None,
                "status_counts": dict(sorted(Counter(v["status"] for v in verified).items())),
                "verified_at": max((v["verified_at"] for v in verified), default=None)}
        red = as_written(view.redactor, row["answer_rev"] in own_words)  # a public asker's id, as written
        out.append(red.scrub_json(item) if view.public else item)
    return out


def _claim_texts(store: Store, claim_ids: list[str], audience: str) -> dict[str, tuple[str, bool]]:
    """Each claim's text as the audience may read it, and whether it is withheld, by claim id."""
    from graphcite.graph import build_graph
    from graphcite.graph.build import claim_node

    if not claim_ids:
        return {}
    G = build_graph(store, claims=claim_ids, audience=audience)
    return {c: (G.nodes[claim_node(c)]["text"], bool(G.nodes[claim_node(c)]["withheld"]))
            for c in claim_ids if claim_node(c) in G}


def public_annotations(store: Store, contested: bool, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.evaluate.annotations` as the audience may read them (:meth:`AudienceView.judgement`)."""
    from graphcite.evaluate import annotations

    rows = annotations(store, contested=contested)
    if audience != "public" or not rows:
        return rows
    view = audience_view(store, audience)
    texts = _claim_texts(store, sorted({r["claim_id"] for r in rows}), audience)
    out = []
    for row in rows:
        text, withheld = texts.get(row["claim_id"], (row["claim"], False))
        out.append(view.judgement(row, claim_text=text, withheld=withheld))
    return out


def answer_view(store: Store, ref: str, audience: str) -> dict[str, Any]:
    """Everything the answer page shows: each claim's support chain, independence, and its judgements.

    Citations get the exact ``start``/``end`` of the cited span (from the verification report the graph
    carries) so the page marks that span, not merely the first place the quote occurs, and a transformed
    quote its ``quote_pieces`` and ``quote_transformations`` (from the latest verification report).
    """
    from graphcite.claims.answers import get_answer
    from graphcite.evaluate import annotations
    from graphcite.export.html import attach_quotes, transformed_quotes
    from graphcite.graph import build_graph, claim_tree, independence, resolve_ref

    selection = resolve_ref(store, ref)
    if selection.kind != "answer":
        raise NotFoundError(f"no answer {ref[:80]!r}", where="answer", code="E502",
                            fix="take an answer id or revision from /review/answers")
    G = build_graph(store, selection=selection, audience=audience)
    cache: dict[str, Any] = {}
    claims = []
    judged: dict[tuple[str, int], dict[str, Any]] = {
        (a["claim_id"], a["citation"]): a for a in annotations(store) if a["claim_id"] in set(selection.claim_ids)}
    view = audience_view(store, audience)
    quotes = transformed_quotes(store, list(G.graph["claim_order"]), audience)
    for claim_id in G.graph["claim_order"]:
        tree = claim_tree(G, claim_id)
        attach_quotes(G, tree, quotes)
        for cit in tree["citations"]:
            review = judged.get((claim_id, cit["index"]))
            if review and view.public:
                review = view.judgement(review, claim_text=tree["text"], withheld=bool(tree.get("withheld")))
            cit["review"] = review
        tree["independence"] = independence(G, claim_id, cache=cache) if tree["supported"] else None
        claims.append(tree)
    answer_id = G.graph.get("answer_id") or ref
    question = get_answer(store, selection.answer_rev or ref)[1].question
    if view.public:
        own_words = bool(selection.answer_rev and selection.claim_ids and asked_publicly(
            store, [(selection.answer_rev, selection.claim_ids[0])]))
        red = as_written(view.redactor, own_words)  # a public asker's id and question, as written
        answer_id, question = red.scrub(answer_id), red.scrub(question)
    return {"answer_id": answer_id, "question": question, "answer_rev": selection.answer_rev,
            "audience": audience, "claims": claims,
            "cycles": G.graph.get("cycles", []), "dangling": G.graph.get("dangling", [])}
