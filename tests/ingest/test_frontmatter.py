"""Front matter, sidecars and metadata validation."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import IngestError
from graphcite.ingest.frontmatter import load_sidecar, normalise_metadata, split_front_matter


def test_split_front_matter_lf() -> None:
    text = "---\ntitle: Retry\nstatus: current\n---\n# Body\n"
    meta, offset = split_front_matter(text, where="a.md")
    assert meta == {"title": "Retry", "status": "current"}
    assert text[offset:] == "# Body\n"


def test_split_front_matter_crlf_and_dots_closer() -> None:
    text = "---\r\ntitle: Retry\r\n...\r\nBody\r\n"
    meta, offset = split_front_matter(text, where="a.md")
    assert meta == {"title": "Retry"}
    assert text[offset:] == "Body\r\n"


def test_empty_front_matter_and_closer_at_end_of_file() -> None:
    assert split_front_matter("---\n---\nBody", where="a.md") == ({}, 8)
    assert split_front_matter("---\ntitle: T\n---", where="a.md") == ({"title": "T"}, 16)


@pytest.mark.parametrize("text", ["# No front matter\n", "--- x\n---\n", "---\n\nA thematic break first.\n",
                                  "text\n---\na: 1\n---\n", ""])
def test_text_without_front_matter(text: str) -> None:
    assert split_front_matter(text, where="a.md") == ({}, 0)


@pytest.mark.parametrize(("text", "said"), [("----\ntitle: x\n---\n", "'----'"),
                                            ("---\ntitle: never closed\n", "no closing")])
def test_metadata_that_is_not_front_matter_is_refused(text: str, said: str) -> None:
    # issue 23 item 2: such a block used to become body text (and its visibility line public)
    with pytest.raises(IngestError, match=said):
        split_front_matter(text, where="a.md")


def test_bad_yaml_names_the_file_line() -> None:
    text = "---\ntitle: ok\nstatus: current\nkind: [decision\nvisibility: public\n---\nbody\n"
    with pytest.raises(IngestError) as caught:
        split_front_matter(text, where="docs/a.md")
    error = caught.value
    assert error.where == "docs/a.md" and error.fix == "fix the YAML"
    assert error.cause.startswith("bad YAML front matter at line ")
    line = int(error.cause.split("line ")[1].split(":")[0])
    assert line in (4, 5, 6)  # the problem is the unclosed list opened on line 4
    assert str(error).startswith("docs/a.md: bad YAML front matter at line")


def test_bad_yaml_tab_indent_line_is_exact() -> None:
    text = "---\ntitle: ok\nlist:\n\t- tab\n---\n"
    with pytest.raises(IngestError, match="at line 4:"):
        split_front_matter(text, where="a.md")


def test_yaml_line_count_ignores_unicode_line_separators() -> None:
    # PyYAML treats U+2028 as a line break; the reported line must use the file's own lines
    text = "---\ntitle: a\u2028b\nkey: [oops\n---\n"
    with pytest.raises(IngestError) as caught:
        split_front_matter(text, where="a.md")
    assert "line 1:" not in caught.value.cause
    assert "at line 4" in caught.value.cause or "at line 3" in caught.value.cause


def test_control_character_in_yaml() -> None:
    with pytest.raises(IngestError, match=r"at line 2: character U\+0001"):
        split_front_matter("---\ntitle: a\x01\n---\n", where="a.md")


@pytest.mark.parametrize("block", ["- a\n- b", "just a string", "42"])
def test_front_matter_must_be_a_mapping(block: str) -> None:
    with pytest.raises(IngestError, match="not a mapping"):
        split_front_matter(f"---\n{block}\n---\nbody\n", where="a.md")


def test_load_sidecar(tmp_path: Path) -> None:
    sidecar = tmp_path / "report.pdf.meta.yaml"
    sidecar.write_text("\ufefftitle: Annual report\nkind: manual\n", encoding="utf-8")
    assert load_sidecar(sidecar) == {"title": "Annual report", "kind": "manual"}
    empty = tmp_path / "empty.meta.yaml"
    empty.write_text("", encoding="utf-8")
    assert load_sidecar(empty) == {}


def test_load_sidecar_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.meta.yaml"
    bad.write_text("title: x\nstatus: [\n", encoding="utf-8")
    with pytest.raises(IngestError, match=r"bad YAML sidecar at line \d") as caught:
        load_sidecar(bad)
    assert caught.value.where == str(bad)
    listed = tmp_path / "list.meta.yaml"
    listed.write_text("- a\n", encoding="utf-8")
    with pytest.raises(IngestError, match="not a mapping"):
        load_sidecar(listed)
    with pytest.raises(IngestError, match="cannot read sidecar"):
        load_sidecar(tmp_path / "missing.meta.yaml")
    latin = tmp_path / "latin.meta.yaml"
    latin.write_bytes("title: caf\xe9\n".encode("latin-1"))
    with pytest.raises(IngestError, match="UTF-8"):
        load_sidecar(latin)


def test_normalise_known_keys() -> None:
    meta = {
        "Title": 2024,
        "status": " Superseded ",
        "effective": "2024-03-01",
        "Superseded-By": "docs/new.md",
        "derived_from": ["a.md", "b.md", ""],
        "quotes": None,
        "implements": [],
        "visibility": "RESTRICTED",
        "kind": "Decision",
        "owner": {"team": "payments"},
        7: "seven",
    }
    assert normalise_metadata(meta, where="a.md") == {
        "title": "2024",
        "status": "superseded",
        "effective": dt.date(2024, 3, 1),
        "superseded_by": ["docs/new.md"],
        "derived_from": ["a.md", "b.md"],
        "visibility": "restricted",
        "kind": "decision",
        "owner": {"team": "payments"},
        "7": "seven",
    }


@pytest.mark.parametrize("value", [dt.date(2023, 1, 2), dt.datetime(2023, 1, 2, 10, 30), "2023-01-02",
                                   "2023-01-02T10:30:00"])
def test_effective_accepts_dates(value: object) -> None:
    assert normalise_metadata({"effective": value}, where="a.md") == {"effective": dt.date(2023, 1, 2)}


@pytest.mark.parametrize(("key", "value", "allowed"), [
    ("status", "maybe", "current, superseded, historical, proposal, rejected, forbidden, draft"),
    ("visibility", "secret", "public, restricted"),
    ("kind", ["memo"], "decision, incident"),
    ("effective", "March 2024", "ISO date"),
    ("effective", 20240301, "ISO date"),
    ("supersedes", {"a": 1}, "source key"),
    ("title", ["a", "b"], "text"),
    ("status", 3, "current"),
])
def test_bad_values_name_key_and_allowed_values(key: str, value: object, allowed: str) -> None:
    with pytest.raises(IngestError) as caught:
        normalise_metadata({key: value}, where="docs/a.md")
    assert caught.value.where == "docs/a.md"
    assert key in caught.value.cause and allowed in caught.value.cause


_VALUES = st.fixed_dictionaries({}, optional={
    "title": st.text(min_size=1, max_size=20).filter(str.strip),
    "status": st.sampled_from(["current", "Draft", "PROPOSAL"]),
    "effective": st.dates(),
    "supersedes": st.one_of(st.text(min_size=1, max_size=10).filter(str.strip),
                            st.lists(st.text(min_size=1, max_size=10).filter(str.strip), max_size=3)),
    "custom": st.integers(),
})


@settings(max_examples=100, deadline=None)
@given(_VALUES, st.sampled_from(["\n", "\r\n"]), st.text(max_size=40))
def test_property_front_matter_round_trip(meta: dict, newline: str, body: str) -> None:
    block = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    text = "---" + newline + block.replace("\n", newline) + "---" + newline + body
    loaded, offset = split_front_matter(text, where="p.md")
    assert text[offset:] == body
    once = normalise_metadata(loaded, where="p.md")
    assert normalise_metadata(once, where="p.md") == once
    assert once.get("effective") == meta.get("effective")
