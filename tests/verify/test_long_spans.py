"""A citation to a whole document or a long unit: its units are narrowed to the sentences that can bear
the claim before the rules run, and only sentences inside the cited span are read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphcite.claims.formats import load_answer
from graphcite.ingest import ingest
from graphcite.store import Store
from graphcite.verify import resolve, verify_answer
from graphcite.verify.locate import LONG_SPAN, LocateQuery, rank_units, revision_indexes

TEAMS = ["harbour", "archive", "bakery", "orchard", "foundry", "ferry", "greenhouse", "kiln", "quarry", "vineyard"]
THINGS = ["cranes", "ledgers", "ovens", "ladders", "moulds", "ropes", "vents", "shelves", "drills", "barrels"]
PERIODS = ["week", "month", "quarter", "season"]
HANDBOOK = "depot-handbook.md"


def _sentences() -> list[str]:
    out = []
    for i, team in enumerate(TEAMS):
        for j, period in enumerate(PERIODS):
            thing = THINGS[(i + j) % len(THINGS)]
            out.append(f"The {team} crew inspects {3 + i * 4 + j} {thing} every {period} before the morning shift.")
    out.append("The archive crew does not inspect cranes at all.")
    return out


@pytest.fixture(scope="module")
def depot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    folder = tmp_path_factory.mktemp("depot")
    sentences = _sentences()
    paragraphs = [" ".join(sentences[k:k + 4]) for k in range(0, len(sentences), 4)]
    text = "---\ntitle: Depot handbook\n---\n# Depot handbook\n\n## Inspections\n\n" + "\n\n".join(paragraphs) + "\n"
    (folder / HANDBOOK).write_text(text, encoding="utf-8")
    with Store(tmp_path_factory.mktemp("db") / "depot.duckdb") as store:
        ingest(store, [folder])
        yield store


def _revision(store: Store) -> tuple[str, str]:
    row = store.rows("SELECT r.revision_id, r.text FROM source s JOIN source_revision r "
                     "ON r.revision_id = s.current_revision WHERE s.key = ?", [HANDBOOK])[0]
    return row["revision_id"], row["text"]


def test_the_handbook_is_long_enough_to_be_narrowed(depot: Store) -> None:
    assert len(_revision(depot)[1]) > LONG_SPAN


def test_a_span_query_reads_only_sentences_inside_the_span(depot: Store) -> None:
    revision, text = _revision(depot)
    claim = "The harbour crew inspects 3 cranes every week before the morning shift."
    at = text.index(claim)
    whole = rank_units(depot, [LocateQuery(0, claim, revision, span=(0, len(text)))])[0]
    assert text[whole.chosen[0].start:whole.chosen[0].end] == claim
    later = text.index("The archive crew")  # a long span after the harbour sentences
    cut = rank_units(depot, [LocateQuery(0, claim, revision, span=(later, len(text)))])[0]
    assert cut.chosen and all(later <= c.start < c.end <= len(text) for c in cut.chosen)
    assert all(c.start != at for c in cut.chosen)
    # a span that starts inside a sentence cuts it there
    middle = rank_units(depot, [LocateQuery(0, claim, revision, span=(at + 4, len(text)))])[0]
    assert all(c.start >= at + 4 for c in middle.chosen)


def test_a_span_sharing_no_term_with_the_claim_is_read_in_its_first_unit(depot: Store) -> None:
    revision, text = _revision(depot)
    ranking = rank_units(depot, [LocateQuery(0, "Zebras migrate southward.", revision, span=(0, len(text)))])[0]
    index = revision_indexes(depot, [revision])[revision]
    first = next(row for row in index.units.values() if row["block_type"] != "heading")
    assert ranking.chosen and {c.unit_id for c in ranking.chosen} == {first["unit_id"]}


def _check(store: Store, claim: str, start: int, end: int) -> dict:
    answer = load_answer({"answer_id": "depot", "claims": [
        {"text": claim, "citations": [{"source": HANDBOOK, "start": start, "end": end}]}]})
    return verify_answer(store, answer)["claims"][0]


needs_hook = pytest.mark.skipif(not hasattr(resolve, "_narrow_long_spans"),
                                reason="verify/resolve.py does not narrow long spans yet (requested in .notes/requests.md)")


@needs_hook
def test_a_whole_document_citation_is_judged_on_the_sentence_that_bears_the_claim(depot: Store) -> None:
    _, text = _revision(depot)
    claim = _check(depot, "The harbour crew inspects 3 cranes every week before the morning shift.", 0, len(text))
    cite = claim["citations"][0]
    assert claim["status"] == "supported"
    # the report keeps the citation as cited and names what was read
    assert (cite["start"], cite["end"], cite["quote"]) == (0, len(text), text)
    assert [s["quote"] for s in cite["located_spans"]] == ["The harbour crew inspects 3 cranes every week before the morning shift."]


@needs_hook
def test_a_changed_number_or_a_sentence_outside_the_span_is_not_supported(depot: Store) -> None:
    _, text = _revision(depot)
    assert _check(depot, "The harbour crew inspects 30 cranes every week before the morning shift.", 0, len(text))["status"] != "supported"
    later = text.index("The archive crew")
    assert len(text) - later > LONG_SPAN
    outside = _check(depot, "The harbour crew inspects 3 cranes every week before the morning shift.", later, len(text))
    assert outside["status"] != "supported"
    assert all(later <= s["start"] for s in outside["citations"][0]["located_spans"])
