"""RAG evaluation samples: a question, the answer, and the passages retrieved for it (RAGAS, DeepEval).

``{"question" | "user_input" | "input", "answer" | "response" | "actual_output", "contexts" |
"retrieved_contexts" | "retrieval_context": [CONTEXT, ...], "ground_truth" | "reference" |
"expected_output"?, "id"?}`` where a CONTEXT is the passage's text, or ``{"text" | "page_content" |
"content", "source"? | "title"? | "url"?, "start_index"?}``.

Claims are the sentences of the answer. A sentence cites the contexts it marks with ``[1]`` (1-based);
when the answer marks none, every sentence cites every context, as RAGAS's faithfulness reads it. Each
context is a passage the claim is verified against (:mod:`.passages`); a context that names its
document is matched to that document when the store holds it. The reference answer is read by
:func:`graphcite.rag.evaluate_rag` (kept in its rows) and ignored here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphcite.claims.formats.common import ReadOptions, array, finish, mapping, string
from graphcite.claims.formats.passages import PassageList
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.formats.text import marked_claims
from graphcite.errors import AnswerFormatError
from graphcite.models import CitationRef, InputAnswer

__all__ = ["ANSWER_KEYS", "CONTEXT_KEYS", "QUESTION_KEYS", "REFERENCE_KEYS", "load_ragas", "looks_like_ragas"]

QUESTION_KEYS = ("question", "user_input", "input")
ANSWER_KEYS = ("answer", "response", "actual_output")
CONTEXT_KEYS = ("contexts", "retrieved_contexts", "retrieval_context")
REFERENCE_KEYS = ("ground_truth", "reference", "expected_output", "ground_truths")
_ID_KEYS = ("id", "sample_id", "question_id", "answer_id")
_TEXT_KEYS = ("text", "page_content", "content")


def looks_like_ragas(data: Mapping[str, Any]) -> bool:
    return any(k in data for k in CONTEXT_KEYS) or ("user_input" in data and "response" in data)


def first_key(data: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` that ``data`` has (the column names of the tools differ)."""
    return next((k for k in keys if k in data), None)


@answer_format(FormatInfo("ragas", "RAG evaluation sample (RAGAS, DeepEval)", "question/user_input + "
                          "answer/response + contexts/retrieved_contexts[] (text or {text, source}); [n] marks "
                          "contexts, none marked = all; each context is a passage verified",
                          "-", "ragas.json", ""), order=110, detect=looks_like_ragas, detect_order=75)
def load_ragas(data: Any, options: ReadOptions) -> InputAnswer:
    """Read one RAG evaluation sample; see the module docstring."""
    top = mapping(data, "$")
    answer_key, contexts_key = first_key(top, ANSWER_KEYS), first_key(top, CONTEXT_KEYS)
    if answer_key is None:
        raise AnswerFormatError("looks like a RAG sample, but it has no 'answer' (or 'response')", where="answer")
    if contexts_key is None:
        raise AnswerFormatError("looks like a RAG sample, but it has no 'contexts' (or 'retrieved_contexts') list",
                                where="contexts", fix="keep the retrieved passages with each sample")
    text = string(top[answer_key], answer_key, non_empty=False) or ""
    passages = PassageList()
    refs = [_context(raw, f"{contexts_key}[{i}]", options, passages)
            for i, raw in enumerate(array(top[contexts_key], contexts_key))]
    claims = marked_claims(text, refs, options.limits, answer_key, all_when_unmarked=True)
    question_key = first_key(top, QUESTION_KEYS)
    question = string(top[question_key], question_key, non_empty=False) if question_key else None
    id_key = first_key(top, _ID_KEYS)
    raw_id = top.get(id_key) if id_key else None
    answer_id = str(raw_id).strip() if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else None
    return finish(answer_id or None, question, tuple(claims), "ragas", [], passages.as_tuple())


def _context(raw: Any, where: str, options: ReadOptions, passages: PassageList) -> CitationRef:
    if isinstance(raw, str):
        index = passages.add(raw, where)
        if index is None:
            return CitationRef(defect=f"{where} is empty")
        return passages.cite(None, index)
    item = mapping(raw, where)
    text_key = first_key(item, _TEXT_KEYS)
    text = string(item[text_key], f"{where}.{text_key}", non_empty=False) if text_key else None
    metadata = item.get("metadata") if isinstance(item.get("metadata"), Mapping) else {}
    names = [item.get(k) if item.get(k) is not None else metadata.get(k) for k in ("source", "url", "title")]
    source = options.source_for(*names)
    index = passages.add(text, where, name=source, url=_text(names[1]), title=_text(names[2]),
                         start_index=item.get("start_index", metadata.get("start_index")))
    if index is None:
        return CitationRef(source=source) if source else CitationRef(defect=f"{where} has no text")
    return passages.cite(CitationRef(source=source) if source else None, index)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
