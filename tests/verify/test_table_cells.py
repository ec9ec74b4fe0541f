"""A table cell is read with its column: a claim's figure is compared with the cell of the column it names.

The document is ingested for real (Markdown table, DuckDB store) and each claim cites one row by quote.
"""

from __future__ import annotations

import pytest

from graphcite.claims.formats import load_answer
from graphcite.ingest import ingest
from graphcite.store import open_store
from graphcite.verify.check import verify_answer

DOC = """# Harbourside bike hire

## Prices and limits

| Bike | Price per hour | Deposit | Longest hire in one day | Helmets included |
|---|---|---|---|---|
| City bike | £4 | £50 | 8 hours | 1 |
| Electric bike | £9 | £150 | 6 hours | 2 |
| Cargo bike | £12 | £200 | 4 hours | 2 |

Bikes can be hired every day from 07:00 to 21:00. Cargo bikes can be collected on weekdays only.
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("tables")
    docs = root / "docs"
    docs.mkdir()
    (docs / "bike-hire.md").write_text(DOC, encoding="utf-8")
    opened = open_store(root / "store.duckdb")
    ingest(opened, [docs])
    yield opened
    opened.close()


def _status(store, claim: str, quote: str) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    answer = {"answer_id": "t", "claims": [{"text": claim, "citations": [{"source": "bike-hire.md", "quote": quote}]}]}
    report = verify_answer(store, load_answer(answer, format="native"))
    claim_report = report["claims"][0]
    codes = sorted({f["code"] for c in claim_report["citations"] for f in c["findings"] if f["outcome"] == "fail"})
    return claim_report["status"], codes


ELECTRIC = "| Electric bike | £9 | £150 | 6 hours | 2 |"
CITY = "| City bike | £4 | £50 | 8 hours | 1 |"


@pytest.mark.parametrize("claim", [
    "The deposit for an electric bike is £150.",
    "An electric bike can be hired for at most 6 hours in one day.",
    "Electric bikes cost £9 per hour.",
    "An Electric bike rental costs £9 per hour.",  # the row's label before a class noun the table never writes
])
def test_the_named_column_supports(store, claim: str) -> None:  # type: ignore[no-untyped-def]
    assert _status(store, claim, ELECTRIC)[0] == "supported"


@pytest.mark.parametrize("claim", [
    "The deposit for an electric bike is £9.",  # the price column's figure
    "Electric bikes cost £150 per hour.",  # the deposit column's figure
])
def test_another_columns_figure_is_a_swap(store, claim: str) -> None:  # type: ignore[no-untyped-def]
    status, codes = _status(store, claim, ELECTRIC)
    assert status != "supported"
    assert "GC301" in codes


def test_a_header_figure_names_the_column(store) -> None:  # type: ignore[no-untyped-def]
    # "in one day" is the header's; the 6 hours is the cell's: neither is compared with the other
    assert _status(store, "Electric bikes can be hired for up to 6 hours in one day.", ELECTRIC)[0] == "supported"
    status, codes = _status(store, "Electric bikes can be hired for up to 8 hours in one day.", ELECTRIC)
    assert status != "supported" and "GC301" in codes


def test_a_bare_count_takes_the_columns_noun(store) -> None:  # type: ignore[no-untyped-def]
    assert _status(store, "A city bike hire includes one helmet.", CITY)[0] == "supported"


def test_every_day_is_not_weekdays_only(store) -> None:  # type: ignore[no-untyped-def]
    quote = "Cargo bikes can be collected on weekdays only."
    status, codes = _status(store, "Cargo bikes can be collected every day.", quote)
    assert status != "supported" and "GC502" in codes
    assert _status(store, "Bikes can be hired every day from 07:00 to 21:00.",
                   "Bikes can be hired every day from 07:00 to 21:00.")[0] == "supported"
