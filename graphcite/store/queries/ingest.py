"""What ingest reads and changes besides its bulk inserts: the current revision of every source, the
source pointers it moves, the source list and one unit with its values, and source lineage (current,
dangling and supersession links). Used by :mod:`graphcite.ingest.pipeline`, :mod:`graphcite.ingest.catalog`
and :mod:`graphcite.ingest.lineage`.

Rows are dicts in a fixed order, so reports are byte-identical on both engines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from graphcite.store.base import Store

__all__ = [
    "SOURCE_POINTER_COLUMNS",
    "current_links",
    "current_revisions",
    "current_supersessions",
    "dangling_links",
    "point_sources_at",
    "relabel_links",
    "revision_stored",
    "source_list",
    "unit_values",
    "unit_with_revision",
]

Row = dict[str, Any]

#: The columns of ``source`` that follow its current revision (besides the key).
SOURCE_POINTER_COLUMNS = ("current_revision", "title", "kind", "visibility")


def current_revisions(store: Store) -> list[Row]:
    """Per source: ``key``, ``current_revision``, its ``content_hash`` and ``last_seq``, the highest
    revision number stored for the source (not always the current one's), ordered by key."""
    return store.rows("""
        SELECT s.key, s.current_revision, r.content_hash,
               (SELECT max(a.seq) FROM source_revision a WHERE a.source_key = s.key) AS last_seq
        FROM source s JOIN source_revision r ON r.revision_id = s.current_revision
        ORDER BY s.key""")


def revision_stored(store: Store, revision_id: str) -> bool:
    """Whether a revision with this id is stored (a file changed back to content ingested before)."""
    return store.row("SELECT 1 AS found FROM source_revision WHERE revision_id = ?", [revision_id]) is not None


def point_sources_at(store: Store, moves: Sequence[Row]) -> int:
    """Set each named source's current revision, title, kind and visibility in one statement.

    ``moves`` are rows with ``key`` and :data:`SOURCE_POINTER_COLUMNS`; a key not stored is left out.
    Returns the rows given.
    """
    if not moves:
        return 0
    names = ("key", *SOURCE_POINTER_COLUMNS)
    table = pa.table({name: pa.array([move[name] for move in moves], type=pa.string()) for name in names})
    assignments = ", ".join(f"{name} = m.{name}" for name in SOURCE_POINTER_COLUMNS)
    with store.temporary("_gc_moved_sources", table):
        store.execute(f"UPDATE source SET {assignments} FROM _gc_moved_sources m WHERE source.key = m.key")
    return len(moves)


def source_list(store: Store) -> list[Row]:
    """Every source with its current revision's status, format, date, seq and counts, ordered by key.

    Columns: ``key, title, kind, visibility, current_revision, status, format, effective`` (text),
    ``revisions`` (stored revisions of the source), ``current_seq``, ``units`` and ``values`` (of the
    current revision).
    """
    return store.rows("""
        SELECT s.key, s.title, s.kind, s.visibility, s.current_revision, r.status, r.format,
               CAST(r.effective AS VARCHAR) AS effective,
               (SELECT count(*) FROM source_revision a WHERE a.source_key = s.key) AS revisions,
               r.seq AS current_seq,
               (SELECT count(*) FROM evidence_unit u WHERE u.revision_id = s.current_revision) AS units,
               (SELECT count(*) FROM typed_value t WHERE t.revision_id = s.current_revision) AS "values"
        FROM source s JOIN source_revision r ON r.revision_id = s.current_revision
        ORDER BY s.key""")


def unit_with_revision(store: Store, unit_id: str) -> Row | None:
    """Every column of one evidence unit, with its revision's ``format, kind, visibility``, the
    revision's number (``revision_seq``) and its source's ``current_revision``; None if unknown."""
    return store.row("""
        SELECT u.*, r.format, r.kind, r.visibility, r.seq AS revision_seq, s.current_revision
        FROM evidence_unit u JOIN source_revision r ON r.revision_id = u.revision_id
        JOIN source s ON s.key = u.source_key WHERE u.unit_id = ?""", [unit_id])


def unit_values(store: Store, unit_id: str) -> list[Row]:
    """The typed values of one unit, in text order (their ``start``)."""
    return store.rows("""
        SELECT start, "end", surface, magnitude, low, high, unit, dimensionality, kind,
               counted_noun, measured, bound, role
        FROM typed_value WHERE unit_id = ? ORDER BY start, "end", value_id""", [unit_id])


# Links declared by the current revision of their declaring source.
_CURRENT_LINKS = """
    SELECT DISTINCT l.from_key, l.to_key, l.relation
    FROM source_link l
    JOIN source_revision r ON r.revision_id = l.declared_in
    JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
    WHERE l.relation <> 'revision_of'"""


def current_links(store: Store) -> list[Row]:
    """``from_key, to_key, relation`` of every link declared by a current revision (not ``revision_of``),
    distinct and sorted."""
    return store.rows(f"{_CURRENT_LINKS} ORDER BY 1, 2, 3")


def dangling_links(store: Store) -> list[Row]:
    """The current links (as :func:`current_links`) whose other end is not a stored source."""
    return store.rows(f"""
        SELECT c.* FROM ({_CURRENT_LINKS}) c
        WHERE c.from_key NOT IN (SELECT key FROM source) OR c.to_key NOT IN (SELECT key FROM source)
        ORDER BY 1, 2, 3""")


def current_supersessions(store: Store, relations: Iterable[str]) -> list[Row]:
    """``link_id, from_key, to_key, relation`` of the current revisions' links with one of ``relations``,
    ordered by link id."""
    condition, params = store.in_list("l.relation", relations)
    return store.rows(f"""
        SELECT l.link_id, l.from_key, l.to_key, l.relation
        FROM source_link l
        JOIN source_revision r ON r.revision_id = l.declared_in
        JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
        WHERE {condition}
        ORDER BY l.link_id""", params)


def relabel_links(store: Store, link_ids: Iterable[str], relation: str) -> int:
    """Give the links with these ids the relation ``relation`` (one statement); returns the ids given."""
    ids = sorted(set(link_ids))
    if not ids:
        return 0
    condition, params = store.in_list("link_id", ids)
    store.execute(f"UPDATE source_link SET relation = ? WHERE {condition}", [relation, *params])
    return len(ids)
