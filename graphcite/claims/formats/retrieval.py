"""Retrieval-chain results: LangChain and LlamaIndex, an answer string plus the documents retrieved for it.

``langchain``: ``{"input" | "question" | "query", "answer" | "result" | "output", "context" |
"source_documents" | "documents": [DOCUMENT, ...]}`` (``create_retrieval_chain`` and ``RetrievalQA``
outputs). A DOCUMENT is ``{"page_content", "metadata": {"source", "page"?, "page_label"?, "start_index"?,
...}, "id"?}`` or its serialised form ``{"lc": 1, "type": "constructor", "kwargs": {...}}``.

``llamaindex``: ``{"response", "source_nodes": [{"node": NODE, "score"} | NODE, ...]}`` (a ``Response``
dumped to JSON) where a NODE is ``{"id_" | "node_id", "text", "metadata": {"file_name", "file_path",
"page_label"?, ...}, "start_char_idx"?, "end_char_idx"?}``.

Claims are the sentences of the answer. A sentence cites the documents it marks with ``[1]``,
``[1][2]`` or ``[1, 2]`` (1-based, in retrieval order); when the answer marks nothing, every sentence
cites every retrieved document. Either way a citation names a document, not a span: the evidence is
located in that source. A document maps to a source through the source map (by ``source``,
``file_path``, ``url``, ``file_name``, ``title`` or id), or by its ``source`` / ``file_path`` (a path
whose ending is a source key, a file name, or a front-matter ``url:``). Pages: ``page_label`` when it
is a number, else LangChain's 0-based ``page`` plus one.

A document's text (``page_content``, a node's ``text``) is the passage the claim rests on: the claim is
verified against it (:mod:`.passages`), or against its span in the stored document it came from
(``start_index`` / ``start_char_idx`` tell where). A document with no name and only text cites its
passage alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import ReadOptions, array, finish, mapping, string
from graphcite.claims.formats.passages import PassageList
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.formats.text import document_names, first_int, marked_claims
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer

__all__ = ["load_langchain", "load_llamaindex", "looks_like_langchain", "looks_like_llamaindex"]

_ANSWER_KEYS = ("answer", "result", "output")
_DOCUMENT_KEYS = ("context", "source_documents", "documents")
_QUESTION_KEYS = ("input", "question", "query")


def looks_like_langchain(data: Mapping[str, Any]) -> bool:
    return any(k in data for k in _DOCUMENT_KEYS[:2]) or (
        any(k in data for k in ("answer", "result")) and "docs" not in data)


def looks_like_llamaindex(data: Mapping[str, Any]) -> bool:
    return "source_nodes" in data or isinstance(data.get("response"), str)


def _first(top: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if k in top), None)


@answer_format(FormatInfo("langchain", "LangChain retrieval chain", "answer + context[] documents "
                          "(page_content, metadata.source, start_index); [n] marks documents, none marked = all; "
                          "page_content is the passage verified", "-", "langchain.json",
                          "answer-langchain.schema.json"), order=80, detect=looks_like_langchain, detect_order=110)
def load_langchain(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a LangChain retrieval-chain result; see the module docstring."""
    top = mapping(data, "$")
    answer_key, docs_key = _first(top, _ANSWER_KEYS), _first(top, _DOCUMENT_KEYS)
    if answer_key is None:
        raise AnswerFormatError("looks like a LangChain result, but it has no 'answer' (or 'result', 'output')",
                                where="answer")
    if docs_key is None:
        raise AnswerFormatError("looks like a LangChain result, but it has no 'context' (or 'source_documents') "
                                "list of retrieved documents", where="context",
                                fix="keep the retrieved documents in the output (return_source_documents=True)")
    text = string(top[answer_key], answer_key, non_empty=False) or ""
    passages = PassageList()
    refs = [_langchain_document(raw, f"{docs_key}[{i}]", options, passages)
            for i, raw in enumerate(array(top[docs_key], docs_key))]
    claims = marked_claims(text, refs, options.limits, answer_key, all_when_unmarked=True)
    question_key = _first(top, _QUESTION_KEYS)
    question = string(top[question_key], question_key, non_empty=False) if question_key else None
    return finish(string(top.get("answer_id"), "answer_id", optional=True), question, tuple(claims), "langchain", [],
                  passages.as_tuple())


