"""Verification worker processes (``ServiceSettings(verify_workers=N)``, :mod:`graphcite.serve.pool`): real
processes reading through the service's store; every report is byte for byte the one ``check_answer``
gives for the same store and input, whether a worker, the service or a replacement worker prepared it."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.serve_text import NewTextAnswers
from graphcite.claims.formats import load_answer
from graphcite.errors import GraphciteError
from graphcite.models import InputAnswer
from graphcite.serve.jsontext import json_text
from graphcite.serve.service import Service, ServiceSettings, verify_workers_from_env
from graphcite.verify.check import check_answer, scratch_check

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.loads((ROOT / "graphcite" / "examples" / "answers" / "clean.json").read_text(encoding="utf-8"))
TRAPS = json.loads((ROOT / "graphcite" / "examples" / "answers" / "traps.json").read_text(encoding="utf-8"))


@pytest.fixture()
def pooled(corpus_url: str) -> Iterator[Service]:
    service = Service(ServiceSettings(db=corpus_url, verify_workers=1))
    service.warm_up()
    yield service
    service.close()


def _expected(service: Service, answer: InputAnswer, *, stored: bool = False) -> bytes:
    """What the library reports now for ``answer``: for a new revision with nothing written (a scratch
    check: the revision stays new for the service), for a stored one without a record."""
    with service.writer() as store:
        if stored:
            report = check_answer(store, answer, config=service.settings.config, record=False)
        else:
            report = scratch_check(store, answer, config=service.settings.config)
    return json_text(report).encode("utf-8")


def _check(service: Service, answer: InputAnswer) -> bytes:
    assert service.desk is not None
    return service.desk.check_json(answer, config=service.settings.config, audience="internal")


def test_a_worker_prepares_new_answers_and_the_reports_are_the_library_s(pooled: Service) -> None:
    pool = pooled.pool
    assert pool is not None and len(pool.pids) == 1
    texts = NewTextAnswers(CLEAN, 14_000)
    answers = [load_answer(texts.answer(), format="native") for _ in range(3)]
    answers += [load_answer(TRAPS, format="native"), load_answer(CLEAN, format="native")]
    for number, answer in enumerate(answers):
        expected = _expected(pooled, answer)
        assert _check(pooled, answer) == expected, f"answer {number}"
    assert pool.remote == len(answers) and pool.local == 0
    # the same answers again: stored now, each report carries its earlier block, as the library's does
    for number, answer in enumerate(answers):
        expected = _expected(pooled, answer, stored=True)
        assert _check(pooled, answer) == expected, f"again {number}"


def test_a_new_id_of_content_workers_checked_twice_is_filled_in_from_its_template(pooled: Service) -> None:
    """Two revisions of the same content prepared by a worker make its template (learnt once each is
    written); the third is filled in by the service, not sent to the worker."""
    assert pooled.pool is not None and pooled.desk is not None
    answers = [load_answer({**CLEAN, "answer_id": name}, format="native") for name in ("first", "second", "third")]
    expected = [_expected(pooled, answer) for answer in answers]  # (new revisions: no earlier checks)
    for number, answer in enumerate(answers):
        assert _check(pooled, answer) == expected[number], answer.answer_id
        assert pooled.pool.remote == min(number + 1, 2)
    assert pooled.desk.templates.filled == 1


def test_a_worker_that_dies_is_replaced_and_the_check_still_answers(pooled: Service) -> None:
    pool = pooled.pool
    assert pool is not None
    os.kill(pool.pids[0], signal.SIGKILL)  # the worker this test started
    texts = NewTextAnswers(CLEAN, 15_000)
    answer = load_answer(texts.answer(), format="native")
    expected = _expected(pooled, answer)
    assert _check(pooled, answer) == expected
    assert pool.replaced == 1 and pool.local == 1
    for _ in range(600):  # the replacement warms up in the background
        if pool._idle:
            break
        time.sleep(0.2)
    answer = load_answer(texts.answer(), format="native")
    expected = _expected(pooled, answer)
    assert _check(pooled, answer) == expected
    assert pool.remote == 1


def test_a_worker_sees_evidence_the_service_wrote(corpus_url: str, tmp_path: Path) -> None:
    """A passage an answer carries is stored as evidence by the service; the next check a worker prepares
    reads it (the evidence generation travels with each job)."""
    from graphcite.ingest import ingest

    note = tmp_path / "extra" / "relay-window.md"
    note.parent.mkdir()
    note.write_text("# Relay window\n\nThe relay keeps a parked event for 96 hours in the staging region.\n",
                    encoding="utf-8")
    service = Service(ServiceSettings(db=corpus_url, verify_workers=1))
    try:
        service.warm_up()
        claim = {"text": "The relay keeps a parked event for 96 hours in the staging region.",
                 "citations": [{"source": "relay-window.md", "quote": "keeps a parked event for 96 hours"}]}
        answer = load_answer({"answer_id": "window", "claims": [claim]}, format="native")
        expected = _expected(service, answer)
        before = _check(service, answer)
        assert before == expected
        with service.writer() as store:
            ingest(store.unwrapped, [note.parent])
            service.warm.wrote("source")
        again = load_answer({"answer_id": "window-2", "claims": [claim],
                             "question": "How long is a parked event kept?"}, format="native")
        expected = _expected(service, again)
        after = _check(service, again)
        assert after == expected
        assert json.loads(after)["claims"][0]["status"] != json.loads(before)["claims"][0]["status"]
        assert service.pool is not None and service.pool.remote == 2
    finally:
        service.close()


def test_the_worker_count_comes_from_the_environment_or_is_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHCITE_VERIFY_WORKERS", raising=False)
    assert verify_workers_from_env() == 0 and ServiceSettings().verify_workers == 0
    monkeypatch.setenv("GRAPHCITE_VERIFY_WORKERS", "2")
    assert ServiceSettings().verify_workers == 2
    for bad in ("two", "-1", "65"):
        monkeypatch.setenv("GRAPHCITE_VERIFY_WORKERS", bad)
        with pytest.raises(GraphciteError, match="GRAPHCITE_VERIFY_WORKERS must be a whole number"):
            ServiceSettings()


def test_a_stopped_service_leaves_no_worker_running(corpus_url: str) -> None:
    service = Service(ServiceSettings(db=corpus_url, verify_workers=1))
    service.warm_up()
    assert service.pool is not None
    pids = service.pool.pids
    service.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_store_end_runs_only_the_calls_a_remote_store_sends(any_corpus_store: Any) -> None:
    from graphcite.errors import StoreError
    from graphcite.store.remote import answer_call

    kind, value = answer_call(any_corpus_store, "close", [])
    assert kind == "error" and isinstance(value, StoreError)
    kind, value = answer_call(any_corpus_store, "_run", ["SELECT count(*) AS n FROM source", None])
    assert kind == "ok" and value[0] == ["n"] and value[1][0][0] > 0
    kind, value = answer_call(any_corpus_store, "_run", ["SELECT * FROM no_such_table", None])
    assert kind == "error" and isinstance(value, Exception)
    assert any_corpus_store.scalar("SELECT count(*) FROM source") > 0  # the store is still open
