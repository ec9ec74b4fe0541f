"""Claims: answers in any accepted format -> atomic claims with qualifiers, stored as immutable revisions."""

from __future__ import annotations

from graphcite.claims.answers import (
    add_answer,
    answer_parts,
    atomic_to_dict,
    get_answer,
    list_answers,
    parts_for,
)
from graphcite.claims.decompose import decompose
from graphcite.claims.formats import answer_to_dict, load_answer

__all__ = ["add_answer", "answer_parts", "answer_to_dict", "atomic_to_dict", "decompose", "get_answer",
           "list_answers", "load_answer", "parts_for"]
