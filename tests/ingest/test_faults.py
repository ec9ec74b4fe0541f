"""Hostile and careless input to ingest: one named regression test per kind of fault (issue 12).

Each refused input must be one :class:`IngestError` line naming the file, with nothing written;
each accepted one must be stored exactly.
"""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import IngestError
from graphcite.ingest import ingest, list_sources
from graphcite.ingest.bounds import MAX_UNIT_CHARS, bounded_units, split_span
from graphcite.ingest.files import FoundFile, discover, read_regular_file
from graphcite.ingest.frontmatter import split_front_matter
from graphcite.ingest.lineage import CYCLE_RELATION, supersession_cycles
from graphcite.ingest.prepare import prepare_file
from graphcite.ingest.text import parse as parse_text
from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]


def table_dump(store: Store) -> list[object]:
    """Every row of every table, in a stable order: equal dumps mean an unchanged store."""
    names = sorted(r["table_name"] for r in store.rows(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"))
    return [(name, store.rows(f"SELECT * FROM {name} ORDER BY ALL")) for name in names]


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def refused(store: Store, paths: list[Path | str], match: str, **options: object) -> IngestError:
    """Assert that ingesting ``paths`` is refused with one line matching ``match`` and changes nothing."""
    before = table_dump(store)
    with pytest.raises(IngestError, match=match) as caught:
        ingest(store, paths, **options)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)
    assert table_dump(store) == before
    return caught.value


@pytest.fixture(scope="module")
def seeded_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("seeded")
    with Store(folder / "seeded.duckdb") as opened:
        ingest(opened, [write(folder / "seed.md", "# Seed\n\nThe seed takes 3 s.\n")])
    return folder / "seeded.duckdb"


@pytest.fixture
def seeded(seeded_db: Path, tmp_path: Path) -> Iterator[Store]:
    """A store holding one document, so "nothing written" is checked against real content."""
    copy = tmp_path / "seeded.duckdb"
    shutil.copy(seeded_db, copy)
    with Store(copy) as opened:
        yield opened


# -------------------------------------------------------------------------------------------
# Front matter and sidecar YAML
# -------------------------------------------------------------------------------------------

BAD_DATES = ["2024-02-30", "2024-13-45", "0000-01-01", "2024-01-01 25:00:00", "2024-01-01T10:61:00",
             "2024-01-01T10:00:00+99:00"]


@pytest.mark.parametrize("date", BAD_DATES)
def test_impossible_dates_are_text_until_a_date_key_validates_them(seeded: Store, tmp_path: Path,
                                                                  date: str) -> None:
    # In a key that holds a date, an impossible one is a clear error...
    bad = write(tmp_path / "bad" / "a.md", f"---\neffective: {date}\n---\n# A\n\nBody.\n")
    error = refused(seeded, [bad], "metadata key 'effective'")
    assert error.where == "a.md" and date in error.cause
    # ...and in any other key it is kept as the text it is, not a crash.
    fine = write(tmp_path / "fine" / "b.md", f"---\nnotes: {date}\nreviewed: {date}\n---\n# B\n\nBody.\n")
    ingest(seeded, [fine])
    stored = seeded.scalar("SELECT metadata_json FROM source_revision WHERE source_key = 'b.md'")
    assert f'"notes": "{date}"' in stored


@pytest.mark.parametrize(("block", "problem"), [
    ("a: &a [*a]", "recursive alias"),
    ("a: &a {b: *a}", "recursive alias"),
    ('title: "bad \\ud800 text"', r"lone surrogate U\+D800"),
    ("n: " + "9" * 5000, "integer longer than"),
    ("visibility: restricted\nvisibility: public", "duplicate key 'visibility'"),
    ("owner: {team: a, team: b}", "duplicate key 'team'"),
    ("x: " + "[" * 200 + "]" * 200, "nest"),
])
def test_hostile_yaml_is_one_clear_line(seeded: Store, tmp_path: Path, block: str, problem: str) -> None:
    doc = write(tmp_path / "docs" / "h.md", f"---\n{block}\n---\n# H\n\nBody.\n")
    error = refused(seeded, [doc], problem)
    assert error.where == "h.md"


def billion_laughs(levels: int = 9) -> str:
    names = "abcdefghi"[:levels]
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [{','.join([f'*{previous}'] * 9)}]")
    return "\n".join(lines)


def test_alias_expansion_bomb_is_refused_fast_and_small(seeded: Store, tmp_path: Path) -> None:
    block = billion_laughs()
    assert len(block) < 400  # a few hundred bytes that would expand to 9^9 strings
    doc = write(tmp_path / "docs" / "lol.md", f"---\n{block}\n---\n# Lol\n")
    side = write(tmp_path / "side" / "lol.txt", "Plain text.\n")
    write(tmp_path / "side" / "lol.txt.meta.yaml", block)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    refused(seeded, [doc], "aliases expand to more than")
    refused(seeded, [side], "sidecar.*aliases expand to more than")
    assert time.perf_counter() - started < 5
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown_kb < 200_000


def test_keys_that_mean_the_same_are_duplicates(seeded: Store, tmp_path: Path) -> None:
    doc = write(tmp_path / "d" / "v.md", "---\nvisibility: restricted\nVisibility: public\n---\n# V\n")
    refused(seeded, [doc], "'visibility' is given twice")
    doc = write(tmp_path / "e" / "n.md", "---\n1: a\n'1': b\n---\n# N\n")
    refused(seeded, [doc], "'1' is given twice")


def test_oversized_front_matter_is_refused(seeded: Store, tmp_path: Path) -> None:
    block = "\n".join(f"k{i}: {'x' * 60}" for i in range(17_000))  # just over 1,000,000 characters
    doc = write(tmp_path / "d" / "big.md", f"---\n{block}\n---\n# Big\n")
    refused(seeded, [doc], "limit is 1,000,000")


@pytest.mark.parametrize(("front", "sidecar"), [("restricted", "public"), ("public", "restricted")])
def test_visibility_conflict_takes_the_more_restrictive_and_warns(store: Store, tmp_path: Path,
                                                                 front: str, sidecar: str) -> None:
    folder = tmp_path / "docs"
    write(folder / "memo.md", f"---\nvisibility: {front}\n---\n# Memo\n\nThe budget is 4 GB.\n")
    write(folder / "memo.md.meta.yaml", f"visibility: {sidecar}\n")
    report = ingest(store, [folder])
    assert store.scalar("SELECT visibility FROM source WHERE key = 'memo.md'") == "restricted"
    assert store.scalar("SELECT visibility FROM source_revision WHERE source_key = 'memo.md'") == "restricted"
    [warning] = report.warnings
    assert "memo.md" in warning and "memo.md.meta.yaml" in warning
    assert repr(front) in warning and repr(sidecar) in warning and "more restrictive 'restricted'" in warning


def test_sidecar_that_is_a_fifo_is_refused_without_blocking(seeded: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "report.txt", "Plain text.\n")
    os.mkfifo(folder / "report.txt.meta.yaml")
    refused(seeded, [folder], "sidecar: not a regular file")


# -------------------------------------------------------------------------------------------
# Special files: broken links, devices, FIFOs
# -------------------------------------------------------------------------------------------


def test_broken_symlink_in_a_folder_is_skipped_with_a_warning(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "good.md", "# Good\n\nIt works.\n")
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    report = ingest(store, [folder])
    assert report.added == ["good.md"]
    assert report.warnings == [f"skipped gone.md: broken symbolic link (-> {tmp_path / 'nowhere.md'})"]


def test_device_and_fifo_in_a_folder_are_skipped_not_read(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "good.txt", "Fine text.\n")
    (folder / "z.pdf").symlink_to("/dev/zero")
    os.mkfifo(folder / "f.pdf")
    started = time.perf_counter()
    report = ingest(store, [folder])
    assert time.perf_counter() - started < 10
    assert report.added == ["good.txt"]
    assert sorted(report.warnings) == ["skipped f.pdf: not a regular file (a FIFO)",
                                       "skipped z.pdf: not a regular file (a character device)"]


def test_special_files_given_directly_are_errors(seeded: Store, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.md")
    refused(seeded, [tmp_path / "f.md"], "not a regular file \\(a FIFO\\)")
    refused(seeded, ["/dev/zero"], "not a regular file \\(a character device\\)")
    (tmp_path / "broken.md").symlink_to(tmp_path / "missing.md")
    refused(seeded, [tmp_path / "broken.md"], "broken symbolic link")


@pytest.mark.parametrize("name", ["f.md", "f.txt", "f.html", "f.py", "f.pdf"])
def test_every_reader_checks_for_a_regular_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    os.mkfifo(path)
    found = FoundFile(path=path, key=name, format="text")
    with pytest.raises(IngestError, match="not a regular file"):
        prepare_file(found)
    with pytest.raises(IngestError, match="not a regular file"):
        read_regular_file(Path("/dev/zero"), max_bytes=10, where="z")


# -------------------------------------------------------------------------------------------
# Binary content, sizes, empty paths
# -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["late.md", "late.txt", "late.html", "late.py"])
def test_nul_byte_anywhere_makes_a_text_file_binary(seeded: Store, tmp_path: Path, name: str) -> None:
    body = ("# x = 1\n" * 2000).encode() + b"tail \x00 here\n"  # the NUL sits after the first 8 KB
    assert body.index(b"\x00") > 8192
    path = write(tmp_path / "docs" / name, body)
    error = refused(seeded, [path], "binary file")
    nul = body.index(b"\x00")
    assert f"NUL byte at byte {nul}" in error.cause


def test_empty_path_is_refused(seeded: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "cwd" / "x.md", "# Would be ingested from the current folder\n")
    monkeypatch.chdir(tmp_path / "cwd")
    for empty in ("", "   "):
        refused(seeded, [empty], "empty path")
    refused(seeded, [], "no files or folders given")


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), -float("inf"), 0, -1, 1e-9, True, "10"])
def test_bad_size_limit_is_refused(seeded: Store, tmp_path: Path, limit: object) -> None:
    doc = write(tmp_path / "d" / "a.md", "# A\n")
    error = refused(seeded, [doc], "positive number of MB", max_file_mb=limit)
    assert error.where == "--max-file-mb"


