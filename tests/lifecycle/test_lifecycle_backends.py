"""Staleness, recheck and acceptance on PostgreSQL give what they give on DuckDB."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphcite.store import Store, copy_store


def _stale_view(store: Store) -> str:
    from graphcite.lifecycle import stale

    return json.dumps(stale(store), sort_keys=True, default=str)


def test_stale_claims_are_the_same_on_both_engines(changed_db: tuple[Path, dict[str, Any]],
                                                   new_pg_database: Callable[..., str]) -> None:
    url = new_pg_database()
    with Store(changed_db[0], read_only=True) as duck, Store(url) as pg:
        copy_store(duck, pg)
        assert _stale_view(pg) == _stale_view(duck)
        assert json.loads(_stale_view(pg))


def test_recheck_and_accept_on_postgresql(changed_db: tuple[Path, dict[str, Any]],
                                          new_pg_database: Callable[..., str]) -> None:
    from graphcite.lifecycle import accept, acceptances, recheck_stale, stale

    url = new_pg_database()
    with Store(changed_db[0], read_only=True) as duck, Store(url) as pg:
        copy_store(duck, pg)
        before = pg.scalar("SELECT count(*) FROM verification")
        stale_claims = stale(pg)
        results = recheck_stale(pg)
        assert results and pg.scalar("SELECT count(*) FROM verification") == before + len(results)
        assert len(stale(pg)) < len(stale_claims)
        claim = pg.scalar("SELECT claim_id FROM verification WHERE status = 'supported' ORDER BY claim_id LIMIT 1")
        accept(pg, claim, task="faq", destination="docs/faq.md", reviewer="ana")
        assert [a["task"] for a in acceptances(pg, claim)] == ["faq"]
