"""The support-chain picture: well-formed XML, every edge named in words, hostile text inert."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.etree as etree
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_support import HOSTILE_ANSWER, copy_db, load_answer_json

from graphcite.models import RELATION_DISPLAY
from graphcite.serve.svg import chain_svg, clean_text
from graphcite.store import Store

SVG = "{http://www.w3.org/2000/svg}"
LINEAGE_ANSWER = {"answer_id": "svg-lineage", "claims": [{
    "text": "The relay makes at most five delivery attempts for each event.",
    "citations": [{"source": "posts/2023-06-five-attempts.md",
                   "quote": "Since May the relay makes at most five delivery attempts for each event."}]}]}


@pytest.fixture(scope="module")
def trees(serve_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, Any]]]:
    """Support chains of every claim of the traps answer and of the hostile answer."""
    from graphcite.graph import chain
    from graphcite.verify.check import check_answer

    db = copy_db(serve_db, tmp_path_factory.mktemp("svg"))
    with Store(db) as store:
        found = []
        for answer in (load_answer_json("traps.json"), HOSTILE_ANSWER, LINEAGE_ANSWER):
            report = check_answer(store, answer)
            found += [chain(store, c["claim_id"]) for c in report["claims"]]
        yield found


def parse(svg: str) -> Any:
    return etree.fromstring(svg.encode("utf-8"), parser=etree.XMLParser(resolve_entities=False, no_network=True))


def edges(root: Any) -> list[dict[str, str]]:
    out = []
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "edge":
            path = group.find(f"{SVG}path")
            out.append({"kind": group.get("data-kind"), "title": group.find(f"{SVG}title").text,
                        "dash": path.get("stroke-dasharray") or ""})
    return out


def labels(root: Any) -> list[tuple[str, str]]:
    return [(g.get("data-kind"), "".join(g.find(f"{SVG}text").itertext())) for g in root.iter(f"{SVG}g")
            if g.get("class") == "edge-label"]


def test_every_picture_is_well_formed_and_accessible(trees: list[dict[str, Any]]) -> None:
    for tree in trees:
        root = parse(chain_svg(tree))
        assert root.tag == f"{SVG}svg" and root.get("role") == "img"
        title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
        assert tree["claim_id"] in title.text and "labelled edges" in desc.text
        assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
        found = edges(root)
        assert len(found) == len(labels(root)) >= len(tree["citations"])
        assert all(e["title"] and e["kind"] for e in found)


def test_edges_are_named_in_words_and_not_by_colour_alone(trees: list[dict[str, Any]]) -> None:
    kinds: dict[str, list[str]] = {}
    for tree in trees:
        root = parse(chain_svg(tree))
        for kind, text in labels(root):
            kinds.setdefault(kind, []).append(text)
        for edge in edges(root):
            if edge["kind"] in {"contradicts", "contradicted_by", "superseded_by"}:
                assert edge["dash"], edge  # a line style as well as a colour
    assert any(t.startswith("cites [1]") for t in kinds["cites"])
    against, supports = RELATION_DISPLAY["contradicts"][0], RELATION_DISPLAY["supports"][0]
    assert any("contradicted by" in t and t.startswith(against) for t in kinds["contradicted_by"])
    assert any(t.startswith(f"{against} contradicts") for t in kinds["contradicts"])
    assert any("superseded by" in t and t.startswith("⚠") for t in kinds["superseded_by"])
    assert any(t == f"{supports} supports" for t in kinds["supports"])
    assert {"in revision"} <= set(kinds["in"]) and {"of source"} <= set(kinds["of"])
    assert "derived from" in kinds["lineage"]  # a post up to the decision it derives from


def test_nothing_active_in_the_picture(trees: list[dict[str, Any]]) -> None:
    for tree in trees:
        root = parse(chain_svg(tree))
        for element in root.iter():
            assert etree.QName(element).localname not in {"script", "style", "foreignObject", "a", "image", "use"}
            for name, value in element.attrib.items():
                assert not name.lower().startswith("on") and name != "style" and "href" not in name
                assert "javascript:" not in value


def test_hostile_text_is_escaped_and_bidi_shown(trees: list[dict[str, Any]]) -> None:
    hostile = next(t for t in trees if "hostile" in t["text"])
    svg = chain_svg(hostile)
    root = parse(svg)
    assert "<script" not in svg and "<img" not in svg and "&lt;img" in svg
    all_text = " ".join(root.itertext())
    assert "<img src=x onerror=alert(1)>" in all_text  # shown as the text it is
    tree = copy.deepcopy(hostile)
    tree["text"] = "evil \u202eexe.txt\u202c and \x00\x1b\ufffe controls"
    shown = " ".join(parse(chain_svg(tree)).itertext())
    assert "[U+202E]" in shown and "\u202e" not in shown and "\x00" not in shown


def test_clean_text_keeps_ordinary_text() -> None:
    assert clean_text("Délai de 5 s — “quoted” 数字") == "Délai de 5 s — “quoted” 数字"
    assert clean_text(None) == ""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300), key=st.text(min_size=1, max_size=80), quote=st.text(max_size=200),
       relation=st.sampled_from(["supports", "contradicts", "mentions", "insufficient", "weird<>"]))
def test_any_text_gives_well_formed_svg(trees: list[dict[str, Any]], text: str, key: str, quote: str,
                                        relation: str) -> None:
    tree = copy.deepcopy(trees[0])
    tree["text"] = text
    tree["claim_id"] = key
    for cit in tree["citations"]:
        cit["relation"], cit["quote"], cit["source"] = relation, quote, key
        if cit.get("unit"):
            cit["unit"]["text"] = text + quote
            cit["unit"]["heading_path"] = key
            cit["unit"]["revision"]["source"]["key"] = key
            cit["unit"]["revision"]["source"]["title"] = text
    svg = chain_svg(tree, id_prefix=key)
    root = parse(svg)
    assert root.tag == f"{SVG}svg"
    assert json.dumps(svg)  # text only
