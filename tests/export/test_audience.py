"""--audience public: no format leaks a restricted source's text, title or key; relying claims are marked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from lineage_corpus import RESTRICTED_PHRASE, RESTRICTED_TITLE

from graphcite.export import FORMATS

SECRETS = (RESTRICTED_PHRASE, RESTRICTED_TITLE, "manuals/secret.md", "secret.md")


def output_text(path: Path) -> str:
    """Everything an export contains, as text (parquet tables are decoded, not searched as bytes)."""
    if path.is_dir():
        return "\n".join(json.dumps(pq.read_table(p).to_pylist(), default=str, ensure_ascii=False)
                         for p in sorted(path.glob("*.parquet")))
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
def test_public_export_has_no_restricted_text(fmt: str, exported: Callable[..., Path]) -> None:
    internal = output_text(exported(fmt, "internal"))
    public = output_text(exported(fmt, "public"))
    assert RESTRICTED_PHRASE in internal  # the internal export does carry it
    for secret in SECRETS:
        assert secret not in public, (fmt, secret)
    # the withheld source is named by its placeholder; the review page, which shows public records only,
    # marks the claim as relying on a restricted source instead
    assert "restricted-source-1" in public or (fmt == "html" and "relied on a restricted source" in public)


@pytest.mark.parametrize("fmt", ["json", "html", "prov", "parquet"])
def test_relying_claims_are_marked(fmt: str, exported: Callable[..., Path]) -> None:
    public = output_text(exported(fmt, "public"))
    markers = {"json": '"relies_on_restricted": true', "html": "This claim relied on a restricted source",
               "prov": '"gc:reliesOnRestricted": true', "parquet": '\\"relies_on_restricted\\": true'}
    assert markers[fmt] in public
