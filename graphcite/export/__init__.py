"""Export: the evidence graph of a claim, an answer or the whole store in one of several formats.

One module per format. Every format starts from the same graph (:func:`graphcite.graph.build_graph`),
so the audience rules apply once: with ``audience="public"`` restricted sources lose their text,
identifiers, kinds and lineage in every format, the claims that relied on them are marked, and a claim
whose text states what only a restricted source says is withheld (see :mod:`graphcite.graph.redact`).
Every format writes through :mod:`graphcite.export.output`, the one place that decides how ``--out``
is written (atomic replace, streams, symlinks, permissions, stale temporary files).
"""

from __future__ import annotations

import os
from typing import Any

import networkx as nx

from graphcite.errors import make_error
from graphcite.export.output import (
    OutputTarget,
    check_max_quote_chars,
    clean_stale,
    open_output,
    output_folder,
    output_target,
)
from graphcite.export.registry import Exporter, format_names, get_exporter
from graphcite.graph.build import build_graph, check_audience, select
from graphcite.store import Store

__all__ = ["FORMATS", "OutputTarget", "check_output", "clean_stale", "export", "export_graph", "open_output",
           "output_folder"]

#: the bundled formats (every registered one is accepted: :mod:`graphcite.export.registry`)
FORMATS = ("graphml", "gexf", "cytoscape", "json", "prov", "webanno", "html", "parquet")


def check_output(out_path: str | os.PathLike[str], *, folder: bool = False,
                 follow_symlinks: bool = False) -> OutputTarget:
    """The checked output target (see :mod:`graphcite.export.output`); OutputError when it cannot be written."""
    return output_target(out_path, folder=folder, follow_symlinks=follow_symlinks)


def _check_format(fmt: str, *, graph_only: bool = False) -> Exporter:
    """The registered exporter of ``fmt``; E105 naming every accepted format when there is none."""
    found = get_exporter(fmt)
    if found is None or (graph_only and not found.info.graph):
        raise make_error("E105", where="--format", what="format", value=fmt,
                         choices=", ".join(format_names(graph_only=graph_only)))
    return found


def export_graph(store: Store, G: nx.MultiDiGraph, fmt: str, out_path: str | os.PathLike[str] | OutputTarget, *,
                 follow_symlinks: bool = False) -> dict[str, Any]:
    """Write an already built graph in ``fmt``; returns a summary (format, path, counts, warnings)."""
    found = _check_format(fmt, graph_only=True)
    target = out_path if isinstance(out_path, OutputTarget) else check_output(out_path, follow_symlinks=follow_symlinks)
    summary = found.write(store, G, target)
    warnings = [*G.graph.get("warnings", []), *summary.pop("warnings", [])]
    return {"format": fmt, "path": str(target), "audience": G.graph["audience"], "claims": len(G.graph["claim_order"]),
            "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "withheld_claims": G.graph.get("withheld_claims", 0),
            **summary, "warnings": warnings}


def cap_excerpts(G: nx.MultiDiGraph, limit: int) -> int:
    """Shorten every quote and unit text in ``G`` to ``limit`` code points (in place); returns how many.

    A shortened value keeps its first ``limit`` code points and gains ``<key>_chars`` (its full length)
    and ``excerpt_shortened``; the node's offsets still name the whole span. The HTML page places its
    own window around the quote (:func:`graphcite.export.output.excerpt_window`).
    """
    shortened = 0
    for _, data in G.nodes(data=True):
        for key in ("quote", "text"):
            value = data.get(key)
            if isinstance(value, str) and len(value) > limit:
                data[key] = value[:limit]
                data[f"{key}_chars"] = len(value)
                data["excerpt_shortened"] = True
                shortened += 1
    return shortened


def export(store: Store, fmt: str, out_path: str | os.PathLike[str], *, claim: str | None = None,
           answer: str | None = None, all: bool = False, audience: str = "internal",
           follow_symlinks: bool = False, max_quote_chars: int | None = None) -> dict[str, Any]:
    """Export the graph of a claim, an answer or every claim (``all``) to ``out_path`` in format ``fmt``.

    Formats: graphml, gexf (1.2), cytoscape (Cytoscape.js elements), json (node-link), prov (PROV-JSON),
    webanno (W3C Web Annotation JSON-LD), html (a self-contained review page), parquet (a folder with
    one file per table).

    ``out_path`` may be a new or existing file (replaced atomically), a FIFO or character device or
    ``-`` (written as a stream), or a folder for parquet (replaced as a whole); a symlink is refused
    unless ``follow_symlinks``. See :mod:`graphcite.export.output`.
    ``max_quote_chars`` (default 500) bounds how much of a source any graph export reproduces per quote
    or unit text; a parquet export is a copy of the store's tables for analysis and keeps full texts.
    """
    found = _check_format(fmt)
    check_audience(audience)
    limit = check_max_quote_chars(max_quote_chars)
    target = check_output(out_path, folder=found.info.folder, follow_symlinks=follow_symlinks)
    selection = select(store, claim=claim, answer=answer, all=all)
    if not found.info.graph:  # a copy of the store's rows (parquet), not the evidence graph
        return found.write(store, selection, target, audience=audience)
    G = build_graph(store, selection=selection, audience=audience)
    G.graph["max_quote_chars"] = limit
    if found.info.caps_excerpts:  # the HTML page cuts its own window around each quote
        cap_excerpts(G, limit)
    return export_graph(store, G, fmt, target)
