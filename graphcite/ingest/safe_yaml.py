"""A YAML loader for metadata that a hostile file cannot crash, hang or blow up.

Front matter and sidecars are small mappings written by people, so the loader is strict where
PyYAML's safe loader is lenient:

- dates stay strings (no timestamp resolver), so ``2024-02-30`` or a bad hour never raises while
  loading; keys that hold a date validate it themselves;
- a key written twice in one mapping is an error (PyYAML keeps the last one silently);
- the composed node graph is checked before anything is built: a recursive alias
  (``a: &a [*a]``), more than :data:`MAX_ALIASES` alias uses, more than :data:`MAX_NODES` nodes
  after alias expansion ("billion laughs") or nesting deeper than :data:`MAX_DEPTH` is refused,
  and so is a text with a lone surrogate (``"\\ud800"``), which cannot be stored as UTF-8;
- integers longer than :data:`MAX_INT_CHARS` characters and non-finite floats are refused or kept
  as written, so nothing slow or unstorable reaches the store;
- documents over :data:`MAX_YAML_CHARS` characters are refused before parsing.

Every refusal is a :class:`YamlProblem` carrying the code-point index where it was found, so the
caller can name the file line.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = [
    "MAX_ALIASES",
    "MAX_DEPTH",
    "MAX_INT_CHARS",
    "MAX_NODES",
    "MAX_YAML_CHARS",
    "YamlProblem",
    "load_yaml",
]

MAX_YAML_CHARS = 1_000_000
MAX_NODES = 1_000_000
MAX_ALIASES = 1_000
MAX_DEPTH = 100
MAX_INT_CHARS = 100

_SURROGATE = re.compile("[\ud800-\udfff]")
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


class YamlProblem(ValueError):
    """Why a YAML text was refused, and the code-point index in it where the problem is (if known)."""

    def __init__(self, problem: str, index: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.index = index


class _StrictConstructor:
    """Constructor overrides shared by the C and the pure-Python loader classes."""

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE:
                    continue
                key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
                try:
                    duplicate = key in seen
                except TypeError:
                    continue  # an unhashable key; the base class reports it
                if duplicate:
                    raise ConstructorError("while constructing a mapping", node.start_mark,
                                           f"duplicate key {_shown(key)}", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]

    def construct_yaml_int(self, node: ScalarNode) -> Any:
        if len(str(node.value)) > MAX_INT_CHARS:
            raise ConstructorError(None, None, f"integer longer than {MAX_INT_CHARS} characters",
                                   node.start_mark)
        return super().construct_yaml_int(node)  # type: ignore[misc]

    def construct_yaml_float(self, node: ScalarNode) -> Any:
        value = super().construct_yaml_float(node)  # type: ignore[misc]
        return value if math.isfinite(value) else str(node.value)

    def construct_as_text(self, node: ScalarNode) -> str:
        return str(self.construct_scalar(node))  # type: ignore[attr-defined]


def _strict_loader(base: type[Any]) -> type[Any]:
    """``base`` (a safe loader) without the timestamp resolver and with the strict constructors."""
    name = f"Metadata{base.__name__}"
    loader: type[Any] = type(name, (_StrictConstructor, base), {})
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.yaml_constructors = dict(base.yaml_constructors)
    loader.add_constructor("tag:yaml.org,2002:int", _StrictConstructor.construct_yaml_int)
    loader.add_constructor("tag:yaml.org,2002:float", _StrictConstructor.construct_yaml_float)
    loader.add_constructor(_TIMESTAMP, _StrictConstructor.construct_as_text)
    return loader


_PURE_LOADER = _strict_loader(yaml.SafeLoader)
# libyaml's parser when PyYAML was built with it (ten times faster); the pure one gives exact marks.
_FAST_LOADER = _strict_loader(yaml.CSafeLoader) if hasattr(yaml, "CSafeLoader") else _PURE_LOADER


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _index(node: Node) -> int | None:
    mark = node.start_mark
    return mark.index if mark is not None else None


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _check_node_graph(root: Node) -> None:
    """Refuse recursive aliases, too many aliases, too many nodes after expansion, deep nesting, surrogates.

    Walks the composed graph once without recursion; a node reached again is an alias use, and a
    node reached again while it is still open is a recursive alias. Expanded sizes are summed per
    node, so a billion-laughs document is refused after a few dozen steps.
    """
    expanded: dict[int, int] = {}
    open_nodes: set[int] = set()
    aliases = 0
    stack: list[tuple[Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, closing = stack.pop()
        ident = id(node)
        if closing:
            total = 1 + sum(expanded[id(child)] for child in _children(node))
            if total > MAX_NODES:
                raise YamlProblem(f"aliases expand to more than {MAX_NODES:,} values", _index(node))
            expanded[ident] = total
            open_nodes.discard(ident)
            continue
        if ident in open_nodes:
            raise YamlProblem("recursive alias (an anchor used inside itself)", _index(node))
        if ident in expanded:
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YamlProblem(f"more than {MAX_ALIASES:,} alias uses", _index(node))
            continue
        if depth > MAX_DEPTH:
            raise YamlProblem(f"nested more than {MAX_DEPTH} levels deep", _index(node))
        if isinstance(node, ScalarNode):
            _check_scalar(node)
            expanded[ident] = 1
            continue
        open_nodes.add(ident)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in reversed(_children(node)))


def _check_scalar(node: ScalarNode) -> None:
    found = _SURROGATE.search(str(node.value))
    if found is not None:
        raise YamlProblem(f"lone surrogate U+{ord(found.group()):04X} (not a character; cannot be stored)",
                          _index(node))


def load_yaml(text: str, *, exact_marks: bool = False) -> Any:
    """The Python value of the single YAML document ``text`` (None when it is empty).

    Raises :class:`YamlProblem` for what this module refuses and :class:`yaml.YAMLError` for
    syntax errors. ``exact_marks`` uses the pure-Python parser, whose error marks always count
    code points (use it to locate an error the fast parser found).
    """
    if len(text) > MAX_YAML_CHARS:
        raise YamlProblem(f"YAML is {len(text):,} characters; the limit is {MAX_YAML_CHARS:,}")
    loader = (_PURE_LOADER if exact_marks else _FAST_LOADER)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()
