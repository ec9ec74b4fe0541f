"""The markers format: plain text, one claim per sentence, ``[n]`` markers into a ``Passages:`` list,
``[key:start-end]`` inline, and ``[key]`` or ``[key@REV]`` for a path-like key without offsets (a citation
located in that source) (parsed by :mod:`graphcite.claims.markers`)."""

from __future__ import annotations

from dataclasses import replace

from graphcite.claims.formats.common import SPACY_MAX_LENGTH, ReadOptions, check_text, finish
from graphcite.claims.formats.registry import FormatInfo, answer_format
from graphcite.claims.markers import parse_markers
from graphcite.errors import make_error
from graphcite.models import InputAnswer

__all__ = ["read_markers"]


@answer_format(FormatInfo("markers", "plain text with markers", "one claim per sentence; [n] into a Passages: list, "
                          "[key:start-end] inline, [key] located in that source", "code points", "markers.txt", ""), order=40, text=True)
def read_markers(text: str, options: ReadOptions) -> InputAnswer:
    """Read marker text (the only format that is not JSON)."""
    if not text.lstrip("\ufeff \t\r\n"):
        raise make_error("E208", where="$")
    check_text(text, "$")
    limits = options.limits
    parsed = parse_markers(text, options.documents,
                           max_claim_chars=min(limits.max_claim_chars or SPACY_MAX_LENGTH, SPACY_MAX_LENGTH))
    limits.check_claims(len(parsed.claims), where="$")
    claims = parsed.claims
    if options.source_map:
        claims = tuple(replace(c, citations=tuple(replace(r, source=options.source_for(r.source))
                                                  if r.source else r for r in c.citations)) for c in claims)
    return finish(parsed.answer_id, parsed.question, claims, "markers", options.documents or [])
