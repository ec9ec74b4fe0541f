"""New answer text for every request: the workload a RAG application gives ``POST /v1/check``.

``benchmarks.serve``'s "new answer each" row changes only the answer id, a case the service keeps
templates for (:mod:`graphcite.serve.templates`, :mod:`graphcite.serve.bodies`), so it says little
about answers written afresh. :class:`NewTextAnswers` makes 7-claim answers whose claim sentences
differ from every sentence it made before: ten facts of the bundled corpus (each with its citation)
are each worded several ways (synonyms, numbers as digits or words, an equal duration), two of them
joined into one sentence with one of several connectives after one of several lead-ins, so each
sentence is decomposed into two atomic parts and verified anew (every part's verdict is keyed by its
whole sentence). Six claims are such pairs; the seventh misstates a number (a figure no source
gives), as generated answers sometimes do. The pairs are drawn without repetition from a space of
about 125,000 sentences in a scrambled order, so each stretch of requests has the same mix.

13 atomic parts per answer (the bundled answer has 10), 7 claims, the bundled answer's question.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

__all__ = ["SENTENCE_SPACE", "NewTextAnswers"]

_DR17 = "decisions/dr-017-webhook-retries.md"
_NORTHPASS = "contracts/northpass-adapter.md"

#: one fact: the words of each of its places in order (each place has its alternatives), and its citation
_FACTS: list[tuple[list[list[str]], dict[str, str]]] = [
    ([["the webhook relay", "the relay"], ["makes at most five delivery attempts", "makes at most 5 delivery attempts"],
      ["for each event", "per event"]],
     {"source": _DR17, "quote": "The relay makes at most five delivery attempts for each event"}),
    ([["a retry is sent", "the relay sends a retry"],
      ["only after the merchant endpoint answers with a 5xx status or the connection times out"]],
     {"source": _DR17,
      "quote": "A retry is sent only after the merchant endpoint answers with a 5xx status or the connection times out."}),
    ([["a 429 answer", "an answer with status 429", "a 429 response"],
      ["is treated like a 5xx answer", "is handled like a 5xx answer"]],
     {"source": _DR17, "quote": "A 429 answer is treated like a 5xx answer."}),
    ([["after the fifth failed attempt"], ["the event is parked", "an event is parked"],
      ["for 72 hours", "for three days", "for 3 days"]],
     {"source": _DR17, "quote": "After the fifth failed attempt the event is parked for 72 hours."}),
    ([["operators", "relay operators"], ["may replay a parked event", "can replay a parked event"],
      ["from the relay console"]],
     {"source": _DR17, "quote": "Operators may replay a parked event from the relay console during that time"}),
    ([["webhook delivery logs", "delivery logs for webhooks", "the relay's delivery logs"], ["are retained", "are kept"],
      ["for 14 days", "for two weeks", "for fourteen days"]],
     {"source": _DR17, "quote": "Webhook delivery logs are retained for 14 days."}),
    ([["the Northpass adapter", "Northpass's adapter"], ["must not retry a label request", "may not retry a label request"]],
     {"source": _NORTHPASS, "quote": "The Northpass adapter must not retry a label request."}),
    ([["a Northpass label request that times out", "a timed-out Northpass label request"],
      ["is handed to the exceptions desk", "goes to the exceptions desk"]],
     {"source": _NORTHPASS, "quote": "A Northpass label request that times out is handed to the exceptions desk"}),
    ([["Northpass"], ["does not offer a status lookup for label requests", "offers no status lookup for label requests"]],
     {"source": _NORTHPASS, "quote": "Northpass does not offer a status lookup for label requests."}),
    ([["Northpass"], ["does not accept idempotency keys", "accepts no idempotency keys"]],
     {"source": _NORTHPASS, "quote": "Northpass does not accept idempotency keys."}),
]
_LEADS = ["", "In short, ", "Notably, ", "To be clear, ", "In practice, ", "Put simply, ", "Importantly, ",
          "As documented, ", "For the record, ", "Briefly, ", "In summary, ", "Note that "]
_JOINS = [", and ", "; ", ", while ", "; also, "]
#: a misstated figure: (wording with the number's place, the fact whose citation it carries)
_MISSTATED = [("The relay makes at most {n} delivery attempts for each event", 0),
              ("After the fifth failed attempt the event is parked for {n} hours", 3),
              ("Webhook delivery logs are retained for {n} days", 5)]

#: each wording of each fact: (clause, fact index)
_CLAUSES = [(" ".join(words), index) for index, (places, _) in enumerate(_FACTS)
            for words in itertools.product(*places)]
_PAIRS = [(a, b) for a in range(len(_CLAUSES)) for b in range(len(_CLAUSES)) if _CLAUSES[a][1] != _CLAUSES[b][1]]
#: distinct joined sentences
SENTENCE_SPACE = len(_PAIRS) * len(_LEADS) * len(_JOINS)
_PAIRS_PER_ANSWER = 6
#: a step coprime to the space near its golden section: consecutive numbers land far apart
_STEP = next(s for s in range(int(SENTENCE_SPACE * 0.618), SENTENCE_SPACE) if math.gcd(s, SENTENCE_SPACE) == 1)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _joined(number: int) -> tuple[str, list[dict[str, str]]]:
    """The ``number``-th sentence of the scrambled order (distinct for numbers below SENTENCE_SPACE)."""
    code = number * _STEP % SENTENCE_SPACE
    code, pair = divmod(code, len(_PAIRS))
    join, lead = divmod(code, len(_LEADS))
    first, second = _PAIRS[pair]
    (one, a), (two, b) = _CLAUSES[first], _CLAUSES[second]
    clause = one if not _LEADS[lead] or one.startswith("Northpass") else one[:1].lower() + one[1:]
    text = _capital(_LEADS[lead] + clause) + _JOINS[join] + two + "."
    return text, [_FACTS[a][1], _FACTS[b][1]]


class NewTextAnswers:
    """Answers whose claim sentences differ from every earlier one (answers below
    ``SENTENCE_SPACE // 6`` from ``start``); one generator per server keeps its sentences new."""

    def __init__(self, base: dict[str, Any], start: int = 0) -> None:
        self.base = base
        self.next = start

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while True:
            yield self.answer()

    def answer(self) -> dict[str, Any]:
        """The next answer (a new id, 7 new claim sentences)."""
        number = self.next
        self.next += 1
        if (number + 1) * _PAIRS_PER_ANSWER > SENTENCE_SPACE:
            raise RuntimeError(f"new-text answers run out after {SENTENCE_SPACE // _PAIRS_PER_ANSWER}")
        claims = []
        for slot in range(_PAIRS_PER_ANSWER):
            text, citations = _joined(number * _PAIRS_PER_ANSWER + slot)
            claims.append({"text": text, "citations": citations, "type": "direct"})
        wording, fact = _MISSTATED[number % len(_MISSTATED)]
        claims.insert(3, {"text": wording.format(n=100 + number) + ".", "citations": [_FACTS[fact][1]],
                          "type": "direct"})
        return {"answer_id": f"bench-text-{number}", "question": self.base.get("question", ""), "claims": claims}
