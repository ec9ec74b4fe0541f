"""Python parser: one code unit per definition with qualified symbols, full coverage, build role."""

from __future__ import annotations

import keyword

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import IngestError
from graphcite.ingest import python_code
from graphcite.ingest.text import line_number, line_starts
from graphcite.models import ParsedDocument


def assert_units_valid(doc: ParsedDocument) -> None:
    previous_end = 0
    starts = line_starts(doc.text)
    for unit in doc.units:
        assert 0 <= unit.start < unit.end <= len(doc.text)
        assert unit.start >= previous_end
        surface = doc.text[unit.start : unit.end]
        assert surface and surface == surface.strip()
        assert unit.block_type == "code" and unit.symbol
        assert unit.line_start == line_number(starts, unit.start)
        assert unit.line_end == line_number(starts, unit.end - 1)
        previous_end = unit.end


def assert_every_visible_character_is_covered(doc: ParsedDocument) -> None:
    covered = sum(u.end - u.start for u in doc.units)
    inside_whitespace = sum(ch.isspace() for u in doc.units for ch in doc.text[u.start : u.end])
    assert covered - inside_whitespace == sum(not ch.isspace() for ch in doc.text)


SOURCE = '''#!/usr/bin/env python
"""Retry client.

Calls the payment API with bounded retries."""
import time

MAX_RETRIES = 3


@dataclass
@other(1)
class Client:
    """A client."""

    timeout_ms = 30

    def send(self, request):
        def attempt():
            return 1

        return attempt()

    async def close(self):
        pass

    tail = "after methods"


def helper(): return 2
# trailing comment
'''


def test_symbols_lines_and_spans() -> None:
    doc = python_code.parse(SOURCE, where="pkg/client.py", path="pkg/client.py")
    assert doc.format == "python" and doc.build_role == "source"
    rows = [(u.symbol, u.line_start, u.line_end, doc.text[u.start : u.end].splitlines()[0]) for u in doc.units]
    assert rows == [
        ("pkg.client", 1, 1, "#!/usr/bin/env python"),
        ("pkg.client", 2, 4, '"""Retry client.'),
        ("pkg.client", 5, 7, "import time"),
        ("Client", 10, 15, "@dataclass"),
        ("Client.send", 17, 17, "def send(self, request):"),
        ("Client.send.attempt", 18, 19, "def attempt():"),
        ("Client.send", 21, 21, "return attempt()"),
        ("Client.close", 23, 24, "async def close(self):"),
        ("Client", 26, 26, 'tail = "after methods"'),
        ("helper", 29, 29, "def helper(): return 2"),
        ("pkg.client", 30, 30, "# trailing comment"),
    ]
    assert_units_valid(doc)
    assert_every_visible_character_is_covered(doc)


def test_decorators_belong_to_their_definition() -> None:
    doc = python_code.parse(SOURCE, where="c.py")
    client = next(u for u in doc.units if u.symbol == "Client")
    assert doc.text[client.start : client.end].startswith("@dataclass\n@other(1)\nclass Client:")


def test_crlf_source() -> None:
    source = '"""Doc."""\r\n\r\ndef f():\r\n    return 1\r\n\r\nclass A:\r\n    def m(self):\r\n        pass\r\n'
    doc = python_code.parse(source, where="m.py")
    assert [(u.symbol, doc.text[u.start : u.end]) for u in doc.units] == [
        ("m", '"""Doc."""'),
        ("f", "def f():\r\n    return 1"),
        ("A", "class A:"),
        ("A.m", "def m(self):\r\n        pass"),
    ]


@pytest.mark.parametrize(("path", "module"), [
    ("graphcite/ingest/files.py", "graphcite.ingest.files"),
    ("graphcite/ingest/__init__.py", "graphcite.ingest"),
    ("__init__.py", "__init__"),
    ("script.py", "script"),
    ("src\\pkg\\mod.py", "src.pkg.mod"),
])
def test_module_names(path: str, module: str) -> None:
    assert python_code.module_name(path) == module


@pytest.mark.parametrize(("path", "role"), [
    ("tests/test_store.py", "test"),
    ("tests/ingest/helpers.py", "test"),
    ("pkg/test/util.py", "test"),
    ("pkg/test_retry.py", "test"),
    ("pkg/retry_test.py", "test"),
    ("conftest.py", "test"),
    ("pkg/retry.py", "source"),
    ("pkg/contest.py", "source"),
    ("tests.py", "source"),
])
def test_build_role(path: str, role: str) -> None:
    assert python_code.build_role_for(path) == role
    assert python_code.parse("x = 1\n", where="w", path=path).build_role == role


def test_syntax_error_names_the_line() -> None:
    with pytest.raises(IngestError) as caught:
        python_code.parse("x = 1\ny = (\nz = 3\n", where="pkg/broken.py")
    assert caught.value.where == "pkg/broken.py"
    assert caught.value.cause.startswith("Python syntax error at line 2")
    assert caught.value.fix == "fix the syntax or rename to .txt"


def test_null_byte_is_an_ingest_error() -> None:
    with pytest.raises(IngestError):
        python_code.parse("x = 1\x00\n", where="n.py")


def test_empty_module_has_no_units() -> None:
    assert python_code.parse("\n\n", where="e.py").units == []


_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))
_STRINGS = st.lists(st.sampled_from([*"ab \t#'\\", "😀", "\u00e9", "e\u0301", "日", "\u2028"]),
                    max_size=12).map("".join)


@st.composite
def python_modules(draw: st.DrawFn) -> str:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(repr(draw(_STRINGS)))

    def body(depth: int, indent: str) -> None:
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.integers(0, 4 if depth < 3 else 1))
            name = draw(_NAMES)
            if kind == 0:
                lines.append(f"{indent}{name} = {draw(_STRINGS)!r}")
            elif kind == 1:
                lines.append(f"{indent}# {draw(_STRINGS).replace(chr(0x2028), ' ')}")
                lines.append(f"{indent}pass")
            elif kind in (2, 3):
                if draw(st.booleans()):
                    lines.append(f"{indent}@decorator_{name}")
                keyword_ = "class" if kind == 2 else draw(st.sampled_from(["def", "async def"]))
                lines.append(f"{indent}{keyword_} {name}{'' if kind == 2 else '()'}:")
                if draw(st.booleans()):
                    lines.append(f"{indent}    {draw(_STRINGS)!r}")
                body(depth + 1, indent + "    ")
            else:
                lines.append("")
                lines.append(f"{indent}x_{name} = [")
                lines.append(f"{indent}    1,")
                lines.append(f"{indent}]")

    body(0, "")
    return newline.join(lines) + newline


@settings(max_examples=200, deadline=None)
@given(python_modules())
def test_property_units_valid_and_cover_everything(source: str) -> None:
    doc = python_code.parse(source, where="pkg/mod.py")
    assert_units_valid(doc)
    assert_every_visible_character_is_covered(doc)
