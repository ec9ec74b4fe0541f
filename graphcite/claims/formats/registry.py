"""The registry of answer formats: a format is one module here that registers its reader once.

``@answer_format(FormatInfo(...), detect=looks_like_x, order=..)`` on a reader function adds a format:
:mod:`graphcite.claims.formats` imports every module of the package, so nothing else is edited.
``order`` places the format in ``graphcite formats``; ``detect_order`` (default ``order``) places its
``detect`` test among the others, since a loose test (LangChain's ``answer``) must run after the
specific ones (RAGAS's ``contexts``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphcite.claims.formats.common import ReadOptions
from graphcite.models import InputAnswer

__all__ = ["AnswerFormat", "FormatInfo", "Reader", "TextReader", "answer_format", "detection_order", "formats",
           "get_format"]

Reader = Callable[[Any, ReadOptions], InputAnswer]
TextReader = Callable[[str, ReadOptions], InputAnswer]


@dataclass(frozen=True, slots=True)
class FormatInfo:
    """One accepted answer format: what it is, what it reads, its offset unit, its example and schema."""

    name: str
    title: str
    reads: str
    offsets: str
    example: str
    schema: str


@dataclass(frozen=True, slots=True)
class AnswerFormat:
    """A registered format: its description, its reader (parsed JSON, or text for a text format) and its
    detection test (None: chosen only by name, or by the reader of the format that owns its key)."""

    info: FormatInfo
    read: Reader | None
    read_text: TextReader | None
    detect: Callable[[Mapping[str, Any]], bool] | None
    order: int
    detect_order: int


_REGISTRY: dict[str, AnswerFormat] = {}


def answer_format(info: FormatInfo, *, order: int, detect: Callable[[Mapping[str, Any]], bool] | None = None,
                  detect_order: int | None = None, text: bool = False) -> Callable[[Callable[..., InputAnswer]],
                                                                                  Callable[..., InputAnswer]]:
    """Register the decorated reader as format ``info.name`` (``text=True``: it reads plain text)."""

    def register(reader: Callable[..., InputAnswer]) -> Callable[..., InputAnswer]:
        if info.name in _REGISTRY and _REGISTRY[info.name].info != info:
            raise ValueError(f"answer format {info.name!r} is registered twice")
        _REGISTRY[info.name] = AnswerFormat(info, None if text else reader, reader if text else None, detect, order,
                                            order if detect_order is None else detect_order)
        return reader

    return register


def formats() -> tuple[AnswerFormat, ...]:
    """Every registered format, in listing order."""
    return tuple(sorted(_REGISTRY.values(), key=lambda f: (f.order, f.info.name)))


def detection_order() -> tuple[AnswerFormat, ...]:
    """The formats with a detection test, most specific first."""
    return tuple(sorted((f for f in _REGISTRY.values() if f.detect is not None),
                        key=lambda f: (f.detect_order, f.info.name)))


def get_format(name: str) -> AnswerFormat | None:
    return _REGISTRY.get(name)
