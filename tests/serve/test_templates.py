"""New revisions of content checked before (graphcite.serve.templates), on both engines: what a
template gives is what the library prepares for the same revision, texts byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphcite.claims.answers import answer_rev_for, answer_rows
from graphcite.claims.formats import load_answer
from graphcite.models import AtomicClaim, InputAnswer
from graphcite.serve.checks import CheckDesk
from graphcite.serve.jsontext import json_text
from graphcite.serve.service import Service, ServiceSettings
from graphcite.serve.templates import HoledText
from graphcite.store import utcnow
from graphcite.verify.check import check_answer, prepare_check

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.loads((ROOT / "graphcite" / "examples" / "answers" / "clean.json").read_text(encoding="utf-8"))
#: ids a JSON encoder must escape or keep as they are: quotes, backslash, a line separator, a non-BMP character
IDS = ["first", "second", 'third "quoted" \\ naïve\u2028id', "fourth \U0001f9ea", "fifth"]


def _answer(answer_id: str) -> InputAnswer:
    return load_answer({**CLEAN, "answer_id": answer_id}, format="native")


@pytest.fixture()
def service(corpus_url: str) -> Iterator[Service]:
    opened = Service(ServiceSettings(db=corpus_url))
    yield opened
    opened.close()


def _without_time(rows: Any) -> Any:
    answer_row, claim_rows, citation_rows = rows
    return {k: v for k, v in answer_row.items() if k != "stored_at"}, claim_rows, citation_rows


def test_a_template_prepares_what_the_library_prepares(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    for number, answer_id in enumerate(IDS):
        answer = _answer(answer_id)
        with service.reader() as store:
            prepared, keep = desk.prepare(store, answer, config=config, audience="internal")
            library = prepare_check(store, answer, config=config, audience="internal")
        assert library.report is not None and keep is not None
        assert prepared.text == json_text(library.report), answer_id
        assert prepared.records == library.records, answer_id
        assert prepared.answer_rows is not None and library.answer_rows is not None
        assert _without_time(prepared.answer_rows) == _without_time(library.answer_rows), answer_id
        assert desk.templates.filled == max(0, number - 1)  # made from the first two revisions
    assert desk.templates.made == 1


def test_checks_through_a_template_are_the_library_s_and_written_alike(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    for answer_id in IDS:
        answer = _answer(answer_id)
        with service.reader() as store:  # a new revision: what check_answer reports, nothing stored yet
            report = prepare_check(store, answer, config=config, audience="internal").report
        assert desk.check_json(answer, config=config, audience="internal") == json_text(report).encode(), answer_id
    assert desk.templates.filled == len(IDS) - 2
    # the claims and records a template wrote are the library's for the same content under another id
    with service.writer() as store:
        library = check_answer(store, _answer("written by the library"), config=config)["answer_rev"]
    mine = json.loads(desk.check_json(_answer(IDS[-1]), config=config, audience="internal"))["answer_rev"]
    with service.reader() as store:
        claims = {rev: store.rows("SELECT ordinal, part, text, claim_type, atomic_json FROM claim "
                                  "WHERE answer_rev = ? ORDER BY ordinal, part NULLS FIRST", [rev])
                  for rev in (library, mine)}
        records = {rev: store.rows("SELECT claim_id, status, supported, evidence_revisions_json, result_json "
                                   "FROM verification WHERE answer_rev = ? ORDER BY claim_id", [rev])
                   for rev in (library, mine)}
    assert claims[mine] == claims[library] and len(claims[mine]) > len(CLEAN["claims"])

    def verdicts(rows: list[dict[str, Any]]) -> list[Any]:
        out = []
        for row in rows:
            result = json.loads(row["result_json"])
            assert result.pop("claim_id") == row["claim_id"]
            out.append((row["status"], row["supported"], row["evidence_revisions_json"], result))
        return sorted(out, key=lambda item: item[3]["index"])

    assert len(records[mine]) == 2 * len(CLEAN["claims"])  # checked twice
    assert verdicts(records[mine])[::2] == verdicts(records[library])


def test_a_stored_revision_is_never_taken_from_a_template(service: Service) -> None:
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    desk.check_json(_answer("stored first"), config=config, audience="internal")
    other = CheckDesk(service)  # a desk that never saw "stored first", as after a restart
    for answer_id in ("one", "two"):
        other.check_json(_answer(answer_id), config=config, audience="internal")
    assert other.templates.made == 1
    with service.reader() as store:
        prepared, _ = other.prepare(store, _answer("stored first"), config=config, audience="internal")
    assert prepared.answer_rows is None and other.templates.filled == 0


def test_holed_text_refuses_a_mark_that_does_not_come_out_once() -> None:
    hole = ("answer_id", 0)
    twice = HoledText.encode(lambda mark: [(m := mark(hole)), m], lambda content, default: json.dumps(
        content, default=default))
    lost = HoledText.encode(lambda mark: (mark(hole), "kept")[1], lambda content, default: json.dumps(
        content, default=default))
    once = HoledText.encode(lambda mark: {"id": mark(hole), "text": "\ue000 not a mark \ue001"},
                            lambda content, default: json.dumps(content, ensure_ascii=False, default=default))
    assert twice is None and lost is None and once is not None
    assert once.fill({hole: json.dumps("x")}) == json.dumps({"id": "x", "text": "\ue000 not a mark \ue001"},
                                                               ensure_ascii=False)


def test_a_stored_revision_filled_in_from_a_template_is_verified_again_before_it_is_written(
        service: Service) -> None:
    """The check path fills a template without asking the store; the writer finds the revision stored
    (here with atomic parts of its own: one per claim, the whole sentence) and verifies it the ordinary
    way, with the stored parts, so the report is the library's for that store."""
    desk = service.desk
    assert desk is not None
    config = service.settings.config
    for answer_id in ("one", "two"):
        desk.check_json(_answer(answer_id), config=config, audience="internal")
    assert desk.templates.made == 1
    answer = _answer("stored with other parts")
    whole = [[AtomicClaim(text=c.text, span=(0, len(c.text)), sentence=c.text)] for c in answer.claims]
    answer_row, claim_rows, citation_rows = answer_rows(answer_rev_for(answer), answer, whole, stored_at=utcnow())
    with service.writer() as store, store.transaction():
        store.bulk_insert("answer", [answer_row])
        store.bulk_insert("claim", claim_rows)
        store.bulk_insert("citation", citation_rows)
    expected = json_text(check_answer(service.store, answer, config=config, record=False)).encode("utf-8")
    with service.reader() as store:
        templated = prepare_check(store, replace(answer, answer_id="not stored"), config=config,
                                  audience="internal").report
    assert templated is not None and len(json.loads(expected)["claims"][1].get("parts", [])) != len(
        templated["claims"][1].get("parts", []))  # the stored parts give another report
    body = desk.check_json(answer, config=config, audience="internal")
    assert desk.templates.filled == 1 and body == expected
    with service.reader() as store:
        assert store.scalar("SELECT count(*) FROM claim WHERE answer_rev = ?", [answer_row["answer_rev"]]) == len(
            claim_rows)
        assert store.scalar("SELECT count(*) FROM verification WHERE answer_rev = ?",
                            [answer_row["answer_rev"]]) == len(answer.claims)