@pytest.mark.parametrize("jobs", [0, -2, True, 1.5])
def test_bad_job_count_is_refused(seeded: Store, tmp_path: Path, jobs: object) -> None:
    refused(seeded, [write(tmp_path / "d" / "a.md", "# A\n")], "worker processes", jobs=jobs)


def test_one_size_limit_in_megabytes_for_every_reader(seeded: Store, tmp_path: Path) -> None:
    # 101 MB (10^6 bytes each) of sparse zeros: over the default limit, so refused for its size...
    sparse = tmp_path / "big" / "sparse.txt"
    sparse.parent.mkdir()
    with sparse.open("wb") as handle:
        handle.truncate(101_000_000)
    refused(seeded, [sparse], r"file too large \(101\.0 MB > 100 MB limit\)")
    # ...while a raised limit lets every reader get as far as reading it (it is binary).
    refused(seeded, [sparse], "binary file", max_file_mb=102)
    # The unit is 10^6 bytes, in the pre-check and in the readers alike.
    exact = write(tmp_path / "d" / "exact.txt", b"x" * 1_000_000)
    ingest(seeded, [exact], max_file_mb=1)
    over = write(tmp_path / "e" / "over.txt", b"x" * 1_000_001)
    refused(seeded, [over], "too large", max_file_mb=1)
    for name in ("a.md", "a.html", "a.py", "a.pdf"):
        path = write(tmp_path / "f" / name, b"x" * 2_000)
        with pytest.raises(IngestError, match="too large"):
            prepare_file(FoundFile(path=path, key=name, format="text"), max_bytes=1_999)


