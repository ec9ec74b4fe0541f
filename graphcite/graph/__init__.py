"""Graph: networkx projections of the store and the questions asked of them.

Support chains (what a claim rests on, up to its primary authorities), independence (attestations
against independent authorities) and conflicts (current sources that disagree). Every question about
one claim or answer builds only that neighbourhood, with a few bulk queries.
"""

from __future__ import annotations

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
from graphcite.graph.conflicts import conflicts
from graphcite.graph.independence import audit_independence, independence, primary_authorities

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
