"""Bodies that differ only in their answer id (graphcite.serve.bodies): what the kept form gives is what
reading each body the ordinary way gives, field for field, revision id included; anything else is read
the ordinary way, errors included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphcite.claims.answers import answer_rev_for
from graphcite.claims.formats import DEFAULT_LIMITS, load_answer_text
from graphcite.errors import GraphciteError
from graphcite.serve.bodies import IdlessBodies
from graphcite.serve.jsontext import json_text
from graphcite.serve.service import Service, ServiceSettings
from graphcite.verify.check import prepare_check

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.loads((ROOT / "graphcite" / "examples" / "answers" / "clean.json").read_text(encoding="utf-8"))
#: ids a JSON encoder must escape or keep as they are: quotes, backslash, a line separator, a non-BMP character
IDS = ["first", "second", 'third "quoted" \\ naïve\u2028id', "fourth \U0001f9ea", "fifth", "a-0123456789ab"]


def _body(answer_id: Any, **changes: Any) -> str:
    data = {**CLEAN, **changes}
    if answer_id is not None:
        data = {"answer_id": answer_id, **{k: v for k, v in data.items() if k != "answer_id"}}
    else:
        data.pop("answer_id", None)
    return json.dumps(data)


def _ordinary(text: str) -> Any:
    try:
        answer = load_answer_text(text, limits=DEFAULT_LIMITS, where="body")
    except GraphciteError as exc:
        return type(exc), str(exc)
    return answer, answer_rev_for(answer)


def _kept(bodies: IdlessBodies, text: str) -> Any:
    try:
        return bodies.parse(text, None, None, DEFAULT_LIMITS)
    except GraphciteError as exc:
        return type(exc), str(exc)


def test_new_ids_on_content_seen_before_read_as_the_ordinary_reader_reads_them() -> None:
    bodies = IdlessBodies()
    for number, answer_id in enumerate(IDS):
        text = _body(answer_id)
        assert _kept(bodies, text) == _ordinary(text), answer_id
        assert bodies.reused == max(0, number - 1)  # the form is kept once a second body proved it


@pytest.mark.parametrize("answer_id", ["", "   ", 7, None, ["x"], "bad\x00id"])
def test_a_body_without_a_usable_id_is_read_the_ordinary_way(answer_id: Any) -> None:
    bodies = IdlessBodies()
    for warm in ("one", "two"):
        bodies.parse(_body(warm), None, None, DEFAULT_LIMITS)
    text = _body(answer_id)
    ordinary = _ordinary(text)
    assert _kept(bodies, text) == ordinary
    taken = isinstance(answer_id, str) and not isinstance(ordinary[0], type)  # (no id: the reader makes one)
    assert bodies.reused == (1 if taken else 0)


def test_other_content_other_options_and_broken_bodies_are_not_taken_from_a_kept_form() -> None:
    bodies = IdlessBodies()
    for warm in ("one", "two"):
        bodies.parse(_body(warm), None, None, DEFAULT_LIMITS)
    changed = [{**CLEAN["claims"][0], "text": CLEAN["claims"][0]["text"].replace("five", "six")},
               *CLEAN["claims"][1:]]
    for text in (_body("three", claims=changed), _body("four", question="Another question?"),
                 _body("five")[:-1], _body("six", claims=[{**c, "unknown": 1} for c in CLEAN["claims"]])):
        assert _kept(bodies, text) == _ordinary(text)
    assert bodies.reused == 0
    answer, rev = bodies.parse(_body("seven"), None, ["decisions/dr-017-webhook-retries.md"], DEFAULT_LIMITS)
    assert bodies.reused == 0 and answer.documents == ("decisions/dr-017-webhook-retries.md",)
    assert rev == answer_rev_for(answer)


def test_the_service_reports_new_ids_as_the_library_does(corpus_url: str) -> None:
    service = Service(ServiceSettings(db=corpus_url))
    try:
        desk = service.desk
        assert desk is not None
        config = service.settings.config
        for answer_id in IDS[:4]:
            text = _body(answer_id)
            with service.reader() as store:
                report = prepare_check(store, load_answer_text(text, where="body"), config=config,
                                       audience="internal").report
            body = desk.check_text(text, format=None, documents=None, config=config, audience="internal")
            assert body == json_text(report).encode("utf-8"), answer_id
        assert desk.bodies.reused == 2
    finally:
        service.close()
