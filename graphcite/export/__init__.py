"""Export: the evidence graph of a claim, an answer or the whole store in one of several formats.

One module per format. Every format starts from the same graph (:func:`graphcite.graph.build_graph`),
so the audience rules apply once: with ``audience="public"`` restricted sources lose their text and
identifiers in every format, and the claims that relied on them are marked.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import networkx as nx

from graphcite.errors import GraphciteError, OutputError
from graphcite.graph.build import build_graph, check_audience, select
from graphcite.store import Store

__all__ = ["FORMATS", "atomic_write", "check_output", "export", "export_graph"]

FORMATS = ("graphml", "gexf", "cytoscape", "json", "prov", "webanno", "html", "parquet")


def check_output(out_path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """The output path, after checking its folder exists and is writable (OutputError otherwise)."""
    path = Path(out_path).expanduser()
    parent = path.parent.resolve()
    if not parent.is_dir():
        raise OutputError("folder does not exist", where=str(parent), fix="create the folder or choose another --out")
    if not os.access(parent, os.W_OK):
        raise OutputError("folder is not writable", where=str(parent), fix="choose a writable --out")
    if folder:
        if path.exists() and not path.is_dir():
            raise OutputError("parquet output must be a folder, but a file is there", where=str(path),
                              fix="pass a folder path to --out")
        if path.is_dir() and not os.access(path, os.W_OK):
            raise OutputError("folder is not writable", where=str(path), fix="choose a writable --out")
    elif path.is_dir():
        raise OutputError("is a folder; a file name is needed", where=str(path), fix="pass e.g. --out graph.json")
    elif path.exists() and not os.access(path, os.W_OK):
        raise OutputError("file is not writable", where=str(path), fix="choose another --out")
    return path


@contextlib.contextmanager
def atomic_write(path: Path, mode: str = "w") -> Iterator[Any]:
    """Write to a temporary file beside ``path`` and move it into place, so a failure leaves no half file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as handle:
            yield handle
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"cannot write: {exc.strerror or exc}", where=str(path), fix="check the path") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _writers() -> dict[str, Callable[..., dict[str, Any]]]:
    from graphcite.export import html, networkx_formats, prov, webanno

    return {
        "graphml": networkx_formats.write_graphml,
        "gexf": networkx_formats.write_gexf,
        "cytoscape": networkx_formats.write_cytoscape,
        "json": networkx_formats.write_node_link,
        "prov": prov.write_prov,
        "webanno": webanno.write_webanno,
        "html": html.write_html,
    }


def export_graph(store: Store, G: nx.MultiDiGraph, fmt: str, out_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write an already built graph in ``fmt``; returns a summary (format, path, counts)."""
    if fmt not in FORMATS or fmt == "parquet":
        raise GraphciteError(f"unknown graph format {fmt!r}", where="--format", fix=f"use one of {', '.join(FORMATS)}")
    path = check_output(out_path)
    summary = _writers()[fmt](store, G, path)
    return {"format": fmt, "path": str(path), "audience": G.graph["audience"], "claims": len(G.graph["claim_order"]),
            "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), **summary}


def export(store: Store, fmt: str, out_path: str | os.PathLike[str], *, claim: str | None = None,
           answer: str | None = None, all: bool = False, audience: str = "internal") -> dict[str, Any]:
    """Export the graph of a claim, an answer or every claim (``all``) to ``out_path`` in format ``fmt``.

    Formats: graphml, gexf (1.2), cytoscape (Cytoscape.js elements), json (node-link), prov (PROV-JSON),
    webanno (W3C Web Annotation JSON-LD), html (a self-contained review page), parquet (a folder with
    one file per table).
    """
    if fmt not in FORMATS:
        raise GraphciteError(f"unknown format {fmt!r}", where="--format", fix=f"use one of {', '.join(FORMATS)}")
    check_audience(audience)
    check_output(out_path, folder=fmt == "parquet")
    selection = select(store, claim=claim, answer=answer, all=all)
    if fmt == "parquet":
        from graphcite.export.parquet import write_parquet

        return write_parquet(store, selection, Path(out_path).expanduser(), audience=audience)
    G = build_graph(store, selection=selection, audience=audience)
    return export_graph(store, G, fmt, out_path)