def _langchain_document(raw: Any, where: str, options: ReadOptions, passages: PassageList) -> CitationRef:
    document = mapping(raw, where)
    if document.get("lc") is not None and isinstance(document.get("kwargs"), Mapping):
        document, where = document["kwargs"], f"{where}.kwargs"
    if "page_content" not in document and "metadata" not in document:
        raise AnswerFormatError("a retrieved document needs 'page_content' and 'metadata'", where=where)
    metadata = mapping(document.get("metadata") or {}, f"{where}.metadata")
    content = string(document.get("page_content"), f"{where}.page_content", optional=True, non_empty=False)
    return _reference(metadata, where, options, document.get("id"), zero_based_page=True, passages=passages,
                      text=content, start_index=metadata.get("start_index"))


@answer_format(FormatInfo("llamaindex", "LlamaIndex Response", "response + source_nodes[] (text, "
                          "metadata, start_char_idx, score); [n] marks nodes, none marked = all; text is the passage "
                          "verified", "-", "llamaindex.json", "answer-llamaindex.schema.json"), order=90,
               detect=looks_like_llamaindex)
def load_llamaindex(data: Any, options: ReadOptions) -> InputAnswer:
    """Read a LlamaIndex response with its source nodes; see the module docstring."""
    top = mapping(data, "$")
    if "response" not in top:
        raise AnswerFormatError("looks like a LlamaIndex response, but 'response' is missing", where="response")
    if "source_nodes" not in top:
        raise AnswerFormatError("looks like a LlamaIndex response, but 'source_nodes' is missing",
                                where="source_nodes", fix="dump the whole Response, with its source nodes")
    text = string(top["response"], "response", non_empty=False) or ""
    passages = PassageList()
    refs = []
    for i, raw in enumerate(array(top["source_nodes"], "source_nodes")):
        where = f"source_nodes[{i}]"
        node = mapping(raw, where)
        if isinstance(node.get("node"), Mapping):
            node, where = node["node"], f"{where}.node"
        if "text" not in node and "metadata" not in node:
            raise AnswerFormatError("a source node needs 'text' and 'metadata'", where=where)
        metadata = mapping(node.get("metadata") or {}, f"{where}.metadata")
        node_id = next((node[k] for k in ("id_", "node_id", "id") if isinstance(node.get(k), str)), None)
        content = string(node.get("text"), f"{where}.text", optional=True, non_empty=False)
        refs.append(_reference(metadata, where, options, node_id, zero_based_page=False, passages=passages,
                               text=content, start_index=node.get("start_char_idx")))
    claims = marked_claims(text, refs, options.limits, "response", all_when_unmarked=True)
    question_key = _first(top, _QUESTION_KEYS)
    question = string(top[question_key], question_key, non_empty=False) if question_key else None
    return finish(string(top.get("answer_id"), "answer_id", optional=True), question, tuple(claims), "llamaindex",
                  [], passages.as_tuple())


def _reference(metadata: Mapping[str, Any], where: str, options: ReadOptions, document_id: Any, *,
               zero_based_page: bool, passages: PassageList, text: str | None, start_index: Any) -> CitationRef:
    names = document_names(metadata, document_id)
    source = options.source_for(*names)
    index = passages.add(text, where, name=source, url=_text(metadata.get("url")),
                         title=_text(metadata.get("title")), start_index=start_index)
    if source is None and index is not None:
        return passages.cite(None, index)
    if source is None:
        raise AnswerFormatError("a retrieved document has no 'source', 'file_path', 'url', 'title' or id to map "
                                "to a source", where=f"{where}.metadata",
                                fix="keep the loader's 'source' metadata, or pass --source-map")
    page = first_int([metadata.get("page_label")])
    if page is None:
        page = first_int([metadata.get("page")])
        if page is not None and zero_based_page:
            page += 1
    ref = CitationRef(source=source, page=page if page is not None and page >= 1 else None)
    return passages.cite(ref, index) if index is not None else ref


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
