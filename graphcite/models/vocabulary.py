"""The closed vocabularies the tables and value types use: statuses, kinds, relations, value kinds."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "BLOCK_TYPES",
    "CLAIM_TYPES",
    "KINDS",
    "LINK_RELATIONS",
    "RELATIONS",
    "STATUSES",
    "Bound",
    "ValueKind",
]


STATUSES = ("current", "superseded", "historical", "proposal", "rejected", "forbidden", "draft")
KINDS = ("decision", "incident", "manual", "note", "post", "contract", "code", "test", "observation",
         "registry", "manifest")
BLOCK_TYPES = ("heading", "paragraph", "list_item", "table_row", "block_quote", "code")
LINK_RELATIONS = ("derived_from", "quotes", "implements", "supersedes", "revision_of", "supersedes_cycle")
RELATIONS = ("supports", "contradicts", "contextualizes", "mentions", "insufficient")
CLAIM_TYPES = ("direct", "synthesis", "inference", "proposal", "background")

ValueKind = Literal["quantity", "count", "percent", "money", "temperature", "duration", "date",
                    "version", "revision", "number"]
Bound = Literal["exact", "max", "min", "approx", "range"]
