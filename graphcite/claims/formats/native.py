"""The native answer format (and cairn, native plus verifier output fields that are read and ignored).

``{"answer_id"?, "question"?, "documents"?, "claims": [CLAIM, ...]}`` where CLAIM is ``{"text",
"citations"?: [CITATION, ...], "type"?, "premises"?: [claim index, ...]}`` and CITATION is either
``{"source": KEY, "revision"?, "start"?, "end"?, "quote"?, "role"?, "page"?, "page_end"?}`` (offsets
into the source document) or ``{"chunk_id": UNIT_ID, "start"?, "end"?, "quote"?, "role"?}`` (offsets
into the evidence unit). A citation with neither offsets nor a quote names only its source (or unit,
or pages): verification locates the evidence for the claim in it. ``page_end`` is the last page,
inclusive. A missing ``answer_id`` is derived from a hash of the content (``"a-"`` + 12 hex).
"""

from __future__ import annotations

from typing import Any

from graphcite.claims.formats.common import (
    LongNumber,
    ReadOptions,
    array,
    check_documents,
    check_keys,
    finish,
    index_value,
    join_defects,
    json_type,
    locator,
    mapping,
    optional_array,
    span,
    string,
)
from graphcite.errors import AnswerFormatError
from graphcite.models import CLAIM_TYPES, CitationRef, InputAnswer, InputClaim

__all__ = ["CAIRN_FIELDS", "load_native"]

CAIRN_FIELDS = frozenset({"supported", "support_score"})
_CLAIM_KEYS = frozenset({"text", "citations", "type", "premises", "id", *CAIRN_FIELDS})
# each kind also tolerates the other kind's key set to null; "defect" is written by answer_to_dict
_SOURCE_CITATION_KEYS = frozenset({"source", "revision", "start", "end", "quote", "role", "page", "page_end",
                                   "chunk_id", "defect"})
_CHUNK_CITATION_KEYS = frozenset({"chunk_id", "start", "end", "quote", "role", "page", "page_end", "source",
                                  "defect"})


def load_native(data: Any, format: str, options: ReadOptions) -> InputAnswer:
    """Read a native (or cairn) answer; see the package docstring for the shape."""
    documents, limits = options.documents, options.limits
    top = mapping(data, "$")
    if "claims" not in top:
        raise AnswerFormatError("missing required field 'claims'", where="claims",
                                fix="an answer needs a 'claims' list (it may be empty)")
    raw_claims = array(top["claims"], "claims")
    limits.check_claims(len(raw_claims))
    question = string(top.get("question"), "question", optional=True, non_empty=False)
    docs = documents if documents is not None else (
        check_documents(top["documents"], "documents") if top.get("documents") is not None else []
    )
    claims = tuple(_native_claim(raw, i, len(raw_claims), options) for i, raw in enumerate(raw_claims))
    answer_id = string(top.get("answer_id"), "answer_id", optional=True)
    return finish(answer_id, question, claims, format, docs)


def _native_claim(raw: Any, i: int, count: int, options: ReadOptions) -> InputClaim:
    limits = options.limits
    where = f"claims[{i}]"
    obj = mapping(raw, where)
    check_keys(obj, _CLAIM_KEYS, where)
    if "text" not in obj:
        raise AnswerFormatError("missing required field 'text'", where=f"{where}.text")
    text = (string(obj["text"], f"{where}.text") or "").strip()
    limits.check_claim_text(text, f"{where}.text")
    citations = tuple(
        _native_citation(c, f"{where}.citations[{j}]", options)
        for j, c in enumerate(optional_array(obj.get("citations"), f"{where}.citations"))
    )
    claim_type = string(obj.get("type"), f"{where}.type", optional=True)
    if claim_type is not None and claim_type not in CLAIM_TYPES:
        raise AnswerFormatError(f"unknown claim type {claim_type!r}", where=f"{where}.type",
                                fix=f"use one of {', '.join(CLAIM_TYPES)}")
    premises: list[int] = []
    for j, p in enumerate(optional_array(obj.get("premises"), f"{where}.premises")):
        index = index_value(p, f"{where}.premises[{j}]") or 0
        if index >= count or index == i:
            raise AnswerFormatError(
                f"premise {index} is not another claim of this answer ({count} claims)",
                where=f"{where}.premises[{j}]", fix="premises are 0-based indexes of other claims",
            )
        premises.append(index)
    supported = obj.get("supported")
    if supported is not None and not isinstance(supported, bool):
        raise AnswerFormatError(f"expected a boolean, found {json_type(supported)}", where=f"{where}.supported")
    score = obj.get("support_score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float | LongNumber)):
        raise AnswerFormatError(f"expected a number, found {json_type(score)}", where=f"{where}.support_score")
    return InputClaim(text=text, citations=citations, claim_type=claim_type, premises=tuple(premises))


def _native_citation(raw: Any, where: str, options: ReadOptions) -> CitationRef:
    obj = mapping(raw, where)
    has_source, has_chunk = obj.get("source") is not None, obj.get("chunk_id") is not None
    if not has_source and not has_chunk and isinstance(obj.get("defect"), str) and obj["defect"].strip():
        # written by answer_to_dict for a citation another format could not tie to a source
        check_keys(obj, frozenset({"defect", "role", "source", "chunk_id"}), where)
        return CitationRef(role=string(obj.get("role"), f"{where}.role", optional=True),
                           defect=string(obj["defect"], f"{where}.defect"))
    if has_source == has_chunk:
        raise AnswerFormatError(
            "expected exactly one of 'source' and 'chunk_id'" if has_source else "missing 'source' or 'chunk_id'",
            where=where,
            fix="cite a source key (offsets into the document) or a chunk_id (offsets into the unit)",
        )
    check_keys(obj, _SOURCE_CITATION_KEYS if has_source else _CHUNK_CITATION_KEYS, where)
    start, end, span_defect = span(obj.get("start"), obj.get("end"), ("start", "end"))
    page, page_defect = locator(obj.get("page"), "page", minimum=1)
    page_end, page_end_defect = locator(obj.get("page_end"), "page_end", minimum=1)
    if page_end is not None and (page is None or page_end < page) and not page_defect:
        page_end_defect = f"page_end {page_end} needs a page at or before it"
    if page_defect or page_end_defect:
        page = page_end = None
    return CitationRef(
        source=options.source_for(string(obj.get("source"), f"{where}.source", optional=True)),
        revision=string(obj.get("revision"), f"{where}.revision", optional=True),
        chunk_id=string(obj.get("chunk_id"), f"{where}.chunk_id", optional=True),
        start=start,
        end=end,
        quote=string(obj.get("quote"), f"{where}.quote", optional=True),
        role=string(obj.get("role"), f"{where}.role", optional=True),
        page=page,
        page_end=page_end,
        defect=join_defects(string(obj.get("defect"), f"{where}.defect", optional=True), span_defect,
                             page_defect, page_end_defect),
    )


