"""The registry of export formats: a format is one module in :mod:`graphcite.export` and one registration.

Two kinds of exporter, told apart by what they are given:

- a *graph* exporter writes the evidence graph (:func:`graphcite.graph.build_graph`, audience rules
  already applied): ``write(store, G, target) -> summary``;
- a *store* exporter copies the store's rows for a selection (parquet):
  ``write(store, selection, target, *, audience) -> summary``.

A new format is a module here whose writer carries ``@exporter(ExportFormat(...))``; the first look-up
imports every module of the package, so nothing else is edited. The bundled formats are registered
below by module and function name, so listing the formats (``graphcite export --help``) imports none of
their dependencies (pyarrow, prov, lxml); each is imported when it is first used.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ExportFormat", "Exporter", "exporter", "exporters", "format_names", "get_exporter", "register_lazy"]

Writer = Callable[..., dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One export format: its name (``--format``), what it writes, and how :func:`graphcite.export.export`
    treats it.

    ``graph``: it writes the evidence graph (False: it copies the store's rows, as parquet does);
    ``folder``: its output is a folder, not a file; ``caps_excerpts``: quotes and unit texts are cut
    to ``max_quote_chars`` before it writes (False for a writer that places its own window, as the HTML
    page does); ``suffix``: the usual file name ending; ``order``: its place in listings.
    """

    name: str
    title: str
    graph: bool = True
    folder: bool = False
    caps_excerpts: bool = True
    suffix: str = ""
    order: int = 100


@dataclass(frozen=True, slots=True)
class Exporter:
    """A registered format and its writer: the function itself (``@exporter``) or its module and name
    (:func:`register_lazy`, imported on first use)."""

    info: ExportFormat
    module: str
    function: str
    loaded: Writer | None = None

    @property
    def name(self) -> str:
        return self.info.name

    def writer(self) -> Writer:
        """The writer function, imported now if it was registered by name."""
        if self.loaded is not None:
            return self.loaded
        found = getattr(importlib.import_module(self.module), self.function)
        return found  # type: ignore[no-any-return]

    def write(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Write with this format's writer (see the module docstring for the two signatures)."""
        return self.writer()(*args, **kwargs)


_REGISTRY: dict[str, Exporter] = {}
_DISCOVERED = False
_NOT_EXPORTERS = frozenset({"registry", "output"})  # modules of the package that write no format


def _register(found: Exporter) -> None:
    known = _REGISTRY.get(found.name)
    if known is not None and (known.info, known.module, known.function) != (found.info, found.module, found.function):
        raise ValueError(f"export format {found.name!r} is registered twice")
    _REGISTRY[found.name] = found


def register_lazy(info: ExportFormat, module: str, function: str) -> None:
    """Register a writer by module and function name; it is imported when the format is first used."""
    _register(Exporter(info, module, function))


def exporter(info: ExportFormat) -> Callable[[Writer], Writer]:
    """Register the decorated writer as export format ``info.name``."""

    def register(writer: Writer) -> Writer:
        _register(Exporter(info, writer.__module__, writer.__qualname__, writer))
        return writer

    return register


def _discover() -> None:
    """Import the package's modules that are not registered yet, so their ``@exporter`` writers register."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    import graphcite.export as package

    known = {e.module for e in _REGISTRY.values()}
    for module in pkgutil.iter_modules(package.__path__):
        name = f"{package.__name__}.{module.name}"
        if module.name not in _NOT_EXPORTERS and name not in known:
            importlib.import_module(name)


def exporters() -> tuple[Exporter, ...]:
    """Every registered export format, in listing order."""
    _discover()
    return tuple(sorted(_REGISTRY.values(), key=lambda e: (e.info.order, e.name)))


def format_names(*, graph_only: bool = False) -> tuple[str, ...]:
    """The names accepted by ``--format`` (``graph_only``: those that write the evidence graph)."""
    return tuple(e.name for e in exporters() if e.info.graph or not graph_only)


def get_exporter(name: str) -> Exporter | None:
    """The exporter registered as ``name``, or None."""
    if name not in _REGISTRY:
        _discover()
    return _REGISTRY.get(name)


# the bundled formats, by name (their modules import networkx, lxml, prov or pyarrow: only when used)
for _info, _module, _function in (
    (ExportFormat("graphml", "GraphML (yEd, Gephi, networkx)", suffix=".graphml", order=10),
     "networkx_formats", "write_graphml"),
    (ExportFormat("gexf", "GEXF 1.2 (Gephi)", suffix=".gexf", order=20), "networkx_formats", "write_gexf"),
    (ExportFormat("cytoscape", "Cytoscape.js elements (JSON)", suffix=".json", order=30),
     "networkx_formats", "write_cytoscape"),
    (ExportFormat("json", "networkx node-link JSON", suffix=".json", order=40), "networkx_formats",
     "write_node_link"),
    (ExportFormat("prov", "W3C PROV-JSON", suffix=".json", order=50), "prov", "write_prov"),
    (ExportFormat("webanno", "W3C Web Annotation JSON-LD", suffix=".jsonld", order=60), "webanno", "write_webanno"),
    (ExportFormat("html", "a self-contained review page", caps_excerpts=False, suffix=".html", order=70),
     "html", "write_html"),
    (ExportFormat("parquet", "one Parquet file per table (a folder)", graph=False, folder=True, order=80),
     "parquet", "write_parquet"),
):
    register_lazy(_info, f"graphcite.export.{_module}", _function)
