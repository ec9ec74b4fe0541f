"""The native answer format (and cairn, native plus verifier output fields that are read and ignored).

``{"answer_id"?, "question"?, "documents"?, "claims": [CLAIM, ...], "passages"?: [PASSAGE, ...]}`` where CLAIM is ``{"text",
"citations"?: [CITATION, ...], "type"?, "premises"?: [claim index, ...]}`` and CITATION is either
``{"source": KEY, "revision"?, "start"?, "end"?, "quote"?, "role"?, "page"?, "page_end"?}`` (offsets
into the source document) or ``{"chunk_id": UNIT_ID, "start"?, "end"?, "quote"?, "role"?}`` (offsets
into the evidence unit). A citation with neither offsets nor a quote names only its source (or unit,
or pages): verification locates the evidence for the claim in it. ``page_end`` is the last page,
inclusive. A missing ``answer_id`` is derived from a hash of the content (``"a-"`` + 12 hex).

A citation may carry the passage it rests on: ``"passage": "the text"`` inline, or ``"passage": N``,
an index into ``passages`` (``{"text", "name"?, "url"?, "title"?, "start_index"?}``). The claim is then
verified against that text (see :mod:`.passages`); ``source`` is optional there and names the document
the passage came from.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from graphcite.claims.formats.passages import PassageList, passage_from_dict
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.errors import AnswerFormatError
from graphcite.models import CLAIM_TYPES, CitationRef, InputAnswer, InputClaim

__all__ = ["CAIRN_FIELDS", "load_native", "looks_like_cairn", "looks_like_native", "read_cairn", "read_native"]

CAIRN_FIELDS = frozenset({"supported", "support_score"})
_CLAIM_KEYS = frozenset({"text", "citations", "type", "premises", "id", *CAIRN_FIELDS})
# each kind also tolerates the other kind's key set to null; "defect" is written by answer_to_dict
_SOURCE_CITATION_KEYS = frozenset({"source", "revision", "start", "end", "quote", "role", "page", "page_end",
                                   "chunk_id", "defect", "passage", "start_index"})
_CHUNK_CITATION_KEYS = frozenset({"chunk_id", "start", "end", "quote", "role", "page", "page_end", "source",
                                  "defect", "passage"})


def looks_like_cairn(data: Mapping[str, Any]) -> bool:
    claims = data.get("claims")
    return isinstance(claims, list) and any(isinstance(c, Mapping) and not CAIRN_FIELDS.isdisjoint(c) for c in claims)


def looks_like_native(data: Mapping[str, Any]) -> bool:
    return "claims" in data


@answer_format(FormatInfo("native", "graphcite native", "claims[].text with citations {source|chunk_id, start, end, "
                          "quote, page, passage}; a citation without offsets or quote is located", "code points",
                          "native.json", "answer-native.schema.json"), order=10, detect=looks_like_native)
def read_native(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a native answer."""
    return load_native(data, "native", options)


@answer_format(FormatInfo("cairn", "Cairn verifier output", "native plus supported/support_score per claim (ignored)",
                          "code points", "cairn.json", "answer-native.schema.json"), order=20, detect=looks_like_cairn,
               detect_order=5)
def read_cairn(data: Any, options: ReadOptions) -> InputAnswer:
    """Read Cairn verifier output (native claims with fields that are read and ignored)."""
    return load_native(data, "cairn", options)


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
    passages = PassageList()
    for i, raw in enumerate(optional_array(top.get("passages"), "passages")):
        passage = passage_from_dict(raw, f"passages[{i}]")
        passages.add(passage.text, f"passages[{i}]", name=passage.name, url=passage.url, title=passage.title,
                     start_index=passage.start_index)
    declared = len(passages)
    claims = tuple(_native_claim(raw, i, len(raw_claims), options, passages, declared)
                   for i, raw in enumerate(raw_claims))
    answer_id = string(top.get("answer_id"), "answer_id", optional=True)
    not_claims = tuple(string(t, f"not_claims[{i}]") or "" for i, t in enumerate(
        optional_array(top.get("not_claims"), "not_claims")))
    return finish(answer_id, question, claims, format, docs, passages.as_tuple(), not_claims)


def _native_claim(raw: Any, i: int, count: int, options: ReadOptions, passages: PassageList,
                  declared: int) -> InputClaim:
    limits = options.limits
    where = f"claims[{i}]"
    obj = mapping(raw, where)
    check_keys(obj, _CLAIM_KEYS, where)
    if "text" not in obj:
        raise AnswerFormatError("missing required field 'text'", where=f"{where}.text")
    text = (string(obj["text"], f"{where}.text") or "").strip()
    limits.check_claim_text(text, f"{where}.text")
    citations = tuple(
        _native_citation(c, f"{where}.citations[{j}]", options, passages, declared)
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


def _native_citation(raw: Any, where: str, options: ReadOptions, passages: PassageList,
                     declared: int) -> CitationRef:
    obj = mapping(raw, where)
    index: int | None = None
    if obj.get("passage") is not None:
        obj, index = _passage_of(obj, where, passages, declared)
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
        passage=index,
    )


def _passage_of(obj: Any, where: str, passages: PassageList, declared: int) -> tuple[dict[str, Any], int]:
    """The citation (its source defaulting to the passage's key) and the index of the passage it carries:
    inline text (added to the answer's passages) or a 0-based index into ``passages``."""
    value = obj["passage"]
    name = string(obj.get("source"), f"{where}.source", optional=True)
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < declared:
            raise AnswerFormatError(f"passage {value} is not one of the answer's {declared} passages",
                                    where=f"{where}.passage",
                                    fix="'passage' is inline text or a 0-based index into 'passages'")
        index = value
    else:
        text = string(value, f"{where}.passage") or ""
        added = passages.add(text, f"{where}.passage", name=name, start_index=obj.get("start_index"))
        if added is None:
            raise AnswerFormatError("a citation's passage text is empty", where=f"{where}.passage",
                                    fix="give the passage's text, or leave 'passage' out")
        index = added
    out = {k: v for k, v in obj.items() if k not in ("passage", "start_index")}
    if out.get("source") is None and out.get("chunk_id") is None:
        out["source"] = passages.passages[index].key
    return out, index



