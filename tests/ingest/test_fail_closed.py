"""Ingest fails closed (issue 23 items 2, 12, 13, 14; issue 25's unknown ``kind:``).

A document that tries to declare its visibility and fails is refused, never stored public; a link
out of the ingested folder is not followed unless asked; one bad file no longer refuses a folder;
a ``!!set`` title is the same on every ingest; a kind outside the vocabulary is kept with a warning.
Real files, a real DuckDB store, the real CLI (in-process and, for hash randomisation, a subprocess).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from faults_corpus import digest, error_lines, invoke, no_traceback

from graphcite.errors import IngestError
from graphcite.ingest import ingest, list_sources
from graphcite.ingest.frontmatter import normalise_metadata, split_front_matter
from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]
BODY = "# Rotation\n\nSigning secrets are rotated every 9 days.\n"

#: (name, file text, words the one error line must contain)
FAILED_DECLARATIONS = [
    ("no-closing", "---\nvisibility: restricted\n\n# Rotation\n\nSigning secrets are rotated every 9 days.\n",
     ["closing", "---"]),
    ("blank-first", "\n---\nvisibility: restricted\n---\n" + BODY, ["first line"]),
    ("four-dashes", "----\nvisibility: restricted\n----\n" + BODY, ["----"]),
    ("four-dash-close", "---\nvisibility: restricted\n----\n" + BODY, ["----"]),
    ("toml", '+++\nvisibility = "restricted"\n+++\n' + BODY, ["+++"]),
    ("misspelt", "---\nvisibilty: restricted\n---\n" + BODY, ["visibilty", "visibility"]),
    ("null", "---\nvisibility: null\n---\n" + BODY, ["visibility", "empty"]),
    ("empty", "---\nvisibility:\n---\n" + BODY, ["visibility", "empty"]),
    ("other-word", "---\naccess: restricted\n---\n" + BODY, ["access", "visibility"]),
]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _visibilities(db: Path) -> dict[str, str]:
    with Store(db) as store:
        return {row["key"]: row["visibility"] for row in list_sources(store)}


# -- item 2: front matter fails closed ------------------------------------------------------------


@pytest.mark.parametrize(("name", "text", "words"), FAILED_DECLARATIONS, ids=[c[0] for c in FAILED_DECLARATIONS])
def test_a_failed_visibility_declaration_is_refused_with_one_line(tmp_path: Path, name: str, text: str,
                                                                    words: list[str]) -> None:
    doc = _write(tmp_path / "docs" / f"{name}.md", text)
    db = tmp_path / "s.duckdb"
    result = invoke(["ingest", str(doc), "--db", str(db)])
    assert no_traceback(result), result.output
    assert result.exit_code == 2, result.output
    lines = error_lines(result)
    assert len(lines) == 1, result.output
    assert f"{name}.md" in lines[0] and all(word in lines[0] for word in words), lines[0]
    assert "(" in lines[0], "the line says how to fix it"
    if db.exists():
        assert _visibilities(db) == {}, "nothing is written"


@pytest.mark.parametrize(("name", "text", "words"), FAILED_DECLARATIONS, ids=[c[0] for c in FAILED_DECLARATIONS])
def test_a_failed_declaration_in_a_folder_never_becomes_public(tmp_path: Path, name: str, text: str,
                                                               words: list[str]) -> None:
    _write(tmp_path / "docs" / f"{name}.md", text)
    _write(tmp_path / "docs" / "fine.md", BODY)
    db = tmp_path / "s.duckdb"
    result = invoke(["ingest", str(tmp_path / "docs"), "--db", str(db)])
    assert no_traceback(result), result.output
    assert result.exit_code == 1, result.output
    assert _visibilities(db) == {"fine.md": "public"}


def test_a_thematic_break_at_the_start_is_still_body_text(store: Store, tmp_path: Path) -> None:
    doc = _write(tmp_path / "break.md", "---\n\nSigning secrets are rotated every 9 days.\n")
    assert split_front_matter(doc.read_text(), where="break.md") == ({}, 0)
    report = ingest(store, [doc])
    assert report.added == ["break.md"]


def test_text_files_that_open_with_front_matter_are_refused(store: Store, tmp_path: Path) -> None:
    doc = _write(tmp_path / "secret.txt", "---\nvisibility: restricted\n---\nSigning secrets rotate every 9 days.\n")
    with pytest.raises(IngestError, match=r"secret\.txt.*sidecar"):
        ingest(store, [doc])
    assert list_sources(store) == []


def test_unknown_keys_warn_naming_the_nearest_known_key(store: Store, tmp_path: Path) -> None:
    _write(tmp_path / "docs" / "a.md", "---\ntitel: Rotation\nstatus: current\n---\n" + BODY)
    _write(tmp_path / "docs" / "b.md", "---\ntitel: Other\n---\n" + BODY.replace("9", "8"))
    report = ingest(store, [tmp_path / "docs"])
    assert sorted(report.added) == ["a.md", "b.md"]
    about = [w for w in report.warnings if "titel" in w]
    assert len(about) == 1, report.warnings
    assert "'title'" in about[0] and "a.md" in about[0] and "b.md" in about[0]


def test_a_pdf_s_own_page_keys_are_not_reported_as_unknown(store: Store, tmp_path: Path) -> None:
    """The PDF reader stores its page count and offsets in the metadata: a first ingest of the bundled PDF
    warns about nothing (it said "'page_starts' is not one graphcite reads ... nearest known key 'status'")."""
    import shutil

    pdf = Path(__file__).resolve().parents[2] / "graphcite" / "examples" / "corpus" / "incidents" / \
        "inc-2024-07-relay-backlog.pdf"
    (tmp_path / "docs").mkdir()
    for path in (pdf, pdf.with_suffix(".meta.yaml")):  # the document and its sidecar, as bundled
        shutil.copy(path, tmp_path / "docs" / path.name)
    report = ingest(store, [tmp_path / "docs"])
    assert report.added == [pdf.name]
    assert report.warnings == []
    meta = json.loads(store.scalar("SELECT metadata_json FROM source_revision"))
    assert meta["pages"] >= 1 and meta["page_starts"][0] == 0  # kept, only not warned about


def test_visibility_spelt_in_capitals_still_counts() -> None:
    assert normalise_metadata({"Visibility": "Restricted"}, where="x.md") == {"visibility": "restricted"}


# -- issue 25: a kind outside the vocabulary ------------------------------------------------------


def test_an_unknown_kind_is_kept_as_written_with_one_warning(tmp_path: Path) -> None:
    for name in ("a", "b"):
        _write(tmp_path / "docs" / f"{name}.md", f"---\nkind: policy\n---\n# {name}\n\nKeys rotate every {name} day.\n")
    db = tmp_path / "s.duckdb"
    result = invoke(["ingest", str(tmp_path / "docs"), "--db", str(db), "--json"])
    assert result.exit_code == 0 and no_traceback(result), result.output
    report = json.loads(result.stdout)
    assert sorted(report["added"]) == ["a.md", "b.md"]
    about = [w for w in report["warnings"] if "policy" in w]
    assert len(about) == 1 and "general" in about[0], report["warnings"]
    with Store(db) as store:
        assert {r["key"]: r["kind"] for r in list_sources(store)} == {"a.md": "policy", "b.md": "policy"}


# -- item 14: a !!set title is deterministic -------------------------------------------------------


def _metadata_in_fresh_process(doc: Path, db: Path, seed: str) -> str:
    code = ("import sys; from graphcite.store import Store; from graphcite.ingest import ingest\n"
            "s = Store(sys.argv[2]); ingest(s, [sys.argv[1]])\n"
            "print(s.rows('SELECT title, metadata_json FROM source_revision')); s.close()")
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-c", code, str(doc), str(db)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_sets_in_front_matter_are_stored_the_same_on_every_ingest(tmp_path: Path) -> None:
    doc = _write(tmp_path / "set.md", "---\ntitle: Rotation\ntags: !!set {alpha, beta, gamma, delta, epsilon}\n"
                 "supersedes: !!set {old-b.md, old-a.md, old-c.md}\n---\n" + BODY)
    stored = {_metadata_in_fresh_process(doc, tmp_path / f"s{seed}.duckdb", str(seed)) for seed in (1, 2, 3)}
    assert len(stored) == 1, stored


def test_a_set_title_is_refused_as_not_text(tmp_path: Path) -> None:
    doc = _write(tmp_path / "set.md", "---\ntitle: !!set {alpha, beta, gamma, delta, epsilon}\n---\n" + BODY)
    lines = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "graphcite", "ingest", str(doc), "--db",
                               str(tmp_path / f"t{seed}.duckdb")], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=300)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
        lines.add(done.stderr.strip())
    assert len(lines) == 1 and "'title' must be text" in lines.pop()


def test_a_set_of_lineage_keys_is_a_sorted_list() -> None:
    assert normalise_metadata({"supersedes": {"b.md", "a.md"}}, where="x.md") == {"supersedes": ["a.md", "b.md"]}


# -- item 12: symbolic links ------------------------------------------------------------------------


def test_a_link_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside" / "secret.md", "# Secret\n\nThe vault code is 4242.\n")
    docs = tmp_path / "docs"
    _write(docs / "fine.md", BODY)
    (docs / "passwd.md").symlink_to(outside)
    (docs / "inner.md").symlink_to(docs / "fine.md")
    db = tmp_path / "s.duckdb"
    result = invoke(["ingest", str(docs), "--db", str(db), "--json"])
    assert result.exit_code == 0 and no_traceback(result), result.output
    report = json.loads(result.stdout)
    assert sorted(report["added"]) == ["fine.md", "inner.md"]
    assert any("passwd.md" in w and "outside" in w and "--follow-symlinks" in w for w in report["warnings"])
    followed = invoke(["ingest", str(docs), "--db", str(db), "--json", "--follow-symlinks"])
    assert followed.exit_code == 0, followed.output
    assert json.loads(followed.stdout)["added"] == ["passwd.md"]


def test_a_link_to_a_folder_outside_is_not_followed(store: Store, tmp_path: Path) -> None:
    _write(tmp_path / "outside" / "secret.md", "# Secret\n\nThe vault code is 4242.\n")
    docs = tmp_path / "docs"
    _write(docs / "fine.md", BODY)
    (docs / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)
    report = ingest(store, [docs])
    assert report.added == ["fine.md"]
    assert any("elsewhere" in w and "outside" in w for w in report.warnings), report.warnings
    report = ingest(store, [docs], follow_symlinks=True)
    assert report.added == ["elsewhere/secret.md"]


def test_a_link_loop_is_reported_as_a_loop(store: Store, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs / "fine.md", BODY)
    (docs / "a.md").symlink_to(docs / "b.md")
    (docs / "b.md").symlink_to(docs / "a.md")
    (docs / "up").symlink_to(docs, target_is_directory=True)
    report = ingest(store, [docs], follow_symlinks=True)
    assert report.added == ["fine.md"]
    loops = [w for w in report.warnings if "loop" in w]
    assert any("a.md" in w for w in loops) and any("up" in w for w in loops), report.warnings
    assert not any("broken" in w for w in report.warnings), report.warnings
    with pytest.raises(IngestError, match="loop"):
        ingest(store, [docs / "a.md"])


# -- item 13: one bad file no longer refuses the folder ---------------------------------------------


def _mixed_folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    _write(docs / "good.md", BODY)
    _write(docs / "also.txt", "Signing secrets are rotated every 9 days.\n")
    _write(docs / "broken.py", "def f(:\n    pass\n")
    _write(docs / "empty.md", "")
    _write(docs / "bad-yaml.md", "---\ntitle: [unclosed\n---\n" + BODY)
    return docs


def test_the_rest_of_a_folder_is_ingested_and_each_refusal_has_its_line(tmp_path: Path) -> None:
    docs = _mixed_folder(tmp_path)
    db = tmp_path / "s.duckdb"
    result = invoke(["ingest", str(docs), "--db", str(db)])
    assert no_traceback(result), result.output
    assert result.exit_code == 1, result.output
    lines = error_lines(result)
    assert len(lines) == 3, result.output
    for name, line in zip(["bad-yaml.md", "broken.py", "empty.md"], lines, strict=True):
        assert name in line, lines
    assert sorted(_visibilities(db)) == ["also.txt", "good.md"]


def test_json_lists_the_refused_files(tmp_path: Path) -> None:
    docs = _mixed_folder(tmp_path)
    result = invoke(["ingest", str(docs), "--db", str(tmp_path / "s.duckdb"), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [r["key"] for r in report["refused"]] == ["bad-yaml.md", "broken.py", "empty.md"]
    assert all(r["code"] == "E301" and r["message"] for r in report["refused"])


def test_nothing_ingested_is_exit_2(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs / "empty.md", "")
    _write(docs / "broken.py", "def f(:\n")
    result = invoke(["ingest", str(docs), "--db", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 2 and no_traceback(result), result.output
    assert len(error_lines(result)) == 2, result.output


def test_strict_refuses_the_whole_folder_and_writes_nothing(tmp_path: Path) -> None:
    docs = _mixed_folder(tmp_path)
    db = tmp_path / "s.duckdb"
    assert invoke(["ingest", str(docs / "good.md"), "--db", str(db)]).exit_code == 0
    before = digest(db)
    result = invoke(["ingest", str(docs), "--db", str(db), "--strict"])
    assert result.exit_code == 2 and no_traceback(result), result.output
    assert len(error_lines(result)) == 1, result.output
    assert digest(db) == before


def test_partial_ingest_with_workers_gives_the_same_rows(tmp_path: Path) -> None:
    docs = _mixed_folder(tmp_path)
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    with Store(one) as store:
        first = ingest(store, [docs], strict=False)
    with Store(two) as store:
        second = ingest(store, [docs], strict=False, jobs=2)
    assert first.refused == second.refused and sorted(first.added) == sorted(second.added) == ["also.txt", "good.md"]


def test_the_library_is_strict_by_default(store: Store, tmp_path: Path) -> None:
    docs = _mixed_folder(tmp_path)
    with pytest.raises(IngestError):
        ingest(store, [docs])
    assert list_sources(store) == []


def test_an_oversized_file_is_one_refusal_among_many(store: Store, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs / "good.md", BODY)
    _write(docs / "big.md", "# Big\n\n" + "word " * 300_000)
    report = ingest(store, [docs], strict=False, max_file_mb=1)
    assert report.added == ["good.md"]
    assert [r["key"] for r in report.refused] == ["big.md"] and "too large" in report.refused[0]["message"]
