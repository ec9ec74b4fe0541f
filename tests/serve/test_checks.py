"""The service's check path (report memo, kept report texts, group commit, record summaries) on both
engines: every report is byte for byte the one ``check_answer`` gives for the same store and input."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from graphcite.claims.decompose import decompose
from graphcite.claims.formats import load_answer
from graphcite.evaluate import annotate
from graphcite.models import InputAnswer
from graphcite.serve.jsontext import json_text
from graphcite.serve.memo import ReportMemo
from graphcite.serve.service import Service, ServiceSettings
from graphcite.serve.warm import WarmReads, WarmView
from graphcite.store import Store
from graphcite.verify.check import check_answer, parts_for
from graphcite.verify.engine import verify_claims

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.loads((ROOT / "graphcite" / "examples" / "answers" / "clean.json").read_text(encoding="utf-8"))
TRAPS = json.loads((ROOT / "graphcite" / "examples" / "answers" / "traps.json").read_text(encoding="utf-8"))


def _answer(data: dict[str, Any], **changes: Any) -> InputAnswer:
    return load_answer({**data, **changes}, format="native")


def _inference() -> InputAnswer:
    """Two claims and an inference drawn from them: its review state is read from the judgements."""
    first, second = CLEAN["claims"][0], CLEAN["claims"][3]
    conclusion = {"text": "So a failed event is tried five times and its logs outlive the parking window.",
                  "citations": first["citations"], "type": "inference", "premises": [0, 1]}
    return _answer({"answer_id": "inferred", "claims": [first, second, conclusion]})


@pytest.fixture()
def service(corpus_url: str) -> Iterator[Service]:
    opened = Service(ServiceSettings(db=corpus_url))
    yield opened
    opened.close()


def _expected(service: Service, answer: InputAnswer) -> bytes:
    """What the library (``graphcite check --json``) reports now, written nowhere."""
    with service.writer() as store:
        report = check_answer(store, answer, config=service.settings.config, record=False)
    return json_text(report).encode("utf-8")


def _judge(service: Service, claim_id: str, reviewer: str, label: str) -> None:
    with service.writer() as store:
        annotate(store, claim_id, citation=0, label=label, rationale="read the decision record", reviewer=reviewer)


def test_service_reports_are_the_library_s_byte_for_byte(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    steps = [_answer(CLEAN), _answer(CLEAN), _answer(TRAPS), _answer(CLEAN, answer_id="again"), _answer(CLEAN),
             _inference(), _inference()]
    seen: list[dict[str, Any]] = []
    for number, answer in enumerate(steps):
        expected = _expected(service, answer)
        body = desk.check_json(answer, config=config, audience="internal")
        assert body == expected, f"step {number}"
        seen.append(json.loads(body))
        if number == 1:  # a judgement between two checks shows in the next one, contested after a second
            claim = seen[0]["claims"][0]["claim_id"]
            _judge(service, claim, "ana", "supports")
            _judge(service, claim, "ben", "contradicts")
        if number == 5:
            _judge(service, seen[5]["claims"][2]["claim_id"], "ana", "supports")
    assert "earlier" not in seen[0] and seen[1]["earlier"]["checks"] == 1 and seen[4]["earlier"]["checks"] == 2
    assert seen[4]["earlier"]["claims"][0]["contested"] is True
    assert seen[3]["answer_rev"] != seen[0]["answer_rev"] and "earlier" not in seen[3]
    assert seen[6]["claims"][2]["inference"]["review_state"] == "reviewed"  # not kept as text: read each time
    assert desk.memo.misses >= 3  # "again" is the clean answer's content under another id: kept from then on
    with service.reader() as store:
        stored = store.scalar("SELECT count(*) FROM verification")
    assert stored == sum(len(r["claims"]) for r in seen)


def test_concurrent_checks_are_written_together_and_counted_in_order(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    answer = _answer(CLEAN)
    bodies: list[bytes] = []
    errors: list[BaseException] = []
    start = threading.Barrier(12)

    def one() -> None:
        try:
            start.wait()
            bodies.append(desk.check_json(answer, config=config, audience="internal"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    earlier = sorted(json.loads(b).get("earlier", {}).get("checks", 0) for b in bodies)
    assert earlier == list(range(12))  # each check saw exactly the ones written before it
    assert desk.checks == 12 and desk.batches <= 12
    with service.reader() as store:
        assert store.scalar("SELECT count(*) FROM verification") == 12 * 7
        assert store.scalar("SELECT count(DISTINCT record_id) FROM verification") == 12 * 7
    # the next check, from memory, still agrees with the library reading the store
    expected = _expected(service, answer)
    assert desk.check_json(answer, config=config, audience="internal") == expected


def test_checks_on_the_event_loop_are_written_together_and_counted_in_order(service: Service) -> None:
    """The route's path (:meth:`CheckDesk.check_body`): kept reports taken on the event loop, others
    prepared in threads, every check waiting on the loop for its batch; the same bytes as the library."""
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    options: dict[str, Any] = {"format": None, "documents": None, "config": config, "audience": "internal"}
    same = json.dumps(CLEAN)

    async def main() -> tuple[list[bytes], list[bytes]]:
        first = await desk.check_body(same, **options)
        again = await asyncio.gather(*(desk.check_body(same, **options) for _ in range(11)))
        fresh = await asyncio.gather(*(desk.check_body(json.dumps({**CLEAN, "answer_id": f"loop-{n}"}), **options)
                                       for n in range(6)))
        return [first, *again], list(fresh)

    bodies, fresh = anyio.run(main)
    earlier = sorted(json.loads(b).get("earlier", {}).get("checks", 0) for b in bodies)
    assert earlier == list(range(12))  # each check saw exactly the ones written before it
    assert desk.checks == 18 and desk.batches < 18
    assert [json.loads(b)["answer_id"] for b in fresh] == [f"loop-{n}" for n in range(6)]
    assert all("earlier" not in json.loads(b) for b in fresh)
    for answer in (_answer(CLEAN), _answer(CLEAN, answer_id="loop-3")):
        expected = _expected(service, answer)
        assert anyio.run(lambda a=answer: desk.check_body(json.dumps(  # type: ignore[misc]
            {**CLEAN, "answer_id": a.answer_id}), **options)) == expected
    with service.reader() as store:
        assert store.scalar("SELECT count(DISTINCT record_id) FROM verification") == 20 * 7


def test_records_written_by_another_connection_are_seen(service: Service, corpus_url: str) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    answer = _answer(CLEAN)
    desk.check_json(answer, config=config, audience="internal")
    if corpus_url.startswith("postgresql"):  # another server process on the same database
        with Store(corpus_url) as other:
            check_answer(other, answer, config=config)
    else:  # one writer process: through the service's own views
        with service.writer() as store:
            check_answer(store, answer, config=config)
    expected = _expected(service, answer)
    body = desk.check_json(answer, config=config, audience="internal")
    assert body == expected and json.loads(body)["earlier"]["checks"] == 2


def test_the_plain_service_path_gives_the_same_report(corpus_url: str) -> None:
    plain = Service(ServiceSettings(db=corpus_url, memo=False))
    try:
        assert plain.desk is None and plain.verifier is None
        expected = _expected(plain, _answer(CLEAN))
        with plain.writer() as store:
            report = check_answer(store, _answer(CLEAN), config=plain.settings.config)
        assert json_text(report).encode() == expected
    finally:
        plain.close()


def test_report_memo_gives_the_engine_s_report_and_forgets_on_new_evidence(any_corpus_store: Store) -> None:
    memo = ReportMemo()
    view = WarmView(any_corpus_store, WarmReads())
    answer = _answer(CLEAN)
    parts = parts_for(answer)
    config = ServiceSettings().config
    plain = json_text(verify_claims(any_corpus_store, answer, parts, config))
    first = memo.verify_claims(view, answer, parts, config)
    assert list(memo._entries._entries.values()) == [None]  # noted, nothing encoded
    second = memo.verify_claims(view, answer, parts, config)  # met again: made by the engine and kept
    first["claims"][0]["status"] = second["claims"][1]["status"] = "edited by a caller"
    renamed = memo.verify_claims(view, _answer(CLEAN, answer_id="renamed"), parts, config)
    assert (memo.misses, memo.hits) == (2, 1)
    assert renamed["answer_id"] == "renamed" and json_text({**renamed, "answer_id": CLEAN["answer_id"]}) == plain
    again = memo.verify_claims(view, answer, parts, config)
    assert json_text(again) == plain and (memo.misses, memo.hits) == (2, 2)
    view.execute("UPDATE source SET title = title")  # an evidence write: a new generation
    memo.verify_claims(view, answer, parts, config)
    memo.verify_claims(view, answer, parts, config)
    assert (memo.misses, memo.hits) == (4, 2)
    unwarmed = memo.verify_claims(any_corpus_store, answer, parts, config)  # no warm view: never from memory
    assert json_text(unwarmed) == plain and (memo.misses, memo.hits) == (4, 2)


def test_decompose_remembers_sentences_without_sharing_lists() -> None:
    text = "The relay retries five times and parks the event for 72 hours."
    first = decompose(text)
    first.append(first[0])
    second = decompose(text)
    assert len(second) == len(first) - 1 and second == first[:-1]


def test_http_check_bodies_are_the_library_s_bytes(corpus_url: str) -> None:
    from starlette.testclient import TestClient

    from graphcite.serve import create_app

    body = json.dumps(CLEAN)
    with TestClient(create_app(ServiceSettings(db=corpus_url)), raise_server_exceptions=False) as client:
        service = client.app.app.state.service
        for _ in range(3):  # parsed, then a kept body; verified, then a kept report text
            expected = _expected(service, _answer(CLEAN))
            response = client.post("/v1/check", content=body, headers={"content-type": "application/json"})
            assert response.status_code == 200 and response.content == expected
        assert json.loads(response.content)["earlier"]["checks"] == 2


def test_an_answer_stored_elsewhere_between_verifying_and_writing_is_checked_again(
        service: Service, corpus_url: str) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    answer = _answer(CLEAN)
    with service.reader() as store:
        prepared, keep = desk.prepare(store, answer, config=config, audience="internal")
    assert prepared.answer_rows is not None  # new when verified
    if corpus_url.startswith("postgresql"):
        with Store(corpus_url) as other:
            check_answer(other, answer, config=config)
    else:
        with service.writer() as store:
            check_answer(store, answer, config=config)
    expected = _expected(service, answer)
    desk.commit(prepared, config, keep=keep)
    assert prepared.report is not None and json_text(prepared.report).encode() == expected
    assert prepared.report["earlier"]["checks"] == 1


def test_two_server_processes_on_postgresql_count_each_other_s_checks(corpus_url: str) -> None:
    if not corpus_url.startswith("postgresql"):
        pytest.skip("a DuckDB file has one writer process")
    services = [Service(ServiceSettings(db=corpus_url)) for _ in range(2)]
    answer = _answer(CLEAN)
    bodies: list[bytes] = []
    errors: list[BaseException] = []

    def run(service: Service) -> None:
        assert service.desk is not None
        for _ in range(6):
            try:
                bodies.append(service.desk.check_json(answer, config=service.settings.config, audience="internal"))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    try:
        threads = [threading.Thread(target=run, args=(s,)) for s in (*services, *services)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors[0]
        earlier = sorted(json.loads(b).get("earlier", {}).get("checks", 0) for b in bodies)
        assert earlier == list(range(24))  # one order over both processes: no check counted twice
        with services[0].reader() as store:
            assert store.scalar("SELECT count(DISTINCT record_id) FROM verification") == 24 * 7
    finally:
        for service in services:
            service.close()


def test_a_revision_stored_before_the_desk_met_it_keeps_its_stored_parts(service: Service) -> None:
    """A revision the desk has not met is decomposed as new without asking the store; the writer finds
    it stored and verifies it again with the parts it was stored with (the library's report)."""
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    answer = _answer(CLEAN, answer_id="stored-before")
    with service.writer() as store:
        rev = check_answer(store, answer, config=config)["answer_rev"]
        store.execute("UPDATE claim SET atomic_json = replace(atomic_json, 'at most five', 'at most 5') "
                      "WHERE answer_rev = ?", [rev])  # stored parts that decomposing now would not give
    expected = _expected(service, answer)
    assert b"at most 5 delivery" in expected
    body = asyncio.run(desk.check_body(json.dumps({**CLEAN, "answer_id": "stored-before"}), format=None,
                                       documents=None, config=config, audience="internal"))
    assert body == expected and json.loads(body)["earlier"]["checks"] == 1


def test_new_text_learns_templates_once_its_revisions_are_written(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    reports = []
    for number in range(3):
        text = json.dumps({**CLEAN, "answer_id": f"text-{number}"})
        reports.append(json.loads(asyncio.run(desk.check_body(text, format=None, documents=None, config=config,
                                                              audience="internal"))))
        assert desk.templates.made == (number > 0)  # the first two revisions, once written, make the template
    with service.reader() as store:  # (the library's report of a stored revision, after the fact)
        stored = check_answer(store, _answer(CLEAN, answer_id="text-2"), config=config, record=False)
    assert json_text({**reports[2], "earlier": None}) == json_text({**stored, "earlier": None})
    before = service.activity  # the collector's sign of activity counts a check answered from memory too
    again = asyncio.run(desk.check_body(text, format=None, documents=None, config=config, audience="internal"))
    assert json.loads(again)["earlier"]["checks"] == 1
    assert service.activity == before + 2  # the request, answered from its kept text, and the writer's view


def test_a_public_check_of_an_answer_stored_without_a_check_is_not_recorded(service: Service) -> None:
    """As check_answer: the first record of an ``add-answer`` answer may not be a public one (it would make
    the store holder's words the public's); the group commit answers the check and writes no record."""
    from graphcite.claims import add_answer

    desk = service.desk
    assert desk is not None
    answer = _answer(CLEAN, answer_id="added-then-public")
    with service.writer() as store:
        rev = add_answer(store, answer)

    def records() -> dict[str, int]:
        with service.reader() as store:
            return {r["audience"]: int(r["n"]) for r in store.rows(
                "SELECT audience, count(*) AS n FROM verification WHERE answer_rev = ? GROUP BY audience", [rev])}

    config = service.settings.config
    first = desk.check(answer, config=config, audience="public")
    assert [c["claim_id"] for c in first["claims"]] and records() == {}
    desk.check(answer, config=config, audience="internal")
    claims = len(first["claims"])
    assert records() == {"internal": claims}
    desk.check(answer, config=config, audience="public")
    assert records() == {"internal": claims, "public": claims}
