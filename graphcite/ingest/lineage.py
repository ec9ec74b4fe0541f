"""Source lineage: links declared in front matter (derived_from, quotes, implements, supersedes).

A link belongs to the revision that declared it, so when a source gets a new revision, the links in
force are those declared by current revisions. Links to keys that were never ingested are kept and
reported as dangling.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from graphcite.store import Store

__all__ = ["LINEAGE_KEYS", "current_links", "dangling_links", "links_from_metadata"]

# front matter key -> (relation, direction): "out" means this source -> named key.
LINEAGE_KEYS: dict[str, tuple[str, str]] = {
    "derived_from": ("derived_from", "out"),
    "quotes": ("quotes", "out"),
    "implements": ("implements", "out"),
    "supersedes": ("supersedes", "out"),
    "superseded_by": ("supersedes", "in"),
}


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def links_from_metadata(source_key: str, revision_id: str, metadata: Mapping[str, Any]) -> list[dict[str, str]]:
    """Rows for ``source_link`` declared by one revision's metadata, deterministic order."""
    rows: list[dict[str, str]] = []
    for meta_key, (relation, direction) in LINEAGE_KEYS.items():
        for other in _as_list(metadata.get(meta_key)):
            src, dst = (source_key, other) if direction == "out" else (other, source_key)
            digest = hashlib.sha256(f"{src}\0{dst}\0{relation}\0{revision_id}".encode()).hexdigest()[:16]
            rows.append({"link_id": digest, "from_key": src, "to_key": dst, "relation": relation,
                         "declared_in": revision_id})
    return rows


CURRENT_LINKS_SQL = """
SELECT DISTINCT l.from_key, l.to_key, l.relation
FROM source_link l
JOIN source_revision r ON r.revision_id = l.declared_in
JOIN source s ON s.key = r.source_key AND s.current_revision = r.revision_id
WHERE l.relation <> 'revision_of'
ORDER BY 1, 2, 3
"""


def current_links(store: Store) -> list[dict[str, str]]:
    """Links declared by the current revision of their declaring source."""
    return store.rows(CURRENT_LINKS_SQL)


def dangling_links(store: Store) -> list[dict[str, str]]:
    """Current links whose other end was never ingested."""
    return store.rows(f"""
        SELECT c.* FROM ({CURRENT_LINKS_SQL}) c
        WHERE c.from_key NOT IN (SELECT key FROM source) OR c.to_key NOT IN (SELECT key FROM source)
        ORDER BY 1, 2, 3""")
