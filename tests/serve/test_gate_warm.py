"""The served gate gives the verdicts of the plain path, byte for byte.

The plain path builds each sentence's whole report on the bare store and reads the claim's status
(``gate_stream(..., verifier=verify_claims)``, what the gate did before). The served path
(:class:`graphcite.serve.gate.GateStream`) decides the status alone
(:func:`graphcite.verify.statuses.claim_statuses`: rules by effect, contradictions only where a part is
supported), answers evidence reads from memory (whole queries, reads by id or term shared by every
request of an evidence generation, the index vocabulary for new words) and remembers each verdict.
Sentences: the bundled answers' claims and variants of them (new words, other numbers, negations, two
claims joined, citations swapped and dropped).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from graphcite.serve.gate import GateStream
from graphcite.serve.service import Service, ServiceSettings
from graphcite.serve.warm import WarmReads, WarmView
from graphcite.store import Store
from graphcite.verify import engine, statuses
from graphcite.verify.check import gate_line, gate_stream
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import verify_claims

ANSWERS = Path(__file__).resolve().parents[2] / "graphcite" / "examples" / "answers"
#: two current sources that disagree on each value (a claim citing one is in conflict with the other),
#: and on a polarity: what the contradiction search and the polarity rules must find
CONFLICTS = {
    "pump-a.md": "# Intake pump\n\nThe intake pump stops after 40 seconds without flow.\n\n"
                 "The filter screen is cleaned every 6 hours.\n",
    "pump-b.md": "# Intake pump, plant two\n\nThe intake pump stops after 90 seconds without flow.\n\n"
                 "The filter screen is cleaned every 12 hours.\n",
    "kiln-a.md": "# Kiln\n\nThe kiln door stays locked until the chamber is below 80 degrees Celsius.\n\n"
                 "The kiln is not fired on weekends.\n",
    "kiln-b.md": "# Kiln safety sheet\n\nThe kiln door stays locked until the chamber is below 60 degrees Celsius.\n\n"
                 "The kiln is fired on weekends.\n",
}
NEW_WORDS = ("tangerine", "obsidian", "marmalade", "heron", "pumice", "lichen", "sextant", "foxglove",
             "barnacle", "sorrel", "kelp", "vellum", "quince", "mistral", "loam", "cormorant")


def _claims() -> list[dict]:
    claims = []
    for name in ("clean.json", "traps.json"):
        answer = json.loads((ANSWERS / name).read_text(encoding="utf-8"))
        claims += [{k: c[k] for k in ("text", "citations", "type") if k in c} for c in answer["claims"]]
    for name, text in CONFLICTS.items():  # each sentence of the conflicting documents, citing itself
        for sentence in text.split("\n\n")[1:]:
            sentence = sentence.strip()
            claims.append({"text": sentence, "citations": [{"source": f"conflicts/{name}", "quote": sentence}]})
    return claims


def with_conflicts(store: Store, folder: Path) -> Store:
    """``store`` with the conflicting documents ingested (under ``conflicts/``)."""
    from graphcite.ingest import ingest

    folder.mkdir()
    for name, text in CONFLICTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    ingest(store, [folder], prefix="conflicts/")
    return store


def gate_lines(count: int, seed: int = 7) -> list[str]:
    """The bundled claims, then ``count`` variants: each a way a client's own sentence differs."""
    claims = _claims()
    rng = random.Random(seed)
    lines = [json.dumps(c) for c in claims]
    for i in range(count):
        claim = dict(claims[rng.randrange(len(claims))])
        text = claim["text"].rstrip(".")
        word, other = rng.choice(NEW_WORDS), rng.choice(NEW_WORDS)
        kind = i % 8
        if kind == 0:
            claim["text"] = f"{text}, as the {word} review {i} noted."
        elif kind == 1:
            claim["text"] = f"According to the {word} {other} notes, {text[0].lower()}{text[1:]}."
        elif kind == 2:  # numbers moved: the value rules decide
            claim["text"] = " ".join(str(int(w) + 1) if w.isdigit() else w for w in text.split()) + "."
        elif kind == 3:  # a negation put in or taken out, sometimes with a new phrase the evidence lacks
            claim["text"] = (text.replace(" is ", " is not ", 1) if " is " in text
                             else text.replace(" not ", " ", 1) if " not " in text else f"It is not true that {text}")
            if i % 16 == 11:
                claim["text"] = claim["text"].rstrip(".") + f" during the {word} audit."
        elif kind == 4:  # two claims in one sentence, both claims' citations
            second = claims[rng.randrange(len(claims))]
            claim["text"] = f"{text}; {second['text'][0].lower()}{second['text'][1:]}"
            claim["citations"] = claim["citations"] + second["citations"]
        elif kind == 5:  # another claim's citations
            claim["citations"] = claims[rng.randrange(len(claims))]["citations"]
        elif kind == 6:  # no citation at all, or the first one only
            claim["citations"] = claim["citations"][:rng.randrange(2)]
        else:
            claim["text"] = f"{text} during the {word} rollout, because the {other} queue was full."
        lines.append(json.dumps(claim))
    for claim in claims[-8:]:  # the conflicting documents: polarity flipped with a phrase no evidence has
        text = claim["text"].rstrip(".")
        flipped = text.replace(" is not ", " is ") if " is not " in text else text.replace(" is ", " is not ", 1)
        lines.append(json.dumps({**claim, "text": f"{flipped} during the {NEW_WORDS[len(lines) % 16]} audit."}))
    return lines


