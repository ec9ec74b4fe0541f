"""Gemini (Google AI and Vertex AI) responses with ``groundingMetadata``.

``{"candidates": [{"content": {"parts": [{"text"}, ...]}, "groundingMetadata": {"groundingChunks":
[CHUNK, ...], "groundingSupports": [SUPPORT, ...]}}], "responseId"?}``; the first candidate is read.
The Python SDK's snake_case spelling (``grounding_metadata``, ``start_index``, ...) is read too.

A SUPPORT is ``{"segment": {"partIndex"?, "startIndex"?, "endIndex", "text"?}, "groundingChunkIndices":
[i, ...]}``: the segment of the response part is backed by those chunks. Gemini counts segment offsets
in UTF-8 bytes and leaves out a ``startIndex`` of 0 (proto3 JSON omits zero values). Claims are the
sentences of each part; a segment cites its chunks for every sentence it overlaps. When the offsets do
not fit the part (past the end, inside a character, or not where the segment ``text`` is) and the
segment text occurs in the part, the text decides; when it occurs nowhere, the segment text becomes a
claim of its own whose citations are invalid.

A CHUNK is ``{"web": {"uri", "title"}}`` or ``{"retrievedContext": {"uri", "title", "text",
"documentName"?, "ragChunk": {"pageSpan": {"firstPage", "lastPage"}}}}``; it maps to a source through
the source map (by URI, document name or title), or by the URI (a file name or path ending, or the
``url:`` in a document's front matter). A page span becomes the citation's pages. The evidence is
then located in the cited source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import (
    ReadOptions,
    array,
    finish,
    index_value,
    locator,
    mapping,
    optional_array,
    short,
    string,
)
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.formats.text import Offsets, Pinned, sentence_claims
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer, InputClaim

__all__ = ["load_gemini", "looks_like_gemini"]

TITLE = "a Gemini response"


def _get(obj: Mapping[str, Any], camel: str) -> Any:
    """A field in camelCase (REST) or snake_case (Python SDK)."""
    if camel in obj:
        return obj[camel]
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    return obj.get(snake)


def looks_like_gemini(data: Mapping[str, Any]) -> bool:
    return "candidates" in data or _get(data, "groundingMetadata") is not None


@answer_format(FormatInfo("gemini", "Gemini groundingMetadata", "groundingSupports[].segment with "
                          "groundingChunkIndices into groundingChunks[] (web, retrievedContext)", "UTF-8 bytes",
                          "gemini.json", "answer-gemini.schema.json"), order=60, detect=looks_like_gemini)
def load_gemini(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a Gemini response; see the module docstring."""
    top = mapping(data, "$")
    if "candidates" not in top:
        raise AnswerFormatError(f"looks like {TITLE}, but 'candidates' is missing", where="candidates",
                                fix="give the whole generateContent response")
    candidates = array(top["candidates"], "candidates")
    if not candidates:
        raise AnswerFormatError(f"looks like {TITLE}, but 'candidates' is empty", where="candidates")
    candidate = mapping(candidates[0], "candidates[0]")
    content = mapping(candidate.get("content"), "candidates[0].content")
    parts = [mapping(p, f"candidates[0].content.parts[{i}]")
             for i, p in enumerate(array(content.get("parts"), "candidates[0].content.parts"))]
    texts = [string(p.get("text"), f"candidates[0].content.parts[{i}].text", optional=True, non_empty=False) or ""
             for i, p in enumerate(parts)]
    meta_where = "candidates[0].groundingMetadata"
    meta = _get(candidate, "groundingMetadata")
    meta = mapping(meta, meta_where) if meta is not None else {}
    chunks = [_chunk(raw, f"{meta_where}.groundingChunks[{i}]", options)
              for i, raw in enumerate(optional_array(_get(meta, "groundingChunks"), f"{meta_where}.groundingChunks"))]
    pinned: dict[int, list[Pinned]] = {}
    loose: list[InputClaim] = []
    offsets = [Offsets(t, "utf8") for t in texts]
    for k, raw in enumerate(optional_array(_get(meta, "groundingSupports"), f"{meta_where}.groundingSupports")):
        where = f"{meta_where}.groundingSupports[{k}]"
        support = mapping(raw, where)
        refs = _refs(support, where, chunks)
        segment = mapping(support.get("segment"), f"{where}.segment")
        part = index_value(_get(segment, "partIndex"), f"{where}.segment.partIndex", optional=True) or 0
        if part >= len(texts):
            raise AnswerFormatError(f"partIndex {part} names no part ({len(texts)} parts)",
                                    where=f"{where}.segment.partIndex")
        seg_text = string(segment.get("text"), f"{where}.segment.text", optional=True, non_empty=False)
        placed = _place(segment, seg_text, offsets[part], f"{where}.segment")
        if isinstance(placed, str):
            if seg_text and seg_text.strip():
                loose.append(InputClaim(seg_text.strip(), tuple(CitationRef(source=r.source, page=r.page,
                                                                            page_end=r.page_end, defect=placed)
                                                                for r in refs)))
                continue
            raise AnswerFormatError(f"{placed}, and the segment has no text to find it by", where=f"{where}.segment")
        pinned.setdefault(part, []).extend(Pinned(placed[0], placed[1], ref) for ref in refs)
    claims: list[InputClaim] = []
    for i, text in enumerate(texts):
        claims += sentence_claims(text, pinned.get(i, []), options.limits, f"candidates[0].content.parts[{i}].text")
    claims += loose
    options.limits.check_claims(len(claims), where="candidates[0]")
    answer_id = string(_get(top, "responseId"), "responseId", optional=True)
    question = string(top.get("question"), "question", optional=True, non_empty=False)
    return finish(answer_id, question, tuple(claims), "gemini", [])


