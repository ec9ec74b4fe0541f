"""The closed vocabularies the tables and value types use: statuses, kinds, relations, value kinds."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "BLOCK_TYPES",
    "CLAIM_TYPES",
    "KINDS",
    "LINEAGE_RELATIONS",
    "LINK_RELATIONS",
    "RELATIONS",
    "SOURCE_RELATIONS",
    "STATUSES",
    "Bound",
    "ValueKind",
]


STATUSES = ("current", "superseded", "historical", "proposal", "rejected", "forbidden", "draft")
KINDS = ("decision", "incident", "manual", "note", "post", "contract", "code", "test", "observation",
         "registry", "manifest")
BLOCK_TYPES = ("heading", "paragraph", "list_item", "table_row", "block_quote", "code")
#: links a lineage walk follows upward (a source derived from, quoting or implementing another)
LINEAGE_RELATIONS = ("derived_from", "quotes", "implements")
#: links a source declares: its lineage and the sources it supersedes
SOURCE_RELATIONS = (*LINEAGE_RELATIONS, "supersedes")
LINK_RELATIONS = (*SOURCE_RELATIONS, "revision_of", "supersedes_cycle")
RELATIONS = ("supports", "contradicts", "contextualizes", "mentions", "insufficient")
CLAIM_TYPES = ("direct", "synthesis", "inference", "proposal", "background")

ValueKind = Literal["quantity", "count", "percent", "money", "temperature", "duration", "date",
                    "version", "revision", "number"]
Bound = Literal["exact", "max", "min", "approx", "range"]
