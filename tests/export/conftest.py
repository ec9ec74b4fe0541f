"""Fixtures for the export tests: the lineage corpus store (built once) and cached exports per format."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphcite.store import Store

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = ROOT.parent / "shared"
WEB_ANNOTATION_TESTS = SHARED / "interop" / "web-annotation-tests"
AXE = HERE / "node" / "node_modules" / "axe-core" / "axe.min.js"


def _load_corpus_module() -> Any:
    """tests/graph/lineage_corpus.py, loaded by path (test folders are not packages)."""
    name = "lineage_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "graph" / "lineage_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load_corpus_module()


@pytest.fixture(scope="session")
def export_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("export-store")
    report = corpus.build_store(root / "export.duckdb", root / "corpus")
    return root / "export.duckdb", report


@pytest.fixture(scope="session")
def export_store(export_db: tuple[Path, dict[str, Any]]) -> Iterator[Store]:
    with Store(export_db[0], read_only=True) as store:
        yield store


@pytest.fixture(scope="session")
def export_report(export_db: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    return export_db[1]


@pytest.fixture(scope="session")
def exported(export_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``exported(fmt, audience="internal", **selection)`` -> path of the export (cached per session)."""
    from graphcite.export import export

    folder = tmp_path_factory.mktemp("exports")
    cache: dict[tuple[Any, ...], Path] = {}
    suffix = {"graphml": ".graphml", "gexf": ".gexf", "html": ".html", "parquet": ""}

    def run(fmt: str, audience: str = "internal", **selection: Any) -> Path:
        selection = selection or {"answer": "lineage-demo"}
        key = (fmt, audience, tuple(sorted(selection.items())))
        if key not in cache:
            name = f"{fmt}-{audience}-{len(cache)}{suffix.get(fmt, '.json')}"
            export(export_store, fmt, folder / name, audience=audience, **selection)
            cache[key] = folder / name
        return cache[key]

    return run


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    binary = chromium_binary()
    if binary is None:
        pytest.skip("chromium is not installed (run .ci/browser-deps.sh)")
    return binary


@pytest.fixture(scope="session")
def axe_script() -> Path:
    if not AXE.exists():
        pytest.skip("axe-core is not installed in tests/export/node (run .ci/browser-deps.sh)")
    return AXE


@pytest.fixture(scope="session")
def web_annotation_tests() -> Path:
    if not (WEB_ANNOTATION_TESTS / "annotations" / "annotationMusts.test").exists():
        pytest.skip("../shared/interop/web-annotation-tests is absent (it sits beside the project in CI)")
    return WEB_ANNOTATION_TESTS


@pytest.fixture(scope="session")
def restricted_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """(DuckDB file, internal check report) for the restricted-leak corpus (tests/export/restricted_corpus.py)."""
    import restricted_corpus

    root = tmp_path_factory.mktemp("restricted-store")
    report = restricted_corpus.build_store(root / "restricted.duckdb", root / "corpus")
    return root / "restricted.duckdb", report


@pytest.fixture(scope="session")
def restricted_store(restricted_db: tuple[Path, dict[str, Any]]) -> Iterator[Store]:
    with Store(restricted_db[0], read_only=True) as store:
        yield store
