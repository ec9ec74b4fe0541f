"""ALCE outputs (Gao et al., "Enabling Large Language Models to Generate Text with Citations").

One item is ``{"question", "output", "docs": [{"title", "text", "id"?}, ...]}`` where ``output`` marks
the documents each sentence rests on with ``[1][2]`` (1-based into ``docs``). A result file of a run is
``{"args"?, "data": [ITEM, ...]}``: :func:`load_alce_run` reads every item, and reading it as one answer
works only when it holds a single item.

Claims are the sentences of ``output``; a sentence cites the documents it marks (an unmarked sentence
cites nothing, as ALCE scores it). A document maps to a source through the source map (by title or id)
or by its title (a source whose title it is); the evidence is then located in that source. The
item's ``id`` (or ``sample_id``, ``question_id``) becomes the answer id. A doc's ``text`` is the passage
the claim is verified against (:mod:`.passages`); a doc with text and no title cites its passage alone.
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

__all__ = ["load_alce", "load_alce_run", "looks_like_alce"]

_ID_KEYS = ("id", "sample_id", "question_id")


def looks_like_alce(data: Mapping[str, Any]) -> bool:
    return "docs" in data or (isinstance(data.get("data"), list) and "claims" not in data)


@answer_format(FormatInfo("alce", "ALCE output", "output with [1][2] markers + docs[] {title, text}; "
                          "text is the passage verified; a run file {data: [...]} via load_answers", "-", "alce.json",
                          "answer-alce.schema.json"), order=100, detect=looks_like_alce)
def load_alce(data: Any, options: ReadOptions) -> InputAnswer:
    """Read one ALCE item, or a run file holding exactly one; see the module docstring."""
    top = mapping(data, "$")
    if "data" in top and "output" not in top:
        items = array(top["data"], "data")
        if len(items) != 1:
            raise AnswerFormatError(f"an ALCE run file holds {len(items)} items, not one answer", where="data",
                                    fix="check one item at a time, or read them all with load_alce_run()")
        return _item(items[0], "data[0]", options)
    return _item(top, "$", options)


def load_alce_run(data: Any, options: ReadOptions) -> list[InputAnswer]:
    """Every item of an ALCE run file (``{"data": [...]}``), or the one item given."""
    top = mapping(data, "$")
    if "data" in top and "output" not in top:
        return [_item(item, f"data[{i}]", options) for i, item in enumerate(array(top["data"], "data"))]
    return [_item(top, "$", options)]


def _item(raw: Any, where: str, options: ReadOptions) -> InputAnswer:
    item = mapping(raw, where)
    prefix = "" if where == "$" else f"{where}."
    for field in ("output", "docs"):
        if field not in item:
            raise AnswerFormatError(f"looks like an ALCE output, but '{field}' is missing", where=prefix + field)
    text = string(item["output"], prefix + "output", non_empty=False) or ""
    passages = PassageList()
    refs = [_document(doc, f"{prefix}docs[{i}]", options, passages)
            for i, doc in enumerate(array(item["docs"], prefix + "docs"))]
    claims = marked_claims(text, refs, options.limits, prefix + "output", all_when_unmarked=False)
    answer_id = next((str(item[k]) for k in _ID_KEYS if isinstance(item.get(k), str | int)
                      and not isinstance(item.get(k), bool) and str(item[k]).strip()), None)
    question = string(item.get("question"), prefix + "question", optional=True, non_empty=False)
    return finish(answer_id, question, tuple(claims), "alce", [], passages.as_tuple())


def _document(raw: Any, where: str, options: ReadOptions, passages: PassageList) -> CitationRef:
    doc = mapping(raw, where)
    text = string(doc.get("text"), f"{where}.text", optional=True, non_empty=False)
    has_text = bool(text and text.strip())
    if "title" not in doc and "id" not in doc and not has_text:
        raise AnswerFormatError("an ALCE document needs a 'title' (or an 'id' in the source map)",
                                where=f"{where}.title")
    title = string(doc.get("title"), f"{where}.title", optional=True, non_empty=False)
    doc_id = doc.get("id")
    source = options.source_for(title, str(doc_id) if isinstance(doc_id, str | int) and not isinstance(
        doc_id, bool) else None)
    index = passages.add(text, f"{where}.text", name=source, title=title)
    if source is None and index is None:
        raise AnswerFormatError("an ALCE document needs a non-empty 'title'", where=f"{where}.title")
    return passages.cite(CitationRef(source=source) if source else None, index)
