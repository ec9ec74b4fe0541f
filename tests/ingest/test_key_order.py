"""The order term postings are written in: the integer-key sort gives exactly ``sort_by``'s order."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from graphcite.ingest.pipeline import _in_key_order


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rank_key_sort_is_sort_by(seed: int) -> None:
    rng = random.Random(seed)
    terms = ["retry", "queue", "a", "b", "zeta", "é", "10", "9", "Z", "long-term", ""]
    units = [f"{rng.getrandbits(64):016x}" for _ in range(50)]
    chunks = []
    for _ in range(4):  # several chunks, as concat_tables of per-file batches gives
        size = rng.randint(0, 300)
        chunks.append(pa.table({"term": [rng.choice(terms) for _ in range(size)],
                                "unit_id": [rng.choice(units) for _ in range(size)]}))
    rows = pa.concat_tables(chunks)
    expected = rows.sort_by([("term", "ascending"), ("unit_id", "ascending")])
    assert _in_key_order(rows).to_pylist() == expected.to_pylist()


def test_an_empty_table_stays_empty() -> None:
    rows = pa.table({"term": pa.array([], pa.string()), "unit_id": pa.array([], pa.string())})
    assert _in_key_order(rows).num_rows == 0
