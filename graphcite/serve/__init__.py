"""``graphcite serve``: the verification service and the review app, thin layers over the library.

The JSON API (:mod:`graphcite.serve.api`) and the review pages (:mod:`graphcite.serve.review`) call the
same functions as the command line; :func:`create_app` wraps them in one ASGI app that holds one
store for its lifetime (:class:`Service`: pooled read views, one write lock). The names below are
imported on first use, so ``graphcite.cli.serve`` (loaded by every command-line run) stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Service", "ServiceSettings", "chain_svg", "create_app"]

_HOMES = {"Service": "graphcite.serve.service", "ServiceSettings": "graphcite.serve.service",
          "chain_svg": "graphcite.serve.svg", "create_app": "graphcite.serve.app"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'graphcite.serve' has no attribute {name!r}")