def _place(segment: Mapping[str, Any], text: str | None, offsets: Offsets, where: str) -> tuple[int, int] | str:
    """(start, end) of the segment in code points, or why it cannot be placed."""
    raw_start = _get(segment, "startIndex")
    start, problem_a = locator(0 if raw_start is None else raw_start, "startIndex")
    end, problem_b = locator(_get(segment, "endIndex"), "endIndex", required=True)
    problem = problem_a or problem_b
    a = offsets.point(start) if start is not None else None
    b = offsets.point(end) if end is not None else None
    if problem is None and (a is None or b is None):
        bad = start if a is None else end
        problem = offsets.problem(bad or 0, "startIndex" if a is None else "endIndex")
    if problem is None and a is not None and b is not None and a > b:
        problem = f"startIndex {start} is after endIndex {end}"
    if problem is None and a is not None and b is not None and (not text or offsets.text[a:b] == text):
        return a, b
    if text and text.strip():
        found = offsets.text.find(text)
        if found != -1:
            return found, found + len(text)
        return problem or f"the segment text is not at bytes {start}-{end} nor anywhere in the part"
    return problem or f"{where}: cannot place the segment"


def _refs(support: Mapping[str, Any], where: str, chunks: list[CitationRef]) -> list[CitationRef]:
    indices = optional_array(_get(support, "groundingChunkIndices"), f"{where}.groundingChunkIndices")
    refs = []
    for j, raw in enumerate(indices):
        number, defect = locator(raw, f"groundingChunkIndices[{j}]")
        if number is not None and number < len(chunks):
            refs.append(chunks[number])
        else:
            refs.append(CitationRef(defect=defect or f"groundingChunkIndices[{j}] = {short(raw)} names no chunk "
                                                      f"({len(chunks)} grounding chunks)"))
    return refs


def _chunk(raw: Any, where: str, options: ReadOptions) -> CitationRef:
    chunk = mapping(raw, where)
    web, context = chunk.get("web"), _get(chunk, "retrievedContext")
    if web is None and context is None:
        raise AnswerFormatError("a grounding chunk needs 'web' or 'retrievedContext'", where=where)
    if web is not None:
        web = mapping(web, f"{where}.web")
        source = options.source_for(web.get("uri"), web.get("title"), web.get("domain"))
        if source is None:
            raise AnswerFormatError("a web chunk needs a 'uri' or 'title'", where=f"{where}.web.uri")
        return CitationRef(source=source)
    context = mapping(context, f"{where}.retrievedContext")
    source = options.source_for(context.get("uri"), _get(context, "documentName"), context.get("title"))
    if source is None:
        raise AnswerFormatError("a retrieved context needs a 'uri', 'documentName' or 'title'",
                                where=f"{where}.retrievedContext.uri")
    rag = _get(context, "ragChunk")
    pages = _get(rag, "pageSpan") if isinstance(rag, Mapping) else None
    if isinstance(pages, Mapping):
        first, problem_a = locator(_get(pages, "firstPage"), "firstPage", minimum=1)
        last, problem_b = locator(_get(pages, "lastPage"), "lastPage", minimum=1)
        if first is not None and not problem_a and not problem_b and (last is None or last >= first):
            return CitationRef(source=source, page=first, page_end=last)
        return CitationRef(source=source, defect=problem_a or problem_b or f"lastPage {last} is before firstPage {first}")
    return CitationRef(source=source)
