"""An answer a public check stored is the asker's own words: nothing of it is withheld (no value oracle).

A reviewer with a token on a public server stores its answers (``POST /v1/check``). If the public pages
then withheld a claim of such an answer because it states a restricted figure, storing answers with
different figures and seeing which one is withheld would find the figure. So the withholding of
launderers applies to answers stored otherwise (by the internal audience), and every public path
shows a publicly stored answer alike whatever figure it states.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphcite.audience import WITHHELD_TEXT, asked_publicly
from graphcite.store import Store
from tests.conftest import KEYSTORE_RUNBOOK, ROTATION_POST

SECRET, POST = KEYSTORE_RUNBOOK, ROTATION_POST
FIGURES = (44, 45, 46)


def _probe(figure: int, answer_id: str) -> dict[str, object]:
    return {"answer_id": answer_id, "claims": [{"text": f"Signing keys are rotated every {figure} days.",
                                                "citations": [{"source": "posts/rotation.md"}]}]}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from graphcite.ingest import ingest
    from graphcite.verify import check_answer

    root = tmp_path_factory.mktemp("public_words")
    for rel, text in (("ops/keys.md", SECRET), ("posts/rotation.md", POST)):
        (root / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "corpus" / rel).write_text(text, encoding="utf-8")
    db = root / "s.duckdb"
    with Store(db) as store:
        ingest(store, [root / "corpus"])
        for figure in FIGURES:
            check_answer(store, _probe(figure, f"asked-{figure}"), audience="public")  # a token holder's check
        check_answer(store, _probe(45, "internal-45"), audience="internal")  # an internal writer's launderer
        check_answer(store, "internal-45", audience="public")  # checked publicly afterwards: still internal words
    return db


def _shown(text: str, figure: int) -> str:
    return text.replace(f"every {figure} days", "every N days")


def test_every_public_path_shows_a_publicly_stored_answer_alike_whatever_its_figure(store_path: Path) -> None:
    from graphcite.claims.formats import load_answer
    from graphcite.graph import chain
    from graphcite.graph.build import build_graph
    from graphcite.verify.check import check_answer, verify_answer

    with Store(store_path, read_only=True) as store:
        seen = []
        for figure in FIGURES:
            ref = f"asked-{figure}"
            claim = chain(store, ref, audience="public")["claims"][0]
            graph = build_graph(store, answer=ref, audience="public")
            node = next(d for _, d in graph.nodes(data=True) if d["kind"] == "claim")
            gated = verify_answer(store, load_answer(_probe(figure, ref)), audience="public")["claims"][0]
            seen.append(json.dumps([_shown(claim["text"], figure), claim.get("withheld"), _shown(node["text"], figure),
                                    node["withheld"], _shown(gated["text"], figure), gated.get("withheld")]))
            assert claim["text"] != WITHHELD_TEXT and not node["withheld"]
        assert len(set(seen)) == 1, seen
    with Store(store_path) as store:
        texts = {_shown(check_answer(store, f"asked-{f}", audience="public")["claims"][0]["text"], f)
                 for f in FIGURES}
        assert texts == {"Signing keys are rotated every N days."}


def test_an_answer_the_internal_audience_stored_is_still_withheld(store_path: Path) -> None:
    from graphcite.graph import chain

    with Store(store_path, read_only=True) as store:
        assert chain(store, "internal-45", audience="public")["claims"][0]["text"] == WITHHELD_TEXT
        claims = [(r["answer_rev"], r["claim_id"]) for r in store.rows(
            "SELECT c.answer_rev, c.claim_id FROM claim c JOIN answer a ON a.answer_rev = c.answer_rev "
            "WHERE c.part IS NULL AND a.answer_id IN ('asked-45', 'internal-45')")]
        asked = asked_publicly(store, claims)
        revs = {r["answer_id"]: r["answer_rev"] for r in store.rows("SELECT answer_rev, answer_id FROM answer")}
        assert revs["asked-45"] in asked and revs["internal-45"] not in asked


def test_a_public_check_never_makes_an_answer_stored_without_a_check_the_publics_words(tmp_path: Path,
                                                                                     store_path: Path) -> None:
    """``add-answer`` stores the store holder's words; a public check of it first must not turn them into
    the public's (its launderer would be shown): the check answers but is not recorded."""
    import shutil

    from graphcite.claims import add_answer
    from graphcite.graph import chain
    from graphcite.verify import check_answer

    db = tmp_path / "s.duckdb"
    shutil.copy(store_path, db)
    with Store(db) as store:
        add_answer(store, _probe(45, "added-45"))
        report = check_answer(store, "added-45", audience="public")
        assert report["claims"][0]["text"] == WITHHELD_TEXT
        assert chain(store, "added-45", audience="public")["claims"][0]["text"] == WITHHELD_TEXT
        check_answer(store, "added-45", audience="internal")
        check_answer(store, "added-45", audience="public")  # recorded now; the words stay internal ones
        assert chain(store, "added-45", audience="public")["claims"][0]["text"] == WITHHELD_TEXT


def test_a_public_check_batch_never_makes_an_answer_stored_without_a_check_the_publics_words(
        tmp_path: Path, store_path: Path) -> None:
    """check-batch writes records as check does: a public first record of an ``add-answer`` answer is not
    written (the batch still answers), and once an internal check is recorded the public ones are too."""
    import shutil

    from graphcite.claims import add_answer
    from graphcite.graph import chain
    from graphcite.verify.batch import check_batch

    db = tmp_path / "s.duckdb"
    shutil.copy(store_path, db)
    with Store(db) as store:
        rev = add_answer(store, _probe(45, "added-46"))
        records = "SELECT audience, count(*) AS n FROM verification WHERE answer_rev = ? GROUP BY audience"
        (report,) = check_batch(store, ["added-46"], audience="public")
        assert report["claims"][0]["text"] == WITHHELD_TEXT
        assert store.rows(records, [rev]) == []
        assert chain(store, "added-46", audience="public")["claims"][0]["text"] == WITHHELD_TEXT
        check_batch(store, ["added-46"], audience="internal")
        check_batch(store, ["added-46", "added-46"], audience="public")
        assert {r["audience"]: r["n"] for r in store.rows(records, [rev])} == {"internal": 1, "public": 2}
        assert chain(store, "added-46", audience="public")["claims"][0]["text"] == WITHHELD_TEXT