def _plain(store: Store, lines: list[str], audience: str = "internal",
           config: VerifierConfig | None = None) -> list[str]:
    """Every line's verdict from its whole report on the bare store: the path before the served one.
    The pair verdicts it leaves in the process's memory are forgotten, so the other path decides alone."""
    try:
        return [json.dumps(v, sort_keys=True)
                for v in gate_stream(store, lines, audience=audience, config=config, verifier=verify_claims)]
    finally:
        engine._PAIRS.clear()
        statuses._RELATIONS.clear()


def _served(service: Service, lines: list[str], audience: str = "internal") -> list[str]:
    """Every line's verdict as GateStream decides it: from memory on the event loop, else in a worker."""
    stream = GateStream(None, service, audience=audience, mode="mark", sse=False)  # type: ignore[arg-type]
    out = []
    for number, line in enumerate(lines, start=1):
        raw = line.encode() + b"\n"
        record = stream._remembered(number, raw) or stream._check(number, raw)
        out.append(json.dumps(record, sort_keys=True))
    return out


@pytest.mark.parametrize("audience", ["internal", "public"])
def test_served_gate_verdicts_are_the_plain_path_s(any_corpus_store: Store, audience: str, tmp_path: Path) -> None:
    with_conflicts(any_corpus_store, tmp_path / "conflicts")
    lines = gate_lines(200)
    plain = _plain(any_corpus_store, lines, audience)
    service = Service(ServiceSettings(audience=audience), store=any_corpus_store)
    try:
        service.warm_up()
        assert _served(service, lines, audience) == plain  # evidence from the store, rules run
        assert _served(service, lines, audience) == plain  # every verdict from memory
        service.warm.clear()
        assert _served(service, lines, audience) == plain  # pair relations from memory, evidence read again
        service.warm.clear()
        with service.reader() as view:
            assert service.warm.prewarm(view)["units"] > 400
        assert _served(service, lines, audience) == plain  # postings, units and values read ahead
    finally:
        service.close()
    assert [json.dumps(v, sort_keys=True) for v in gate_stream(any_corpus_store, lines, audience=audience)] == plain
    statuses = {json.loads(v)["status"] for v in plain}
    assert {"supported", "insufficient", "contradicted", "conflict", "invalid", "unsupported"} <= statuses


def test_statuses_without_the_report_under_other_configurations(corpus_store: Store, tmp_path: Path) -> None:
    with_conflicts(corpus_store, tmp_path / "conflicts")
    lines = gate_lines(48, seed=11)
    for config in (VerifierConfig(note_rules=()), VerifierConfig(disabled_rules=("GC301", "negation-mismatch")),
                   VerifierConfig(store_contradictions=False), VerifierConfig.lexical_baseline()):
        lean = [json.dumps(v, sort_keys=True) for v in gate_stream(corpus_store, lines, config=config)]
        assert lean == _plain(corpus_store, lines, config=config), config


