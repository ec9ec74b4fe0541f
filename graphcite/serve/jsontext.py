"""JSON bodies as the service sends them: non-ASCII kept, dates as strings, non-finite floats as null."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

__all__ = ["json_text"]


def json_text(content: Any, *, default: Callable[[Any], Any] = str) -> str:
    """``content`` as JSON text; NaN and infinities become ``null`` so the text is always valid JSON.
    Values JSON has no type for are written as ``default`` gives them (their ``str`` by default).

    Most content holds no such float: it is encoded in one pass, and walked only when it does.
    """
    try:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, default=default)
    except ValueError:
        return json.dumps(_finite(content), ensure_ascii=False, default=default)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
