"""Where DuckDB and PostgreSQL SQL differ, in one place.

graphcite's queries are written once, in the SQL both engines share, with DuckDB's conventions for
the few spots where they do not: ``?`` placeholders, ``INSERT OR IGNORE``, ``rowid`` as insertion
order, ``table_schema = 'main'``. :meth:`Dialect.sql` turns such a statement into the engine's own
(the identity for DuckDB). Constructs that cannot be rewritten textually (tokenising text with a
regular expression, a regular-expression test) are methods that return the fragment for each engine.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from functools import lru_cache

__all__ = ["DUCKDB", "POSTGRES", "Dialect", "DuckDBDialect", "PostgresDialect", "split_quoted"]

_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")


def split_quoted(sql: str) -> list[tuple[bool, str]]:
    """``sql`` as (is_quoted, text) pieces: string literals and quoted identifiers kept whole."""
    pieces: list[tuple[bool, str]] = []
    position = 0
    for match in _QUOTED.finditer(sql):
        if match.start() > position:
            pieces.append((False, sql[position:match.start()]))
        pieces.append((True, match.group()))
        position = match.end()
    if position < len(sql):
        pieces.append((False, sql[position:]))
    return pieces


class Dialect(ABC):
    """One engine's spelling of the constructs graphcite's SQL needs (each engine defines every one)."""

    name = "generic"

    def sql(self, statement: str, *, has_params: bool) -> str:
        return statement

    @abstractmethod
    def tokens(self, text: str, pattern: str) -> str:
        """A set-returning expression: one row per match of ``pattern`` (no capture groups) in ``text``."""

    @abstractmethod
    def matches(self, text: str, pattern: str) -> str:
        """A boolean expression: ``text`` matches ``pattern`` somewhere."""

    @abstractmethod
    def insert_ignore(self, table: str, names: str, select: str) -> str:
        """``INSERT`` that skips rows whose key is already there."""

    @abstractmethod
    def json_strings(self, text: str) -> str:
        """A set-returning expression: the elements of a JSON array of strings held in column ``text``."""


class DuckDBDialect(Dialect):
    name = "duckdb"

    def tokens(self, text: str, pattern: str) -> str:
        return f"unnest(regexp_extract_all({text}, '{pattern}'))"

    def matches(self, text: str, pattern: str) -> str:
        return f"regexp_matches({text}, '{pattern}')"

    def insert_ignore(self, table: str, names: str, select: str) -> str:
        return f"INSERT OR IGNORE INTO {table} ({names}) {select}"

    def json_strings(self, text: str) -> str:
        return f"unnest(from_json({text}, '[\"VARCHAR\"]'))"


_INSERT_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO\b", re.IGNORECASE)
_ROWID = re.compile(r"\browid\b", re.IGNORECASE)
_MAIN_SCHEMA = re.compile(r"table_schema\s*=\s*$", re.IGNORECASE)
_DOUBLE = re.compile(r"::\s*DOUBLE\b(?!\s+PRECISION)", re.IGNORECASE)
# DuckDB's json_extract_string(column, '$.key') for one top-level key
_JSON_KEY = re.compile(r"json_extract_string\(\s*([\w.]+)\s*,\s*'\$\.(\w+)'\s*\)", re.IGNORECASE)
# a text array parameter: its elements get the "C" collation of the text columns they meet
_TEXT_ARRAY = re.compile(r"CAST\(\s*\?\s+AS\s+VARCHAR\[\]\s*\)|\?\s*::\s*VARCHAR\[\]", re.IGNORECASE)


class PostgresDialect(Dialect):
    """psycopg placeholders (``%s``, literal ``%`` doubled), ``ON CONFLICT DO NOTHING``, ``ctid`` order.

    Text columns use the "C" collation (code-point order, as DuckDB sorts); a text array parameter
    is given it too, since a recursive query refuses to mix collations.
    """

    name = "postgresql"

    def sql(self, statement: str, *, has_params: bool) -> str:
        return _postgres_sql(statement, has_params)

    def tokens(self, text: str, pattern: str) -> str:
        return f"(regexp_matches({text}, '{pattern}', 'g'))[1]"

    def matches(self, text: str, pattern: str) -> str:
        return f"({text} ~ '{pattern}')"

    def insert_ignore(self, table: str, names: str, select: str) -> str:
        return f"INSERT INTO {table} ({names}) {select} ON CONFLICT DO NOTHING"

    def json_strings(self, text: str) -> str:
        return f"json_array_elements_text({text}::json)"


@lru_cache(maxsize=4096)
def _postgres_sql(statement: str, has_params: bool) -> str:
    statement = _JSON_KEY.sub(r"(\1::json ->> '\2')", statement)
    ignore = bool(_INSERT_OR_IGNORE.match(statement))
    if ignore:
        statement = _INSERT_OR_IGNORE.sub("INSERT INTO", statement, count=1)
    out: list[str] = []
    for quoted, text in split_quoted(statement):
        if has_params:
            text = text.replace("%", "%%")
        if quoted:
            if text == "'main'" and out and _MAIN_SCHEMA.search(out[-1]):
                text = "current_schema()"
            out.append(text)
            continue
        text = _ROWID.sub("ctid", text)
        text = _DOUBLE.sub("::DOUBLE PRECISION", text)
        text = _TEXT_ARRAY.sub("(?::VARCHAR[] COLLATE \"C\")", text)
        if has_params:
            text = text.replace("?", "%s")
        out.append(text)
    result = "".join(out)
    if ignore:
        result = result.rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    return result


DUCKDB = DuckDBDialect()
POSTGRES = PostgresDialect()
