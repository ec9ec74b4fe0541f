"""Graph: networkx projections of the store and the questions asked of them.

Support chains (what a claim rests on, up to its primary authorities), independence (attestations
against independent authorities) and conflicts (current sources that disagree). Every question about
one claim or answer builds only that neighbourhood, with a few bulk queries.

:func:`conflicts` reads sentences with the verifier's language (spaCy, pint); it is imported on first
use, so a chain or an audit of independence never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphcite.graph.build import (
    EDGE_KINDS,
    LINEAGE_RELATIONS,
    NODE_KINDS,
    Redactor,
    Selection,
    build_graph,
    latest_verifications,
    resolve_ref,
    select,
)
from graphcite.graph.chain import chain, claim_tree, source_tree
from graphcite.graph.independence import audit_independence, independence, primary_authorities

if TYPE_CHECKING:
    from graphcite.graph.conflicts import conflicts

__all__ = [
    "EDGE_KINDS",
    "LINEAGE_RELATIONS",
    "NODE_KINDS",
    "Redactor",
    "Selection",
    "audit_independence",
    "build_graph",
    "chain",
    "claim_tree",
    "conflicts",
    "independence",
    "latest_verifications",
    "primary_authorities",
    "resolve_ref",
    "select",
    "source_tree",
]


def __getattr__(name: str) -> Any:
    """``conflicts``, imported with the language it reads on first use."""
    if name == "conflicts":
        from graphcite.graph.conflicts import conflicts

        globals()[name] = conflicts
        return conflicts
    raise AttributeError(f"module 'graphcite.graph' has no attribute {name!r}")
