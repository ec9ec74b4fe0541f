"""The Anthropic Messages API response (``"type": "message"``) with citations.

Each text block that carries ``citations`` is one claim. A text block without citations becomes a
claim with no citations only when it holds a whole sentence (three or more words and a full stop,
``!`` or ``?``): the connecting fragments Claude emits between cited spans ("According to the notes, ")
are not claims, an uncited full sentence is, so it can be reported as unsupported.
``document_index`` is mapped to a source key through the ``documents`` argument or, failing that, a
top-level ``"documents"`` list (strings, or objects with a ``"key"``) in the file. ``char_location``
gives document offsets (code points), ``page_location`` gives ``page`` and ``page_end`` (Anthropic's
``end_page_number`` is exclusive; ``page_end`` is inclusive), and ``content_block_location`` gives the
quote only. ``search_result_location`` and ``web_search_result_location`` use their ``source`` / ``url``
as the key (through the source map when one is given). The message ``id`` becomes the answer id; a
top-level ``"question"`` may be added next to ``"documents"``. Non-text blocks (thinking, tool use)
are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import (
    ReadOptions,
    array,
    check_documents,
    finish,
    index_value,
    is_sentence,
    mapping,
    optional_array,
    short,
    span,
    string,
)
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer, InputClaim

__all__ = ["load_anthropic", "looks_like_anthropic"]


def looks_like_anthropic(data: Mapping[str, Any]) -> bool:
    return data.get("type") == "message" or isinstance(data.get("content"), list)


@answer_format(FormatInfo("anthropic", "Anthropic Messages API", "content[] text blocks with citations (char, page, "
                          "content-block, search-result locations)", "code points", "anthropic.json",
                          "answer-anthropic.schema.json"), order=30, detect=looks_like_anthropic)
def load_anthropic(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a Messages API response; see the module docstring."""
    documents, limits = options.documents, options.limits
    top = mapping(data, "$")
    kind = top.get("type", "message")
    if kind != "message":
        raise AnswerFormatError(f"expected type 'message', found {short(kind) if not isinstance(kind, str) else repr(kind)}",
                                where="type", fix="give the Messages API response object")
    if "content" not in top:
        raise AnswerFormatError("missing required field 'content'", where="content",
                                fix="give the Messages API response object")
    blocks = array(top["content"], "content")
    docs = documents if documents is not None else (
        check_documents(top["documents"], "documents") if top.get("documents") is not None else []
    )
    claims: list[InputClaim] = []
    for i, raw in enumerate(blocks):
        where = f"content[{i}]"
        block = mapping(raw, where)
        if not isinstance(block.get("type"), str):
            raise AnswerFormatError("expected a content block with a string 'type'", where=f"{where}.type")
        if block["type"] != "text":
            continue
        text = string(block.get("text"), f"{where}.text", non_empty=False) or ""
        raw_citations = block.get("citations")
        cites = optional_array(raw_citations, f"{where}.citations")
        if not cites:
            if is_sentence(text):
                limits.check_claim_text(text.strip(), f"{where}.text")
                claims.append(InputClaim(text=text.strip()))
                limits.check_claims(len(claims), where="content")
            continue
        if not text.strip():
            raise AnswerFormatError("a cited text block has no text", where=f"{where}.text")
        limits.check_claim_text(text.strip(), f"{where}.text")
        refs = tuple(_anthropic_citation(c, f"{where}.citations[{j}]", docs, options) for j, c in enumerate(cites))
        claims.append(InputClaim(text=text.strip(), citations=refs))
        limits.check_claims(len(claims), where="content")
    answer_id = string(top.get("id"), "id", optional=True)
    question = string(top.get("question"), "question", optional=True, non_empty=False)
    return finish(answer_id, question, tuple(claims), "anthropic", docs)


def _document_key(obj: Mapping[str, Any], where: str, docs: list[str]) -> str:
    index = index_value(obj.get("document_index"), f"{where}.document_index") or 0
    if index >= len(docs):
        raise AnswerFormatError(
            f"document_index {index} has no source key ({len(docs)} documents given)",
            where=f"{where}.document_index",
            fix="list the source keys in request order: a top-level 'documents' list or --documents",
        )
    return docs[index]


def _anthropic_citation(raw: Any, where: str, docs: list[str], options: ReadOptions) -> CitationRef:
    obj = mapping(raw, where)
    kind = obj.get("type")
    quote = string(obj.get("cited_text"), f"{where}.cited_text", optional=True, non_empty=False)
    if kind == "char_location":
        start, end, defect = span(obj.get("start_char_index"), obj.get("end_char_index"),
                                   ("start_char_index", "end_char_index"), required=True)
        return CitationRef(source=_document_key(obj, where, docs), start=start, end=end, quote=quote, defect=defect)
    if kind == "page_location":
        first, stop, defect = span(obj.get("start_page_number"), obj.get("end_page_number"),
                                    ("start_page_number", "end_page_number"), required=True, minimum=1)
        if first is None or stop is None:
            return CitationRef(source=_document_key(obj, where, docs), quote=quote, defect=defect)
        return CitationRef(source=_document_key(obj, where, docs), page=first, page_end=max(first, stop - 1),
                           quote=quote)
    if kind == "content_block_location":
        _, _, defect = span(obj.get("start_block_index"), obj.get("end_block_index"),
                             ("start_block_index", "end_block_index"), required=True)
        return CitationRef(source=_document_key(obj, where, docs), quote=quote, defect=defect)
    if kind == "search_result_location":
        return CitationRef(source=options.source_for(string(obj.get("source"), f"{where}.source")), quote=quote)
    if kind == "web_search_result_location":
        return CitationRef(source=options.source_for(string(obj.get("url"), f"{where}.url")), quote=quote)
    raise AnswerFormatError(
        f"unknown citation type {kind!r}" if isinstance(kind, str) else "citation has no 'type'",
        where=f"{where}.type",
        fix="expected char_location, page_location, content_block_location, search_result_location "
            "or web_search_result_location",
    )