def test_the_gate_over_http_streams_the_plain_path_s_verdicts(serve_db: Path, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from graphcite.serve import create_app

    lines = gate_lines(40, seed=3)
    copy = tmp_path / "gate.duckdb"
    copy.write_bytes(serve_db.read_bytes())
    with Store(copy) as store:
        plain = [json.loads(v) for v in _plain(with_conflicts(store, tmp_path / "conflicts"), lines)]
    body = "".join(line + "\n" for line in lines * 2).encode()  # each sentence twice: the second from memory
    with TestClient(create_app(ServiceSettings(db=copy))) as client:
        response = client.post("/v1/gate", content=body, headers={"content-type": "application/x-ndjson"})
    records = [json.loads(line) for line in response.text.splitlines()]
    verdicts = [{k: v for k, v in r.items() if k != "label"} for r in records[:-1]]
    assert verdicts == plain + [{**r, "line": r["line"] + len(lines)} for r in plain]
    assert records[-1]["done"] and records[-1]["lines"] == 2 * len(lines)


def test_a_sentence_of_new_words_reads_nothing_once_warm(any_corpus_store: Store, tmp_path: Path) -> None:
    with_conflicts(any_corpus_store, tmp_path / "conflicts")
    service = Service(ServiceSettings(), store=any_corpus_store)
    citations = _claims()[3]["citations"]
    lines = [json.dumps({"text": f"The {a} {b} relay keeps {c} logs for 14 days.", "citations": citations})
             for a, b, c in zip(NEW_WORDS, NEW_WORDS[1:], NEW_WORDS[2:], strict=False)]
    try:
        service.warm_up()
        _served(service, lines[:1])  # the known terms' postings and the units they lead to, read once
        for number, line in enumerate(lines[1:], start=2):  # the same sentence with other new words
            with service.reader() as view:
                assert gate_line(view, number, line, config=service.settings.config, audience="internal")
                assert view.store_reads == 0, line  # new terms: answered from the vocabulary
        assert _served(service, lines) == _plain(any_corpus_store, lines)
    finally:
        service.close()


def test_keyed_reads_are_shared_by_views_and_dropped_with_the_generation(corpus_store: Store) -> None:
    from graphcite.store.queries import verify as reads

    warm = WarmReads()
    unit_ids = [r["unit_id"] for r in corpus_store.rows("SELECT unit_id FROM evidence_unit ORDER BY unit_id LIMIT 3")]
    first = WarmView(corpus_store, warm)
    texts = reads.unit_texts(first, unit_ids[:2])
    assert first.store_reads == 1
    second = WarmView(corpus_store, warm)
    assert reads.unit_texts(second, unit_ids) == reads.unit_texts(corpus_store, unit_ids)  # one new id read
    assert second.store_reads == 1 and reads.unit_texts(second, unit_ids[:2]) == texts and second.store_reads == 1
    assert reads.public_terms(second, {"zzyzx-never-indexed"}) == set() and second.store_reads == 1
    assert not warm._entries  # the keyed reads' rows are kept once, in the memo's tables, not also by SQL text
    with second.transaction():
        second.execute("UPDATE evidence_unit SET text = 'rewritten' WHERE unit_id = ?", [unit_ids[0]])
    third = WarmView(corpus_store, warm)
    assert reads.unit_texts(third, unit_ids[:1]) == {unit_ids[0]: "rewritten"}
    assert third.store_reads == 1


def test_prewarm_reads_ahead_what_the_contradiction_search_asks(any_corpus_store: Store) -> None:
    from graphcite.claims.decompose import decompose
    from graphcite.store.queries.contradictions import contradiction_candidates, values_with_unit_start
    from graphcite.verify.contradictions import _term_rows

    _, (claims, parts, terms) = _term_rows([decompose(c["text"]) for c in _claims()])
    grouped = contradiction_candidates(any_corpus_store, claims, parts, terms, per_part=12, common_share=0.05)
    warm = WarmReads()
    stats = warm.prewarm(WarmView(any_corpus_store, warm))
    assert stats["postings"] > 1000 and stats["units"] > 400 and stats["valued_units"] == stats["units"]
    view = WarmView(any_corpus_store, warm)
    found = contradiction_candidates(view, claims, parts, terms, per_part=12, common_share=0.05)
    assert grouped and [list(r.items()) for r in found] == [list(r.items()) for r in grouped]
    units = {r["unit_id"] for r in found}
    assert values_with_unit_start(view, units) == values_with_unit_start(any_corpus_store, units)
    assert view.store_reads == 1  # the unit count only: every posting, unit row and value came from memory


def test_a_verdict_is_remembered_for_short_lines_only(corpus_store: Store) -> None:
    service = Service(ServiceSettings(), store=corpus_store)
    stream = GateStream(None, service, audience="internal", mode="mark", sse=False)  # type: ignore[arg-type]
    claim = _claims()[3]
    short = json.dumps(claim).encode()
    long = json.dumps({**claim, "text": claim["text"].rstrip(".") + ", " + "and so on " * 900 + "."}).encode()
    assert 8192 < len(long) < service.settings.max_line_bytes
    try:
        with service.reader():
            pass  # the evidence fingerprint is read: memory may answer
        for raw in (short, long):
            assert stream._remembered(1, raw) is None
            checked = stream._check(1, raw)
            assert checked is not None and "error" not in checked
        expected = {**stream._check(1, short), "line": 2}
        with service.reader():
            pass  # the fingerprint compared again (memory answers only within a second of that)
        assert stream._remembered(2, short) == expected
        assert stream._remembered(2, long) is None
    finally:
        service.close()
