"""Read-side views the API and the review pages share, each a plain function of a store and an audience.

They combine library functions (``list_sources``, ``show_unit``, ``list_answers``, ``annotations``,
``build_graph`` and ``claim_tree``) and apply the audience the way the command line does: for the
public audience a restricted source is not listed, a restricted unit is answered exactly as a
missing one (E503), and identifiers, titles and withheld claim texts are replaced by placeholders.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from graphcite.errors import NotFoundError, make_error
from graphcite.store import Store

__all__ = ["answer_view", "answers_with_faithfulness", "public_annotations", "visible_sources", "visible_unit"]


def _redactor(store: Store) -> Any:
    from graphcite.graph.fetch import restricted_set
    from graphcite.graph.redact import Redactor

    return Redactor.from_set(restricted_set(store))


def visible_sources(store: Store, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.ingest.list_sources`, without restricted sources for the public audience."""
    from graphcite.graph.fetch import restricted_set
    from graphcite.ingest import list_sources

    rows = list_sources(store)
    if audience == "public":
        hidden = restricted_set(store).keys
        rows = [r for r in rows if r["key"] not in hidden and r["visibility"] != "restricted"]
    return rows


def visible_unit(store: Store, unit_id: str, audience: str) -> dict[str, Any]:
    """:func:`graphcite.ingest.show_unit`; for the public audience a restricted unit is E503, like a missing one."""
    from graphcite.graph.fetch import restricted_set
    from graphcite.ingest import show_unit

    try:
        unit = show_unit(store, unit_id)
    except NotFoundError:
        if audience != "public":
            raise
        unit = None
    if audience == "public":
        restricted = restricted_set(store)
        if unit is None or unit["visibility"] == "restricted" or unit["source"] in restricted.keys \
                or unit["unit_id"] in restricted.units:
            shown = unit_id if len(unit_id) <= 80 else unit_id[:77] + "..."
            raise make_error("E503", where="unit_id", unit=shown, audience=audience)
    return unit  # type: ignore[return-value]


def answers_with_faithfulness(store: Store, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.claims.list_answers` with each revision's latest verdicts counted.

    ``faithfulness`` is the share of verified claims whose latest verification found them
    supported (None when no claim was verified); ``status_counts`` tallies the latest statuses.
    """
    from graphcite.claims import list_answers
    from graphcite.graph import latest_verifications, select

    rows = list_answers(store)
    latest = latest_verifications(store, select(store, all=True).claim_ids) if rows else {}
    per_answer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in latest.values():
        per_answer[record["answer_rev"]].append(record)
    red = _redactor(store) if audience == "public" else None
    out = []
    for row in rows:
        verified = per_answer.get(row["answer_rev"], [])
        supported = sum(1 for v in verified if v["supported"])
        item = {**row, "verified_claims": len(verified), "supported_claims": supported,
                "faithfulness": round(supported / len(verified), 4) if verified else None,
                "status_counts": dict(sorted(Counter(v["status"] for v in verified).items())),
                "verified_at": max((v["verified_at"] for v in verified), default=None)}
        out.append(red.scrub_json(item) if red is not None else item)
    return out


def _claim_texts(store: Store, claim_ids: list[str], audience: str) -> dict[str, str]:
    """Each claim's text as the audience may read it (withheld text for the public audience)."""
    from graphcite.graph import build_graph, claim_node

    if not claim_ids:
        return {}
    G = build_graph(store, claims=claim_ids, audience=audience)
    return {c: G.nodes[claim_node(c)]["text"] for c in claim_ids if claim_node(c) in G}


def public_annotations(store: Store, contested: bool, audience: str) -> list[dict[str, Any]]:
    """:func:`graphcite.evaluate.annotations`, scrubbed for the public audience."""
    from graphcite.evaluate import annotations

    rows = annotations(store, contested=contested)
    if audience != "public" or not rows:
        return rows
    texts = _claim_texts(store, sorted({r["claim_id"] for r in rows}), audience)
    red = _redactor(store)
    return [red.scrub_json({**row, "claim": texts.get(row["claim_id"], row["claim"])}) for row in rows]


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
    red = _redactor(store) if audience == "public" else None
    quotes = transformed_quotes(store, list(G.graph["claim_order"]))
    for claim_id in G.graph["claim_order"]:
        tree = claim_tree(G, claim_id)
        attach_quotes(G, tree, quotes)
        for cit in tree["citations"]:
            review = judged.get((claim_id, cit["index"]))
            if review and red is not None:
                review = red.scrub_json({**review, "claim": tree["text"]})
            cit["review"] = review
        tree["independence"] = independence(G, claim_id, cache=cache) if tree["supported"] else None
        claims.append(tree)
    answer_id = G.graph.get("answer_id") or ref
    question = get_answer(store, selection.answer_rev or ref)[1].question
    if red is not None:
        answer_id, question = red.scrub(answer_id), red.scrub(question)
    return {"answer_id": answer_id, "question": question, "answer_rev": selection.answer_rev,
            "audience": audience, "claims": claims,
            "cycles": G.graph.get("cycles", []), "dangling": G.graph.get("dangling", [])}
