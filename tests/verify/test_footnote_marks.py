"""A footnote mark pasted into a claim ("... per event [3].") is neither a number nor a word of it.

Answers copied from a chat window or a wiki keep their reference marks in the claim text. Read as a
value, "[3]" made the claim state a count of three, which the store's older note ("three attempts")
then seemed to agree or clash with: the claim came back contradicted or insufficient while the same
sentence without its mark is supported by the same quote.
"""

from __future__ import annotations

import pytest

from graphcite.store import Store
from graphcite.verify.check import check_answer

SOURCE = "posts/2024-02-year-of-webhooks.md"
CLAIMS = [("The relay makes at most five attempts per event{mark}.", "The relay still makes at most five attempts per event"),
          ("Parked events wait 72 hours for replay{mark}.", "Parked events wait 72 hours for replay.")]


def _statuses(store: Store, mark: str, answer_id: str) -> list[str]:
    answer = {"answer_id": answer_id, "claims": [
        {"text": text.format(mark=mark), "citations": [{"source": SOURCE, "quote": quote}]} for text, quote in CLAIMS]}
    report = check_answer(store, answer)
    return [claim["status"] for claim in report["claims"]]


@pytest.mark.parametrize("mark", [" [3]", "[3]", " [2, 7]", ".[120]"])
def test_a_footnote_mark_leaves_the_verdict_of_the_sentence_without_it(corpus_store: Store, mark: str) -> None:
    plain = _statuses(corpus_store, "", "plain")
    assert plain == ["supported", "supported"]
    marked = _statuses(corpus_store, mark.rstrip(".") if mark.startswith(".") else mark, "marked")
    assert marked == plain, (mark, marked)


def test_the_claims_text_keeps_its_mark(corpus_store: Store) -> None:
    """Only the matching copy is blanked: the report shows the sentence as the answer wrote it."""
    answer = {"answer_id": "kept", "claims": [{"text": "Parked events wait 72 hours for replay [3].",
                                               "citations": [{"source": SOURCE, "quote": CLAIMS[1][1]}]}]}
    assert check_answer(corpus_store, answer)["claims"][0]["text"] == "Parked events wait 72 hours for replay [3]."
