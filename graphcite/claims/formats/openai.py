"""OpenAI output: a Responses API response, or a Chat Completions response with web-search annotations.

Responses: ``{"id", "object": "response", "output": [ITEM, ...]}``; a message ITEM is ``{"type":
"message", "content": [{"type": "output_text", "text", "annotations": [ANNOTATION, ...]}]}`` and other
items (reasoning, tool calls, search calls) are skipped. Chat Completions: ``{"object":
"chat.completion", "choices": [{"message": {"content", "annotations": [{"type": "url_citation",
"url_citation": {...}}]}}]}`` (the first choice).

Claims are the sentences of each text (:func:`~graphcite.claims.formats.text.sentence_claims`):

* ``file_citation`` ``{file_id, filename, index}`` cites the file for the sentence the index follows;
* ``url_citation`` ``{url, title, start_index, end_index}`` and ``container_file_citation``
  ``{file_id, filename, start_index, end_index}`` cite for every sentence the range overlaps; a range
  that holds an inline link (``([example.org](https://example.org))``) is left out of the claim text;
* ``file_path`` annotations are not citations.

Offsets are code points ("character index" in OpenAI's reference). A file maps to a source through
the source map (by file id or file name) or by its file name; a URL through the source map or the
``url:`` in a document's front matter. A citation name carries no span, so its evidence is located in
the cited source. An index or range that is not usable makes that citation defective (its sentence is
reported invalid) and the rest of the answer is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import (
    ReadOptions,
    array,
    finish,
    locator,
    mapping,
    optional_array,
    span,
    string,
)
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.formats.text import Pinned, sentence_claims
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer, InputClaim

__all__ = ["load_openai", "looks_like_openai"]

TITLE = "an OpenAI Responses output"
_LINK = re.compile(r"\s*\(?\s*\[[^\]\n]*\]\([^)\s]*\)\s*\)?\s*")
_SKIPPED = {"file_path"}


def looks_like_openai(data: Mapping[str, Any]) -> bool:
    return data.get("object") in ("response", "chat.completion") or isinstance(data.get("output"), list) or (
        isinstance(data.get("choices"), list) and "claims" not in data)


@answer_format(FormatInfo("openai", "OpenAI Responses / Chat Completions", "output[].content[] output_text "
                          "with file_citation (index) and url_citation (start_index, end_index) annotations; claim = "
                          "sentence", "code points", "openai.json", "answer-openai.schema.json"), order=50,
               detect=looks_like_openai)
def load_openai(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a Responses API or Chat Completions response; see the module docstring."""
    top = mapping(data, "$")
    texts: list[tuple[str, str, list[Any], str]] = []  # (where, text, annotations, annotations path)
    if "output" in top or top.get("object") == "response":
        if "output" not in top:
            raise AnswerFormatError(f"looks like {TITLE}, but 'output' is missing", where="output",
                                    fix="give the whole response object (with its 'output' list)")
        for i, item in enumerate(array(top["output"], "output")):
            item = mapping(item, f"output[{i}]")
            if item.get("type") != "message":
                continue
            for j, part in enumerate(optional_array(item.get("content"), f"output[{i}].content")):
                where = f"output[{i}].content[{j}]"
                part = mapping(part, where)
                if part.get("type") != "output_text":
                    continue
                text = string(part.get("text"), f"{where}.text", non_empty=False) or ""
                texts.append((where, text, optional_array(part.get("annotations"), f"{where}.annotations"),
                              f"{where}.annotations"))
    else:
        choices = array(top.get("choices"), "choices")
        if not choices:
            raise AnswerFormatError("looks like a Chat Completions response, but 'choices' is empty", where="choices")
        message = mapping(mapping(choices[0], "choices[0]").get("message"), "choices[0].message")
        text = string(message.get("content"), "choices[0].message.content", non_empty=False) or ""
        texts.append(("choices[0].message", text, optional_array(message.get("annotations"),
                                                                 "choices[0].message.annotations"),
                      "choices[0].message.annotations"))
    claims: list[InputClaim] = []
    for where, text, notes, path in texts:
        pinned = [_pin(raw, f"{path}[{k}]", text, options) for k, raw in enumerate(notes)]
        claims += sentence_claims(text, [p for p in pinned if p is not None], options.limits, f"{where}.text")
        options.limits.check_claims(len(claims), where=where)
    answer_id = string(top.get("id"), "id", optional=True)
    question = string(top.get("question"), "question", optional=True, non_empty=False)
    return finish(answer_id, question, tuple(claims), "openai", [])


def _pin(raw: Any, where: str, text: str, options: ReadOptions) -> Pinned | None:
    obj = mapping(raw, where)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise AnswerFormatError("an annotation needs a string 'type'", where=f"{where}.type",
                                fix="expected file_citation, url_citation or container_file_citation")
    if kind in _SKIPPED:
        return None
    if kind == "url_citation" and isinstance(obj.get("url_citation"), Mapping):
        obj = obj["url_citation"]  # the Chat Completions form nests the fields
        where = f"{where}.url_citation"
    if kind == "file_citation":
        source = options.source_for(string(obj.get("filename"), f"{where}.filename", optional=True),
                                    string(obj.get("file_id"), f"{where}.file_id", optional=True))
        if source is None:
            raise AnswerFormatError(f"looks like {TITLE}, but the file citation has no 'filename' or 'file_id'",
                                    where=where)
        at, defect = locator(obj.get("index"), "index", required=True)
        if at is not None and at > len(text):
            at, defect = None, f"index {at} is beyond the text ({len(text)} characters)"
        return Pinned(len(text) if at is None else at, len(text) if at is None else at,
                      CitationRef(source=source, defect=defect))
    if kind in {"url_citation", "container_file_citation"}:
        if kind == "url_citation":
            url = string(obj.get("url"), f"{where}.url") if "url" in obj else None
            if url is None:
                raise AnswerFormatError(f"looks like {TITLE}, but the url_citation has no 'url'", where=f"{where}.url")
            source = options.source_for(url, obj.get("title"))
        else:
            source = options.source_for(string(obj.get("filename"), f"{where}.filename", optional=True),
                                        string(obj.get("file_id"), f"{where}.file_id", optional=True))
            if source is None:
                raise AnswerFormatError(f"looks like {TITLE}, but the citation has no 'filename' or 'file_id'",
                                        where=where)
        start, end, defect = span(obj.get("start_index"), obj.get("end_index"), ("start_index", "end_index"),
                                  required=True)
        if start is not None and end is not None and end > len(text):
            start, end, defect = None, None, f"end_index {end} is beyond the text ({len(text)} characters)"
        if start is None or end is None:
            return Pinned(len(text), len(text), CitationRef(source=source, defect=defect))
        covered = text[start:end]
        drop = bool(covered.strip()) and (_LINK.fullmatch(covered) is not None or (
            kind == "url_citation" and url is not None and url in covered and len(covered) < len(url) + 80))
        return Pinned(start, end, CitationRef(source=source), drop=drop)
    raise AnswerFormatError(f"unknown annotation type {kind!r}", where=f"{where}.type",
                            fix="expected file_citation, url_citation, container_file_citation or file_path")
