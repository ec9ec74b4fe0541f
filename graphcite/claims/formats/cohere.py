"""Cohere chat v2 responses with citations.

``{"id", "message": {"role": "assistant", "content": [{"type": "text", "text"}, ...], "citations":
[CITATION, ...]}}``. A CITATION is ``{"start", "end", "text", "sources": [SOURCE, ...], "type"?,
"content_index"?}``: the span of the answer text (of content item ``content_index``, 0 when absent)
that rests on the sources. Citations of type ``PLAN`` or ``THINKING_CONTENT`` are about the model's own
plan, not the answer, and are skipped.

Claims are the sentences of the text; a citation cites its sources for every sentence its span
overlaps. Cohere counts in characters (code points); when ``text[start:end]`` is not the citation's
``text``, the same offsets read as UTF-8 bytes or UTF-16 code units are tried, then the first
occurrence of the text; a span that fits nowhere becomes a claim of its own (the citation text) whose
citations are invalid.

A SOURCE is ``{"type": "document", "id", "document": {...}}`` or ``{"type": "tool", "id",
"tool_output": {...}}``; it maps to a source through the source map (by any of the document's
``source``, ``file_path``, ``url``, ``title``, ``id`` ... fields, or the source id), else by the first of
those fields (a file name, path ending, front-matter ``url:`` or title). The evidence is then located.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import (
    ReadOptions,
    array,
    finish,
    index_value,
    mapping,
    optional_array,
    span,
    string,
)
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.formats.text import Offsets, Pinned, document_names, sentence_claims
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer, InputClaim

__all__ = ["load_cohere", "looks_like_cohere"]

TITLE = "a Cohere chat response"
_SKIPPED = {"PLAN", "THINKING_CONTENT"}


def looks_like_cohere(data: Mapping[str, Any]) -> bool:
    message = data.get("message")
    return isinstance(message, Mapping) and ("citations" in message or "content" in message)


@answer_format(FormatInfo("cohere", "Cohere chat v2", "message.citations[] {start, end, text, sources[]} "
                          "over message.content[].text", "code points (bytes/UTF-16 tried when the text disagrees)",
                          "cohere.json", "answer-cohere.schema.json"), order=70, detect=looks_like_cohere)
def load_cohere(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a Cohere chat v2 response; see the module docstring."""
    top = mapping(data, "$")
    if "message" not in top:
        raise AnswerFormatError(f"looks like {TITLE}, but 'message' is missing", where="message")
    message = mapping(top["message"], "message")
    if "content" not in message:
        raise AnswerFormatError(f"looks like {TITLE}, but 'message.content' is missing", where="message.content")
    contents = []
    for i, item in enumerate(array(message["content"], "message.content")):
        item = mapping(item, f"message.content[{i}]")
        text = string(item.get("text"), f"message.content[{i}].text", optional=True, non_empty=False)
        contents.append(text if item.get("type", "text") == "text" and text is not None else "")
    pinned: dict[int, list[Pinned]] = {}
    loose: list[InputClaim] = []
    for k, raw in enumerate(optional_array(message.get("citations"), "message.citations")):
        where = f"message.citations[{k}]"
        citation = mapping(raw, where)
        if isinstance(citation.get("type"), str) and citation["type"] in _SKIPPED:
            continue
        item = index_value(citation.get("content_index"), f"{where}.content_index", optional=True) or 0
        if item >= len(contents):
            raise AnswerFormatError(f"content_index {item} names no content item ({len(contents)} given)",
                                    where=f"{where}.content_index")
        refs = [_source(s, f"{where}.sources[{j}]", options)
                for j, s in enumerate(array(citation.get("sources"), f"{where}.sources"))]
        cited = string(citation.get("text"), f"{where}.text", optional=True, non_empty=False)
        placed = _place(citation, cited, contents[item])
        if isinstance(placed, str):
            if not cited or not cited.strip():
                raise AnswerFormatError(f"{placed}, and the citation has no text to find it by", where=where)
            loose.append(InputClaim(cited.strip(), tuple(CitationRef(source=r.source, defect=placed) for r in refs)))
            continue
        pinned.setdefault(item, []).extend(Pinned(placed[0], placed[1], ref) for ref in refs)
    claims: list[InputClaim] = []
    for i, text in enumerate(contents):
        claims += sentence_claims(text, pinned.get(i, []), options.limits, f"message.content[{i}].text")
    claims += loose
    options.limits.check_claims(len(claims), where="message")
    answer_id = string(top.get("id"), "id", optional=True)
    question = string(top.get("question"), "question", optional=True, non_empty=False)
    return finish(answer_id, question, tuple(claims), "cohere", [])


def _place(citation: Mapping[str, Any], cited: str | None, text: str) -> tuple[int, int] | str:
    """(start, end) in code points: the offsets as documented, else as bytes or UTF-16, else the text."""
    start, end, problem = span(citation.get("start"), citation.get("end"), ("start", "end"), required=True)
    if start is not None and end is not None:
        for unit in ("codepoint", "utf8", "utf16"):
            offsets = Offsets(text, unit)
            a, b = offsets.point(start), offsets.point(end)
            if a is not None and b is not None and (cited is None or text[a:b] == cited):
                return a, b
            if cited is None:
                return offsets.problem(start if a is None else end, "start" if a is None else "end")
    if cited and cited.strip():
        found = text.find(cited)
        if found != -1:
            return found, found + len(cited)
        return problem or f"the cited text is not at {start}-{end} nor anywhere in the answer"
    return problem or "the citation cannot be placed"


def _source(raw: Any, where: str, options: ReadOptions) -> CitationRef:
    source = mapping(raw, where)
    fields = source.get("document") if source.get("type", "document") == "document" else source.get("tool_output")
    fields = fields if isinstance(fields, Mapping) else {}
    name = options.source_for(*document_names(fields), source.get("id"))
    if name is None:
        raise AnswerFormatError(f"looks like {TITLE}, but the source has no 'id' and no document fields that "
                                "name a file, URL or title", where=where,
                                fix="give each document an id, or a 'source', 'url' or 'title' field")
    return CitationRef(source=name)