# -------------------------------------------------------------------------------------------
# Corrupt PDFs
# -------------------------------------------------------------------------------------------


def small_pdf() -> bytes:
    from fpdf import FPDF

    document = FPDF()
    document.add_page()
    document.set_font("helvetica", size=12)
    document.multi_cell(0, 6, "The relay retries 3 times within 30 s. " * 10)
    return bytes(document.output())


def test_corrupt_pdf_warnings_are_part_of_the_one_error_line(seeded: Store, tmp_path: Path) -> None:
    data = small_pdf()
    truncated = write(tmp_path / "t" / "cut.pdf", data[: len(data) // 2])
    error = refused(seeded, [truncated], "cannot read PDF")
    assert "PDF reader said:" in error.cause
    damaged = write(tmp_path / "d" / "xref.pdf", data.replace(b"startxref\n", b"startxref\n9"))
    report = ingest(seeded, [damaged])
    assert report.added == ["xref.pdf"]
    assert any(w.startswith("xref.pdf: PDF reader:") for w in report.warnings)


def test_corrupt_pdf_prints_nothing_before_the_error_line(tmp_path: Path) -> None:
    data = small_pdf()
    write(tmp_path / "cut.pdf", data[: len(data) // 2])
    write(tmp_path / "ok" / "xref.pdf", data.replace(b"startxref\n", b"startxref\n9"))
    db = tmp_path / "s.duckdb"
    failed = subprocess.run([sys.executable, "-m", "graphcite", "ingest", str(tmp_path / "cut.pdf"), "--db", str(db)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert failed.returncode == 2
    assert failed.stdout == ""
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "cut.pdf" in lines[0]
    passed = subprocess.run([sys.executable, "-m", "graphcite", "ingest", str(tmp_path / "ok"), "--db", str(db),
                             "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert passed.returncode == 0
    assert "startxref" not in passed.stderr  # the reader's complaint is in the report, not on the terminal


# -------------------------------------------------------------------------------------------
# Lineage: self-supersession and cycles
# -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["supersedes", "superseded_by", "derived_from"])
def test_a_source_naming_itself_is_refused(seeded: Store, tmp_path: Path, key: str) -> None:
    doc = write(tmp_path / "d" / "self.md", f"---\n{key}: [other.md, self.md]\n---\n# Self\n")
    error = refused(seeded, [doc], f"'{key}' names this source itself")
    assert error.where == "self.md"


def current_relations(store: Store) -> set[tuple[str, str, str]]:
    from graphcite.ingest.lineage import current_links

    return {(r["from_key"], r["to_key"], r["relation"]) for r in current_links(store)}


def test_supersession_cycle_is_reported_and_supersedes_nobody(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "a.md", "---\nsupersedes: b.md\n---\n# A\n\nLimit is 5.\n")
    write(folder / "b.md", "---\nsupersedes: a.md\n---\n# B\n\nLimit is 6.\n")
    write(folder / "c.md", "---\nsupersedes: a.md\n---\n# C\n\nLimit is 7.\n")
    report = ingest(store, [folder])
    assert [w for w in report.warnings if "cycle" in w] == [
        "supersession cycle among a.md, b.md: they supersede one another, so none of them is treated as "
        "superseded (fix their supersedes / superseded_by keys)"]
    assert supersession_cycles(store) == [["a.md", "b.md"]]
    assert current_relations(store) == {("a.md", "b.md", CYCLE_RELATION), ("b.md", "a.md", CYCLE_RELATION),
                                        ("c.md", "a.md", "supersedes")}
    # b drops its claim: the cycle is gone, a supersedes b again, and nothing is reported.
    write(folder / "b.md", "# B\n\nLimit is 6.\n")
    report = ingest(store, [folder])
    assert not [w for w in report.warnings if "cycle" in w]
    assert current_relations(store) == {("a.md", "b.md", "supersedes"), ("c.md", "a.md", "supersedes")}


def test_longer_cycle_through_superseded_by(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "x.md", "---\nsupersedes: y.md\n---\n# X\n")
    write(folder / "y.md", "---\nsupersedes: z.md\n---\n# Y\n")
    write(folder / "z.md", "---\nsuperseded_by: y.md\nsupersedes: x.md\n---\n# Z\n")
    report = ingest(store, [folder])
    assert supersession_cycles(store) == [["x.md", "y.md", "z.md"]]
    assert sum("cycle" in w for w in report.warnings) == 1
    assert all(relation == CYCLE_RELATION for _, _, relation in current_relations(store))


# -------------------------------------------------------------------------------------------
# Current pointer after a revert
# -------------------------------------------------------------------------------------------


def test_reverted_file_makes_its_earlier_revision_current_again(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "docs" / "r.md"
    write(path, "# R\n\nThe limit is 1 GB.\n")
    ingest(store, [path])
    first = store.scalar("SELECT current_revision FROM source")
    write(path, "# R\n\nThe limit is 2 GB.\n")
    ingest(store, [path])
    write(path, "# R\n\nThe limit is 1 GB.\n")
    report = ingest(store, [path])
    assert report.reverted == ["r.md"] and report.updated == ["r.md"]
    assert store.scalar("SELECT current_revision FROM source") == first
    assert store.scalar("SELECT count(*) FROM source_revision") == 2  # a pointer, not a new revision
    [listed] = list_sources(store)
    assert (listed["revisions"], listed["current_seq"], listed["current_revision"]) == (2, 1, first)
    write(path, "# R\n\nThe limit is 3 GB.\n")
    ingest(store, [path])
    assert store.scalar("SELECT seq FROM source_revision r JOIN source s ON s.current_revision = r.revision_id") == 3
    assert store.scalar("SELECT previous_revision FROM source_revision WHERE seq = 3") == first


# -------------------------------------------------------------------------------------------
# Bounded units
# -------------------------------------------------------------------------------------------


def test_oversized_paragraph_becomes_bounded_exact_units(store: Store, tmp_path: Path) -> None:
    sentence = "The relay waited 30 seconds for 3 retries on host {i}. "
    text = "".join(sentence.format(i=i) for i in range(3_000))  # one 170,000-character paragraph
    path = write(tmp_path / "docs" / "para.txt", text)
    ingest(store, [path])
    units = store.rows('SELECT start, "end", text FROM evidence_unit ORDER BY ordinal')
    stored = store.scalar("SELECT text FROM source_revision")
    assert len(units) >= len(text) // MAX_UNIT_CHARS
    assert all(stored[u["start"]:u["end"]] == u["text"] for u in units)
    assert all(len(u["text"]) <= MAX_UNIT_CHARS and u["text"].endswith(".") for u in units)
    assert "".join(u["text"] for u in units).replace(" ", "") == text.replace(" ", "")
    bad = store.scalar("""SELECT count(*) FROM typed_value v JOIN evidence_unit u ON u.unit_id = v.unit_id
                          WHERE v.start < u.start OR v."end" > u."end" """)
    assert bad == 0


def test_bounded_units_keep_line_numbers_and_cut_code_at_lines() -> None:
    text = "\r\n".join(f"line {i} has no sentence end" for i in range(2_000))
    doc = parse_text(text, where="x")
    units = bounded_units(text, doc.units, max_chars=1_000)
    assert len(units) > 1
    for unit in units:
        assert text[unit.start:unit.end].startswith("line ")
        assert unit.line_start == text.count("\n", 0, unit.start) + 1
    code = split_span(text, 0, len(text), max_chars=1_000, by_lines=True)
    assert all(text[start:end].endswith("end") for start, end in code)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?\r\n\t\u2028"), max_size=400), st.integers(2, 60),
       st.booleans())
def test_property_split_pieces_are_exact_ordered_and_bounded(text: str, max_chars: int, by_lines: bool) -> None:
    pieces = list(split_span(text, 0, len(text), max_chars=max_chars, by_lines=by_lines))
    previous = 0
    for start, end in pieces:
        assert previous <= start < end <= len(text)
        assert end - start <= max_chars
        piece = text[start:end]
        assert piece == piece.strip() and not piece[0].isspace()
        previous = end
    covered = "".join(text[start:end] for start, end in pieces)
    assert [c for c in covered if not c.isspace()] == [c for c in text if not c.isspace()]


def test_discover_reports_skips_only_when_asked(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder / "a.md", "# A\n")
    (folder / "b.md").symlink_to(folder / "missing.md")
    found, _ = discover([folder])
    assert [f.key for f in found] == ["a.md"]
    notes: list[str] = []
    discover([folder], warnings=notes)
    assert notes and notes[0].startswith("skipped b.md: broken symbolic link")


def test_front_matter_line_numbers_survive_the_strict_loader() -> None:
    text = "---\ntitle: ok\nkind: note\nkind: note\n---\nbody\n"
    with pytest.raises(IngestError, match="at line 4: duplicate key 'kind'"):
        split_front_matter(text, where="a.md")


def test_spilled_rows_match_in_memory_rows_with_and_without_workers(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from graphcite.ingest import prepare

    folder = tmp_path / "docs"
    for i in range(3):
        write(folder / f"d{i}.md", "# D\n\n" + "".join(f"Step {n} takes {n} s and {n + 1} MB.\n\n" for n in range(60)))
    dumps = []
    for name, jobs, memory_rows in (("plain", 1, 100_000), ("spilled", 1, 10), ("workers", 2, 10)):
        monkeypatch.setattr(prepare, "MEMORY_ROWS", memory_rows)
        monkeypatch.setattr(prepare, "_BATCH_ROWS", 4)
        with Store(tmp_path / f"{name}.duckdb") as opened:
            ingest(opened, [folder], jobs=jobs)
            dumps.append([opened.rows(f"SELECT * EXCLUDE (ingested_at) FROM {table} ORDER BY ALL")
                          if table == "source_revision" else opened.rows(f"SELECT * FROM {table} ORDER BY ALL")
                          for table in ("source_revision", "evidence_unit", "typed_value", "term_posting")])
    assert dumps[0] == dumps[1] == dumps[2]
    assert len(dumps[0][2]) > 300
    leftovers = list(Path(tempfile.gettempdir()).glob(f"graphcite-ingest-{os.getpid()}-*"))
    assert leftovers == []


def test_deeply_nested_html_is_refused_before_the_quadratic_parse(seeded: Store, tmp_path: Path) -> None:
    page = write(tmp_path / "d" / "deep.html", "<div>" * 100_000 + "text")  # 20 s in the HTML parser
    started = time.perf_counter()
    error = refused(seeded, [page], "nest more than 512 deep")
    assert time.perf_counter() - started < 5 and error.where == "deep.html"
    wide = write(tmp_path / "e" / "wide.html", ("<div>" * 400 + "<p>Deep 3 s.</p>" + "</div>" * 400) * 50)
    report = ingest(seeded, [wide])
    assert report.added == ["wide.html"] and report.units == 50


def test_a_refusal_inside_a_worker_is_the_same_one_line(seeded: Store, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    for i in range(4):
        write(folder / f"a{i}.md", f"# A{i}\n\nStep {i} takes 3 s.\n")
    write(folder / "bad.md", b"fine at first\x00")
    error = refused(seeded, [folder], "binary file", jobs=2)
    assert error.where == "bad.md"
